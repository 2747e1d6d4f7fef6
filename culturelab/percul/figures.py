"""The paper's figures (and ours), drawn with the shared :mod:`culturelab.plots` style.

Each function takes a tidy table and returns a matplotlib figure; notebooks save them with
``run.savefig``. Paper numbers come from :mod:`culturelab.percul.paper`. Where our models are
drawn, each point, bar or cell shows its n and 95 % CI, the chance level (¼ for four options;
the rules' base rate for distractor shares) is marked, and what rests on fewer than
:data:`~culturelab.plots.MIN_N` stories is faded, hollow or hatched. Each figure declares what it
shows for the figure audit (:func:`culturelab.plots.claim`).

>>> from culturelab.percul import paper
>>> fig = fig4_size(paper.size_points())
>>> fig.axes[0].get_xscale()
'log'
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from culturelab.percul import distractors
from culturelab.percul.data import CATEGORIES, RULE_NAMES, RULES
from culturelab.percul.prompts import category_labels
from culturelab.plots import (
    MIN_N,
    claim,
    footnote,
    grouped_bars,
    heatmap,
    mark_chance,
    mark_reported,
    note_small_n,
    place_legend,
    radar,
    size_vs_score,
    too_few,
)
from culturelab.plots.audit import short_name
from culturelab.plots.honest import SMALL_N
from culturelab.plots.recipe import drawing
from culturelab.plots.style import MARKERS, palette

#: the chance level of a four-option question
CHANCE = 0.25

#: the note under Figure 7 when the paper's bars carry intervals: the paper prints none
PAPER_INTERVALS = ("intervals on the paper's bars are ours, not published: macro ± 1.96·SE, binomial "
                   "approximation from Table 1's category sizes")
#: the note under Figure 6: its whiskers are ours (the paper prints none)
FIG6_INTERVALS = ("whiskers are ours, not published: ± 1.96 binomial SE (Agresti–Coull, from Table 1's category "
                  "sizes; the macro's from the 11 categories')")
#: Figure 8's chance panel: what a model picking a distractor at random where it is wrong would match
CHANCE_RULES = "chance: rules among the distractors of the stories picked from"

SHORT = {"Iconic Figures": "Icon. Figs.", "Visible Behavior": "Vis. Behav.", "Institution": "Instit.",
         "Architecture": "Arch."}


def _human_line(ax: plt.Axes, human: float | None) -> None:
    if human is not None:
        ax.axhline(human, color="#777777", linestyle="--", linewidth=1, label=f"human {human:.3f}")


@drawing
def fig4_size(points: pd.DataFrame, ours: pd.DataFrame | None = None, *, human: float | None = None,
              title: str = "Figure 4 — macro accuracy vs model size", method: str = "") -> plt.Figure:
    """Accuracy vs parameters (log x), one line per family (the paper's); ``ours`` (``family``,
    ``params_b``, ``macro``, and ``model``, ``macro_ci_low``/``macro_ci_high``/``n`` when known) is
    overlaid with hollow markers, dotted lines, 95 % CI whiskers and its n, labelled with the model
    and ``method``; points on fewer than ``MIN_N`` stories have a hollow outline."""
    fig = size_vs_score(points, "params_b", "macro", "family", ylabel="macro accuracy", title=title)
    ax = fig.axes[0]
    mark_reported(ax.lines)
    models = []
    if ours is not None and len(ours):
        for i, (fam, part) in enumerate(ours.sort_values("params_b").groupby("family", sort=False)):
            colour = palette(9)[(i + 5) % 9]
            names = sorted({short_name(str(m)) for m in part["model"]}) if "model" in part else [fam]
            models += list(part["model"].astype(str).unique()) if "model" in part else []
            ax.plot(part["params_b"], part["macro"], linestyle=":", marker=MARKERS[(i + 5) % len(MARKERS)],
                    markerfacecolor="white", color=colour, markersize=6,
                    label=f"{', '.join(names)} (ours{', ' + method if method else ''})")
            if {"macro_ci_low", "macro_ci_high"} <= set(part):
                ax.errorbar(part["params_b"], part["macro"], yerr=[part["macro"] - part["macro_ci_low"],
                                                                   part["macro_ci_high"] - part["macro"]],
                            fmt="none", ecolor=colour, elinewidth=0.8, capsize=2)
            if "n" in part:
                small = too_few(part["n"])
                ax.scatter(part["params_b"][small], part["macro"][small], s=30, facecolors="white",
                           edgecolors=colour, linewidths=1.4, zorder=5, gid=SMALL_N)
                for x, y, n in zip(part["params_b"], part["macro"], part["n"]):
                    ax.annotate(f"n={int(n)}", (x, y), xytext=(4, -9), textcoords="offset points", fontsize=5.5,
                                color="#555555")
                if small.any():
                    note_small_n(fig, MIN_N, what="hollow points")
    mark_chance(ax, CHANCE)
    _human_line(ax, human)
    ax.set_ylim(0, 1)
    place_legend(ax, fontsize=6.5, ncols=2)
    claim(fig, kind="score", chance=CHANCE, model=models, method=method or None)
    return fig


@drawing
def fig5_heatmap(matrix: pd.DataFrame, *, counts: pd.DataFrame | None = None, ci_low: pd.DataFrame | None = None,
                 ci_high: pd.DataFrame | None = None, title: str = "Figure 5 — accuracy per category") -> plt.Figure:
    """Model × category accuracy, cells annotated to 3 decimals; with ``counts`` (stories per
    cell) each cell shows its n (and its 95 % CI where ``ci_low``/``ci_high`` hold one), cells
    on fewer than ``MIN_N`` stories are hatched and chance (¼) is marked on the colour bar. Cells
    with an interval need taller rows and wider columns than the paper's plain shares."""
    m = matrix.rename(columns=SHORT)
    extra = {k: v.rename(columns=SHORT) for k, v in (("counts", counts), ("ci_low", ci_low), ("ci_high", ci_high))
             if v is not None}
    wide = ci_low is not None
    size = ((0.95 if wide else 0.62) * m.shape[1] + 2.6, (0.62 if wide else 0.45 if counts is not None else 0.3)
            * m.shape[0] + 1.4)
    fig = heatmap(m, fmt=".3f", vmin=0, vmax=1, cbar_label="accuracy", title=title, figsize=size,
                  chance=CHANCE if counts is not None else None, **extra)
    fig.axes[0].tick_params(axis="x", rotation=45)
    claim(fig, kind="score", chance=CHANCE if counts is not None else None,
          no_chance=None if counts is not None else "the paper's accuracies alone")
    return fig


@drawing
def fig15_radar(long: pd.DataFrame, *, value: str = "accuracy", series: str = "model", n: str | None = None,
                ci_low: str | None = None, ci_high: str | None = None, chance: float | None = CHANCE,
                title: str = "Figure 15 — per-category accuracy") -> plt.Figure:
    """One polygon per model over the 11 categories (canonical order), radius = accuracy 0–1,
    with the four-option chance level (¼) as a dashed ring (the paper's models and ours alike);
    for our runs pass ``n``, ``ci_low``/``ci_high`` (column names)."""
    cats = [c for c in CATEGORIES if c in set(long["category"].astype(str))]
    t = long.assign(category=long["category"].astype(str).replace(SHORT))
    fig = radar(t, "category", value, series, categories=[SHORT.get(c, c) for c in cats], rmax=1.0, title=title,
                rlabel="accuracy", n=n, ci_low=ci_low, ci_high=ci_high, chance=chance)
    fig.set_size_inches(7.2, 5.0)
    fig.subplots_adjust(left=0.05, right=0.68)
    legend = fig.axes[0].get_legend()  # smaller and a little higher: clear of the axes
    legend.set_bbox_to_anchor((1.12, 1.05))
    for text in legend.get_texts():
        text.set_fontsize(7)
    claim(fig, kind="score" if n else "reported", chance=chance, no_chance=None if chance is not None else "not drawn")
    return fig


@drawing
def fig7_translation(gap: pd.DataFrame, *, title: str = "Figure 7 — Persian vs English (translated)",
                     method: str = "") -> plt.Figure:
    """Paired bars per model (``persian``, ``english`` macro) with 95 % CI whiskers
    (``<split>_ci_low``/``<split>_ci_high``) and n (``n``: stories per split), annotated with
    Δ = en − fa; chance (¼) marked; ``method``, our scoring, is named in the title. The paper's
    models (named ``… (paper)``) are drawn as published; the paper prints no interval, so whiskers
    on their bars are ours (:func:`culturelab.percul.paper.translation_gap`), and a note under the
    figure says so (:data:`PAPER_INTERVALS`)."""
    rows = []
    for _, r in gap.iterrows():
        for split in ("persian", "english"):
            rows.append({"model": r["model"], "split": split, "macro": r[split],
                         "ci_low": r.get(f"{split}_ci_low", np.nan), "ci_high": r.get(f"{split}_ci_high", np.nan),
                         "n": r.get("n", np.nan)})
    long = pd.DataFrame(rows)
    models = [str(m).rsplit(" (ours", 1)[0] for m in gap["model"] if "(ours" in str(m)]
    ours = ", ".join(short_name(m) for m in models)
    fig = grouped_bars(long, "model", "macro", "split", err_low="ci_low", err_high="ci_high", n="n", chance=CHANCE,
                       ylabel="macro accuracy", rotate=25, legend=False,
                       title=f"{title}\nours: {ours}{' by ' + method if method else ''}" if models else title)
    ax = fig.axes[0]
    paper_models = [i for i, m in enumerate(dict.fromkeys(long["model"])) if str(m).endswith("(paper)")]
    for container in ax.containers:
        for i, patch in enumerate(getattr(container, "patches", [])):
            if i in paper_models:
                mark_reported(patch)
    for i, (_, row) in enumerate(gap.iterrows()):
        top = np.nanmax([row["persian"], row["english"], row.get("persian_ci_high", np.nan),
                         row.get("english_ci_high", np.nan)])
        ax.annotate(f"Δ {row['delta']:+.3f}", (i, top + 0.02), ha="center", fontsize=7)
    ax.set_ylim(0, 1.1)
    if paper_models and gap.loc[gap["model"].astype(str).str.endswith("(paper)"),
                                [c for c in ("persian_ci_low", "english_ci_low") if c in gap]].notna().any().any():
        footnote(fig, PAPER_INTERVALS)
    fig.set_size_inches(fig.get_size_inches()[0], 3.8)
    fig.subplots_adjust(bottom=0.4)  # room for the slanted names
    place_legend(ax, ncols=3)
    claim(fig, kind="score" if models else "reported", chance=CHANCE, model=models, method=method or None)
    return fig


@drawing
def fig6_finetune(table: pd.DataFrame, *, title: str = "Figure 6 — Persian fine-tuned models vs their bases"
                  ) -> plt.Figure:
    """Per pair: base vs fine-tuned accuracy per category and macro (one panel per pair), with 95 %
    whiskers (± 1.96 binomial SE: ``base_se`` and ``fine_tuned_se`` of
    :func:`culturelab.percul.paper.finetune_gap`, clipped to [0, 1]) and a note that they are ours
    (:data:`FIG6_INTERVALS`)."""
    pairs = list(dict.fromkeys(table["pair"]))
    fig, axes = plt.subplots(len(pairs), 1, figsize=(7.2, 2.6 * len(pairs)), squeeze=False)
    for ax, pair in zip(axes[:, 0], pairs):
        part = table[table["pair"] == pair]
        long = pd.concat([part.assign(model=m, acc=part[m], se=part[f"{m}_se"]) for m in ("base", "fine_tuned")],
                         ignore_index=True)[["category", "model", "acc", "se"]]
        long = long.assign(category=long["category"].replace(SHORT), ci_low=(long["acc"] - 1.96 * long["se"]).clip(0, 1),
                           ci_high=(long["acc"] + 1.96 * long["se"]).clip(0, 1))
        grouped_bars(long, "category", "acc", "model", err_low="ci_low", err_high="ci_high", ax=ax,
                     ylabel="accuracy", title=pair, rotate=30)
        ax.set_ylim(0, 1)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    footnote(fig, FIG6_INTERVALS)
    claim(fig, kind="reported")
    return fig


def _rule_labels(columns: list[str]) -> list[str]:
    return [f"{r}\n{RULE_NAMES[r].split()[0]}" if r in RULE_NAMES else r for r in columns]


@drawing
def rule_panels(panels: list[dict], *, title: str, side_by_side: bool = False) -> plt.Figure:
    """Several rule-share heatmaps on one colour scale (R1–R6, UA columns), stacked (each with the
    scale's bar, so the columns line up) or side by side (one bar). Each panel is a dict: ``matrix`` (rows × rules), ``title``, and for our numbers
    ``n`` (a Series: what each row rests on — picks, or shown distractors for a base-rate
    reference), ``ci_low``/``ci_high`` (same shape as ``matrix``). Cells of rows with n below
    ``MIN_N`` are hatched; a panel without ``n`` (the paper's published shares) is drawn as printed
    and marked as the paper's (:func:`~culturelab.plots.mark_reported`).
    """
    mats = [p["matrix"].reindex(columns=RULES) for p in panels]
    vmax = max(0.5, *(float(np.nanmax(m.to_numpy())) for m in mats if m.size))
    # rows annotated with an interval and n need about twice the height of a plain row
    heights = [max(len(m), 1) * (2.2 if p.get("n") is not None else 1.0) + 2.0 for p, m in zip(panels, mats)]
    if side_by_side:
        fig, axes = plt.subplots(1, len(panels), figsize=(6.4 * len(panels), 0.3 * max(heights) + 1.4),
                                 squeeze=False)
    else:
        fig, axes = plt.subplots(len(panels), 1, figsize=(7.6, 0.3 * sum(heights) + 1.4), squeeze=False,
                                 gridspec_kw={"height_ratios": heights})
    for i, (ax, panel, m) in enumerate(zip(axes.flat, panels, mats)):
        kw = {}
        if panel.get("n") is not None:
            n = panel["n"].reindex(m.index)
            kw["counts"] = pd.DataFrame(np.repeat(n.to_numpy(dtype=float)[:, None], len(RULES), axis=1),
                                        index=m.index, columns=RULES)
            for key in ("ci_low", "ci_high"):
                if panel.get(key) is not None:
                    kw[key] = panel[key].reindex(index=m.index, columns=RULES)
        labelled = {k: v.set_axis(_rule_labels(RULES), axis=1) for k, v in kw.items()}
        heatmap(m.set_axis(_rule_labels(RULES), axis=1), fmt=".3f", vmin=0, vmax=vmax, ax=ax,
                cbar_label="share", title=panel["title"], cbar=not side_by_side or i == len(panels) - 1, **labelled)
        ax.set_xlabel("")
        ax.set_ylabel("")
        if panel.get("n") is None:
            mark_reported(ax)
        if not side_by_side and i < len(panels) - 1:
            ax.set_xticklabels([])
    fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    return fig


@drawing
def fig16_beside_paper(published: pd.DataFrame, picks: pd.DataFrame | None = None,
                       items: pd.DataFrame | None = None, *, source: str = "", method: str = "") -> plt.Figure:
    """Figure 16: the paper's models (shares as published) and, below on the same scale, ours
    (``picks`` of :func:`~culturelab.percul.distractors.distractor_picks`): each cell with its 95 %
    interval and n (the model's picks), rows on fewer than ``MIN_N`` picks greyed, and a chance
    row — each rule's share among the distractors of the stories the picks come from (``items``'
    rule labels; :func:`~culturelab.percul.distractors.pick_base_rates`), which a model picking a
    distractor at random where it is wrong would match; ``method``, our scoring, is named in the title."""
    panels = [{"matrix": published, "title": f"paper: {len(published)} models (published shares)"}]
    if picks is not None and len(picks):
        ours = distractors.rule_matrix(picks, "model")
        n, low, high = distractors.rule_uncertainty(picks, "model")
        base, shown = distractors.pick_base_rates(picks, items)
        base, shown = base.set_axis(["chance: rule base rate"]), int(shown.sum())
        names = ", ".join(short_name(str(m)) for m in picks["model"].unique())
        panels.append({"matrix": pd.concat([ours, base]),
                       "title": f"ours: {names}{' by ' + method if method else ''} ({source} data, rule labels ours)",
                       "n": pd.concat([n, pd.Series({"chance: rule base rate": shown})]),
                       "ci_low": low, "ci_high": high})
    fig = rule_panels(panels, title="Figure 16 — rules of the distractors models picked")
    if picks is None or not len(picks):
        claim(fig, kind="reported")
        return fig
    claim(fig, kind="score", chance="chance: rule base rate", method=method or None,
          model=sorted(str(m) for m in picks["model"].unique()))
    return fig


@drawing
def fig8_with_base_rates(picks: pd.DataFrame, items: pd.DataFrame, *, pooling: str = "sum_counts",
                         source: str = "", method: str = "") -> plt.Figure:
    """Figure 8 (its values are not in the paper): per category, the rules of the distractors our
    models picked (95 % interval, n picks per category, hatched below ``MIN_N``), and a first row
    with every category pooled (``all categories``: the row with the most picks), beside the chance
    reference — each rule's share among the distractors of the stories the picks come from, per
    category and pooled (:func:`~culturelab.percul.distractors.pick_base_rates`). Intervals of
    ``sum_counts`` are clustered by story (several models' picks on one story are not independent)."""
    shares = distractors.rule_matrix(picks, "category", pooling=pooling)
    n, low, high = distractors.rule_uncertainty(picks, "category", pooling=pooling)
    pooled = picks.assign(pool="all categories")  # its own index: a category index keeps known categories only
    all_n, all_low, all_high = distractors.rule_uncertainty(pooled, "pool", pooling=pooling)
    shares = pd.concat([distractors.rule_matrix(pooled, "pool", pooling=pooling), shares])
    n, low, high = pd.concat([all_n, n]), pd.concat([all_low, low]), pd.concat([all_high, high])
    rates = [distractors.pick_base_rates(pooled, items, "pool"), distractors.pick_base_rates(picks, items, "category")]
    base = pd.concat([r for r, _ in rates]).reindex(shares.index)
    shown = pd.concat([k for _, k in rates])
    models = sorted(str(m) for m in picks["model"].unique())
    fig = rule_panels([{"matrix": shares, "title": f"picked by {', '.join(short_name(m) for m in models)} "
                        f"({method + ', ' if method else ''}{pooling})", "n": n, "ci_low": low, "ci_high": high},
                       {"matrix": base, "title": CHANCE_RULES, "n": shown}],
                      title=f"Figure 8 — rules of the picked distractors per category ({source} data)",
                      side_by_side=True)
    claim(fig, kind="score", chance=CHANCE_RULES, model=models, method=method or None)
    return fig


@drawing
def category_bars(table: pd.DataFrame, *, hue: str = "model", human: float | None = None,
                  title: str = "Accuracy per category", persian_labels: bool = True) -> plt.Figure:
    """Accuracy per category with 95 % CI whiskers (``accuracy``, ``ci_low``, ``ci_high``) and n
    under each bar (``n``; bars on fewer than ``MIN_N`` stories grey), chance (¼) and the human
    baseline; the x labels carry the Persian category word under the English one."""
    fa = category_labels("fa") if persian_labels else {}
    t = table.assign(category=[f"{SHORT.get(c, c)}\n{fa[c]}" if c in fa else SHORT.get(c, c)
                               for c in table["category"].astype(str)])
    fig = grouped_bars(t, "category", "accuracy", hue, err_low="ci_low", err_high="ci_high", ylabel="accuracy",
                       title=title, rotate=35, n="n" if "n" in t else None, chance=CHANCE, legend=False)
    ax = fig.axes[0]
    _human_line(ax, human)
    ax.set_ylim(0, 1.05)
    place_legend(ax, fontsize=7, ncols=2)
    claim(fig, kind="score", chance=CHANCE, method=list(dict.fromkeys(t[hue].astype(str))) if hue == "method" else None)
    return fig


@drawing
def reliability_diagram(bins: pd.DataFrame, *, series: str = "model", title: str = "Reliability diagram",
                        method: str = "log-likelihood") -> plt.Figure:
    """Accuracy vs confidence per bin (marker size ∝ the bin's stories, n = stories written beside each
    point, bins on fewer than ``MIN_N`` stories hollow: the option orders of one story are not
    independent answers; :func:`~culturelab.percul.robustness.reliability_bins`) against the diagonal
    and chance (¼); ``method``, how the confidences were obtained, must be named in ``title``."""
    fig, ax = plt.subplots(figsize=(3.8, 3.6))
    ax.plot([0, 1], [0, 1], color="#999999", linestyle="--", linewidth=1, label="perfect calibration")
    mark_chance(ax, CHANCE)
    names = list(dict.fromkeys(bins[series]))
    small_any = False
    for i, (name, colour) in enumerate(zip(names, palette(len(names)))):
        part = bins[(bins[series] == name) & (bins["n"] > 0)]
        ax.plot(part["confidence"], part["accuracy"], color=colour, marker=MARKERS[i % len(MARKERS)],
                linewidth=1.1, label=str(name), markersize=3)
        ax.scatter(part["confidence"], part["accuracy"], s=12 + 4 * part["n"], color=colour, alpha=0.35)
        small = too_few(part["n"])
        small_any |= bool(small.any())
        ax.scatter(part["confidence"][small], part["accuracy"][small], s=26, facecolors="white",
                   edgecolors=colour, linewidths=1.2, zorder=4, gid=SMALL_N)
        for x, y, n in zip(part["confidence"], part["accuracy"], part["n"]):
            ax.annotate(f"n={int(n)}", (x, y), xytext=(3, -8), textcoords="offset points", fontsize=5,
                        color="#555555")
    if small_any:
        note_small_n(fig, MIN_N, what="hollow bins")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("confidence (max option probability)")
    ax.set_ylabel("accuracy")
    ax.set_title(f"{title} (n = stories)")
    place_legend(ax, fontsize=6.5)
    claim(fig, kind="score", chance=CHANCE, method=method, model=[str(m) for m in names])
    return fig


@drawing
def position_bars(prior: pd.DataFrame, *, title: str = "Where the answers fall", method: str = "") -> plt.Figure:
    """Share of predictions per option position (95 % CI clustered by story) vs the share of
    correct answers there; n under each bar is the model's **stories** (``n_stories``: the orders
    of one story are not independent answers, and the interval rests on the stories), and bars on
    fewer than ``MIN_N`` stories are faded; chance (¼) marked; ``method``, our scoring, in the title."""
    model_rows = prior.assign(series=prior["model"].astype(str), share=prior["predicted_share"],
                              n=prior["n_stories"])
    gold = prior.drop_duplicates("position").assign(series="correct answers", share=prior["answer_share"],
                                                    ci_low=np.nan, ci_high=np.nan, n=prior["n_stories"].max())
    long = pd.concat([model_rows, gold], ignore_index=True)
    fig = grouped_bars(long, "position", "share", "series", err_low="ci_low", err_high="ci_high", n="n",
                       chance=CHANCE, ylabel="share", legend=False,
                       title=f"{title} — {method} (n = stories)" if method else f"{title} (n = stories)")
    ax = fig.axes[0]
    ax.set_xlabel("option position")
    ax.set_ylim(0, max(1.0, float(np.nanmax(long["ci_high"].fillna(long["share"])))) + 0.25)
    place_legend(ax, fontsize=7, ncols=3)
    claim(fig, kind="score", chance=CHANCE, method=method or None, model=sorted(prior["model"].astype(str).unique()))
    return fig

"""The paper's figures (and ours), drawn with the shared :mod:`culturelab.plots` style, for a
notebook and for a paper (:mod:`culturelab.plots.layout`: a 3.3-in column or a 6.9-in text width).

Each function takes a tidy table and returns a matplotlib figure; notebooks save them with
``run.savefig``. Paper numbers come from :mod:`culturelab.percul.paper`. Where our models are
drawn, each point, bar or cell shows its n (stories, or picks for distractor rules) and its 95 %
CI where there is room (else the notebook's table holds it), the chance level (¼ for four options;
the rules' base rate for distractor shares) is marked, the scoring method is named and, for
generated answers (free generation), the share of valid answers; what rests on fewer than
:data:`~culturelab.plots.MIN_N` stories is faded, hollow or hatched. Marks of ours that mostly
rest on fewer are not drawn per category: the figures pool the categories (:func:`carries_signal`)
or leave our panel out, and the notebook shows the table. The paper's published numbers sit in
panels of their own (:func:`~culturelab.plots.mark_reported`), so that a sample-data banner stamps
only ours. Each figure declares what it shows for the figure audit (:func:`culturelab.plots.claim`).

>>> from culturelab.percul import paper
>>> fig = fig4_size(paper.size_points())
>>> fig.axes[0].get_xscale()
'log'
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from culturelab.percul import distractors
from culturelab.percul.data import CATEGORIES, RULE_NAMES, RULES
from culturelab.percul.prompts import category_labels
from culturelab.percul.protocol import CHANCE, method_name
from culturelab.plots import (
    MIN_N,
    claim,
    figsize,
    footnote,
    grouped_bars,
    heatmap,
    mark_chance,
    mark_reported,
    note_small_n,
    place_legend,
    radar,
    shared_legend,
    size_vs_score,
    small_text,
    too_few,
)
from culturelab.plots.audit import short_name
from culturelab.plots.curves import label_points
from culturelab.plots.honest import SMALL_N
from culturelab.plots.layout import current
from culturelab.plots.recipe import drawing
from culturelab.plots.style import MARKERS, palette

#: the method name of the paper's protocol (free generation): its figures show the share of valid answers
GENERATION = method_name("generate")

#: the note under Figure 7 when the paper's bars carry intervals: the paper prints none
PAPER_INTERVALS = ("intervals on the paper's bars are ours, not published: macro ± 1.96·SE, binomial "
                   "approximation from Table 1's category sizes")
#: the note under Figure 7: which way its Δ under the model names runs
DELTA_NOTE = "Δ = English − Persian macro accuracy (negative: lower on the translation)"
#: the note under Figure 6: its whiskers are ours (the paper prints none)
FIG6_INTERVALS = ("whiskers are ours, not published: ± 1.96 binomial SE (Agresti–Coull, from Table 1's category "
                  "sizes; the macro's from the 11 categories')")
#: the chance reference of the distractor-rule figures: each rule's share among the distractors of the
#: stories the picks come from (what a model picking a distractor at random where it is wrong would match)
CHANCE_RULES = "chance: rule base rate"
#: what the chance reference is, under the figures that draw it
CHANCE_RULES_NOTE = (f"{CHANCE_RULES}: each rule's share among the distractors of the stories the picks come "
                     "from (a model picking a distractor at random where it is wrong would match it)")
#: the rules' names, under a figure that labels them R1–R6, UA only
RULES_NOTE = "; ".join(f"{rule} {name.lower()}" for rule, name in RULE_NAMES.items())
#: the share axis of the pooled Figure 8: a model's n counts its picks, the chance series' the distractors shown
PICKS_AXIS = "share (n: picks; chance: distractors shown)"
#: under a figure whose cells leave their intervals out (no room at a paper's size)
INTERVALS_IN_TABLE = "95 % intervals of our cells: in the notebook's table"

SHORT = {"Iconic Figures": "Icon. Figs.", "Visible Behavior": "Vis. Behav.", "Institution": "Instit.",
         "Architecture": "Arch."}


def carries_signal(n: Sequence[float] | pd.Series | np.ndarray, min_n: int = MIN_N) -> bool:
    """Whether marks resting on ``n`` items each say something: at least half of them rest on
    ``min_n`` or more. Fewer, and a figure of them is mostly hatched or faded: pool the groups, or
    leave the marks out and show the table.

    >>> carries_signal([3, 4, 3]), carries_signal([34]), carries_signal([12, 4]), carries_signal([])
    (False, True, True, False)
    """
    arr = np.asarray(n, dtype=float)
    return bool(arr.size) and float((~too_few(arr, min_n)).mean()) >= 0.5


def valid_note(valid: float | None) -> str:
    """What a figure of generated answers says beside their scores: the share of valid answers
    (``None``: not generated, nothing to say).

    >>> valid_note(0.853), valid_note(None)
    ('85 % valid answers', '')
    """
    return "" if valid is None or np.isnan(valid) else f"{valid:.0%} valid answers".replace("%", " %")


def _ours_label(models: Sequence[str], method: str, valid: float | None = None) -> str:
    """``gemma3-270m (option log-likelihood)``: our models, their scoring method and, for generated
    answers, the share of valid ones."""
    names = ", ".join(dict.fromkeys(short_name(str(m)) for m in models))
    details = ", ".join(d for d in (method, valid_note(valid)) if d)
    return f"{names} ({details})" if details else names


def _human_line(ax: plt.Axes, human: float | None) -> None:
    if human is not None:
        ax.axhline(human, color="#777777", linestyle="--", linewidth=1, label=f"human {human:.3f}")


def _n_label(n: float, unit: str = "", invalid_rate: float | None = None) -> str:
    """An n label of ours: ``n=34 stories``, with the share of valid answers where it is known
    (generated answers).

    >>> _n_label(34, "stories", 0.25), _n_label(12)
    ('n=34 stories · 75 % valid answers', 'n=12')
    """
    valid = None if invalid_rate is None or np.isnan(invalid_rate) else 1 - invalid_rate
    return " · ".join(p for p in (f"n={int(n)}{' ' + unit if unit else ''}", valid_note(valid)) if p)


def _size(notebook_width: float, height: float) -> tuple[float, float]:
    """A figure ``notebook_width`` wide on a screen, the final width in a paper; ``height`` as given
    (a drawing computes it for the rendering in force, e.g. from its rows)."""
    return (current().inches or notebook_width, height)


def _panel(notebook: tuple[float, float], paper_height: float) -> tuple[plt.Figure, plt.Axes]:
    """One panel: ``notebook`` inches on a screen; the final width and ``paper_height`` in a paper
    (a panel shrunk to a column with the height of its screen shape leaves the bars no room)."""
    return plt.subplots(figsize=_size(notebook[0], paper_height if current().paper else notebook[1]))


def _legend(ax: plt.Axes, **kwargs: object) -> None:
    """The legend of one panel: where it covers nothing on a screen; above the panel in a paper
    (where a corner of a small panel rarely stays free once the figure is laid out at its final size)."""
    if current().paper:
        shared_legend(ax.figure, [ax])
    else:
        place_legend(ax, **kwargs)


@drawing
def fig4_size(points: pd.DataFrame, ours: pd.DataFrame | None = None, *, human: float | None = None,
              title: str = "Figure 4 — macro accuracy vs model size", method: str = "") -> plt.Figure:
    """Accuracy vs parameters (log x), one line per family (the paper's); ``ours`` (``family``,
    ``params_b``, ``macro``, and ``model``, ``macro_ci_low``/``macro_ci_high``/``n`` when known) is
    overlaid with hollow markers, dotted lines, 95 % CI whiskers and its n (stories), labelled with
    the model and ``method``; for generated answers (``method`` is :data:`GENERATION`) the n label
    also gives the share of valid answers (``invalid_rate``); points on fewer than ``MIN_N``
    stories have a hollow outline."""
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
                invalid = (part["invalid_rate"] if method == GENERATION and "invalid_rate" in part
                           else pd.Series(np.nan, index=part.index))
                for x, y, n, bad in zip(part["params_b"], part["macro"], part["n"], invalid):
                    ax.annotate(_n_label(n, "stories", bad), (x, y), xytext=(4, -9), textcoords="offset points",
                                fontsize=small_text(), color="#555555")
                if small.any():
                    note_small_n(fig, MIN_N, what="hollow points")
    mark_chance(ax, CHANCE)
    _human_line(ax, human)
    ax.set_ylim(0, 1)
    place_legend(ax, fontsize=6.5, ncols=2)
    claim(fig, kind="score", chance=CHANCE, model=models, method=method or None)
    return fig


def _generated_valid(ours: pd.DataFrame, method: str) -> float | None:
    """The share of valid answers behind per-category rows of generated answers (``n``,
    ``invalid_rate``), ``None`` for another method."""
    if method != GENERATION or "invalid_rate" not in ours or not len(ours):
        return None
    return float(1 - np.average(ours["invalid_rate"], weights=ours["n"].clip(lower=1)))


@drawing
def fig5_heatmap(matrix: pd.DataFrame, ours: pd.DataFrame | None = None, *, method: str = "",
                 title: str = "Figure 5 — accuracy per category") -> plt.Figure:
    """Model × category accuracy: the paper's models (``matrix``: Table 5's rows in Figure 5's
    order, as published) in a panel of their own, cells to two decimals, and below them on the same
    scale ``ours`` (rows of :func:`~culturelab.percul.scoring.per_category`: ``model``,
    ``category``, ``accuracy``, ``n``, ``ci_low``/``ci_high``, ``invalid_rate``), each cell with
    its n (stories) and — in the notebook rendering, where there is room — its 95 % interval;
    cells on fewer than ``MIN_N`` stories are hatched. Chance (¼) is marked on the colour bars;
    ``method`` (and, for generated answers, the share of valid ones) is named in our panel's title.
    Pass ``ours`` only where it carries signal (:func:`carries_signal`): a panel of hatched cells
    says nothing (the notebook shows the table instead)."""
    paper_style = current().paper
    m = matrix.reindex(columns=CATEGORIES).rename(columns=SHORT)
    blocks = [(m, {}, f"paper: {len(m)} models (Table 5, as published)")]
    models: list[str] = []
    if ours is not None and len(ours):
        models = list(dict.fromkeys(ours["model"].astype(str)))
        wide = {key: ours.pivot_table(index="model", columns="category", values=key, observed=True)
                .reindex(index=models, columns=CATEGORIES).rename(columns=SHORT)
                for key in ("accuracy", "n", "ci_low", "ci_high") if key in ours}
        extra = {"counts": wide["n"]}
        if not paper_style and "ci_low" in wide:
            extra.update(ci_low=wide["ci_low"], ci_high=wide["ci_high"])
        label = _ours_label(models, method, _generated_valid(ours, method))
        blocks.append((wide["accuracy"].set_axis([short_name(x) for x in models]),
                       {k: v.set_axis([short_name(x) for x in models]) for k, v in extra.items()}, f"ours: {label}"))
    row = 0.16 if paper_style else 0.3
    lines = 2 if paper_style else 3
    heights = [len(block) * (row if not extra else row * lines * 0.9) + 0.35 for block, extra, _ in blocks]
    fig = plt.figure(figsize=_size(0.7 * len(CATEGORIES) + 2.8, sum(heights) + 0.9), layout="constrained")
    axes = fig.subplots(len(blocks), 1, squeeze=False, height_ratios=heights)[:, 0]
    for i, (ax, (block, extra, panel_title)) in enumerate(zip(axes, blocks)):
        heatmap(block, fmt=".2f", vmin=0, vmax=1, cbar_label="accuracy", title=panel_title, ax=ax, chance=CHANCE,
                **extra)
        ax.set_ylabel("")
        ax.tick_params(axis="y", rotation=0)
        if i < len(blocks) - 1:
            ax.set_xticklabels([])
        else:
            ax.tick_params(axis="x", rotation=45)
            plt.setp(ax.get_xticklabels(), ha="right", rotation_mode="anchor")
        if not extra:
            mark_reported(ax)
    fig.suptitle(title)
    if models and paper_style:
        footnote(fig, INTERVALS_IN_TABLE)
    claim(fig, kind="score" if models else "reported", chance=CHANCE, model=models if models else None,
          method=method or None)
    return fig


@drawing
def fig15_radar(long: pd.DataFrame, *, value: str = "accuracy", series: str = "model", n: str | None = None,
                ci_low: str | None = None, ci_high: str | None = None, chance: float | None = CHANCE,
                title: str = "Figure 15 — per-category accuracy", method: str = "") -> plt.Figure:
    """One polygon per model over the 11 categories (canonical order), radius = accuracy 0–1,
    with the four-option chance level (¼) as a dashed ring (the paper's models and ours alike);
    for our runs pass ``n``, ``ci_low``/``ci_high`` (column names) and ``method``, named in the
    title (with the share of valid answers for generated ones: ``invalid_rate``). Draw ours only
    where the categories carry signal (:func:`carries_signal`)."""
    if method:
        note = valid_note(_generated_valid(long, method))
        title = f"{title} ({method}{', ' + note if note else ''})"
    cats = [c for c in CATEGORIES if c in set(long["category"].astype(str))]
    t = long.assign(category=long["category"].astype(str).replace(SHORT))
    fig = radar(t, "category", value, series, categories=[SHORT.get(c, c) for c in cats], rmax=1.0, title=title,
                rlabel="accuracy", n=n, ci_low=ci_low, ci_high=ci_high, chance=chance)
    if not current().paper:  # a screen has room for the legend beside the radar
        fig.set_size_inches(7.2, 5.0)
        fig.subplots_adjust(left=0.05, right=0.68)
        legend = fig.axes[0].get_legend()  # smaller and a little higher: clear of the axes
        legend.set_bbox_to_anchor((1.12, 1.05))
        for text in legend.get_texts():
            text.set_fontsize(7)
    claim(fig, kind="score" if n else "reported", chance=chance, no_chance=None if chance is not None else "not drawn")
    return fig


def _model_and_gap(row: pd.Series) -> str:
    """A Figure 7 group label: the model's name and its gap under it.

    >>> _model_and_gap(pd.Series({"model": "bundled:gemma3-270m (ours)", "delta": -0.05}))
    'gemma3-270m\\nΔ −0.050'
    """
    name = str(row["model"]).rsplit(" (", 1)[0]
    return f"{short_name(name)}\nΔ {row['delta']:+.3f}".replace("Δ -", "Δ −")


@drawing
def fig7_translation(gap: pd.DataFrame, *, title: str = "Figure 7 — Persian vs English (translated)",
                     method: str = "") -> plt.Figure:
    """Paired bars per model (``persian``, ``english`` macro) with 95 % CI whiskers
    (``<split>_ci_low``/``<split>_ci_high``) and n (``n``: stories per split), Δ = en − fa under
    each model's name; chance (¼) marked. The paper's models (named ``… (paper)``) sit in a panel of
    their own, drawn as published — the paper prints no interval, so whiskers on their bars are ours
    (:func:`culturelab.percul.paper.translation_gap`) and a note under the figure says so
    (:data:`PAPER_INTERVALS`); ours (``… (ours)``) in a second panel titled with the model and
    ``method``, our scoring; for generated answers (``method`` is :data:`GENERATION`) each bar's n
    label gives the share of valid answers (``<split>_invalid_rate``)."""
    is_paper = gap["model"].astype(str).str.endswith("(paper)")
    parts = [(rows, reported) for rows, reported in ((gap[is_paper], True), (gap[~is_paper], False)) if len(rows)]
    ours = [str(m).rsplit(" (ours", 1)[0] for m in gap.loc[~is_paper, "model"]]
    fig = plt.figure(figsize=_size(1.6 + 0.9 * len(gap), 2.8 if current().paper else 3.4), layout="constrained")
    axes = fig.subplots(1, len(parts), sharey=True, squeeze=False,
                        width_ratios=[len(r) + (0.5 if reported else 0.8) for r, reported in parts])[0]
    for ax, (rows, reported) in zip(axes, parts):
        long = pd.DataFrame([
            {"model": _model_and_gap(r), "split": split, "macro": r[split], "n": r.get("n", np.nan),
             "ci_low": r.get(f"{split}_ci_low", np.nan), "ci_high": r.get(f"{split}_ci_high", np.nan),
             "valid": 1 - r[f"{split}_invalid_rate"] if method == GENERATION and f"{split}_invalid_rate" in r
             else np.nan}
            for _, r in rows.iterrows() for split in ("persian", "english")])
        panel_title = (f"paper: {len(rows)} models (Table 5 † rows)" if reported else
                       f"ours{': ' + method if method else ''}")
        grouped_bars(long, "model", "macro", "split", err_low="ci_low", err_high="ci_high", n="n", chance=CHANCE,
                     valid="valid" if long["valid"].notna().any() else None, ax=ax, legend=False,
                     ylabel="macro accuracy (n = stories)", title=panel_title,
                     reported=("persian", "english") if reported else ())
        ax.set_ylim(0, 1)
        ax.set_xlabel("")
        if reported:
            mark_reported(ax)
    for ax in axes[1:]:
        ax.set_ylabel("")
    fig.suptitle(title)
    shared_legend(fig, list(axes))
    footnote(fig, DELTA_NOTE)
    if is_paper.any() and gap.loc[is_paper, [c for c in ("persian_ci_low", "english_ci_low") if c in gap]
                                  ].notna().any().any():
        footnote(fig, PAPER_INTERVALS)
    claim(fig, kind="score" if ours else "reported", chance=CHANCE, model=ours, method=method or None)
    return fig


@drawing
def fig6_finetune(table: pd.DataFrame, *, title: str = "Figure 6 — Persian fine-tuned models vs their bases"
                  ) -> plt.Figure:
    """Per pair: base vs fine-tuned accuracy per category and macro (one panel per pair), chance (¼)
    marked, with 95 %
    whiskers (± 1.96 binomial SE: ``base_se`` and ``fine_tuned_se`` of
    :func:`culturelab.percul.paper.finetune_gap`, clipped to [0, 1]) and a note that they are ours
    (:data:`FIG6_INTERVALS`)."""
    from culturelab.plots import panel_grid

    pairs = list(dict.fromkeys(table["pair"]))
    fig, axes = panel_grid(len(pairs), panel=(7.2, 2.6), columns=1, layout="constrained")
    names = {"base": "base model", "fine_tuned": "fine-tuned"}
    for ax, pair in zip(axes, pairs):
        part = table[table["pair"] == pair]
        long = pd.concat([part.assign(model=names[m], acc=part[m], se=part[f"{m}_se"]) for m in names],
                         ignore_index=True)[["category", "model", "acc", "se"]]
        long = long.assign(category=long["category"].replace(SHORT), ci_low=(long["acc"] - 1.96 * long["se"]).clip(0, 1),
                           ci_high=(long["acc"] + 1.96 * long["se"]).clip(0, 1))
        grouped_bars(long, "category", "acc", "model", err_low="ci_low", err_high="ci_high", ax=ax,
                     ylabel="accuracy", title=pair, rotate=30, legend=False, chance=CHANCE)
        ax.set_ylim(0, 1)
        ax.set_xlabel("")
    fig.suptitle(title)
    shared_legend(fig, axes)
    footnote(fig, FIG6_INTERVALS)
    claim(fig, kind="reported", chance=CHANCE)
    return fig


def _rule_labels(columns: Sequence[str]) -> list[str]:
    """The rules' column labels: ``R1`` over its name's first word on a screen; ``R1`` alone in a paper,
    whose caption names the rules (:data:`RULES_NOTE`).

    >>> _rule_labels(["R1", "UA"])
    ['R1\\nPartial', 'UA\\nAnnotator-written']
    """
    if current().paper:
        return list(columns)
    return [f"{r}\n{RULE_NAMES[r].split()[0]}" if r in RULE_NAMES else r for r in columns]


@drawing
def rule_panels(panels: list[dict], *, title: str, side_by_side: bool = False) -> plt.Figure:
    """Several rule-share heatmaps on one colour scale (R1–R6, UA columns), stacked (each with the
    scale's bar, so the columns line up) or side by side (the same rows: their labels once, one
    bar). Each panel is a dict: ``matrix`` (rows × rules), ``title``, and for our numbers ``n`` (a
    Series: what each row rests on — picks, or shown distractors for a base-rate reference),
    ``ci_low``/``ci_high`` (same shape as ``matrix``; written in a cell under its share). Cells of
    rows with n below ``MIN_N`` are hatched; a panel without ``n`` (the paper's published shares)
    is drawn as printed and marked as the paper's (:func:`~culturelab.plots.mark_reported`).
    Row heights follow the lines a cell holds, at the rendering's text size.
    """
    mats = [p["matrix"].reindex(columns=RULES) for p in panels]
    vmax = max(0.5, *(float(np.nanmax(m.to_numpy())) for m in mats if m.size))
    line = 0.105 if current().paper else 0.2  # inches per line of cell text
    heights = [max(len(m), 1) * line * (1 + (p.get("n") is not None) + (p.get("ci_low") is not None)) * 1.25 + 0.3
               for p, m in zip(panels, mats)]
    if side_by_side:
        fig = plt.figure(figsize=_size(6.4 * len(panels), max(heights) + 1.0), layout="constrained")
        axes = fig.subplots(1, len(panels), squeeze=False)[0]
    else:
        fig = plt.figure(figsize=_size(7.6, sum(heights) + 1.0), layout="constrained")
        axes = fig.subplots(len(panels), 1, squeeze=False, height_ratios=heights)[:, 0]
    for i, (ax, panel, m) in enumerate(zip(axes, panels, mats)):
        kw = {}
        if panel.get("n") is not None:
            n = panel["n"].reindex(m.index)
            kw["counts"] = pd.DataFrame(np.repeat(n.to_numpy(dtype=float)[:, None], len(RULES), axis=1),
                                        index=m.index, columns=RULES)
            for key in ("ci_low", "ci_high"):
                if panel.get(key) is not None:
                    kw[key] = panel[key].reindex(index=m.index, columns=RULES)
        labelled = {k: v.set_axis(_rule_labels(RULES), axis=1) for k, v in kw.items()}
        heatmap(m.set_axis(_rule_labels(RULES), axis=1), fmt=".3f" if "ci_low" in kw or "counts" not in kw else ".2f",
                vmin=0, vmax=vmax, ax=ax, cbar_label="share", title=panel["title"],
                cbar=not side_by_side or i == len(panels) - 1, **labelled)
        ax.set_xlabel("")
        ax.set_ylabel("")
        ax.tick_params(axis="y", rotation=0)
        if panel.get("n") is None:
            mark_reported(ax)
        if not side_by_side and i < len(panels) - 1:
            ax.set_xticklabels([])
        if side_by_side and i > 0:
            ax.set_yticklabels([])
    fig.suptitle(title)
    if current().paper:
        footnote(fig, RULES_NOTE)
    return fig


@drawing
def fig16_beside_paper(published: pd.DataFrame, picks: pd.DataFrame | None = None,
                       items: pd.DataFrame | None = None, *, method: str = "", valid: float | None = None
                       ) -> plt.Figure:
    """Figure 16: the paper's models (shares as published) and, below on the same scale, ours
    (``picks`` of :func:`~culturelab.percul.distractors.distractor_picks`): each cell with its 95 %
    interval and n (the model's picks), rows on fewer than ``MIN_N`` picks hatched, and a chance
    row (:data:`CHANCE_RULES`) — each rule's share among the distractors of the stories the picks
    come from (``items``' rule labels; :func:`~culturelab.percul.distractors.pick_base_rates`),
    which a model picking a distractor at random where it is wrong would match; ``method``, our
    scoring, is named in our panel's title, with the share of ``valid`` answers for generated ones."""
    panels = [{"matrix": published, "title": f"paper: {len(published)} models (published shares)"}]
    if picks is not None and len(picks):
        ours = distractors.rule_matrix(picks, "model")
        n, low, high = distractors.rule_uncertainty(picks, "model")
        base, shown = distractors.pick_base_rates(picks, items)
        base, shown = base.set_axis([CHANCE_RULES]), int(shown.sum())
        models = list(picks["model"].astype(str).unique())
        panels.append({"matrix": pd.concat([ours, base]),
                       "title": f"ours: {_ours_label(models, method, valid)}",
                       "n": pd.concat([n, pd.Series({CHANCE_RULES: shown})]), "ci_low": low, "ci_high": high})
    fig = rule_panels(panels, title="Figure 16 — rules of the distractors models picked")
    if picks is None or not len(picks):
        claim(fig, kind="reported")
        return fig
    footnote(fig, CHANCE_RULES_NOTE)
    claim(fig, kind="score", chance=CHANCE_RULES, method=method or None,
          model=sorted(str(m) for m in picks["model"].unique()))
    return fig


def _pooled_rule_bars(picks: pd.DataFrame, items: pd.DataFrame, *, title: str, method: str,
                      valid: float | None) -> plt.Figure:
    """Figure 8 with the categories pooled: per rule, each model's share of its picks (95 %
    interval, n picks) beside the chance reference (the rule's base rate, n distractors shown)."""
    shares = distractors.rule_matrix(picks, "model")
    n, low, high = distractors.rule_uncertainty(picks, "model")
    base, shown = distractors.pick_base_rates(picks, items)
    rows = []
    for model in shares.index:
        label = _ours_label([model], method, valid)
        rows += [{"series": label, "rule": rule, "share": shares.loc[model, rule], "n": n[model],
                  "ci_low": low.loc[model, rule], "ci_high": high.loc[model, rule]} for rule in RULES]
    rows += [{"series": CHANCE_RULES, "rule": rule, "share": base[rule].iloc[0], "n": shown.iloc[0],
              "ci_low": np.nan, "ci_high": np.nan} for rule in RULES]
    long = pd.DataFrame(rows).assign(rule=lambda t: _rule_labels(t["rule"]))
    fig, ax = _panel((7.5, 3.4), 2.6)
    grouped_bars(long, "rule", "share", "series", err_low="ci_low", err_high="ci_high", n="n", legend=False,
                 ylabel=PICKS_AXIS, title=title, ax=ax, ylim=(0, 1))
    ax.set_xlabel("")
    _legend(ax, ncols=1)
    if current().paper:
        footnote(fig, RULES_NOTE)
    return fig


@drawing
def fig8_with_base_rates(picks: pd.DataFrame, items: pd.DataFrame, *, pooling: str = "sum_counts",
                         method: str = "", valid: float | None = None) -> plt.Figure:
    """Figure 8 (its values are not in the paper): the rules of the distractors our models picked,
    beside the chance reference (:data:`CHANCE_RULES`: each rule's share among the distractors of
    the stories the picks come from, :func:`~culturelab.percul.distractors.pick_base_rates`).

    Per category where the categories carry signal (:func:`carries_signal`: at least half of them
    hold ``MIN_N`` picks): two heatmaps side by side (the picks' shares, pooled over models by
    ``pooling``; the chance reference), a first row with every category pooled (``all
    categories``), each cell its share and n (picks; rows below ``MIN_N`` hatched) and, in the
    notebook rendering, its 95 % interval (for ``sum_counts`` clustered by story: several models'
    picks on one story are not independent). Otherwise the categories are pooled: bars per rule,
    one series per model (95 % interval, n picks) and the chance reference. ``method`` (and the
    share of ``valid`` answers, for generated ones) is named in the title or legend."""
    models = sorted(str(m) for m in picks["model"].unique())
    per_category = picks.groupby("category", observed=True).size().reindex(CATEGORIES).dropna()
    heading = "Figure 8 — rules of the picked distractors"
    if not carries_signal(per_category):
        fig = _pooled_rule_bars(picks, items, title=f"{heading}, all {len(per_category)} categories pooled",
                                method=method, valid=valid)
    else:
        shares = distractors.rule_matrix(picks, "category", pooling=pooling)
        n, low, high = distractors.rule_uncertainty(picks, "category", pooling=pooling)
        pooled = picks.assign(pool="all categories")  # its own index: a category index keeps known categories only
        all_n, all_low, all_high = distractors.rule_uncertainty(pooled, "pool", pooling=pooling)
        shares = pd.concat([distractors.rule_matrix(pooled, "pool", pooling=pooling), shares])
        n, low, high = pd.concat([all_n, n]), pd.concat([all_low, low]), pd.concat([all_high, high])
        rates = [distractors.pick_base_rates(pooled, items, "pool"), distractors.pick_base_rates(picks, items, "category")]
        base = pd.concat([r for r, _ in rates]).reindex(shares.index)
        shown = pd.concat([k for _, k in rates])
        intervals = {} if current().paper else {"ci_low": low, "ci_high": high}
        fig = rule_panels([{"matrix": shares, "n": n, **intervals,
                            "title": f"picked by {_ours_label(models, method, valid)}, {pooling}"},
                           {"matrix": base, "title": CHANCE_RULES, "n": shown}],
                          title=f"{heading}, per category", side_by_side=True)
        if current().paper:
            footnote(fig, INTERVALS_IN_TABLE)
    footnote(fig, CHANCE_RULES_NOTE)
    claim(fig, kind="score", chance=CHANCE_RULES, model=models, method=method or None)
    return fig


@drawing
def category_bars(table: pd.DataFrame, macro: pd.DataFrame | None = None, *, hue: str = "model",
                  human: float | None = None, title: str = "Accuracy", persian_labels: bool = True) -> plt.Figure:
    """Accuracy per category with 95 % CI whiskers (``accuracy``, ``ci_low``, ``ci_high``) and n
    under each bar (``n``, stories; bars on fewer than ``MIN_N`` stories faded), chance (¼) and the
    human baseline; the x labels carry the Persian category word under the English one. ``macro``
    (rows of :func:`~culturelab.percul.scoring.summary` per ``hue``) adds a last group, the macro
    accuracy over the categories with its interval. Where the categories do not carry signal
    (:func:`carries_signal`) only that group is drawn. With ``hue="method"`` the methods are named in
    words and bars of generated answers give the share of valid ones beside n (``invalid_rate``)."""
    by_category = carries_signal(table["n"]) or macro is None
    columns = [hue, "accuracy", "ci_low", "ci_high", "n", "invalid_rate"]
    parts = []
    if by_category:
        fa = category_labels("fa") if persian_labels else {}
        order = {c: i for i, c in enumerate(CATEGORIES)}
        ordered = table.sort_values("category", key=lambda c: c.astype(str).map(order), kind="stable")
        parts.append(ordered.assign(group=[f"{SHORT.get(c, c)}\n{fa[c]}" if c in fa else SHORT.get(c, c)
                                           for c in ordered["category"].astype(str)]))
    if macro is not None and len(macro):
        k = int(macro["n_categories"].max()) if "n_categories" in macro else len(CATEGORIES)
        parts.append(macro.rename(columns={"macro": "accuracy", "macro_ci_low": "ci_low", "macro_ci_high": "ci_high"})
                     .assign(group=f"macro\n({k} categories)"))
    groups = pd.concat([p[["group", *[c for c in columns if c in p]]] for p in parts], ignore_index=True)
    if hue == "method":
        generated = groups[hue].astype(str) == "generate"
        if "invalid_rate" in groups:
            groups = groups.assign(valid=(1 - groups["invalid_rate"]).where(generated))
        groups = groups.assign(method=groups[hue].astype(str).map(method_name))
    valid = "valid" if "valid" in groups and groups["valid"].notna().any() else None
    where = "per category" if by_category else "macro over the categories (too few stories per category)"
    fig, ax = _panel((min(11.0, 0.5 * groups["group"].nunique() * groups[hue].nunique() + 2.0), 3.4),
                     2.8 if by_category else 2.4)
    grouped_bars(groups, "group", "accuracy", hue, err_low="ci_low", err_high="ci_high", n="n", valid=valid, ax=ax,
                 ylabel="accuracy (n = stories)", title=f"{title}: {where}", rotate=35 if by_category else 0,
                 chance=CHANCE, legend=False)
    ax.set_xlabel("")
    _human_line(ax, human)
    ax.set_ylim(0, 1)
    _legend(ax, fontsize=7, ncols=2)
    claim(fig, kind="score", chance=CHANCE,
          method=list(dict.fromkeys(groups[hue].astype(str))) if hue == "method" else None)
    return fig


@drawing
def reliability_diagram(bins: pd.DataFrame, *, series: str = "model", title: str = "Reliability diagram",
                        method: str = "log-likelihood") -> plt.Figure:
    """Accuracy vs confidence per bin (marker size ∝ the bin's stories, n = stories written beside each
    point, bins on fewer than ``MIN_N`` stories hollow: the option orders of one story are not
    independent answers; :func:`~culturelab.percul.robustness.reliability_bins`) against the diagonal
    and chance (¼); ``method``, how the confidences were obtained, must be named in ``title``."""
    fig, ax = plt.subplots(figsize=figsize(3.8, 3.6))
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
    if small_any:
        note_small_n(fig, MIN_N, what="hollow bins")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    shown = bins[bins["n"] > 0]  # n beside each point, clear of the lines that run through it
    label_points(ax, shown["confidence"], shown["accuracy"], [f"n={int(n)}" for n in shown["n"]],
                 fontsize=small_text(5.0), color="#555555")
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
    fewer than ``MIN_N`` stories are faded; chance (¼) marked; ``method``, our scoring, in the title.
    Shares stay on a [0, 1] axis: the legend goes where it covers no bar, or above the panel."""
    model_rows = prior.assign(series=prior["model"].astype(str), share=prior["predicted_share"],
                              n=prior["n_stories"])
    gold = prior.drop_duplicates("position").assign(series="correct answers", share=prior["answer_share"],
                                                    ci_low=np.nan, ci_high=np.nan, n=prior["n_stories"].max())
    long = pd.concat([model_rows, gold], ignore_index=True)
    fig, ax = _panel((5.5, 3.0), 2.4)
    grouped_bars(long, "position", "share", "series", err_low="ci_low", err_high="ci_high", n="n", ax=ax,
                 chance=CHANCE, ylabel="share of the answers", legend=False, ylim=(0, 1),
                 title=f"{title} — {method} (n = stories)" if method else f"{title} (n = stories)")
    ax.set_xlabel("option position")
    _legend(ax, fontsize=7, ncols=3)
    claim(fig, kind="score", chance=CHANCE, method=method or None, model=sorted(prior["model"].astype(str).unique()))
    return fig

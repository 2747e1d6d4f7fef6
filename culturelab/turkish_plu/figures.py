"""Multi-panel figures of the Turkish PLU notebooks, drawn with the shared :mod:`culturelab.plots`
functions (one style for the whole project).

>>> import pandas as pd
>>> c = pd.DataFrame({"n_steps": [3, 5, 5, 8], "is_ordered": [0, 1, 1, 1]})
>>> len(steps_histogram(c).axes)
1
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from culturelab.plots import apply_style, claim, grouped_bars, heatmap, palette, place_legend, radar
from culturelab.plots.curves import valid_answer_curves
from culturelab.plots.recipe import drawing
from culturelab.turkish_plu.data import CATEGORY_ORDER, TASK_NAMES
from culturelab.turkish_plu.reordering import MAX_STEPS, MIN_STEPS

#: the one legend entry of the chance lines of the Table 6 panels (each panel's own level)
CHANCE_LABEL = "chance: 1/options (the paper's Random row)"


@drawing
def category_radar(profile: pd.DataFrame) -> plt.Figure:
    """Radar of :func:`culturelab.turkish_plu.corpus.category_profile` (each feature scaled to its
    maximum over categories; spokes = categories)."""
    cats = [c for c in CATEGORY_ORDER if c in set(profile["category"])]
    fig = radar(profile, "category", "scaled", "feature", categories=cats, rmax=1.05,
                title="Original Turkish wikiHow, per category\n(each feature ÷ its maximum)")
    claim(fig, kind="data")
    return fig


@drawing
def steps_histogram(corpus: pd.DataFrame) -> plt.Figure:
    """Steps per method, ordered vs unordered methods (the paper's orderliness classifier)."""
    import seaborn as sns

    apply_style()
    fig, ax = plt.subplots(figsize=(4.6, 3.0))
    data = corpus.assign(kind=corpus["is_ordered"].map({1: "ordered", 0: "unordered"}).fillna("unknown"))
    sns.histplot(data, x="n_steps", hue="kind", discrete=True, multiple="stack", ax=ax,
                 palette=palette(data["kind"].nunique()), edgecolor="white", linewidth=0.3)
    ax.axvspan(MIN_STEPS - 0.5, MAX_STEPS + 0.5, color="#999999", alpha=0.12, linewidth=0)
    ax.text(MAX_STEPS + 1.2, ax.get_ylim()[1] * 0.5, f"shaded: {MIN_STEPS}–{MAX_STEPS} steps\n(the reordering set)",
            ha="left", fontsize=7)
    ax.set_xlabel("steps per method")
    ax.set_ylabel("methods")
    claim(fig, kind="data")
    return fig


def _llm_title(title: str, model: str | None) -> str:
    return f"{title} — llm: {model}, zero-shot option log-likelihood" if model else f"{title} (no LM run)"


def legend_above(fig: plt.Figure, ax: plt.Axes, title: str, ncols: int = 4) -> None:
    """The legend of ``ax``, shared by every panel of ``fig``, between the title and the panels:
    anchored in figure coordinates above the laid-out panels (a legend anchored to the figure's
    edge moves with it when ``savefig`` cuts the figure to what is drawn, onto the caption), the
    panels laid out below it.

    >>> fig, axes = plt.subplots(1, 2); _ = axes[0].plot([1, 2], label="ours"); legend_above(fig, axes[0], "t")
    >>> from culturelab.plots import audit
    >>> r = audit.renderer_of(fig)
    >>> bool(fig.legends[0].get_window_extent(r).y0 >= max(a.get_tightbbox(r).y1 for a in axes) - 1)
    True
    >>> plt.close(fig)
    """
    from culturelab.plots import audit

    handles, labels = ax.get_legend_handles_labels()
    legend = fig.legend(handles, labels, loc="lower center", ncols=min(len(labels), ncols), frameon=False, fontsize=7,
                        bbox_to_anchor=(0.5, 0.0), bbox_transform=fig.transFigure)
    heading = fig.suptitle(title, fontsize=9, y=0.995, va="top")
    renderer = audit.renderer_of(fig)
    height, gap = fig.bbox.height, 0.05 * fig.dpi
    tall = legend.get_window_extent(renderer).height
    fig.tight_layout(rect=(0, 0, 1, 1 - (tall + heading.get_window_extent(renderer).height + 2 * gap) / height))
    renderer = audit.renderer_of(fig)
    top = max(a.get_tightbbox(renderer).y1 for a in fig.axes) + gap  # the panels' top, titles included
    legend.set_bbox_to_anchor((0.5, top / height), transform=fig.transFigure)
    heading.set(y=(top + tall + gap) / height, va="bottom")


@drawing
def accuracy_panels(acc: pd.DataFrame, reported: pd.DataFrame, tasks: Sequence[str], *,
                    model: str | None = None) -> plt.Figure:
    """One panel per task: our methods' accuracy (%, 95 % CI, n under each bar, bars on fewer than 10
    items faded) as bars, the panel's chance (``acc["chance"]``: 25, step ordering 50 — the paper's
    Random row) dotted, the paper's BERTurk ZS/FT as horizontal lines; one shared legend above the
    panels; ``model``, the LM behind the ``llm`` methods, named in the title."""
    apply_style()
    tasks = list(tasks)
    fig, axes = plt.subplots(1, len(tasks), figsize=(2.9 * len(tasks) + 0.6, 3.6), squeeze=False)
    styles = {"paper BERTurk ZS (random head)": ("BERTurk ZS", "--"), "paper BERTurk FT": ("BERTurk FT", "-")}
    for ax, task in zip(axes[0], tasks):
        part = acc[acc["task"] == task].assign(acc=lambda d: 100 * d["accuracy"], lo=lambda d: 100 * d["ci_low"],
                                               hi=lambda d: 100 * d["ci_high"], task_name=TASK_NAMES[task])
        grouped_bars(part, "task_name", "acc", "method", err_low="lo", err_high="hi", ax=ax, ylabel="accuracy (%)",
                     n="n", chance=100 * float(part["chance"].iloc[0]), legend=False)
        for line in ax.lines:  # each panel's own chance, one legend entry for all
            if line.get_label().startswith("chance"):
                line.set_label(CHANCE_LABEL)
        for label, (paper_model, ls) in styles.items():
            v = reported.loc[(reported["task"] == task) & (reported["model"] == paper_model), "value"]
            if len(v):
                ax.axhline(float(v.iloc[0]), color="#444444", linestyle=ls, linewidth=1.1, label=label)
        ax.set_ylim(0, 100)
        ax.set_xlabel("")
        if ax is not axes[0][0]:
            ax.set_ylabel("")
    legend_above(fig, axes[0][0], _llm_title("Table 6 — accuracy per task", model))
    claim(fig, kind="score", chance=[100 * float(c) for c in acc["chance"].dropna().unique()],
          model=[model] if model else [], method=list(dict.fromkeys(acc["method"])))
    return fig


@drawing
def category_panels(acc: pd.DataFrame, tasks: Sequence[str] = ("si", "nep"), *, model: str | None = None
                    ) -> plt.Figure:
    """Per-category accuracy (%, 95 % CI, n under each bar, bars on fewer than 10 items faded) of each
    method, one panel per task, chance (4 options) dotted; the item count of each category is in its
    label; ``model`` (the LM behind the ``llm`` methods) in the title."""
    apply_style()
    fig, axes = plt.subplots(len(tasks), 1, figsize=(7.0, 2.5 * len(tasks) + 0.5), squeeze=False)
    for ax, task in zip(axes[:, 0], tasks):
        part = acc[acc["task"] == task].copy()
        items = part.groupby("category")["n"].max()
        order = [c for c in CATEGORY_ORDER if c in set(part["category"])]
        part["category"] = pd.Categorical(part["category"], order)
        part = part.sort_values("category").assign(acc=lambda d: 100 * d["accuracy"], lo=lambda d: 100 * d["ci_low"],
                                                   hi=lambda d: 100 * d["ci_high"])
        part["category"] = [f"{c}\n(n={items.get(c, 0)})" for c in part["category"].astype(str)]
        grouped_bars(part, "category", "acc", "method", err_low="lo", err_high="hi", ax=ax,
                     ylabel="accuracy (%)", title=TASK_NAMES[task], n="n", chance=25.0, legend=False)
        ax.set_ylim(0, 100)
        ax.set_xlabel("")
    legend_above(fig, axes[0, 0], _llm_title("Accuracy per category", model))
    claim(fig, kind="score", chance=25.0, model=[model] if model else [], method=list(dict.fromkeys(acc["method"])))
    return fig


@drawing
def reorder_curves(scored: pd.DataFrame, random: pd.DataFrame, hue: str = "method", *,
                   hue_order: Sequence[str] | None = None) -> plt.Figure:
    """ρ, τ, LD and adjacent-pair accuracy against the number of steps from the valid answers
    (n per point), one line per ``hue`` (the methods, named in the legend), the random-order
    expectation (``random``: long form, ``n_steps, metric, value``) dotted (the chance reference);
    the last panel the share of valid answers (:func:`culturelab.plots.curves.valid_answer_curves`);
    the models of ``scored`` (its ``model`` column, ``baseline`` rows aside) in the title."""
    names = {"rho": "Spearman ρ", "tau": "Kendall τ", "ld": "Levenshtein distance", "pair_acc": "adjacent-pair accuracy"}
    wide = random.pivot_table(index="n_steps", columns="metric", values="value").reset_index()
    # the full range, so that noise around the random line is not magnified
    limits = {"rho": (-1.05, 1.05), "tau": (-1.05, 1.05), "pair_acc": (-0.03, 1.05)}
    models = [m for m in dict.fromkeys(scored.get("model", pd.Series(dtype=str)).astype(str)) if m != "baseline"]
    title = (f"Step ordering vs number of steps — {', '.join(models)}, valid answers only" if models
             else "Step ordering vs number of steps (no LM run)")
    fig = valid_answer_curves(scored, "n_steps", names, hue=hue, baseline=wide, hue_order=hue_order, ylims=limits,
                              xlabel="number of steps", title=title)
    present = set(scored[hue].astype(str))
    claim(fig, kind="score", chance="random", model=models,
          method=[h for h in (hue_order if hue_order is not None else dict.fromkeys(scored[hue].astype(str)))
                  if h in present])
    return fig


@drawing
def recall_bars(table: pd.DataFrame, pool_size: int, *, title: str = "Linking actions: gold goal in the top n",
                candidates: str = "titles") -> plt.Figure:
    """R@n (%) of each retriever or reranker (``system``), ours with 95 % CIs, n under each bar; the
    chance level of each R@n among the ``pool_size`` ``candidates`` each step is ranked against (the
    full pool, or a reranker's list: 100 · n / ``pool_size``) as a dotted tick. An interval that
    rounding puts a hair past its value (a constant per-query score: every step ties the same way)
    is clipped to it.

    >>> t = pd.DataFrame({"system": "x", "metric": ["R@1"], "value": [1 / 3], "ci_low": [1 / 3 + 1e-16],
    ...                   "ci_high": [1 / 3], "n": [30]})
    >>> len(recall_bars(t, 30).axes)
    1
    """
    table = table.assign(ci_low=np.minimum(table["ci_low"], table["value"]),  # NaN (the paper's rows) stays NaN
                         ci_high=np.maximum(table["ci_high"], table["value"]))
    fig = grouped_bars(table, "metric", "value", "system", err_low="ci_low", err_high="ci_high", n="n",
                       ylabel="recall (%)", title=title, legend=False)
    ax = fig.axes[0]
    for x, metric in enumerate(dict.fromkeys(table["metric"])):
        k = int(str(metric).removeprefix("R@"))
        ax.hlines(100 * k / pool_size, x - 0.45, x + 0.45, colors="#555555", linestyles=":", linewidth=1.1,
                  label=f"chance ({pool_size:,} {candidates})" if x == 0 else None)
    ax.set_ylim(0, 100)
    place_legend(ax, fontsize=6, ncols=2)
    systems = list(dict.fromkeys(table["system"].astype(str)))
    claim(fig, kind="score", chance=[100 * k / pool_size for k in (int(str(m).removeprefix("R@"))
                                                                    for m in dict.fromkeys(table["metric"]))],
          model=[], method=systems)
    return fig


@drawing
def rouge_panels(table: pd.DataFrame, tokenizers: Sequence[str]) -> plt.Figure:
    """Mean ROUGE (×100, 95 % CI, n per bar when ``table`` has it) of each system, one panel per
    tokenizer variant, shared y axis; ROUGE has no chance level."""
    apply_style()
    fig, axes = plt.subplots(1, len(tokenizers), figsize=(4.6 * len(tokenizers), 3.4), squeeze=False)
    top = float(table["ci_high"].max(skipna=True) if table["ci_high"].notna().any() else table["value"].max())
    for ax, tok in zip(axes[0], tokenizers):
        part = table[table["tokenizer"] == tok]
        grouped_bars(part, "metric", "value", "system", err_low="ci_low", err_high="ci_high", ax=ax,
                     ylabel="F1 × 100", title=f"ROUGE, {tok}", n="n" if "n" in part else None, legend=False)
        ax.set_ylim(0, max(top, 1.0) * 1.08)
    legend_above(fig, axes[0, 0], "Summarization: mean ROUGE per system")
    systems = list(dict.fromkeys(table["system"].astype(str)))
    claim(fig, kind="score", no_chance="ROUGE has no chance level", method=systems,
          model=[s.removeprefix("zero-shot ") for s in systems if s.startswith("zero-shot ")])
    return fig


@drawing
def token_damage(loss: pd.DataFrame, what: str = "Turkish step headlines") -> plt.Figure:
    """How many words of each text ``rouge_score``'s default tokenizer (the paper's ROUGE) damages:
    a histogram of :func:`culturelab.turkish_plu.summarization.token_loss`'s
    ``damaged_word_share`` over the texts (``what`` they are, with their count, in the title), its
    mean dashed.

    >>> from culturelab.turkish_plu.summarization import token_loss
    >>> fig = token_damage(token_loss(["Güç düğmesine bas.", "Kağıdı koy.", "Bas."]))
    >>> fig.axes[0].get_xlabel()
    'share of the words that lose a letter (ç ğ ı ö ş ü …)'
    >>> plt.close(fig)
    """
    import seaborn as sns

    apply_style()
    fig, ax = plt.subplots(figsize=(4.8, 3.0))
    shares = loss["damaged_word_share"]
    sns.histplot(x=shares, bins=[i / 10 for i in range(11)], ax=ax, color=palette(1)[0], edgecolor="white",
                 linewidth=0.3)
    ax.axvline(float(shares.mean()), color="#333333", linestyle="--", linewidth=1.1,
               label=f"mean {shares.mean():.2f}")
    ax.set_xlabel("share of the words that lose a letter (ç ğ ı ö ş ü …)")
    ax.set_ylabel("texts")
    ax.set_title(f"rouge_score's default tokenizer on {len(loss):,} {what}", fontsize=9)
    place_legend(ax, fontsize=7)
    claim(fig, kind="data")
    return fig


@drawing
def heatmap_panels(matrices: dict[str, pd.DataFrame], *, fmt: str = ".2f", vmax: float | None = 1.0,
                   cbar_label: str = "share of items", chance: float | None = None, title: str = "",
                   model: str | None = None) -> plt.Figure:
    """Several annotated heatmaps side by side (one per method, the keys of ``matrices``, as panel
    titles). A matrix of row shares with ``attrs["n"]`` (items per row) shows n in each cell and
    hatches rows of fewer than 10 items; ``chance`` is marked on the colour bar; ``title`` and
    ``model`` (the LM behind the ``llm`` methods) make the figure's title."""
    from culturelab.turkish_plu.distractors import row_counts

    apply_style()
    n = len(matrices)
    label_width = 0.055 * max(len(str(r)) for m in matrices.values() for r in m.index)
    width = sum(max(2.6, 0.62 * m.shape[1] + 1.0 + label_width) for m in matrices.values())
    height = max(2.6, 0.36 * max(m.shape[0] for m in matrices.values()) + 1.5)
    fig, axes = plt.subplots(1, n, figsize=(width, height), squeeze=False)
    for i, (ax, (title, m)) in enumerate(zip(axes[0], matrices.items())):
        counts = row_counts(m, pd.Series(m.attrs["n"])) if "n" in m.attrs else None
        heatmap(m, ax=ax, title=title, fmt=fmt, vmin=0, vmax=vmax, cbar_label=cbar_label if i == n - 1 else None,
                counts=counts, chance=chance)
        ax.tick_params(axis="x", labelrotation=45)
        if i:
            ax.set_ylabel("")
    fig.suptitle(_llm_title(title, model) if title else (f"llm: {model}" if model else "no LM run"), fontsize=9)
    fig.tight_layout()
    claim(fig, kind="score", chance=chance, no_chance=None if chance is not None else "shares of a confusion",
          model=[model] if model else [], method=list(matrices))
    return fig

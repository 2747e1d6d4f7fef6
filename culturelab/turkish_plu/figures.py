"""Multi-panel figures of the Turkish PLU notebooks, drawn with the shared :mod:`culturelab.plots`
functions (one style for the whole project).

>>> import pandas as pd
>>> c = pd.DataFrame({"n_steps": [3, 5, 5, 8], "is_ordered": [0, 1, 1, 1]})
>>> len(steps_histogram(c).axes)
1
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from culturelab.plots import (
    apply_style,
    audit,
    claim,
    figsize,
    grouped_bars,
    heatmap,
    palette,
    panel_grid,
    place_legend,
    radar,
    shared_legend,
)
from culturelab.plots.curves import valid_answer_curves
from culturelab.plots.layout import current
from culturelab.plots.recipe import drawing
from culturelab.turkish_plu.data import CATEGORY_ORDER, TASK_NAMES
from culturelab.turkish_plu.reordering import MAX_STEPS, MIN_STEPS

#: the one legend entry of the chance lines of the Table 6 panels (each panel's own level)
CHANCE_LABEL = "chance: 1/options (the paper's Random row)"


#: the rings of the corpus radar (shares of each feature's maximum, named in its title)
RINGS = (0.25, 0.5, 0.75, 1.0)


@drawing
def category_radar(profile: pd.DataFrame) -> plt.Figure:
    """Radar of :func:`culturelab.turkish_plu.corpus.category_profile` (each feature scaled to its
    maximum over categories; spokes = categories); the rings (:data:`RINGS`) are named in the title,
    not labelled on the plot, where a label would sit on some line.

    >>> p = pd.DataFrame({"category": ["C&E", "HE", "H&G"] * 2, "feature": ["a"] * 3 + ["b"] * 3,
    ...                   "scaled": [1.0, 0.5, 0.2, 0.3, 1.0, 0.6]})
    >>> ax = category_radar(p).axes[0]
    >>> [t.get_text() for t in ax.get_yticklabels()], [float(r) for r in ax.get_yticks()]
    (['', '', '', ''], [0.25, 0.5, 0.75, 1.0])
    >>> plt.close("all")
    """
    cats = [c for c in CATEGORY_ORDER if c in set(profile["category"])]
    fig = radar(profile, "category", "scaled", "feature", categories=cats, rmax=1.05,
                title="Original Turkish wikiHow, per category\n(each feature ÷ its maximum; rings at ¼, ½, ¾, 1)")
    ax = fig.axes[0]  # the rings are named in the title: no tick label to sit on a line at any size
    ax.set_yticks(RINGS, [""] * len(RINGS))
    claim(fig, kind="data")
    return fig


@drawing
def steps_histogram(corpus: pd.DataFrame) -> plt.Figure:
    """Steps per method, ordered vs unordered methods (the paper's orderliness classifier)."""
    import seaborn as sns

    apply_style()
    fig, ax = plt.subplots(figsize=figsize(4.6, 3.0))
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


def hang_legend(fig: plt.Figure, axes: Sequence[plt.Axes]) -> plt.Legend:
    """One legend for every panel (:func:`culturelab.plots.shared_legend`: each label once, as many
    columns as fit the figure's width) hung under the figure's lower edge: outside the box a layout
    fills, it stays clear of the panels however they are laid out again (a paper rendering narrows the
    figure), and a caption goes under it.

    >>> from culturelab.plots import audit
    >>> fig, ax = plt.subplots(); _ = ax.plot([1, 2], label="ours")
    >>> bool(hang_legend(fig, [ax]).get_window_extent(audit.renderer_of(fig)).y1 <= 0)
    True
    >>> plt.close(fig)
    """
    legend = shared_legend(fig, list(axes))
    legend.set_loc("upper center")
    legend.set_bbox_to_anchor((0.5, 0.0), transform=fig.transFigure)
    return legend


def legend_below(fig: plt.Figure, axes: Sequence[plt.Axes], title: str) -> plt.Legend:
    """``title`` over the panels of ``fig`` (a constrained layout) and one legend for all of them
    under them (:func:`hang_legend`).

    >>> fig, axes = panel_grid(2, layout="constrained")
    >>> for ax in axes: _ = ax.plot([1, 2], label="ours")
    >>> legend = legend_below(fig, axes, "t")
    >>> from culturelab.plots import audit
    >>> r = audit.renderer_of(fig)
    >>> [t.get_text() for t in legend.get_texts()], bool(legend.get_window_extent(r).y1 <= min(
    ...     a.get_tightbbox(r).y0 for a in axes) + 1), fig.get_suptitle()
    (['ours'], True, 't')
    >>> plt.close(fig)
    """
    fig.suptitle(title)
    return hang_legend(fig, axes)


#: the paper's rows drawn beside ours in the Table 6 panels (their legend entries)
PAPER_BARS = {"BERTurk ZS": "paper: BERTurk ZS (random head)", "BERTurk FT": "paper: BERTurk FT"}
#: the colours of the paper's bars beside ours (greys, told apart by their hatches too)
PAPER_GREYS = ("#8c8c8c", "#4d4d4d", "#b3b3b3")


def grey_reported(ax: plt.Axes, labels: Sequence[str]) -> None:
    """Draw the bars of ``ax`` labelled ``labels`` (the paper's numbers beside ours) in greys.

    >>> fig, ax = plt.subplots(); _ = ax.bar([0], [1], label="ours"); _ = ax.bar([1], [2], label="paper")
    >>> from matplotlib.colors import to_hex
    >>> grey_reported(ax, ["paper"]); [to_hex(p.get_facecolor()) for p in ax.patches][1]
    '#8c8c8c'
    >>> plt.close(fig)
    """
    greys = dict(zip(labels, PAPER_GREYS * len(labels)))
    for container in ax.containers:
        if container.get_label() in greys:
            for bar in container.patches:
                bar.set(facecolor=greys[container.get_label()], alpha=1.0)


def _percent(part: pd.DataFrame) -> pd.DataFrame:
    return part.assign(acc=100 * part["accuracy"], lo=100 * part["ci_low"], hi=100 * part["ci_high"])


@drawing
def accuracy_panels(acc: pd.DataFrame, reported: pd.DataFrame, tasks: Sequence[str], *,
                    model: str | None = None) -> plt.Figure:
    """One panel per task (its name the panel's title): our methods' accuracy (%, 95 % CI, n under
    each bar, bars on fewer than 10 items faded), then the paper's BERTurk ZS and FT (``reported``:
    :data:`PAPER_BARS`, grey, no n) as bars of their own; the panel's chance (``acc["chance"]``: 25,
    step ordering 50 — the paper's Random row) dotted; one legend under the panels; ``model``, the
    LM behind the ``llm`` methods, named in the title.

    >>> acc = pd.DataFrame({"task": "gi", "method": ["llm (mean)", "random"], "accuracy": [0.3, 0.25],
    ...                     "ci_low": 0.2, "ci_high": 0.4, "n": [60, 837], "chance": 0.25})
    >>> paper = pd.DataFrame({"task": "gi", "model": ["BERTurk ZS", "BERTurk FT"], "value": [26.5, 72.4]})
    >>> fig = accuracy_panels(acc, paper, ["gi"])
    >>> fig.axes[0].get_title(), [t.get_text() for t in fig.legends[0].get_texts()][1:]
    ('Goal Inference', ['llm (mean)', 'random', 'paper: BERTurk ZS (random head)', 'paper: BERTurk FT'])
    >>> plt.close(fig)
    """
    apply_style()
    tasks = list(tasks)
    fig, axes = panel_grid(len(tasks), panel=(3.0, 3.2), layout="constrained")
    for ax, task in zip(axes, tasks):
        ours = _percent(acc[acc["task"] == task].sort_values("method", kind="stable"))
        paper = reported[(reported["task"] == task) & reported["model"].isin(list(PAPER_BARS))]
        paper = pd.DataFrame({"method": [PAPER_BARS[m] for m in paper["model"]], "acc": paper["value"].to_numpy()})
        part = pd.concat([ours, paper], ignore_index=True).assign(task=TASK_NAMES[task])
        grouped_bars(part, "task", "acc", "method", err_low="lo", err_high="hi", ax=ax, ylabel="accuracy (%)",
                     n="n", chance=100 * float(ours["chance"].iloc[0]), legend=False, reported=list(paper["method"]))
        grey_reported(ax, list(paper["method"]))
        for line in ax.lines:  # each panel's own chance, one legend entry for all
            if line.get_label().startswith("chance"):
                line.set_label(CHANCE_LABEL)
        ax.set(ylim=(0, 100), xlabel="", xticks=[], title=TASK_NAMES[task])
        if not ax.get_subplotspec().is_first_col():
            ax.set_ylabel("")
    legend_below(fig, axes, _llm_title("Table 6 — accuracy per task", model))
    claim(fig, kind="score", chance=[100 * float(c) for c in acc["chance"].dropna().unique()],
          model=[model] if model else [], method=list(dict.fromkeys(acc["method"])))
    return fig


@drawing
def category_panels(acc: pd.DataFrame, tasks: Sequence[str] = ("si", "nep"), *, model: str | None = None
                    ) -> plt.Figure:
    """Per-category accuracy (%, 95 % CI, n under each bar, bars on fewer than 10 items faded) of each
    method, one panel per task (stacked: the full width for the categories), chance (4 options)
    dotted; the item count of each category is in its label; ``model`` (the LM behind the ``llm``
    methods) in the title.

    >>> acc = pd.DataFrame({"task": "si", "category": ["HE", "C&E"], "method": "random", "accuracy": [0.3, 0.2],
    ...                     "ci_low": 0.1, "ci_high": 0.5, "n": [12, 30]})
    >>> [ax.get_title() for ax in category_panels(acc, ["si"]).axes]
    ['Step Inference']
    >>> plt.close("all")
    """
    apply_style()
    fig, axes = panel_grid(len(tasks), panel=(7.0, 2.6), columns=1, layout="constrained")
    for ax, task in zip(axes, tasks):
        part = acc[acc["task"] == task].copy()
        items = part.groupby("category")["n"].max()
        order = [c for c in CATEGORY_ORDER if c in set(part["category"])]
        part["category"] = pd.Categorical(part["category"], order)
        part = _percent(part.sort_values(["category", "method"], kind="stable"))  # methods as in Table 6
        part["category"] = [f"{c}\n(n={items.get(c, 0)})" for c in part["category"].astype(str)]
        grouped_bars(part, "category", "acc", "method", err_low="lo", err_high="hi", ax=ax,
                     ylabel="accuracy (%)", title=TASK_NAMES[task], n="n", chance=25.0, legend=False)
        ax.set_ylim(0, 100)
        ax.set_xlabel("")
    legend_below(fig, axes, _llm_title("Accuracy per category", model))
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
    _legend_in_free_cells(fig)
    present = set(scored[hue].astype(str))
    claim(fig, kind="score", chance="random", model=models,
          method=[h for h in (hue_order if hue_order is not None else dict.fromkeys(scored[hue].astype(str)))
                  if h in present])
    return fig


def _legend_in_free_cells(fig: plt.Figure, pad: float = 0.45) -> None:
    """Lay a figure of panels on one grid (e.g. :func:`culturelab.plots.curves.valid_answer_curves`)
    out again with a constrained layout: its figure legend moves into the grid's free cells (a
    paper's wrapped rows, given as few columns as leave one, e.g. 3 + 2 panels for 4 + 1: wider panels
    for their n labels) or, with none free, under the panels; each
    panel's x axis gains ``pad`` on both sides, so that the n written under the first and last
    points stays clear of the tick labels beside them.

    >>> fig, axes = panel_grid(4, columns=2)
    >>> for ax in axes: _ = ax.plot([5, 6], [0, 1], label="ours")
    >>> _ = fig.legend(*axes[0].get_legend_handles_labels()); _legend_in_free_cells(fig)
    >>> len(fig.legends), [t.get_text() for t in fig.axes[-1].get_legend().get_texts()], [float(x) for x in fig.axes[0].get_xlim()]
    (0, ['ours'], [4.55, 6.45])
    >>> [ax.get_subplotspec().get_geometry()[:2] for ax in fig.axes][0]  # 3 + 1 and the legend, not 2 + 2 and none
    (2, 3)
    >>> plt.close(fig)
    """
    panels = list(fig.axes)
    for ax in panels:
        ax.set_xlim(ax.dataLim.x0 - pad, ax.dataLim.x1 + pad)
    handles, labels = [], []
    for legend in list(fig.legends):
        handles += legend.legend_handles
        labels += [t.get_text() for t in legend.get_texts()]
        legend.remove()
    fig.set_layout_engine("constrained")
    if fig.get_suptitle():  # placed by the layout, above the panels
        fig.suptitle(fig.get_suptitle())
    rows, cols = panels[0].get_subplotspec().get_gridspec().get_geometry()
    if rows > 1:  # wrapped rows: as few columns as leave one cell free, the panels the wider for it
        cols = math.ceil((len(panels) + 1) / rows)
    grid = fig.add_gridspec(rows, cols)
    for ax, cell in zip(panels, grid):
        ax.set_subplotspec(cell)
    free = rows * cols - len(panels)
    if free:
        room = fig.add_subplot(grid[rows - 1, cols - free:])
        room.axis("off")
        for wrap in range(max(12, *map(len, labels)), 11, -3):  # labels broken to the cells' width
            legend = room.legend(handles, [textwrap.fill(label, wrap) for label in labels], loc="center",
                                 frameon=False)
            renderer = audit.renderer_of(fig)
            if legend.get_window_extent(renderer).width <= room.get_window_extent(renderer).width:
                break
    else:  # in the drawing's order, hung under the panels in one row (a screen's width holds it)
        fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), bbox_transform=fig.transFigure,
                   ncols=len(labels), frameon=False)


@drawing
def recall_bars(table: pd.DataFrame, pool_size: int, *, title: str = "Linking actions: gold goal in the top n",
                candidates: str = "titles") -> plt.Figure:
    """R@n (%) of each retriever or reranker (``system``), ours with 95 % CIs, n under each bar, the
    paper's rows (``system`` "paper …") in greys beside them; the
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
    paper = [s for s in dict.fromkeys(table["system"].astype(str)) if s.startswith("paper")]
    fig = grouped_bars(table, "metric", "value", "system", err_low="ci_low", err_high="ci_high", n="n",
                       ylabel="recall (%)", title=title, legend=False, reported=paper)
    ax = fig.axes[0]
    grey_reported(ax, paper)
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
    """Mean ROUGE (×100, 95 % CI, n per bar when ``table`` has it, and beside it the share of valid
    answers when ``table`` has ``valid``: free generation) of each system, one panel per tokenizer
    variant, shared y axis; ROUGE has no chance level.

    >>> t = pd.DataFrame({"system": ["lead-1", "zero-shot m"], "tokenizer": "t", "metric": "rouge1",
    ...                   "value": [20.0, 10.0], "ci_low": [18.0, 8.0], "ci_high": [22.0, 12.0], "n": 30,
    ...                   "valid": [1.0, 0.9]})
    >>> [a.get_text() for a in rouge_panels(t, ["t"]).axes[0].texts]
    ['n=30 · 100 % valid', 'n=30 · 90 % valid']
    >>> plt.close("all")
    """
    apply_style()
    fig, axes = panel_grid(len(tokenizers), panel=(4.6, 3.4), layout="constrained")
    top = float(table["ci_high"].max(skipna=True) if table["ci_high"].notna().any() else table["value"].max())
    for ax, tok in zip(axes, tokenizers):
        part = table[table["tokenizer"] == tok]
        grouped_bars(part, "metric", "value", "system", err_low="ci_low", err_high="ci_high", ax=ax,
                     ylabel="F1 × 100", title=f"ROUGE, {tok}", n="n" if "n" in part else None, legend=False,
                     valid="valid" if "valid" in part and "n" in part else None)
        ax.set_ylim(0, max(top, 1.0) * 1.08)
    legend_below(fig, axes, "Summarization: mean ROUGE per system")
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
    fig, ax = plt.subplots(figsize=figsize(4.8, 3.0))
    shares = loss["damaged_word_share"]
    sns.histplot(x=shares, bins=[i / 10 for i in range(11)], ax=ax, color=palette(2)[1], edgecolor="white",
                 linewidth=0.3)
    ax.axvline(float(shares.mean()), color="#333333", linestyle="--", linewidth=1.1,
               label=f"mean {shares.mean():.2f}")
    ax.set_xlabel("share of the words that lose a letter (ç ğ ı ö ş ü …)")
    ax.set_ylabel("texts")
    ax.set_title(f"rouge_score's default tokenizer on {len(loss):,} {what}")
    place_legend(ax, fontsize=7)
    claim(fig, kind="data")
    return fig


def heatmap_panels(matrices: Mapping[str, pd.DataFrame], *, fmt: str = ".2f", vmax: float | None = 1.0,
                   cbar_label: str = "share of items", chance: float | None = None, title: str = "",
                   model: str | None = None) -> plt.Figure:
    """Annotated heatmaps of row shares, one panel per method (the keys of ``matrices``, each panel
    titled by its own key), drawn by :func:`share_heatmaps` with each matrix's items per row
    (``attrs["n"]``, as :func:`culturelab.turkish_plu.distractors.pick_matrix` and
    :func:`~culturelab.turkish_plu.distractors.position_confusion` leave them) as its counts.

    >>> m = pd.DataFrame([[0.5, 0.5]], index=["HE (n=12)"], columns=["gold", "rank 1"]); m.attrs["n"] = [12]
    >>> fig = heatmap_panels({"bm25": m, "llm": m}, title="Picks")
    >>> [ax.get_title() for ax in fig.axes if ax.get_title()], fig.get_suptitle()
    (['bm25', 'llm'], 'Picks (no LM run)')
    >>> plt.close(fig)
    """
    counts = {name: [int(v) for v in m.attrs["n"]] for name, m in matrices.items() if "n" in m.attrs}
    return share_heatmaps(dict(matrices), counts=counts or None, fmt=fmt, vmax=vmax, cbar_label=cbar_label,
                          chance=chance, title=title, model=model)


def _bare_row(label: object) -> str:
    """A row label without the item count :func:`~culturelab.turkish_plu.distractors.pick_matrix`
    appends (the count is written in each cell instead).

    >>> _bare_row("nep · C&E (n=3)"), _bare_row("A")
    ('nep · C&E', 'A')
    """
    return re.sub(r" \(n=\d+\)$", "", str(label))


#: the narrowest heatmap cell of a paper figure that holds its value and ``n=…`` at 6 pt (inches)
PAPER_CELL = 0.36


def _heatmap_grid(panels: int, label_chars: int, rows: int, columns: int) -> dict[str, object]:
    """:func:`culturelab.plots.panel_grid` sizes of ``panels`` heatmaps of ``rows`` × ``columns`` cells
    with row labels of ``label_chars`` characters: on a screen roomy cells; in a paper as many panels in
    a row as the width holds beside the row labels and the colour bar with cells of at least
    :data:`PAPER_CELL` (the rows of panels filled alike), sharing that width, and rows just tall enough for two lines of 6-pt text.

    >>> _heatmap_grid(3, 20, 10, 4)["panel"]
    (2.7, 5.4)
    >>> from culturelab.plots.layout import rendering
    >>> with rendering("paper", "text"):
    ...     _heatmap_grid(3, 20, 10, 4)["panel"], _heatmap_grid(4, 20, 10, 4)["panel"]
    ((1.667, 3.3), (2.5, 3.3))
    """
    if not current().paper:
        return {"panel": (0.55 * columns + 0.5, 0.42 * rows + 1.2), "extra_width": 0.055 * label_chars + 1.4,
                "min_panel": 0.3 * columns}
    extra = 0.045 * label_chars + 1.0
    room = current().inches - extra
    fit = max(1, min(panels, int(room // (PAPER_CELL * columns))))
    per_row = math.ceil(panels / math.ceil(panels / fit))  # rows filled alike: 2 + 2 rather than 3 + 1
    width = round(room / per_row, 3)
    return {"panel": (width, round(0.24 * rows + 0.9, 3)), "extra_width": extra, "min_panel": width - 0.01,
            "columns": per_row}


@drawing
def share_heatmaps(matrices: dict[str, pd.DataFrame], *, counts: dict[str, list[int]] | None = None,
                   fmt: str = ".2f", vmax: float | None = 1.0, cbar_label: str = "share of items",
                   chance: float | None = None, title: str = "", model: str | None = None) -> plt.Figure:
    """One annotated heatmap of row shares per method (the keys of ``matrices``: each panel's
    title), on the same rows and one colour scale (one colour bar, ``chance`` dotted on it). With
    ``counts`` (method → items per row, in row order) each cell shows its row's n and rows of fewer
    than 10 items are hatched; a row label's own ``(n=…)`` is then left out. ``title`` and ``model``
    (the LM behind the ``llm`` methods) make the figure's title. On a screen the panels stand in one
    row; in a paper they wrap into rows of the text width, the row labels on the first column only.

    >>> m = pd.DataFrame([[0.75, 0.25], [0.5, 0.5]], index=["A", "B"], columns=["A", "B"])
    >>> fig = share_heatmaps({"x": m, "y": m}, counts={"x": [12, 4], "y": [3, 3]}, chance=0.5)
    >>> [t.get_text() for t in fig.axes[0].texts], [ax.get_title() for ax in fig.axes[:2]]
    (['0.75\\nn=12', '0.25\\nn=12', '0.50\\nn=4', '0.50\\nn=4'], ['x', 'y'])
    >>> plt.close(fig)
    """
    apply_style()
    names = list(matrices)
    bare = {name: m.rename(index=_bare_row) if counts else m for name, m in matrices.items()}
    rows = list(dict.fromkeys(r for m in bare.values() for r in m.index))
    columns = list(dict.fromkeys(c for m in bare.values() for c in m.columns))
    fig, axes = panel_grid(len(names), **_heatmap_grid(len(names), max(len(str(r)) for r in rows), len(rows),
                                                           len(columns)),
                           layout="constrained")
    for ax, name in zip(axes, names):
        m = bare[name].reindex(index=rows, columns=columns)
        m.index.name, m.columns.name = matrices[name].index.name, matrices[name].columns.name
        n = None
        if counts and name in counts:
            per_row = pd.Series(counts[name], index=bare[name].index, dtype=float).reindex(rows)
            n = pd.DataFrame({c: per_row for c in columns})
        heatmap(m, ax=ax, title=name, fmt=fmt, vmin=0, vmax=vmax, counts=n, cbar=False)
        ax.tick_params(axis="x", labelrotation=0)
        ax.tick_params(axis="y", labelrotation=0)
        if not ax.get_subplotspec().is_first_col():
            ax.set_ylabel("")
            ax.tick_params(axis="y", left=False, labelleft=False)
    bar = fig.colorbar(axes[0].collections[0], ax=axes, shrink=min(1.0, 3.0 / len(rows) + 0.5), pad=0.02)
    bar.set_label(cbar_label + (f"\ndotted: chance {chance:.3g}" if chance is not None else ""))
    if chance is not None:  # a white ground under the dots: they read on any colour
        bar.ax.axhline(chance, color="white", linewidth=2.4)
        bar.ax.axhline(chance, color="#000000", linestyle=":", linewidth=1.4)
    fig.suptitle(_llm_title(title, model) if title else (f"llm: {model}" if model else "no LM run"))
    claim(fig, kind="score", chance=chance, no_chance=None if chance is not None else "shares of a confusion",
          model=[model] if model else [], method=names)
    return fig

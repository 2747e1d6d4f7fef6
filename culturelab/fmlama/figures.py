"""FMLAMA's figures in the project style (``culturelab.plots``): dataset descriptives
(Figures 6–8, 11), the cultural-context bars (Figure 2), the code-switching dots (Figure 3) and
per-group lines (Figure 10), and bars with bootstrap intervals per group.

>>> import pandas as pd
>>> fig = count_bars(pd.Series({"en": 30, "fr": 20}), title="t")
>>> [t.get_text() for t in fig.axes[0].get_yticklabels()]
['en', 'fr']
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from culturelab.plots import (
    MIN_N,
    apply_style,
    claim,
    fade,
    figsize,
    grouped_bars,
    note_small_n,
    palette,
    panel_grid,
    shared_legend,
    small_text,
    too_few,
)
from culturelab.plots.honest import SMALL_N
from culturelab.plots.layout import SHARED_LEGEND, current
from culturelab.plots.recipe import drawing
from culturelab.plots.style import MARKERS, STAMPED

#: the legend label of a chance line drawn on several panels (its value differs per panel)
CHANCE = "chance (random ranking)"


def heading(fig: plt.Figure, title: str) -> None:
    """``title`` over the whole figure, placed above everything drawn (a legend above the panels
    included) when the figure is saved (:func:`culturelab.plots.style.place_margins`).

    >>> fig = plt.figure(); heading(fig, "Figure 3"); fig.get_suptitle()
    'Figure 3'
    >>> plt.close(fig)
    """
    if title:
        fig.suptitle(title, fontsize=plt.rcParams["figure.titlesize"]).set_gid(STAMPED)


def _legend_above(fig: plt.Figure, handles: list) -> None:
    """A figure legend of proxy ``handles`` above the panels (laid out as :func:`culturelab.plots.shared_legend`)."""
    fig.tight_layout()
    legend = fig.legend(handles=handles, loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False,
                        ncols=len(handles))
    legend.set_gid(SHARED_LEGEND)


@drawing
def count_bars(counts: pd.Series, *, title: str = "", xlabel: str = "dishes", top: int = 20,
               ax: plt.Axes | None = None) -> plt.Figure:
    """Horizontal bars of the ``top`` largest counts, largest first (Figures 6a, 7a, 11)."""
    apply_style()
    counts = counts.sort_values(ascending=False).head(top)
    if ax is None:
        fig, ax = plt.subplots(figsize=figsize(4.2, max(1.6, 0.2 * len(counts) + 0.8)))
    else:
        fig = ax.figure
    ax.barh(range(len(counts)), counts.to_numpy(), color=palette(2)[1], alpha=0.85)
    ax.set_yticks(range(len(counts)))
    ax.set_yticklabels([str(i) for i in counts.index])
    ax.invert_yaxis()
    for i, v in enumerate(counts.to_numpy()):
        ax.text(v, i, f" {v:,}", va="center", fontsize=small_text(6.0))
    ax.set_xlabel(xlabel)
    ax.grid(axis="y", visible=False)
    if title:
        ax.set_title(title)
    claim(fig, kind="data")
    return fig


@drawing
def range_histogram(counts: pd.Series, edges: Sequence[int], *, title: str = "", unit: str = "languages",
                    ax: plt.Axes | None = None) -> plt.Figure:
    """How many languages (or countries) fall in each dish-count range (Figures 6b, 7b).
    ``edges`` are the lower bounds of the ranges; the last range is open.

    >>> fig = range_histogram(pd.Series([3, 40, 400]), [1, 10, 100])
    >>> [t.get_text() for t in fig.axes[0].get_xticklabels()]
    ['1–9', '10–99', '≥100']
    """
    apply_style()
    edges = list(edges)
    labels = [f"{a}–{b - 1}" for a, b in itertools.pairwise(edges)] + [f"≥{edges[-1]}"]
    bins = pd.cut(counts, [*edges, np.inf], right=False, labels=labels)
    sizes = bins.value_counts().reindex(labels, fill_value=0)
    if ax is None:
        fig, ax = plt.subplots(figsize=figsize(4.2, 2.6))
    else:
        fig = ax.figure
    ax.bar(range(len(sizes)), sizes.to_numpy(), color=palette(3)[2], alpha=0.85)
    ax.set_xticks(range(len(sizes)))
    ax.set_xticklabels(labels, rotation=30, ha="right")
    ax.set_xlabel("dishes per " + unit.rstrip("s").replace("countrie", "country"))
    ax.set_ylabel(unit)
    for i, v in enumerate(sizes.to_numpy()):
        ax.text(i, v, str(v), ha="center", va="bottom", fontsize=small_text(6.0))
    if title:
        ax.set_title(title)
    claim(fig, kind="data")
    return fig


@drawing
def distribution_panels(counts: pd.Series, edges: Sequence[int], *, unit: str, top: int = 20,
                        titles: Sequence[str] = ("(a)", "(b)")) -> plt.Figure:
    """Figures 6 and 7: (a) the ``top`` largest dish counts (:func:`count_bars`), (b) how many
    languages or countries (``unit``) fall in each dish-count range (:func:`range_histogram`).

    >>> fig = distribution_panels(pd.Series({"en": 30, "fr": 20, "ko": 3}), [1, 10], unit="languages")
    >>> [ax.get_title() for ax in fig.axes]
    ['(a)', '(b)']
    >>> plt.close("all")
    """
    apply_style()
    fig, axes = panel_grid(2, panel=(4.3, 4.4))
    count_bars(counts, title=titles[0], top=top, ax=axes[0])
    range_histogram(counts, edges, unit=unit, title=titles[1], ax=axes[1])
    fig.tight_layout()
    return fig


@drawing
def count_panels(left: pd.Series, right: pd.Series, *, titles: Sequence[str] = ("(a)", "(b)"),
                 top: int = 20) -> plt.Figure:
    """Two :func:`count_bars` panels side by side (Figure 11: dishes by continent and by country).

    >>> fig = count_panels(pd.Series({"Asia": 3}), pd.Series({"Japan": 2, "China": 1}))
    >>> [len(ax.patches) for ax in fig.axes]
    [1, 2]
    >>> plt.close("all")
    """
    apply_style()
    fig, axes = panel_grid(2, panel=(4.3, 3.8))
    count_bars(left, title=titles[0], top=top, ax=axes[0])
    count_bars(right, title=titles[1], top=top, ax=axes[1])
    fig.tight_layout()
    return fig


@drawing
def context_bars(summary: pd.DataFrame, metrics: Sequence[str] = ("mAP", "mWS"), *, group: str = "ALL",
                 title: str = "", chance: Mapping[str, float] | None = None, method: str = "",
                 encoder: str = "") -> plt.Figure:
    """Figure 2: the ALL-row score of each model without and with the "In [C], …" context, n
    (``n_dishes``) per bar; ``chance`` (metric → the random-ranking score of the pool:
    :func:`metrics.random_ranking_ap`, :func:`metrics.random_ranking_ws`) dotted on its panel;
    ``method`` (how candidates were ranked) in the title and ``encoder`` (whose vectors mWS
    compares) in the mWS panel's title. One panel per metric present, one legend above them.

    >>> s = pd.DataFrame({"group": "ALL", "metric": ["mAP", "mAP", "mWS", "mWS"], "model": "m",
    ...                   "context": [False, True] * 2, "mean": [5.0, 6.0, 0.8, 0.9]})
    >>> fig = context_bars(s, encoder="bundled:e5-small", chance={"mAP": 4.0, "mWS": 0.7})
    >>> [a.get_title() for a in fig.axes], [t.get_text() for t in fig.legends[0].get_texts()]
    (['mAP (ALL)', 'mWS (ALL; bundled:e5-small vectors)'], ['chance (random ranking)', 'without context', 'with context'])
    >>> plt.close("all")
    """
    apply_style()
    chance = dict(chance or {})
    part = summary[(summary["group"] == group) & summary["metric"].isin(metrics)]
    metrics = [m for m in metrics if m in set(part["metric"])]
    fig, axes = panel_grid(len(metrics), panel=(3.3, 3.0))
    for ax, metric in zip(axes, metrics):
        rows = part[part["metric"] == metric].assign(
            context=lambda t: t["context"].map({False: "without context", True: "with context"}))
        grouped_bars(rows, x="model", y="mean", hue="context", ax=ax, ylabel=metric, rotate=20,
                     n="n_dishes" if "n_dishes" in rows else None, chance=chance.get(metric), legend=False)
        for line in ax.lines:  # one legend entry for the chance lines of every panel
            if line.get_label().startswith("chance"):
                line.set_label(CHANCE)
        ax.set_title(f"{metric} ({group}; {encoder} vectors)" if metric == "mWS" and encoder else f"{metric} ({group})")
    models = [m for m in dict.fromkeys(part["model"].astype(str)) if "baseline" not in m]
    shared_legend(fig, axes)
    heading(fig, f"{title}: {', '.join(models)}" + (f" ({method})" if method else ""))
    shown = [chance[m] for m in metrics if chance.get(m) is not None]
    missing = [m for m in metrics if chance.get(m) is None]
    claim(fig, kind="score", model=models, method=method or None, chance=shown or None,
          no_chance=f"not given for {', '.join(missing)}" if missing else None)
    return fig


@drawing
def setting_dots(scores: pd.DataFrame, *, settings: Sequence[str] = ("EN_en", "EN_zh", "ZH_zh", "ZH_en"),
                 group: str = "ALL", metric: str = "mAP", title: str = "",
                 chance: Mapping[str, float] | None = None, xlabel: str = "", min_n: int = MIN_N) -> plt.Figure:
    """Figure 3: per model (one panel each), the score in each setting; circles without context,
    hollow squares with (side by side), n (``n_dishes``, when given) beside each dot, faded on fewer
    than ``min_n``. ``scores`` has ``model, setting, context, group, metric, mean``; ``chance``
    (setting → the random-ranking score of its pool) is a dotted dash at each setting. The legend
    names only the contexts drawn.

    >>> s = pd.DataFrame({"group": "ALL", "metric": "mAP", "model": "m", "setting": ["EN_en", "EN_zh"],
    ...                   "context": False, "mean": [10.0, 6.0]})
    >>> fig = setting_dots(s)
    >>> [a.get_title() for a in fig.axes], [t.get_text() for t in fig.legends[0].get_texts()]
    (['m'], ['without context'])
    >>> plt.close("all")
    """
    apply_style()
    part = scores[(scores["group"] == group) & (scores["metric"] == metric)]
    models = list(dict.fromkeys(part["model"]))
    contexts = [c for c in (False, True) if (part["context"] == c).any()]
    fig, axes = panel_grid(len(models), panel=(max(2.6, 0.55 * len(settings) + 0.6), 2.6), sharey=True)
    colours = palette(len(settings))
    dodge = {False: -0.12, True: 0.12} if len(contexts) > 1 else {False: 0.0, True: 0.0}  # side by side
    for ax, model in zip(axes, models):
        for i, (setting, colour) in enumerate(zip(settings, colours)):
            for ctx, marker in ((False, "o"), (True, "s")):
                cell = part[(part["model"] == model) & (part["setting"] == setting) & (part["context"] == ctx)]
                if len(cell):
                    x, y = i + dodge[ctx], float(cell["mean"].iloc[0])
                    count = float(cell["n_dishes"].iloc[0]) if "n_dishes" in cell else np.nan
                    small = bool(too_few([count], min_n)[0]) and not np.isnan(count)
                    shown = fade(colour) if small else colour
                    ax.scatter([x], [y], color=shown, marker=marker, s=16 if current().paper else 28,
                               facecolors="none" if ctx else shown, linewidths=1.2, zorder=3,
                               gid=SMALL_N if small else None)
                    if small:
                        note_small_n(fig, min_n, what="faded points")
                    if not np.isnan(count):
                        left = dodge[ctx] < 0  # the first context's n on its left, away from the other
                        ax.annotate(f"n={int(count)}", (x, y), xytext=(-3 if left else 3, 3), ha="right" if left else "left",
                                    textcoords="offset points", fontsize=small_text(5.5), color="#444444")
            if chance is not None and setting in chance:
                ax.hlines(chance[setting], i - 0.3, i + 0.3, colors="#555555", linestyles=":", linewidth=1.1)
        ax.set_xticks(range(len(settings)))
        ax.set_xticklabels(settings, rotation=30 if max(map(len, settings)) > 3 else 0)
        if xlabel:
            ax.set_xlabel(xlabel)
        ax.set_title(model)
    axes[0].set_ylabel(f"{metric} ({group})")
    handles = [plt.Line2D([], [], marker="o", linestyle="", color="#444444", label="without context")] * (False in contexts)
    handles += [plt.Line2D([], [], marker="s", linestyle="", markerfacecolor="none", color="#444444",
                           label="with context")] * (True in contexts)
    if chance is not None:
        handles.append(plt.Line2D([], [], linestyle=":", color="#555555", label=CHANCE))
    _legend_above(fig, handles)
    heading(fig, title)
    claim(fig, kind="score", chance=list(chance.values()) if chance else None,
          no_chance=None if chance else "released scores: the ranked candidates are not released")
    return fig


@drawing
def group_lines(scores: pd.DataFrame, groups: Sequence[str], *, settings: Sequence[str] = ("EN_en", "EN_zh",
                "ZH_zh", "ZH_en"), model: str = "Avg", metric: str = "mAP", title: str = "",
                chance: Mapping[str, float] | None = None) -> plt.Figure:
    """Figure 10: score per cultural group, one line per setting, one panel per context present
    (without, with the "In [C], …" context); ``chance`` (group → random-ranking score) a dotted
    grey line; one legend above the panels.

    >>> s = pd.DataFrame({"model": "Avg", "metric": "mAP", "setting": "EN_en", "context": False,
    ...                   "group": ["Italy", "Japan"], "mean": [10.0, 8.0]})
    >>> [len(a.lines) for a in group_lines(s, ["Italy", "Japan"]).axes]
    [4]
    >>> [a.get_title() for a in group_lines(pd.concat([s, s.assign(context=True)]), ["Italy"], chance={"Italy": 1.0}).axes]
    ['without context', 'with context']
    >>> plt.close("all")
    """
    apply_style()
    part = scores[(scores["model"] == model) & (scores["metric"] == metric)]
    contexts = [c for c in (False, True) if (part["context"] == c).any()]
    fig, axes = panel_grid(len(contexts), panel=(3.4, 2.8), sharey=True)
    for ax, ctx in zip(axes, contexts):
        for i, (setting, colour) in enumerate(zip(settings, palette(len(settings)))):
            rows = part[(part["setting"] == setting) & (part["context"] == ctx)].set_index("group")
            values = [float(rows["mean"].get(g, np.nan)) for g in groups]
            ax.plot(range(len(groups)), values, color=colour, marker=MARKERS[i % len(MARKERS)],
                    markersize=3.5, linewidth=1.1, label=setting)
        if chance is not None:
            ax.plot(range(len(groups)), [float(chance.get(g, np.nan)) for g in groups], color="#555555",
                    linestyle=":", linewidth=1.1, label="random ranking")
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels(groups, rotation=30, ha="right", rotation_mode="anchor")
        ax.set_title("with context" if ctx else "without context")
    axes[0].set_ylabel(f"{metric} ({model})")
    shared_legend(fig, axes)
    heading(fig, title)
    claim(fig, kind="reported")
    return fig


@drawing
def ci_bars(cis: pd.DataFrame, *, x: str = "group", hue: str = "model", y: str = "mean", ylabel: str = "",
            title: str = "", n: str | None = None, chance: float | None = None,
            reported: Sequence[str] = ()) -> plt.Figure:
    """Bars per group with bootstrap 95 % intervals (``ci_low``/``ci_high``), n per bar (column
    ``n``), a ``chance`` line when given, and ``reported`` (``hue`` levels of the paper's numbers).

    >>> t = pd.DataFrame({"group": ["A"], "model": ["m"], "mean": [0.5], "ci_low": [0.4], "ci_high": [0.6]})
    >>> ci_bars(t).axes[0].get_ylabel()
    'mean'
    """
    return grouped_bars(cis, x=x, y=y, hue=hue, err_low="ci_low", err_high="ci_high", ylabel=ylabel or y,
                        title=title or None, rotate=30, n=n, chance=chance, reported=reported)


@drawing
def accuracy_panels(rows: pd.DataFrame, *, panel: str = "setting", x: str = "group", hue: str = "source",
                    y: str = "accuracy", ylabel: str = "accuracy (%)", title: str = "", n: str = "n",
                    valid: str | None = "valid_share", overall: str = "All", reported: Sequence[str] = ()) -> plt.Figure:
    """Table 13 as bars: one panel per ``panel`` value (a code-switching setting), bars of ``y`` per
    ``x`` (group), one per ``hue`` level (ours, the paper's: ``reported`` levels), 95 % intervals
    (``ci_low``/``ci_high``) where given, n under each bar of ours; the share of valid answers behind
    ours (``valid``, of the ``overall`` row) in each panel's title; one legend above the panels.

    >>> t = pd.DataFrame({"setting": ["EN_en"] * 2, "group": ["Italy", "All"], "source": "ours", "accuracy": [60.0, 50.0],
    ...                   "ci_low": [40.0, 45.0], "ci_high": [75.0, 55.0], "n": [40, 500], "valid_share": [1.0, 0.98]})
    >>> fig = accuracy_panels(t)
    >>> [a.get_title() for a in fig.axes], [t.get_text() for t in fig.axes[0].texts]
    (['EN_en (ours: 98 % of the answers valid)'], ['n=40', 'n=500'])
    >>> plt.close("all")
    """
    apply_style()
    panels = list(dict.fromkeys(rows[panel]))
    fig, axes = panel_grid(len(panels), panel=(4.2, 3.0), sharey=True)
    has_ci = {"ci_low", "ci_high"} <= set(rows.columns)
    for ax, name in zip(axes, panels):
        part = rows[rows[panel] == name]
        grouped_bars(part, x=x, y=y, hue=hue, ax=ax, ylabel=ylabel, rotate=30, n=n, reported=reported,
                     err_low="ci_low" if has_ci else None, err_high="ci_high" if has_ci else None, legend=False)
        shares = part.loc[(part[x] == overall) & ~part[hue].isin(reported), valid] if valid in part else []
        ax.set_title(f"{name} (ours: {shares.iloc[0]:.0%} of the answers valid)".replace("%", " %")
                     if len(shares) else str(name))
    for ax in axes[1:]:  # one scale: its label once
        ax.set_ylabel("")
    shared_legend(fig, axes)
    heading(fig, title)
    return fig

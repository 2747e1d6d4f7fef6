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
    apply_style,
    claim,
    figsize,
    grouped_bars,
    palette,
    panel_grid,
    place_legend,
    small_text,
)
from culturelab.plots.recipe import drawing
from culturelab.plots.style import MARKERS


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
    compares) in the mWS panel's title.

    >>> s = pd.DataFrame({"group": "ALL", "metric": ["mAP", "mAP", "mWS", "mWS"], "model": "m",
    ...                   "context": [False, True] * 2, "mean": [5.0, 6.0, 0.8, 0.9]})
    >>> [a.get_title() for a in context_bars(s, encoder="bundled:e5-small", chance={"mWS": 0.7}).axes]
    ['mAP (ALL)', 'mWS (ALL; bundled:e5-small vectors)']
    """
    apply_style()
    chance = dict(chance or {})
    part = summary[(summary["group"] == group) & summary["metric"].isin(metrics)]
    metrics = [m for m in metrics if m in set(part["metric"])]
    fig, axes = plt.subplots(1, len(metrics), figsize=(3.6 * len(metrics), 3.0), squeeze=False)
    for ax, metric in zip(axes[0], metrics):
        rows = part[part["metric"] == metric].assign(
            context=lambda t: t["context"].map({False: "without context", True: "with context"}))
        grouped_bars(rows, x="model", y="mean", hue="context", ax=ax, ylabel=metric, rotate=20,
                     n="n_dishes" if "n_dishes" in rows else None, chance=chance.get(metric), legend=False)
        ax.set_title(f"{metric} ({group}; {encoder} vectors)" if metric == "mWS" and encoder else f"{metric} ({group})")
        place_legend(ax, fontsize=7)
    models = [m for m in dict.fromkeys(part["model"].astype(str)) if "baseline" not in m]
    fig.suptitle(f"{title}: {', '.join(models)}" + (f" ({method})" if method else ""), fontsize=10)
    fig.tight_layout()
    shown = [chance[m] for m in metrics if chance.get(m) is not None]
    missing = [m for m in metrics if chance.get(m) is None]
    claim(fig, kind="score", model=models, method=method or None, chance=shown or None,
          no_chance=f"not given for {', '.join(missing)}" if missing else None)
    return fig


@drawing
def setting_dots(scores: pd.DataFrame, *, settings: Sequence[str] = ("EN_en", "EN_zh", "ZH_zh", "ZH_en"),
                 group: str = "ALL", metric: str = "mAP", title: str = "",
                 chance: Mapping[str, float] | None = None) -> plt.Figure:
    """Figure 3: per model, the score in each setting; circles without context, squares with, n
    (``n_dishes``, when given) beside each dot. ``scores`` has ``model, setting, context, group,
    metric, mean``; ``chance`` (setting → the random-ranking score of its pool) is a dotted dash at
    each setting.

    >>> s = pd.DataFrame({"group": "ALL", "metric": "mAP", "model": "m", "setting": ["EN_en", "EN_zh"],
    ...                   "context": False, "mean": [10.0, 6.0]})
    >>> [a.get_title() for a in setting_dots(s).axes]
    ['m']
    """
    apply_style()
    part = scores[(scores["group"] == group) & (scores["metric"] == metric)]
    models = list(dict.fromkeys(part["model"]))
    fig, axes = plt.subplots(1, len(models), figsize=(2.3 * len(models) + 0.6, 2.8), sharey=True, squeeze=False)
    colours = palette(len(settings))
    for ax, model in zip(axes[0], models):
        for i, (setting, colour) in enumerate(zip(settings, colours)):
            for ctx, marker in ((False, "o"), (True, "s")):
                cell = part[(part["model"] == model) & (part["setting"] == setting) & (part["context"] == ctx)]
                if len(cell):
                    y = float(cell["mean"].iloc[0])
                    ax.scatter([i], [y], color=colour, marker=marker, s=28,
                               facecolors="none" if ctx else colour, linewidths=1.2)
                    if "n_dishes" in cell:
                        ax.annotate(f"n={int(cell['n_dishes'].iloc[0])}", (i, y), xytext=(5, -2 if ctx else 4),
                                    textcoords="offset points", fontsize=5.5, color="#555555")
            if chance is not None and setting in chance:
                ax.hlines(chance[setting], i - 0.3, i + 0.3, colors="#555555", linestyles=":", linewidth=1.1)
        ax.set_xticks(range(len(settings)))
        ax.set_xticklabels(settings, rotation=30)
        ax.set_title(model)
    axes[0][0].set_ylabel(f"{metric} ({group})")
    handles = [plt.Line2D([], [], marker="o", linestyle="", color="#444444", label="without context"),
               plt.Line2D([], [], marker="s", linestyle="", markerfacecolor="none", color="#444444",
                          label="with context")]
    if chance is not None:
        handles.append(plt.Line2D([], [], linestyle=":", color="#555555", label="chance (random ranking)"))
    fig.legend(handles=handles, frameon=False, loc="upper center", ncols=len(handles), bbox_to_anchor=(0.5, 1.06))
    if title:
        fig.suptitle(title, y=1.12, fontsize=10)
    fig.tight_layout()
    claim(fig, kind="score", chance=list(chance.values()) if chance else None,
          no_chance=None if chance else "released scores: the ranked candidates are not released")
    return fig


@drawing
def group_lines(scores: pd.DataFrame, groups: Sequence[str], *, settings: Sequence[str] = ("EN_en", "EN_zh",
                "ZH_zh", "ZH_en"), model: str = "Avg", metric: str = "mAP", title: str = "",
                chance: Mapping[str, float] | None = None) -> plt.Figure:
    """Figure 10: score per cultural group, one line per setting; solid without context,
    dashed with; ``chance`` (group → random-ranking score) a dotted grey line.

    >>> s = pd.DataFrame({"model": "Avg", "metric": "mAP", "setting": "EN_en", "context": False,
    ...                   "group": ["Italy", "Japan"], "mean": [10.0, 8.0]})
    >>> len(group_lines(s, ["Italy", "Japan"]).axes[0].lines), len(group_lines(s, ["Italy"], chance={"Italy": 1.0}).axes[0].lines)
    (8, 9)
    """
    apply_style()
    part = scores[(scores["model"] == model) & (scores["metric"] == metric)]
    fig, ax = plt.subplots(figsize=(5.2, 3.0))
    for i, (setting, colour) in enumerate(zip(settings, palette(len(settings)))):
        for ctx, style in ((False, "-"), (True, "--")):
            rows = part[(part["setting"] == setting) & (part["context"] == ctx)].set_index("group")
            values = [float(rows["mean"].get(g, np.nan)) for g in groups]
            ax.plot(range(len(groups)), values, color=colour, linestyle=style, marker=MARKERS[i % len(MARKERS)],
                    markersize=3.5, linewidth=1.1, label=f"{setting}{' + context' if ctx else ''}")
    if chance is not None:
        ax.plot(range(len(groups)), [float(chance.get(g, np.nan)) for g in groups], color="#555555", linestyle=":",
                linewidth=1.1, label="random ranking")
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups, rotation=30)
    ax.set_ylabel(f"{metric} ({model})")
    if title:
        ax.set_title(title)
    place_legend(ax, fontsize=6, ncols=2)
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

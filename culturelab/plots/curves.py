"""Metric-vs-x curves with confidence bands (e.g. reordering metrics vs number of steps).

>>> import pandas as pd
>>> t = pd.DataFrame({"steps": [5, 5, 6, 6], "rho": [0.1, 0.3, 0.2, 0.4], "lang": ["en"] * 4})
>>> fig = metric_curve(t, "steps", "rho", hue="lang")
>>> len(fig.axes[0].lines) >= 1
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.font_manager import FontProperties

from culturelab.plots.audit import claim
from culturelab.plots.bars import place_legend
from culturelab.plots.honest import MIN_N, N_ROW, SMALL_N, mark_chance, note_small_n, too_few
from culturelab.plots.layout import figsize, panel_grid, small_text
from culturelab.plots.recipe import drawing
from culturelab.plots.style import LINESTYLES, MARKERS, apply_style, palette
from culturelab.stats import summarise


@drawing
def metric_curve(df: pd.DataFrame, x: str, y: str, *, hue: str | None = None, ax: plt.Axes | None = None,
                 title: str | None = None, ylabel: str | None = None, seed: int = 0,
                 baseline: pd.DataFrame | None = None, chance: float | None = None, min_n: int = MIN_N,
                 show_n: bool = True, hue_order: Sequence | None = None, binary: bool | None = None,
                 cluster: str | None = None) -> plt.Figure:
    """Mean of ``y`` per ``x`` (and ``hue``) with 95 % bands (:func:`culturelab.stats.summarise`:
    Wilson for 0/1 values unless ``binary=False``, else bootstrap; ``cluster``: a column whose
    groups are resampled whole — one item asked several times).

    ``hue_order`` fixes each hue level's colour and marker by its position, also when some level
    has no rows (several panels then draw a level alike).

    ``baseline`` (columns ``x`` and ``y``) is drawn as a dotted grey reference line, e.g. the
    random-permutation expectation at each step count; ``chance`` a constant one. Each point
    is labelled with its n (``show_n``: rows under the x axis, :func:`n_rows`); points resting on fewer than ``min_n`` items are hollow
    (in their series' colour). The legend goes where it covers no data (:func:`place_legend`).

    >>> t = pd.DataFrame({"steps": [3] * 12 + [4] * 2, "acc": [1, 0] * 7})
    >>> ax = metric_curve(t, "steps", "acc", chance=0.5).axes[0]
    >>> [a.get_text() for a in ax.texts], ax.lines[-1].get_label()
    (['12', '2', 'n'], 'chance (0.5)')
    >>> plt.close("all")

    >>> t = pd.DataFrame({"steps": [3, 3, 4, 4], "rho": [0.25, 0.75, 0.5, 1.0]})
    >>> base = pd.DataFrame({"steps": [3, 4], "rho": [0.0, 0.0]})
    >>> ax = metric_curve(t, "steps", "rho", baseline=base).axes[0]
    >>> [line.get_label() for line in ax.lines], ax.lines[0].get_ydata().tolist()
    (['rho', 'random'], [0.5, 0.75])
    >>> plt.close("all")
    """
    apply_style()
    if ax is None:
        fig, ax = plt.subplots(figsize=figsize(4.2, 3.0))
    else:
        fig = ax.figure
    table = summarise(df, y, [hue, x] if hue else [x], seed=seed, binary=binary, cluster=cluster)
    groups = (list(hue_order) if hue_order is not None else list(dict.fromkeys(table[hue]))) if hue else [None]
    counts = []
    for i, (g, colour) in enumerate(zip(groups, palette(len(groups)))):
        part = table[table[hue] == g] if hue and len(table) else table
        if part.empty:
            continue
        part = part.sort_values(x)
        ax.plot(part[x], part["mean"], color=colour, marker=MARKERS[i % len(MARKERS)],
                linestyle=LINESTYLES[i % len(LINESTYLES)], linewidth=1.3, markersize=4,
                label=str(g) if hue else y)
        ax.fill_between(part[x], part["ci_low"], part["ci_high"], color=colour, alpha=0.12, linewidth=0)
        small = too_few(part["n"], min_n)
        ax.scatter(part[x][small], part["mean"][small], s=22, facecolors="white", edgecolors=colour,
                   linewidths=1.2, zorder=4, gid=SMALL_N)
        if small.any():
            note_small_n(fig, min_n, what="hollow points")
        counts.append((colour, part.set_index(x)["n"]))
    if show_n:
        n_rows(ax, counts)
    if baseline is not None:
        _baseline_line(ax, baseline, x, y)
    if chance is not None:
        mark_chance(ax, chance)
        claim(fig, chance=chance)
    ax.set_xlabel(x)
    ax.set_ylabel(ylabel or y)
    if title:
        ax.set_title(title)
    if hue or baseline is not None or chance is not None:
        place_legend(ax)
    return fig


@drawing
def valid_answer_curves(df: pd.DataFrame, x: str, metrics: Mapping[str, str], *, hue: str, valid: str = "valid",
                        baseline: pd.DataFrame | None = None, hue_order: Sequence | None = None,
                        ylims: Mapping[str, tuple[float, float]] | None = None, xlabel: str | None = None,
                        title: str | None = None, seed: int = 0, cluster: str | None = None) -> plt.Figure:
    """One panel per metric (``metrics``: column → axis label) computed from the **valid** answers
    only (``valid`` true), one curve per ``hue`` level with n per point, ``baseline`` (columns
    ``x`` and the metrics) dotted; and a last panel with the share of valid answers per ``x``
    (n = all answers). The legend, above the panels, gives each level's overall valid share. The
    metrics' bands are bootstrap intervals (a mean of correlations is no proportion), resampling
    ``cluster`` groups whole when given (e.g. a procedure answered in two languages).

    >>> t = pd.DataFrame({"steps": [5, 5, 6, 6] * 2, "rho": [0.5, 1.0, 0.0, 0.5] * 2,
    ...                   "valid": [True] * 4 + [False, True, False, False], "protocol": ["c"] * 4 + ["f"] * 4})
    >>> fig = valid_answer_curves(t, "steps", {"rho": "Spearman ρ"}, hue="protocol")
    >>> [a.get_text() for a in fig.axes[0].texts], [a.get_text() for a in fig.axes[1].texts]
    (['2', '2', 'n', '1', 'n'], ['2', '2', 'n'])
    >>> [t.get_text() for t in fig.legends[0].get_texts()]
    ['c (100 % valid)', 'f (25 % valid)']
    >>> plt.close("all")
    """
    apply_style()
    order = list(hue_order) if hue_order is not None else list(dict.fromkeys(df[hue]))
    share = df.groupby(hue, observed=True)[valid].mean()
    names = {h: f"{h} ({_percent(share[h])} valid)" for h in order if h in share.index}
    named = [names[h] for h in order if h in names]
    data = df.assign(**{hue: df[hue].map(names), "_valid": df[valid].astype(float)})
    answered = data[data[valid].astype(bool)]
    fig, axes = panel_grid(len(metrics) + 1, panel=(3.0, 3.5))
    panels = [*metrics.items(), ("_valid", "valid answers (share)")]
    for ax, (metric, label) in zip(axes, panels):
        part = data if metric == "_valid" else answered
        if part.empty:  # the random line stays: it shows where chance lies, and the panel is not empty
            ax.text(0.5, 0.5, "no valid answers", ha="center", va="center", transform=ax.transAxes)
            if baseline is not None and metric != "_valid":
                _baseline_line(ax, baseline, x, metric)
        else:
            metric_curve(part, x, metric, hue=hue, hue_order=named, ax=ax, ylabel=label, seed=seed,
                         baseline=None if metric == "_valid" else baseline, show_n=metric != "_valid",
                         binary=None if metric == "_valid" else False, cluster=cluster)
        if metric == "_valid":  # n = all answers, under the axis like the other panels'
            sizes = data.groupby([hue, x], observed=True).size()
            n_rows(ax, [(colour, sizes.loc[level]) for level, colour in zip(named, palette(len(named)))
                        if level in sizes.index])
        ax.set_xlabel(xlabel or x)
        ax.set_xticks(sorted(df[x].unique()))
        limits = {"_valid": (-0.03, 1.05), **(ylims or {})}
        if metric in limits:
            ax.set_ylim(*limits[metric])
    handles: dict[str, object] = {}
    for ax in axes:
        h, labels = ax.get_legend_handles_labels()
        handles.update((lab, hd) for lab, hd in zip(labels, h) if lab not in handles)
        if ax.get_legend():
            ax.get_legend().remove()
    shown = [lab for lab in [*named, "random"] if lab in handles]
    if title:
        fig.suptitle(title, y=0.99)
    fig.legend([handles[lab] for lab in shown], shown, loc="upper center", bbox_to_anchor=(0.5, 0.92),
               ncols=min(len(shown), 4), frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 0.84))
    return fig


def n_rows(ax: plt.Axes, counts: Sequence[tuple[Any, pd.Series]]) -> None:
    """Write n per x under the x tick labels of ``ax``, out of the data: ``counts`` holds per series
    its colour and its n per x (a series indexed by x). Every series with the same n at each x: one
    grey row; else a row per series, in its colour. Each row is headed "n" left of the axis; the
    counts are bare numbers (:data:`~culturelab.plots.honest.N_ROW`), so that a row of three-digit
    counts fits a narrow panel, and the x label moves down to clear the rows.

    >>> fig, ax = plt.subplots(); _ = ax.plot([5, 6], [0.2, 0.4])
    >>> n_rows(ax, [("C0", pd.Series([30, 28], index=[5, 6])), ("C1", pd.Series([30, 28], index=[5, 6]))])
    >>> [t.get_text() for t in ax.texts]
    ['30', '28', 'n']
    >>> n_rows(ax, [("C0", pd.Series([694], index=[5])), ("C1", pd.Series([30], index=[5]))])
    >>> [t.get_text() for t in ax.texts]  # the rows drawn before are replaced
    ['694', 'n', '30', 'n']
    >>> plt.close(fig)
    """
    if not counts:
        return
    for old in [t for t in ax.texts if t.get_gid() in (N_ROW, N_ROW + ":head")]:
        old.remove()
    shared = all(c.sort_index().equals(counts[0][1].sort_index()) for _, c in counts)
    rows = [("#555555", counts[0][1])] if shared else list(counts)
    size = small_text(5.0)
    tick = plt.rcParams["xtick.major.size"] if plt.rcParams["xtick.direction"] != "in" else 0.0
    top = tick + plt.rcParams["xtick.major.pad"] + FontProperties(size=plt.rcParams["xtick.labelsize"]).get_size_in_points() * 1.2 + 1.5
    line = size * 1.25
    where = ax.get_xaxis_transform()
    for i, (colour, row) in enumerate(rows):
        offset = (0, -(top + i * line))
        for xv, n in row.items():
            ax.annotate(f"{int(n)}", (xv, 0), xycoords=where, xytext=offset, textcoords="offset points", ha="center",
                        va="top", fontsize=size, color=colour, gid=N_ROW, annotation_clip=False)
        ax.annotate("n", (0, 0), xycoords="axes fraction", xytext=(offset[0] - 9, offset[1]), textcoords="offset points",
                    ha="right", va="top", fontsize=size, color=colour, gid=N_ROW + ":head", annotation_clip=False)
    ax.xaxis.labelpad = plt.rcParams["axes.labelpad"] + len(rows) * line + 1


def _baseline_line(ax: plt.Axes, baseline: pd.DataFrame, x: str, y: str) -> None:
    """The reference (e.g. the random-order expectation per ``x``) as a dotted grey line labelled "random"."""
    b = baseline.sort_values(x)
    ax.plot(b[x], b[y], color="#777777", linestyle=":", linewidth=1.2, label="random")


def _percent(share: float) -> str:
    """A share as a percentage that is 0 or 100 only when exactly so.

    >>> _percent(0.0), _percent(0.25), _percent(1 / 210), _percent(0.999), _percent(1.0)
    ('0 %', '25 %', '0.5 %', '99.9 %', '100 %')
    """
    text = f"{share:.0%}"
    if (text == "0%" and share > 0) or (text == "100%" and share < 1):
        text = f"{share:.1%}"
    return text.replace("%", " %")

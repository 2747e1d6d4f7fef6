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
import numpy as np
import pandas as pd
from matplotlib.font_manager import FontProperties
from matplotlib.path import Path
from matplotlib.text import Annotation, Text
from matplotlib.transforms import Bbox

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


#: where :func:`label_points` tries a point's label (offset in points, alignment), nearest first
_AROUND = ((4, -4, "left", "top"), (4, 4, "left", "bottom"), (-4, 4, "right", "bottom"), (-4, -4, "right", "top"),
           (0, 6, "center", "bottom"), (0, -6, "center", "top"), (7, 0, "left", "center"), (-7, 0, "right", "center"))


class PointLabel(Annotation):
    """A label beside a point, placed where it crosses no line of its axes, no marker and no point
    label drawn before it (the first such place of :data:`_AROUND`; the least crowded when none is
    free), inside the axes: chosen again whenever the axes are laid out anew (a paper's final size).

    >>> fig, ax = plt.subplots(figsize=(3, 3)); _ = ax.plot([0.2, 0.6], [0.8, 0.6]); _ = ax.set(xlim=(0, 1), ylim=(0, 1))
    >>> label = ax._add_text(PointLabel("n=5", (0.2, 0.8), fontsize=6))
    >>> fig.draw_without_rendering(); label.get_horizontalalignment(), label.get_verticalalignment()
    ('left', 'bottom')
    >>> plt.close(fig)
    """

    def __init__(self, text: str, xy: tuple[float, float], **kwargs: Any) -> None:
        dx, dy, ha, va = _AROUND[0]
        super().__init__(text, xy, xytext=(dx, dy), textcoords="offset points", ha=ha, va=va, **kwargs)
        self._placed_for: tuple | None = None

    def update_positions(self, renderer: Any) -> None:
        """Choose the label's place for the axes as laid out now (once per layout), then place it."""
        key = (tuple(self.axes.bbox.bounds), tuple(self.axes.viewLim.bounds))
        if key != self._placed_for:
            self._placed_for = key  # first: the labels before it are placed without coming back here
            self._place(renderer)
        super().update_positions(renderer)

    def _place(self, renderer: Any) -> None:
        ax = self.axes
        frame = ax.get_window_extent(renderer)
        lines = [Path(line.get_transform().transform(line.get_xydata())) for line in ax.lines
                 if line.get_visible() and len(line.get_xydata()) > 1]
        boxes = []
        for coll in ax.collections:
            offsets = coll.get_offset_transform().transform(coll.get_offsets()) if len(coll.get_offsets()) else []
            sizes = coll.get_sizes() if len(coll.get_sizes()) else [36.0]
            for i, (x, y) in enumerate(offsets):
                radius = renderer.points_to_pixels(np.sqrt(sizes[i % len(sizes)]) / 2)
                boxes.append(Bbox.from_extents(x - radius, y - radius, x + radius, y + radius))
        earlier = ax.texts[:ax.texts.index(self)] if self in ax.texts else []
        boxes += [t.get_window_extent(renderer) for t in earlier if isinstance(t, PointLabel) and t.get_visible()]
        best, fewest = _AROUND[0], None
        for dx, dy, ha, va in _AROUND:
            self.xyann = (dx, dy)
            self.set(ha=ha, va=va)
            super().update_positions(renderer)
            box = Text.get_window_extent(self, renderer)
            hits = (sum(path.intersects_bbox(box, filled=False) for path in lines) + sum(box.overlaps(b) for b in boxes)
                    + 10 * (not frame.contains(box.x0, box.y0) or not frame.contains(box.x1, box.y1)))
            if fewest is None or hits < fewest:
                best, fewest = (dx, dy, ha, va), hits
            if hits == 0:
                break
        self.xyann = best[:2]
        self.set(ha=best[2], va=best[3])


def label_points(ax: plt.Axes, xs: Sequence[float], ys: Sequence[float], labels: Sequence[str], **kwargs: Any) -> None:
    """Write ``labels`` beside the points ``(xs, ys)`` of ``ax``, each clear of the lines, markers and
    labels around it (:class:`PointLabel`); ``kwargs`` go to the labels (font size, colour).

    >>> fig, ax = plt.subplots(); _ = ax.plot([0.2, 0.4], [0.8, 0.2])
    >>> label_points(ax, [0.2, 0.4], [0.8, 0.2], ["n=5", "n=7"], fontsize=6); [t.get_text() for t in ax.texts]
    ['n=5', 'n=7']
    >>> plt.close(fig)
    """
    for x, y, label in zip(xs, ys, labels):
        ax._add_text(PointLabel(label, (x, y), **kwargs))


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

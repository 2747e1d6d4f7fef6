"""Radar (spider) charts: one polygon per series over a set of categories.

>>> import pandas as pd
>>> t = pd.DataFrame({"category": list("abcab c".replace(" ", "")), "model": ["m"] * 3 + ["n"] * 3,
...                   "accuracy": [0.2, 0.5, 0.9, 0.4, 0.4, 0.6]})
>>> fig = radar(t, "category", "accuracy", "model")
>>> len(fig.axes[0].lines)
2
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from culturelab.plots.audit import claim
from culturelab.plots.honest import MIN_N, SMALL_N, footnote, note_small_n, too_few
from culturelab.plots.layout import current, figsize
from culturelab.plots.recipe import drawing
from culturelab.plots.style import LINESTYLES, MARKERS, apply_style, palette

#: where a radar's legend goes on a screen (axes coordinates): right of the spoke labels, not on them
BESIDE = (1.3, 1.0)


def _place_ring_labels(ax: plt.Axes, angles: np.ndarray) -> str:
    """Put the radial (ring) tick labels of a radar between two spokes where they cover no line or
    point; where every gap is covered, leave them out and return the ring values for the legend."""
    from culturelab.plots.audit import renderer_of, ticklabels_hit_data

    half = 180.0 / max(len(angles), 1)
    for angle in angles:
        ax.set_rlabel_position(float(np.degrees(angle)) + half)
        if not ticklabels_hit_data(ax, renderer_of(ax.figure)):
            return ""
    return rings_off_panel(ax)


def rings_off_panel(ax: plt.Axes) -> str:
    """Clear a radar's ring (radial tick) labels and return their values, for a legend's title.

    >>> fig, ax = plt.subplots(subplot_kw={"projection": "polar"}); _ = ax.set_ylim(0, 1); _ = ax.set_yticks([0.5, 1.0])
    >>> rings_off_panel(ax), [t.get_text() for t in ax.get_yticklabels()]
    ('0.5, 1', ['', ''])
    >>> plt.close(fig)
    """
    values = [t for t in ax.get_yticks() if 0 < t <= ax.get_ylim()[1] + 1e-9]
    ax.set_yticklabels([])
    return ", ".join(f"{v:g}" for v in values)


def chance_ring(ax: plt.Axes, chance: float, *, label: str | None = None, colour: str = "#555555") -> plt.Line2D:
    """A dashed ring (grey unless ``colour``) at radius ``chance`` on a polar ``ax``: the score of
    random answers (1/options for MCQ accuracy, 0 for a rank correlation such as Kendall τ).

    >>> fig, ax = plt.subplots(subplot_kw={"projection": "polar"})
    >>> ring = chance_ring(ax, 0.25)
    >>> set(ring.get_ydata().tolist()), ring.get_linestyle(), ring.get_label()
    ({0.25}, '--', 'chance (0.25)')
    >>> plt.close("all")
    """
    theta = np.linspace(0, 2 * np.pi, 200)
    line, = ax.plot(theta, np.full_like(theta, chance), color=colour, linestyle="--", linewidth=1.0,
                    label=label or f"chance ({chance:.2g})", zorder=1.5)
    return line


@drawing
def radar(df: pd.DataFrame, category: str, value: str, series: str, *, categories: Sequence[str] | None = None,
          title: str | None = None, rmax: float | None = None, ax: plt.Axes | None = None,
          fill_alpha: float = 0.06, missing: str = "zero", rlabel: str | None = None, n: str | None = None,
          ci_low: str | None = None, ci_high: str | None = None, chance: float | Mapping[str, float] | None = None,
          chance_note: str | None = None, min_n: int = MIN_N, max_bands: int = 3) -> plt.Figure:
    """Draw ``value`` per ``category`` (angles) with one closed polygon per ``series``.

    ``categories`` fixes the order of the spokes; categories missing for a series are drawn at 0
    (``missing="zero"``) or left as gaps in the outline, unfilled (``missing="gap"``).
    ``rlabel`` names the metric on the radial axis. For model scores (one row per series ×
    category): ``ci_low``/``ci_high`` columns draw a 95 % band (for at most ``max_bands`` series:
    more bands hide each other, and a caption says so), ``n`` the item counts (points resting on
    fewer than ``min_n`` items are drawn hollow, in their series' colour, and the spoke label shows
    the smallest n), ``chance`` a dashed ring at the metric's chance level (:func:`chance_ring`).
    Where the series are different metrics, ``chance`` maps a series to its own level (a dashed
    ring in the series' colour). Where a metric has no chance level (ROUGE, an aggregate of such
    metrics), leave it out (``chance=None``, or a series missing from the mapping) and say why in
    ``chance_note``: it becomes a caption under the figure.

    >>> t = pd.DataFrame({"category": ["food", "music", "sport"], "model": "a", "acc": [0.5, 0.25, 0.75],
    ...                   "lo": [0.4, 0.1, 0.6], "hi": [0.6, 0.4, 0.9], "n": [30, 4, 30]})
    >>> ax = radar(t, "category", "acc", "model", rlabel="accuracy", n="n", ci_low="lo", ci_high="hi",
    ...            chance=0.25).axes[0]
    >>> [tick.get_text() for tick in ax.get_xticklabels()], ax.get_legend().get_title().get_text()
    (['food\\nn=30', 'music\\nn=4', 'sport\\nn=30'], 'radius: accuracy')
    >>> plt.close("all")

    >>> t = pd.DataFrame({"category": ["food", "music", "sport"] * 2, "model": ["a"] * 3 + ["b"] * 3,
    ...                   "accuracy": [0.5, 0.25, 0.75, 1.0, 0.5, 0.5]})
    >>> ax = radar(t, "category", "accuracy", "model", rmax=1).axes[0]
    >>> len(ax.lines), [tick.get_text() for tick in ax.get_xticklabels()]
    (2, ['food', 'music', 'sport'])
    >>> plt.close("all")
    """
    if missing not in {"zero", "gap"}:
        raise ValueError(f"missing must be 'zero' or 'gap', not {missing!r}")
    apply_style()
    cats = list(categories) if categories is not None else sorted(df[category].astype(str).unique())
    angles = np.linspace(0, 2 * np.pi, len(cats), endpoint=False)
    if ax is None:
        fig, ax = plt.subplots(figsize=figsize(4.6, 4.6), subplot_kw={"projection": "polar"})
    else:
        fig = ax.figure
    names = list(dict.fromkeys(df[series].astype(str)))
    colours = dict(zip(names, palette(len(names))))
    for i, (name, colour) in enumerate(colours.items()):
        part = df[df[series].astype(str) == name].groupby(df[category].astype(str))[value].mean()
        vals = np.array([part.get(c, 0.0 if missing == "zero" else np.nan) for c in cats], dtype=float)
        closed_a, closed_v = np.append(angles, angles[0]), np.append(vals, vals[0])
        rows = df[df[series].astype(str) == name].groupby(df[category].astype(str))
        ax.plot(closed_a, closed_v, color=colour, linestyle=LINESTYLES[i % len(LINESTYLES)],
                marker=MARKERS[i % len(MARKERS)], markersize=3.5, linewidth=1.3, label=name)
        if ci_low and ci_high and len(colours) <= max_bands:
            lo = rows[ci_low].mean().reindex(cats).to_numpy(dtype=float)
            hi = rows[ci_high].mean().reindex(cats).to_numpy(dtype=float)
            ax.fill_between(closed_a, np.append(lo, lo[0]), np.append(hi, hi[0]), color=colour, alpha=0.15,
                            linewidth=0)
        elif not np.isnan(vals).any() and len(colours) <= max_bands:
            ax.fill(closed_a, closed_v, color=colour, alpha=fill_alpha)
        if n:
            small = too_few(rows[n].sum().reindex(cats).to_numpy(dtype=float), min_n)
            ax.scatter(angles[small], vals[small], s=22, facecolors="white", edgecolors=colour,
                       linewidths=1.2, zorder=4, gid=SMALL_N)
            if small.any():
                note_small_n(fig, min_n, what="hollow points")
    if ci_low and ci_high and len(colours) > max_bands:
        footnote(fig, f"no 95 % bands: {len(colours)} series' bands would hide each other (the intervals are in "
                      "the table)")
    levels: dict[str, float] = {}
    if isinstance(chance, Mapping):  # one ring per series, in its colour
        levels = {k: float(v) for k, v in chance.items() if k in colours}
        for name, level in levels.items():
            chance_ring(ax, level, label=f"chance: {name} ({level:.2g})", colour=colours[name])
    elif chance is not None:
        chance_ring(ax, float(chance))
        levels = dict.fromkeys(names, float(chance))
    claim(fig, chance=levels, no_chance=chance_note if any(name not in levels for name in names) else None)
    if chance_note and any(name not in levels for name in names):
        footnote(fig, f"no chance ring: {chance_note}")
    wrap = 16 if current().paper else 40  # long category names break into lines (a paper's radar is small)
    labels = [textwrap.fill(c, wrap, break_on_hyphens=False) for c in cats]
    if n:
        least = df.groupby(df[category].astype(str))[n].min()
        labels = [f"{label}\nn={int(least[c])}" if c in least else label for label, c in zip(labels, cats)]
    ax.set_xticks(angles)
    ax.set_xticklabels(labels, fontsize=7.5)
    for label, angle in zip(ax.get_xticklabels(), angles):  # anchor labels away from the circle
        c = np.cos(angle)
        label.set_horizontalalignment("left" if c > 0.1 else "right" if c < -0.1 else "center")
    ax.tick_params(axis="x", pad=4)
    peak = float(np.nanmax(df[[value, ci_high]].to_numpy(dtype=float))) if ci_high else float(np.nanmax(df[value]))
    top = rmax if rmax is not None else max(peak * 1.05, max(levels.values(), default=0.0) * 1.1, 1e-9)
    ax.set_ylim(0, top)
    ax.yaxis.set_major_locator(MaxNLocator(4))  # few rings: their labels stay apart near the centre
    ax.tick_params(axis="y", labelsize=6.5)
    ax.grid(True, alpha=0.4)
    ax.spines["polar"].set_alpha(0.4)
    if title:
        ax.set_title(title, pad=30)
    rings = _place_ring_labels(ax, angles)
    heading = f"radius: {rlabel}" if rlabel else ("radius" if rings else None)
    legend = ax.legend(loc="upper left", bbox_to_anchor=BESIDE, frameon=False,  # the metric, clear of the rings
                       title=f"{heading}\n(rings {rings})" if rings else heading)
    if rlabel:
        legend.get_title().set_fontsize(7)
    return fig

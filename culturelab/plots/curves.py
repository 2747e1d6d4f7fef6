"""Metric-vs-x curves with confidence bands (e.g. reordering metrics vs number of steps).

>>> import pandas as pd
>>> t = pd.DataFrame({"steps": [5, 5, 6, 6], "rho": [0.1, 0.3, 0.2, 0.4], "lang": ["en"] * 4})
>>> fig = metric_curve(t, "steps", "rho", hue="lang")
>>> len(fig.axes[0].lines) >= 1
True
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from culturelab.plots.audit import claim
from culturelab.plots.bars import place_legend
from culturelab.plots.honest import MIN_N, SMALL_N, mark_chance, note_small_n, too_few
from culturelab.plots.style import LINESTYLES, MARKERS, apply_style, palette
from culturelab.stats import summarise


def metric_curve(df: pd.DataFrame, x: str, y: str, *, hue: str | None = None, ax: plt.Axes | None = None,
                 title: str | None = None, ylabel: str | None = None, seed: int = 0,
                 baseline: pd.DataFrame | None = None, chance: float | None = None, min_n: int = MIN_N,
                 show_n: bool = True) -> plt.Figure:
    """Mean of ``y`` per ``x`` (and ``hue``) with 95 % bands (:func:`culturelab.stats.summarise`:
    Wilson for 0/1 values, else bootstrap).

    ``baseline`` (columns ``x`` and ``y``) is drawn as a dotted grey reference line, e.g. the
    random-permutation expectation at each step count; ``chance`` a constant one. Each point
    is labelled with its n (``show_n``: a row per series, in its colour, along the bottom of the axes); points resting on fewer than ``min_n`` items are hollow
    (in their series' colour). The legend goes where it covers no data (:func:`place_legend`).

    >>> t = pd.DataFrame({"steps": [3] * 12 + [4] * 2, "acc": [1, 0] * 7})
    >>> ax = metric_curve(t, "steps", "acc", chance=0.5).axes[0]
    >>> [a.get_text() for a in ax.texts], ax.lines[-1].get_label()
    (['n=12', 'n=2'], 'chance (0.5)')
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
        fig, ax = plt.subplots(figsize=(4.2, 3.0))
    else:
        fig = ax.figure
    table = summarise(df, y, [hue, x] if hue else [x], seed=seed)
    groups = list(dict.fromkeys(table[hue])) if hue else [None]
    for i, (g, colour) in enumerate(zip(groups, palette(len(groups)))):
        part = table[table[hue] == g] if hue else table
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
        if show_n:
            for xv, count in zip(part[x], part["n"]):  # one row per series along the bottom of the axes
                ax.annotate(f"n={count}", (xv, 0), xycoords=ax.get_xaxis_transform(), xytext=(0, 2 + 7 * i),
                            textcoords="offset points", ha="center", va="bottom", fontsize=5, color=colour)
    if baseline is not None:
        b = baseline.sort_values(x)
        ax.plot(b[x], b[y], color="#777777", linestyle=":", linewidth=1.2, label="random")
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

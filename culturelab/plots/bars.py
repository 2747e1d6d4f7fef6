"""Grouped bars (e.g. English vs native per country) and size-vs-score plots per family.

>>> import pandas as pd
>>> t = pd.DataFrame({"family": ["Qwen", "Qwen"], "params_b": [0.5, 7], "score": [0.3, 0.6]})
>>> len(size_vs_score(t, "params_b", "score", "family").axes[0].lines)
1
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from culturelab.plots.honest import MIN_N, SMALL_N_COLOUR, mark_chance, note_small_n, too_few
from culturelab.plots.style import LINESTYLES, MARKERS, apply_style, palette

_HATCHES = ["", "//", "..", "xx", "\\\\", "oo", "--", "++"]


def grouped_bars(df: pd.DataFrame, x: str, y: str, hue: str, *, err_low: str | None = None,
                 err_high: str | None = None, ax: plt.Axes | None = None, title: str | None = None,
                 ylabel: str | None = None, rotate: int = 0, n: str | None = None, chance: float | None = None,
                 min_n: int = MIN_N) -> plt.Figure:
    """Bars of ``y`` per ``x``, one bar per ``hue`` level (hatched for greyscale), optional CI whiskers.

    For model scores: ``n`` names the column of item counts (written under each bar; bars with
    fewer than ``min_n`` items are greyed out) and ``chance`` draws the chance level.

    >>> t = pd.DataFrame({"country": ["TR", "IR"], "lang": ["en", "en"], "acc": [0.6, 0.4], "n": [40, 3]})
    >>> ax = grouped_bars(t, "country", "acc", "lang", n="n", chance=0.25).axes[0]
    >>> from matplotlib.colors import to_hex
    >>> [to_hex(p.get_facecolor()) for p in ax.patches], ax.texts[1].get_text()
    (['#000000', '#d9d9d9'], 'n=3')
    >>> plt.close("all")

    >>> t = pd.DataFrame({"country": ["TR", "TR", "IR", "IR"], "lang": ["en", "native"] * 2,
    ...                   "acc": [0.6, 0.5, 0.7, 0.4]})
    >>> ax = grouped_bars(t, "country", "acc", "lang", title="MCQ").axes[0]
    >>> len(ax.patches), [tick.get_text() for tick in ax.get_xticklabels()], ax.get_title()
    (4, ['TR', 'IR'], 'MCQ')
    >>> plt.close("all")
    """
    apply_style()
    xs = list(dict.fromkeys(df[x].astype(str)))
    hues = list(dict.fromkeys(df[hue].astype(str)))
    if ax is None:
        fig, ax = plt.subplots(figsize=(max(4.0, 0.5 * len(xs) * len(hues) + 1.5), 3.0))
    else:
        fig = ax.figure
    width = 0.8 / len(hues)
    base = np.arange(len(xs))
    for i, (h, colour) in enumerate(zip(hues, palette(len(hues)))):
        part = df[df[hue].astype(str) == h].set_index(df[df[hue].astype(str) == h][x].astype(str))
        vals = np.array([part[y].get(v, np.nan) for v in xs], dtype=float)
        yerr = None
        if err_low and err_high:
            lo = np.array([part[err_low].get(v, np.nan) for v in xs], dtype=float)
            hi = np.array([part[err_high].get(v, np.nan) for v in xs], dtype=float)
            yerr = np.vstack([vals - lo, hi - vals])
        xpos = base + (i - (len(hues) - 1) / 2) * width
        counts = np.array([part[n].get(v, np.nan) for v in xs], dtype=float) if n else None
        small = too_few(counts, min_n) if n else np.zeros(len(xs), bool)
        bars = ax.bar(xpos, vals, width, color=colour, alpha=0.85,
                      hatch=_HATCHES[i % len(_HATCHES)], edgecolor="white", linewidth=0.5, label=h, yerr=yerr,
                      error_kw={"elinewidth": 0.8, "capsize": 2})
        for bar, grey in zip(bars, small):
            if grey:
                bar.set_facecolor(SMALL_N_COLOUR)
                bar.set_alpha(1.0)
        if n:
            for xp, count in zip(xpos, counts):
                if not np.isnan(count):
                    ax.annotate(f"n={int(count)}", (xp, 0), xytext=(0, 2), textcoords="offset points",
                                ha="center", va="bottom", fontsize=5, rotation=90, color="#333333")
        if small.any():
            note_small_n(fig, min_n, what="bars")
    if chance is not None:
        mark_chance(ax, chance)
    ax.set_xticks(base)
    ax.set_xticklabels(xs, rotation=rotate, ha="right" if rotate else "center")
    ax.set_ylabel(ylabel or y)
    ax.legend(frameon=False, ncols=min(len(hues) + (chance is not None), 4))
    if title:
        ax.set_title(title)
    return fig


def size_vs_score(df: pd.DataFrame, size: str, score: str, family: str, *, label: str | None = None,
                  ax: plt.Axes | None = None, title: str | None = None, ylabel: str | None = None,
                  xlabel: str = "parameters (billions, log scale)") -> plt.Figure:
    """Score vs model size on a log x axis, one line per family (points sorted by size).

    >>> t = pd.DataFrame({"family": ["Qwen", "Qwen", "Gemma", "Gemma"], "params_b": [7, 0.5, 2, 9],
    ...                   "acc": [0.6, 0.3, 0.4, 0.7]})
    >>> ax = size_vs_score(t, "params_b", "acc", "family").axes[0]
    >>> ax.get_xscale(), len(ax.lines), ax.lines[0].get_xdata().tolist()
    ('log', 2, [0.5, 7.0])
    >>> plt.close("all")
    """
    apply_style()
    if ax is None:
        fig, ax = plt.subplots(figsize=(4.6, 3.2))
    else:
        fig = ax.figure
    fams = list(dict.fromkeys(df[family].astype(str)))
    for i, (fam, colour) in enumerate(zip(fams, palette(len(fams)))):
        part = df[df[family].astype(str) == fam].sort_values(size)
        ax.plot(part[size], part[score], color=colour, marker=MARKERS[i % len(MARKERS)],
                linestyle=LINESTYLES[i % len(LINESTYLES)], linewidth=1.2, markersize=4.5, label=fam)
        if label:
            for _, row in part.iterrows():
                ax.annotate(str(row[label]), (row[size], row[score]), fontsize=6, xytext=(3, 3),
                            textcoords="offset points")
    ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel or score)
    ax.legend(frameon=False, fontsize=7, ncols=2 if len(fams) > 5 else 1)
    if title:
        ax.set_title(title)
    return fig

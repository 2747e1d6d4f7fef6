"""What every model figure must show: how many items a point or cell rests on, its 95 % CI,
the chance level, and which cells rest on too few items to mean anything (greyed out).

The plot functions of :mod:`culturelab.plots` take these as arguments (``n``/``counts``,
``ci_low``/``ci_high``, ``chance``, ``min_n``); paper figures built by hand use the helpers here.

>>> import matplotlib.pyplot as plt
>>> fig, ax = plt.subplots()
>>> mark_chance(ax, 0.25).get_label()
'chance (0.25)'
>>> plt.close("all")
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np

#: cells or points that rest on fewer items than this are greyed out
MIN_N = 10
#: the colour of cells/points below MIN_N
SMALL_N_COLOUR = "#d9d9d9"


def mark_chance(ax: plt.Axes, chance: float, *, axis: str = "y", label: str | None = None) -> plt.Line2D:
    """A dotted reference line at the chance level (``axis="y"``: horizontal).

    >>> fig, ax = plt.subplots()
    >>> mark_chance(ax, 0.5, axis="x").get_xdata()
    [0.5, 0.5]
    >>> plt.close("all")
    """
    label = label or f"chance ({chance:.2g})"
    draw = ax.axhline if axis == "y" else ax.axvline
    return draw(chance, color="#555555", linestyle=":", linewidth=1.1, label=label, zorder=0.5)


def too_few(n: Sequence[float] | np.ndarray, min_n: int = MIN_N) -> np.ndarray:
    """Boolean mask of counts below ``min_n`` (missing counts count as too few).

    >>> too_few([3, 12, float("nan")]).tolist()
    [True, False, True]
    """
    arr = np.asarray(n, dtype=float)
    return ~(arr >= min_n)


def note_small_n(fig: plt.Figure, min_n: int = MIN_N, *, what: str = "cells") -> None:
    """A caption under the figure saying what grey means.

    >>> fig, ax = plt.subplots(); note_small_n(fig); note_small_n(fig); [t.get_text() for t in fig.texts]
    ['grey: cells with n < 10 items (too few to mean anything)']
    >>> plt.close("all")
    """
    text = f"grey: {what} with n < {min_n} items (too few to mean anything)"
    if any(t.get_text() == text for t in fig.texts):  # once per figure, however many panels have such points
        return
    fig.text(0.99, -0.01, text, fontsize=6, color="#666666", ha="right", va="top")


def ci_text(mean: float, low: float, high: float, n: float | None = None, fmt: str = ".2f") -> str:
    """A cell annotation: the value, its 95 % CI and n.

    >>> ci_text(0.5, 0.31, 0.69, 24)
    '0.50\\n[0.31, 0.69]\\nn=24'
    """
    parts = [format(mean, fmt)]
    if not (np.isnan(low) or np.isnan(high)):
        parts.append(f"[{format(low, fmt)}, {format(high, fmt)}]")
    if n is not None and not np.isnan(n):
        parts.append(f"n={int(n)}")
    return "\n".join(parts)

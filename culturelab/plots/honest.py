"""What every model figure must show: how many items a point or cell rests on, its 95 % CI,
the chance level, and which marks rest on too few items to mean anything (faded or hatched in
their own colour, so that a panel of small groups still tells its series apart).

The plot functions of :mod:`culturelab.plots` take these as arguments (``n``/``counts``,
``ci_low``/``ci_high``, ``chance``, ``min_n``); paper figures built by hand use the helpers here.
Captions under a figure go through :func:`footnote` (one line) or :func:`caption` (a paragraph, e.g.
what the figure shows beside the paper, wrapped to the figure's width): :func:`culturelab.plots.save`
stacks them below everything else drawn, legends below the axes included, so two captions never
overlap each other, the axis labels or a legend.

>>> import matplotlib.pyplot as plt
>>> fig, ax = plt.subplots()
>>> mark_chance(ax, 0.25).get_label()
'chance (0.25)'
>>> plt.close("all")
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import to_rgba
from matplotlib.text import Text

#: marks that rest on fewer items than this are drawn faded (bars), hollow (points) or hatched (cells)
MIN_N = 10
#: the grey that replaces a mark's colour: the audit fails a panel that is mostly this colour
#: (:mod:`culturelab.plots.audit`); the plot functions keep each series' colour and fade it instead
SMALL_N_COLOUR = "#d9d9d9"
#: the opacity of a bar resting on fewer than :data:`MIN_N` items
FADED_ALPHA = 0.3
#: gid of the artists that mark small n (faded bars, hollow points, hatched cells)
SMALL_N = "culturelab:small-n"
#: gid of the counts of an n row under a panel's x axis (one per x; the row is headed "n")
N_ROW = "culturelab:n-row"
#: gid of captions placed by :func:`footnote`
FOOTNOTE = "culturelab:footnote"


def mark_chance(ax: plt.Axes, chance: float, *, axis: str = "y", label: str | None = None) -> plt.Line2D:
    """A dotted reference line at the chance level (``axis="y"``: horizontal).

    >>> fig, ax = plt.subplots()
    >>> mark_chance(ax, 0.5, axis="x").get_xdata()
    [0.5, 0.5]
    >>> plt.close("all")
    """
    label = label or f"chance ({chance:.3g})"
    draw = ax.axhline if axis == "y" else ax.axvline
    return draw(chance, color="#555555", linestyle=":", linewidth=1.1, label=label, zorder=0.5)


def too_few(n: Sequence[float] | np.ndarray, min_n: int = MIN_N) -> np.ndarray:
    """Boolean mask of counts below ``min_n`` (missing counts count as too few).

    >>> too_few([3, 12, float("nan")]).tolist()
    [True, False, True]
    """
    arr = np.asarray(n, dtype=float)
    return ~(arr >= min_n)


def fade(colour: Any) -> tuple[float, float, float, float]:
    """The face colour of a mark on too few items: its own colour, faded.

    >>> fade("#000000")
    (0.0, 0.0, 0.0, 0.3)
    """
    return to_rgba(colour, FADED_ALPHA)


def footnote(fig: plt.Figure, text: str) -> Text:
    """A caption line under ``fig`` (6 pt, grey), once per text; :func:`culturelab.plots.save`
    stacks the captions below everything else drawn.

    >>> fig = plt.figure(); _ = footnote(fig, "a"); _ = footnote(fig, "a"); _ = footnote(fig, "b")
    >>> [t.get_text() for t in fig.texts]
    ['a', 'b']
    >>> plt.close(fig)
    """
    for old in fig.texts:
        if old.get_gid() == FOOTNOTE and old.get_text() == text:
            return old
    below = sum(t.get_gid() == FOOTNOTE for t in fig.texts)
    return fig.text(0.01, -0.01 - 0.04 * below, text, fontsize=6, color="#555555", ha="left", va="top", gid=FOOTNOTE)


def caption(fig: plt.Figure, text: str) -> plt.Figure:
    """``fig`` with ``text`` — what it shows beside the paper: data, protocol and model
    (:meth:`culturelab.protocol.Deviations.caption`) — as a caption (:func:`footnote`) wrapped to
    the figure's width; returns ``fig``, so a call can wrap the figure's constructor.

    >>> fig = caption(plt.figure(figsize=(2, 2)), "data: sample data (ours) · protocol: same · model: not the paper's")
    >>> fig.texts[-1].get_text().splitlines()
    ['data: sample data (ours) · protocol: same ·', "model: not the paper's"]
    >>> plt.close(fig)
    """
    width = max(44, int(fig.get_figwidth() * 22))
    footnote(fig, textwrap.fill(text, width, break_on_hyphens=False))
    return fig


def note_small_n(fig: plt.Figure, min_n: int = MIN_N, *, what: str = "faded bars") -> Text:
    """A caption under the figure saying what the small-n style means.

    >>> fig, ax = plt.subplots(); _ = note_small_n(fig, what="hollow points"); fig.texts[-1].get_text()
    'hollow points: n < 10 items (too few to mean anything)'
    >>> plt.close("all")
    """
    return footnote(fig, f"{what}: n < {min_n} items (too few to mean anything)")


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

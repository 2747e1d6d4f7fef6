"""Two renderings of one figure: ``notebook`` (the look the notebooks show inline, sized for a screen,
with its provenance printed under it) and ``paper`` (sized for a 3.3-in column or a 6.9-in text width
at final size, every text at least 6 pt, axis labels and titles at least 7 pt, the provenance in a
caption file instead of the image).

A drawing asks for its size through :func:`figsize` and for its panels through :func:`panel_grid`;
both answer for the rendering in force (:func:`rendering`), so one drawing serves both: in the paper
style the panels wrap into rows rather than widen the figure.

>>> with rendering("paper", "column"):
...     current().inches, figsize(8.0, 3.0)
(3.3, (3.3, 1.95))
>>> figsize(8.0, 3.0)
(8.0, 3.0)
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import matplotlib.pyplot as plt

from culturelab.plots.context import (
    MIN_HEIGHT_SHARE,
    MIN_LABEL_PT,
    MIN_PANEL_INCHES,
    MIN_TEXT_PT,
    NOTEBOOK_RC,
    PAPER_RC,
    STYLES,
    WIDTHS,
    Rendering,
    current,
    enter,
    leave,
)
from culturelab.plots.style import apply_style

__all__ = ["MIN_HEIGHT_SHARE", "MIN_LABEL_PT", "MIN_PANEL_INCHES", "MIN_TEXT_PT", "NOTEBOOK_RC", "PAPER_RC", "SHARED_LEGEND",
           "STYLES", "WIDTHS", "Rendering", "current", "figsize", "panel_grid", "rendering", "shared_legend",
           "small_text"]


@contextmanager
def rendering(style: str = "notebook", width: str | None = None) -> Iterator[Rendering]:
    """Within the block, drawings draw for ``style`` at ``width`` (rcParams restored after).

    >>> with rendering("paper", "column") as r:
    ...     plt.rcParams["font.size"], r.inches
    (7.0, 3.3)
    """
    chosen = Rendering(style, width if style == "paper" else None)
    token = enter(chosen)
    try:
        with plt.rc_context():
            apply_style()  # the whole project style, at this rendering's sizes
            yield chosen
    finally:
        leave(token)


def small_text(notebook: float = 5.5) -> float:
    """The size of the smallest texts a drawing writes (n labels, cell notes): ``notebook`` points on
    a screen, never under :data:`MIN_TEXT_PT` in the paper style.

    >>> small_text(), small_text(5.0)
    (5.5, 5.0)
    >>> with rendering("paper"):
    ...     small_text()
    6.0
    """
    return max(notebook, MIN_TEXT_PT) if current().paper else notebook


def figsize(width: float, height: float) -> tuple[float, float]:
    """The size of a one-panel figure a drawing would make ``width`` × ``height`` inches on a
    screen: as asked in the notebook style; in the paper style at most the final width, its height
    shrunk with it (to no less than :data:`MIN_HEIGHT_SHARE` of the height asked for).

    >>> with rendering("paper", "text"):
    ...     figsize(4.0, 3.0), figsize(12.0, 3.0)
    ((4.0, 3.0), (6.9, 1.95))
    """
    target = current().inches
    if target is None or width <= target:
        return (width, height)
    return (target, round(height * max(target / width, MIN_HEIGHT_SHARE), 3))


def panel_grid(n: int, *, panel: tuple[float, float] = (3.0, 2.6), columns: int | None = None,
               min_panel: float = MIN_PANEL_INCHES, extra_width: float = 0.0, **subplots: Any) -> tuple[plt.Figure, list[Any]]:
    """A figure of ``n`` panels, each ``panel`` inches on a screen, and the panels in reading order.
    Notebook style: one row (or ``columns`` per row). Paper style: as many columns as fit the final
    width at ``min_panel`` inches each (at most ``columns``), the rest wrapped into further rows; the
    panels share the width, their height shrinks with it. ``extra_width``: inches beside the panels
    (a legend, a colour bar). ``subplots`` go to :func:`matplotlib.pyplot.subplots` (``sharey``,
    ``subplot_kw`` …); unused cells of the last row are removed.

    >>> fig, axes = panel_grid(5)
    >>> len(axes), [float(v) for v in fig.get_size_inches()]
    (5, [15.0, 2.6])
    >>> plt.close(fig)
    >>> with rendering("paper", "text"):
    ...     fig, axes = panel_grid(5)
    >>> len(axes), [round(float(v), 2) for v in fig.get_size_inches()], len({round(a.get_position().y0, 2) for a in axes})
    (5, [6.9, 3.38], 2)
    >>> plt.close(fig)
    """
    if n < 1:
        raise ValueError("panel_grid needs at least one panel")
    target = current().inches
    width, height = panel
    if target is None:
        cols = min(n, columns or n)
        rows = math.ceil(n / cols)
        size = (width * cols + extra_width, height * rows)
    else:
        fit = max(1, int((target - extra_width) // min_panel))
        cols = max(1, min(n, columns or n, fit))
        rows = math.ceil(n / cols)
        each = min(width, (target - extra_width) / cols)
        shrunk = height * max(each / width, MIN_HEIGHT_SHARE)
        size = (min(target, each * cols + extra_width), round(shrunk * rows, 3))
    fig, grid = plt.subplots(rows, cols, figsize=size, squeeze=False, **subplots)
    axes = list(grid.flat)
    for extra in axes[n:]:
        extra.remove()
    return fig, axes[:n]


#: gid of the legend :func:`shared_legend` puts above a figure's panels (outside the box a layout arranges)
SHARED_LEGEND = "culturelab:shared-legend"


def shared_legend(fig: plt.Figure, axes: list[Any], **kwargs: Any) -> Any:
    """One legend for every panel, centred above them: each label once (the first panel's handle),
    the panels' own legends removed, as many columns as fit the figure's width. Call it last, after
    the panels are laid out (``kwargs`` go to :meth:`matplotlib.figure.Figure.legend`).

    >>> fig, axes = panel_grid(2)
    >>> for ax in axes: _ = ax.plot([1, 2], label="ours"); _ = ax.axhline(1.5, label="chance")
    >>> [t.get_text() for t in shared_legend(fig, axes).get_texts()]
    ['ours', 'chance']
    >>> plt.close(fig)
    """
    handles: dict[str, Any] = {}
    for ax in axes:
        found, labels = ax.get_legend_handles_labels()
        handles.update((label, handle) for handle, label in zip(found, labels) if label not in handles)
        if ax.get_legend() is not None:
            ax.get_legend().remove()
    if fig.get_layout_engine() is None:
        fig.tight_layout()
    kwargs.setdefault("frameon", False)
    width = fig.get_figwidth() * fig.dpi
    for ncols in range(len(handles), 0, -1):
        legend = fig.legend(list(handles.values()), list(handles), loc="lower center", bbox_to_anchor=(0.5, 1.0),
                            ncols=ncols, **kwargs)
        legend.set_gid(SHARED_LEGEND)
        fig.draw_without_rendering()  # the legend's size as drawn
        if ncols == 1 or legend.get_window_extent(fig.canvas.get_renderer()).width <= width:
            return legend
        legend.remove()
    return legend

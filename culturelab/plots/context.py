"""The rendering in force — ``notebook`` or ``paper`` at a width — and what each asks of a figure
(final widths, the smallest text, the rcParams). Drawings read it through
:func:`culturelab.plots.layout.rendering` and the sizing helpers there.

>>> current().style, Rendering("paper", "column").inches
('notebook', 3.3)
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass
from typing import Any

#: the renderings of a figure
STYLES = ("notebook", "paper")
#: final widths of a paper figure, in inches (a two-column paper's column and text widths)
WIDTHS = {"column": 3.3, "text": 6.9}
#: the smallest text of a paper figure at its final size, and of its titles and axis labels (points)
MIN_TEXT_PT = 6.0
MIN_LABEL_PT = 7.0
#: a paper panel narrower than this (inches) cannot hold its tick labels: panels wrap into rows instead
MIN_PANEL_INCHES = 1.55
#: how far a paper figure's height may shrink with its width (a share of the height asked for)
MIN_HEIGHT_SHARE = 0.65

#: the notebook look (the project's style since the start)
NOTEBOOK_RC: dict[str, Any] = {
    "font.size": 9, "axes.titlesize": 10, "axes.labelsize": 9, "legend.fontsize": 8, "xtick.labelsize": 8,
    "ytick.labelsize": 8, "figure.titlesize": 10, "legend.title_fontsize": 8, "lines.linewidth": 1.5,
    "lines.markersize": 6.0, "axes.linewidth": 0.8, "savefig.pad_inches": 0.1,
}
#: the paper look: sizes at final size (no text under :data:`MIN_TEXT_PT`), thinner lines
PAPER_RC: dict[str, Any] = {
    "font.size": 7, "axes.titlesize": 7.5, "axes.labelsize": 7, "legend.fontsize": 6.5, "xtick.labelsize": 6.5,
    "ytick.labelsize": 6.5, "figure.titlesize": 8, "legend.title_fontsize": 7, "lines.linewidth": 1.0,
    "lines.markersize": 4.0, "axes.linewidth": 0.6, "xtick.major.width": 0.6, "ytick.major.width": 0.6,
    "xtick.major.size": 2.5, "ytick.major.size": 2.5, "savefig.pad_inches": 0.02, "legend.handlelength": 1.6,
    "legend.columnspacing": 1.0, "legend.borderaxespad": 0.3,
}


@dataclass(frozen=True)
class Rendering:
    """A style (``notebook`` or ``paper``) and, for ``paper``, a width (``column`` or ``text``).

    >>> Rendering("paper", "text").inches, Rendering().inches
    (6.9, None)
    """

    style: str = "notebook"
    width: str | None = None

    def __post_init__(self) -> None:
        if self.style not in STYLES:
            raise ValueError(f"style must be one of {STYLES}, not {self.style!r}")
        if self.width is not None and self.width not in WIDTHS:
            raise ValueError(f"width must be one of {tuple(WIDTHS)}, not {self.width!r}")

    @property
    def paper(self) -> bool:
        return self.style == "paper"

    @property
    def inches(self) -> float | None:
        """The final width in inches (``None``: the notebook style, sized by each drawing)."""
        return WIDTHS[self.width or "text"] if self.paper else None

    @property
    def rc(self) -> dict[str, Any]:
        return PAPER_RC if self.paper else NOTEBOOK_RC


_NOTEBOOK = Rendering()
_CURRENT: contextvars.ContextVar[Rendering | None] = contextvars.ContextVar("culturelab_rendering", default=None)


def current() -> Rendering:
    """The rendering in force (the notebook style outside :func:`rendering`).

    >>> current().style
    'notebook'
    """
    return _CURRENT.get() or _NOTEBOOK


def enter(rendering: Rendering) -> contextvars.Token:
    """Make ``rendering`` the one in force (undo with :func:`leave`)."""
    return _CURRENT.set(rendering)


def leave(token: contextvars.Token) -> None:
    """Restore the rendering in force before :func:`enter`."""
    _CURRENT.reset(token)

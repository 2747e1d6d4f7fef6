"""One figure style for every notebook, and ``save()``.

* Fonts: DejaVu Sans first (Latin, Cyrillic, Arabic script — matplotlib shapes Persian and
  Arabic itself through libraqm, so no reshaping packages), then Noto Sans CJK for Chinese,
  Japanese and Korean labels (shipped by the ``noto-cjk-sans-otc`` package, offline).
* Palette: colour-blind-safe and ordered by lightness so it stays readable in greyscale;
  markers and line styles double-encode series.
* ``save(fig, path)`` writes a vector PDF and a 200-dpi PNG for matplotlib figures, and a
  self-contained HTML file for plotly figures. It refuses a figure with an empty panel, stacks the
  captions (:func:`culturelab.plots.honest.footnote`) below everything drawn and a title stamp
  (:func:`stamp_title`) above it, and with ``audit_to`` writes the figure's audit record there
  (:mod:`culturelab.plots.audit`).

>>> apply_style()["pdf.fonttype"]
42
"""

from __future__ import annotations

import importlib.metadata as md
import json
from pathlib import Path
from typing import Any

import matplotlib
import matplotlib.pyplot as plt
from matplotlib import font_manager

# Okabe–Ito colours, reordered from dark to light so neighbouring series differ in grey too
_PALETTE = ["#000000", "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#56B4E9", "#E69F00", "#F0E442", "#999999"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*", "h"]
LINESTYLES = ["-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1)), (0, (1, 1)), "-", "--"]


#: the paper style's order of the palette: the first four far apart in lightness (CIE L* 0, 46, 71, 90), so that
#: they differ in greyscale too (series are double-encoded by marker, line style or hatch as well)
_GREY_SPREAD = ["#000000", "#0072B2", "#E69F00", "#F0E442", "#D55E00", "#009E73", "#CC79A7", "#56B4E9", "#999999"]


def palette(n: int) -> list[str]:
    """``n`` colours (cycled beyond nine); in the paper style the first ones are the farthest apart
    in greyscale (black, blue, orange, yellow).

    >>> palette(3)
    ['#000000', '#0072B2', '#D55E00']
    >>> palette(10)[9] == palette(1)[0]
    True
    >>> from culturelab.plots.layout import rendering
    >>> with rendering("paper"):
    ...     palette(3)
    ['#000000', '#0072B2', '#E69F00']
    """
    from culturelab.plots.context import current

    colours = _GREY_SPREAD if current().paper else _PALETTE
    return [colours[i % len(colours)] for i in range(n)]


def _cjk_family() -> str | None:
    try:
        path = md.distribution("noto-cjk-sans-otc").locate_file("noto_cjk_sans_otc/NotoSansCJK-Regular.ttc")
    except md.PackageNotFoundError:
        return None
    path = Path(str(path))
    if not path.is_file():
        return None
    font_manager.fontManager.addfont(str(path))
    return font_manager.FontProperties(fname=str(path)).get_name()


def apply_style() -> dict[str, Any]:
    """Set the project's matplotlib style for the rendering in force (idempotent; the paper style's
    sizes inside :func:`culturelab.plots.layout.rendering` ``("paper")``) and return the rcParams it set.

    >>> params = apply_style()
    >>> plt.rcParams["font.size"] == params["font.size"] == 9, params["savefig.bbox"]
    (True, 'tight')
    """
    from culturelab.plots.context import current

    families = ["DejaVu Sans"]
    cjk = _cjk_family()
    if cjk:
        families.append(cjk)
    params = {
        "font.family": families,
        **current().rc,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.grid": True,
        "grid.alpha": 0.3,
        "axes.prop_cycle": matplotlib.cycler(color=palette(len(_PALETTE))),
        "figure.dpi": 100,
        "savefig.bbox": "tight",
        "pdf.fonttype": 42,  # embed TrueType: editable text in Illustrator/Inkscape
        "ps.fonttype": 42,
    }
    plt.rcParams.update(params)
    return params


class EmptyFigureError(ValueError):
    """A figure with a panel in which nothing is plotted: it is not saved."""


#: gid of a suptitle that carries a stamp (:func:`stamp_title`): placed above everything drawn
STAMPED = "culturelab:stamped-title"


def stamp_title(fig: Any, stamp: str) -> None:
    """Put ``stamp`` (e.g. "sample data (not the paper's data)") in the figure's title: a line of
    its suptitle, or the suptitle itself when there is none; :func:`save` places it above
    everything else drawn.

    >>> fig = plt.figure(); _ = fig.suptitle("Fig. 3"); stamp_title(fig, "sample data"); fig.get_suptitle()
    'Fig. 3\\nsample data'
    >>> plt.close(fig)
    """
    old = fig.get_suptitle()
    if stamp in old or (stamp.startswith("sample data") and "sample data" in old.lower()):
        return
    title = fig.suptitle(f"{old}\n{stamp}" if old else stamp, **({} if old else {"fontsize": 9}))
    title.set_gid(STAMPED)


def place_margins(fig: Any) -> None:
    """Stack the captions of ``fig`` (:func:`culturelab.plots.honest.footnote`) below, and a stamped
    suptitle (:func:`stamp_title`) above, the tight bounding box of everything else drawn.

    >>> from culturelab.plots.honest import footnote
    >>> fig, ax = plt.subplots(figsize=(3, 2)); _ = ax.plot([1, 2]); notes = [footnote(fig, "a"), footnote(fig, "b")]
    >>> place_margins(fig); bool(notes[0].get_position()[1] > notes[1].get_position()[1])
    True
    >>> plt.close(fig)
    """
    from culturelab.plots.honest import FOOTNOTE

    notes = [t for t in fig.texts if t.get_gid() == FOOTNOTE]
    title = getattr(fig, "_suptitle", None)
    title = title if title is not None and title.get_gid() == STAMPED else None
    if not notes and title is None:
        return
    from culturelab.plots.audit import renderer_of

    renderer_of(fig)  # lays the figure out: the legends' anchors are final
    for legend in fig.legends:  # anchored to the figure's box, a legend would move when savefig crops it
        box = fig.transFigure.inverted().transform_bbox(legend.get_bbox_to_anchor())
        legend.set_bbox_to_anchor(box, transform=fig.transFigure)
    for text in [*notes, *([title] if title is not None else [])]:
        text.set_visible(False)
    box = fig.get_tightbbox(renderer_of(fig))  # inches
    width, height = fig.get_size_inches()
    if title is not None:
        title.set(visible=True, y=(box.y1 + 0.06) / height, va="bottom")
    y = box.y0 - 0.04
    for note in notes:
        note.set(visible=True, x=box.x0 / width, y=y / height, ha="left", va="top")
        y -= (note.get_text().count("\n") + 1) * note.get_fontsize() * 1.3 / 72


def save(fig: Any, path: str | Path, *, dpi: int = 200, audit_to: str | Path | None = None,
         metadata: dict[str, Any] | None = None, formats: tuple[str, ...] = (".pdf", ".png")) -> list[Path]:
    """Write ``fig`` next to ``path`` (suffix ignored): ``.pdf`` + ``.png`` for matplotlib,
    ``.html`` (self-contained, opens offline) for plotly. Returns the written files.

    A matplotlib figure with a panel in which nothing is plotted raises :class:`EmptyFigureError`
    (naming the figure and the panel) and writes nothing. ``audit_to``: a JSON file for the
    figure's audit record (:func:`culturelab.plots.audit.record`). ``metadata``: the PDF's document
    information (``Title``, ``Subject``, ``Keywords``, ``Creator``); the PNG gets its title and subject.
    ``formats``: the files to write (a check of the layout needs the PDF only).

    >>> import tempfile
    >>> fig, ax = plt.subplots(figsize=(1, 1)); _ = ax.plot([1, 2])
    >>> [p.suffix for p in save(fig, Path(tempfile.mkdtemp()) / "demo.svg", dpi=50)]
    ['.pdf', '.png']
    >>> plt.close(fig)
    >>> fig, ax = plt.subplots(); _ = ax.set_title("size vs score")
    >>> save(fig, Path(tempfile.mkdtemp()) / "fig8_size_ours")
    Traceback (most recent call last):
    culturelab.plots.style.EmptyFigureError: fig8_size_ours: nothing is plotted in axes 0 ('size vs score'); not saved
    >>> plt.close(fig)
    """
    base = Path(path).with_suffix("")
    if hasattr(fig, "write_html"):  # plotly
        base.parent.mkdir(parents=True, exist_ok=True)
        out = base.with_suffix(".html")
        fig.write_html(out, include_plotlyjs=True, full_html=True)
        return [out]
    from culturelab.plots import audit

    empty = audit.empty_panels(fig)
    if empty:
        raise EmptyFigureError(f"{base.name}: nothing is plotted in {', '.join(empty)}; not saved")
    place_margins(fig)
    base.parent.mkdir(parents=True, exist_ok=True)
    if audit_to is not None:
        target = Path(audit_to)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps({"figure": base.name, **audit.record(fig)}, indent=1, ensure_ascii=False,
                                     default=float), encoding="utf-8")
    info = {k: v for k, v in (metadata or {}).items() if v}
    png = {"Title": info.get("Title", ""), "Description": info.get("Subject", ""), "Software": info.get("Creator", "")}
    written = []
    for suffix in formats:
        out = base.with_suffix(suffix)
        fig.savefig(out, dpi=dpi, bbox_inches="tight", metadata={**info, "CreationDate": None} if suffix == ".pdf"
                    else {k: v for k, v in png.items() if v})
        written.append(out)
    return written

"""One figure style for every notebook, and ``save()``.

* Fonts: DejaVu Sans first (Latin, Cyrillic, Arabic script — matplotlib shapes Persian and
  Arabic itself through libraqm, so no reshaping packages), then Noto Sans CJK for Chinese,
  Japanese and Korean labels (shipped by the ``noto-cjk-sans-otc`` package, offline).
* Palette: colour-blind-safe and ordered by lightness so it stays readable in greyscale;
  markers and line styles double-encode series.
* ``save(fig, path)`` writes a vector PDF and a 200-dpi PNG for matplotlib figures, and a
  self-contained HTML file for plotly figures.

>>> apply_style()["pdf.fonttype"]
42
"""

from __future__ import annotations

import importlib.metadata as md
from pathlib import Path
from typing import Any

import matplotlib
import matplotlib.pyplot as plt
from matplotlib import font_manager

# Okabe–Ito colours, reordered from dark to light so neighbouring series differ in grey too
_PALETTE = ["#000000", "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#56B4E9", "#E69F00", "#F0E442", "#999999"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*", "h"]
LINESTYLES = ["-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1)), (0, (1, 1)), "-", "--"]


def palette(n: int) -> list[str]:
    """``n`` colours (cycled beyond nine).

    >>> palette(3)
    ['#000000', '#0072B2', '#D55E00']
    >>> palette(10)[9] == palette(1)[0]
    True
    """
    return [_PALETTE[i % len(_PALETTE)] for i in range(n)]


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
    """Set the project's matplotlib style (idempotent) and return the rcParams it set.

    >>> params = apply_style()
    >>> plt.rcParams["font.size"] == params["font.size"] == 9, params["savefig.bbox"]
    (True, 'tight')
    """
    families = ["DejaVu Sans"]
    cjk = _cjk_family()
    if cjk:
        families.append(cjk)
    params = {
        "font.family": families,
        "font.size": 9,
        "axes.titlesize": 10,
        "axes.labelsize": 9,
        "legend.fontsize": 8,
        "xtick.labelsize": 8,
        "ytick.labelsize": 8,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.grid": True,
        "grid.alpha": 0.3,
        "axes.prop_cycle": matplotlib.cycler(color=_PALETTE),
        "figure.dpi": 100,
        "savefig.bbox": "tight",
        "pdf.fonttype": 42,  # embed TrueType: editable text in Illustrator/Inkscape
        "ps.fonttype": 42,
    }
    plt.rcParams.update(params)
    return params


def save(fig: Any, path: str | Path, *, dpi: int = 200) -> list[Path]:
    """Write ``fig`` next to ``path`` (suffix ignored): ``.pdf`` + ``.png`` for matplotlib,
    ``.html`` (self-contained, opens offline) for plotly. Returns the written files.

    >>> import tempfile
    >>> fig, ax = plt.subplots(figsize=(1, 1))
    >>> [p.suffix for p in save(fig, Path(tempfile.mkdtemp()) / "demo.svg", dpi=50)]
    ['.pdf', '.png']
    >>> plt.close(fig)
    """
    base = Path(path).with_suffix("")
    base.parent.mkdir(parents=True, exist_ok=True)
    if hasattr(fig, "write_html"):  # plotly
        out = base.with_suffix(".html")
        fig.write_html(out, include_plotlyjs=True, full_html=True)
        return [out]
    written = []
    for suffix in (".pdf", ".png"):
        out = base.with_suffix(suffix)
        fig.savefig(out, dpi=dpi, metadata={"CreationDate": None} if suffix == ".pdf" else None)
        written.append(out)
    return written

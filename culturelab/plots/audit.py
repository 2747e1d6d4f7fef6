"""The figure audit: what a figure claims (:func:`claim`), what it shows (:func:`inspect`, read from
matplotlib's renderer) and where the two disagree (:func:`problems`).

A PNG cannot be checked for its n labels, its chance line or text that collides, so
:func:`culturelab.plots.save` refuses a figure with an empty panel and, given ``audit_to``, writes
the figure's claims and facts as a small JSON file (``Run.savefig``: one per figure under the run's
folder, ``runs/<run>/<notebook>/figures/<name>.json``); the notebook tests audit those files.

Every figure declares its ``kind``: ``score`` (a model's scores: ours, perhaps beside the paper's),
``reported`` (the paper's or a release's numbers only) or ``data`` (the dataset itself). The rules:

* every figure: no empty panel; no two texts overlap (rotated texts as rotated boxes); no legend over
  plotted data (bars, lines, points, bands, cells); text on a bar or cell is readable against it
  (contrast ratio at least :data:`MIN_CONTRAST`); no panel with more than half of its marks greyed out
  (:data:`~culturelab.plots.honest.SMALL_N_COLOUR`); at most :data:`MAX_BANDS` bands in one panel; a
  figure of sample data says "sample data" in its title;
* a score figure also names its model(s) and scoring method(s) in a title or legend, draws the chance
  level it declares (a line, ring or colour-bar mark at that value) or declares why there is none, and
  labels each bar, point or cell of ours (artists and panels not marked :func:`mark_reported`) with its
  n (radar spokes: one n per spoke).

>>> import matplotlib.pyplot as plt
>>> fig, ax = plt.subplots()
>>> _ = ax.bar(["a", "b"], [0.2, 0.3], label="gemma3-270m (log-likelihood)")
>>> _ = claim(fig, kind="score", model="bundled:gemma3-270m", method="log-likelihood", chance=0.25)
>>> for p in problems(inspect(fig), claims_of(fig)): print(p)
chance 0.25 is declared but no line, ring or colour-bar mark is drawn at it
axes 0: 2 marks of ours but 0 n labels (n = items per bar, point or cell)
model bundled:gemma3-270m is named in no title, legend or axis
scoring method 'log-likelihood' is named in no title, legend or axis
>>> plt.close(fig)
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.collections import LineCollection, PathCollection, PolyCollection, QuadMesh
from matplotlib.colors import to_rgba
from matplotlib.container import BarContainer, ErrorbarContainer
from matplotlib.patches import Polygon, Rectangle
from matplotlib.text import Text
from matplotlib.transforms import Bbox

from culturelab.plots.honest import MIN_N, N_ROW, SMALL_N, SMALL_N_COLOUR

#: what a figure shows: a model's scores, the paper's (or a release's) numbers, the dataset
KINDS = ("score", "reported", "data")
#: gid of artists and axes that show the paper's numbers (no n of ours to label)
REPORTED = "culturelab:reported"
#: text smaller than this contrast ratio against its background cannot be read (WCAG, large text)
MIN_CONTRAST = 3.0
#: a panel with more of its marks greyed out than this share says nothing
MAX_GREY_SHARE = 0.5
#: more translucent bands than this in one panel hide each other
MAX_BANDS = 3
#: two texts overlap when they intersect by more than this many pixels (at the figure's dpi)
OVERLAP_TOLERANCE = 1.0
#: problems of what a figure's data shows (too little of it), not of how it is drawn
SIGNAL_PROBLEMS = ("one point alone", "every bar of ours is 0")
#: an n label ("n=40") in a text
N_LABEL = re.compile(r"\bn\s*=\s*\d")
_NO_MARKER = (None, "None", "none", "", " ")


@dataclass
class Claims:
    """What a figure says it shows (see :func:`claim`)."""

    kind: str | None = None
    models: list[str] | None = None  # None: not declared (Run.savefig fills in the run's model)
    methods: list[str] = field(default_factory=list)
    chance: list[float | str] = field(default_factory=list)
    no_chance: str | None = None
    data_source: str | None = None


def _listed(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, Mapping):
        return list(value.values())
    if isinstance(value, str) or not isinstance(value, Iterable):
        return [value]
    return list(value)


def claim(fig: plt.Figure, *, kind: str | None = None, model: str | Iterable[str] | None = None,
          method: str | Iterable[str] | None = None, chance: float | Iterable[float] | Mapping[Any, float] | None = None,
          no_chance: str | None = None, data_source: str | None = None) -> Claims:
    """Declare what ``fig`` shows, for the audit; called by the figure code (which knows the chance
    level) and by ``Run.savefig`` (which knows the model and the data), each adding what it knows.
    ``model``/``method``: the model spec(s) and scoring method(s) the figure must name in a title or
    legend (``model=[]``: the figure shows baselines only); ``chance``: the level(s) it must draw (a mapping: one per series; a string: the label of
    a line, a legend entry or a text that shows the chance reference where it is not constant, e.g.
    the random-order expectation per step count, bars of a random ranking per group, a chance per
    heatmap row); ``no_chance``: why a score figure has no chance level.

    >>> fig = plt.figure()
    >>> _ = claim(fig, kind="score", chance={"ρ": 0.0, "MCQ": 0.25})
    >>> claim(fig, model="bundled:gemma3-270m", method="generate")
    Claims(kind='score', models=['bundled:gemma3-270m'], methods=['generate'], chance=[0.0, 0.25], no_chance=None, data_source=None)
    >>> plt.close(fig)
    """
    claims = claims_of(fig)
    if kind is not None:
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
        claims.kind = kind
    if model is not None:  # an empty list declares a score figure of baselines only (no model)
        claims.models = (claims.models or []) + [m for m in _listed(model) if m and m not in (claims.models or [])]
    claims.methods += [m for m in _listed(method) if m and m not in claims.methods]
    levels = [c if isinstance(c, str) else float(c) for c in _listed(chance)]
    claims.chance += [c for c in levels if c not in claims.chance]
    claims.no_chance = no_chance or claims.no_chance
    claims.data_source = data_source or claims.data_source
    fig._culturelab_claims = claims  # type: ignore[attr-defined]
    return claims


def claims_of(fig: plt.Figure) -> Claims:
    """The claims declared on ``fig`` so far (empty when none).

    >>> claims_of(plt.figure()).kind is None
    True
    >>> plt.close("all")
    """
    return getattr(fig, "_culturelab_claims", None) or Claims()


def mark_reported(*artists: Any) -> None:
    """Mark artists (bars, lines) or whole axes as the paper's numbers: the audit asks no n of them.

    >>> fig, ax = plt.subplots(); mark_reported(ax); ax.get_gid() == REPORTED
    True
    >>> plt.close(fig)
    """
    for artist in artists:
        for one in (artist if isinstance(artist, Iterable) else [artist]):
            one.set_gid(REPORTED)


def short_name(spec: str) -> str:
    """The name a figure may use for a model spec (the part after the backend and the hub owner).

    >>> short_name("bundled:gemma3-270m"), short_name("hf:Qwen/Qwen2.5-0.5B-Instruct")
    ('gemma3-270m', 'Qwen2.5-0.5B-Instruct')
    >>> short_name("openai-compatible:http://localhost:8000/v1#llama-3-8b")
    'llama-3-8b'
    """
    return spec.split("#")[-1].split(":", 1)[-1].rstrip("/").split("/")[-1]


# ------------------------------------------------------------------------------ geometry
def renderer_of(fig: plt.Figure) -> Any:
    """A renderer of ``fig`` with everything laid out (positions and tick labels final, as ``savefig``
    would draw them), by a draw that rasterises nothing (``Figure.draw_without_rendering``: the
    layout without the pixels, a fraction of the cost of ``canvas.draw``; the audit and the
    legend and label placement measure boxes, never pixels).

    >>> fig, ax = plt.subplots(); _ = ax.plot([0, 10])
    >>> [t.get_text() for t in visible_ticklabels(ax, "y")]  # tick labels are set by a layout
    []
    >>> r = renderer_of(fig); r.dpi == fig.dpi, [t.get_text() for t in visible_ticklabels(ax, "y")][:2]
    (True, ['0', '2'])
    >>> plt.close(fig)
    """
    fig.draw_without_rendering()
    return fig.canvas.get_renderer()


@contextmanager
def saved_layout(fig: plt.Figure) -> Iterator[None]:
    """Within the block, ``fig`` is laid out as ``savefig`` writes it: with ``savefig.bbox`` "tight"
    the figure's box is cut to what is drawn, and what is anchored to that box (a figure legend's
    default anchor) moves with it, onto a caption below the old edge, say. Outside the block the
    figure is as it was.

    >>> fig = plt.figure(figsize=(3, 2)); legend = fig.legend([plt.Line2D([], [])], ["a"], loc="lower center")
    >>> caption = fig.text(0.5, -0.3, "a caption under the figure")
    >>> above = lambda: legend.get_window_extent(renderer_of(fig)).y0 - caption.get_window_extent(renderer_of(fig)).y1
    >>> before = above()
    >>> with plt.rc_context({"savefig.bbox": "tight"}), saved_layout(fig):
    ...     saved = above()
    >>> bool(before > 0 > saved), bool(above() == before)  # saved, the legend sits on the caption
    (True, True)
    >>> plt.close(fig)
    """
    if plt.rcParams["savefig.bbox"] != "tight":
        yield
        return
    from matplotlib._tight_bbox import adjust_bbox

    renderer = renderer_of(fig)
    box = fig.get_tightbbox(renderer).padded(plt.rcParams["savefig.pad_inches"])
    restore = adjust_bbox(fig, box, renderer)
    try:
        yield
    finally:
        restore()  # positions read later come from a fresh layout (renderer_of), not from this one


def _finite(box: Bbox) -> bool:
    return bool(np.all(np.isfinite(box.get_points())))


def text_corners(text: Text, renderer: Any) -> np.ndarray | None:
    """The four corners of a text's (possibly rotated) box, in display pixels; ``None`` for a text
    with no extent.

    >>> fig = plt.figure(); t = fig.text(0.5, 0.5, "n=12", rotation=45)
    >>> text_corners(t, renderer_of(fig)).shape
    (4, 2)
    >>> plt.close(fig)
    """
    box = text.get_window_extent(renderer)
    if not _finite(box) or box.width <= 0 or box.height <= 0:
        return None
    angle = float(text.get_rotation()) % 180.0
    if angle in (0.0, 90.0):
        return np.array([[box.x0, box.y0], [box.x1, box.y0], [box.x1, box.y1], [box.x0, box.y1]])
    text.set_rotation(0)
    flat = text.get_window_extent(renderer)
    text.set_rotation(angle)
    theta = np.deg2rad(angle)
    rot = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])
    half = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * [flat.width / 2, flat.height / 2]
    return half @ rot.T + [(box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2]


def overlap(a: np.ndarray, b: np.ndarray, tolerance: float = OVERLAP_TOLERANCE) -> bool:
    """Whether two convex quadrilaterals (corners in order) intersect deeper than ``tolerance``
    pixels (separating axes).

    >>> square = np.array([[0, 0], [10, 0], [10, 10], [0, 10]])
    >>> overlap(square, square + 5), overlap(square, square + [10.5, 0])
    (True, False)
    """
    for quad in (a, b):
        for i in range(4):
            edge = quad[(i + 1) % 4] - quad[i]
            normal = np.array([-edge[1], edge[0]])
            length = np.hypot(*normal)
            if length == 0:
                continue
            pa, pb = a @ normal / length, b @ normal / length
            if min(pa.max(), pb.max()) - max(pa.min(), pb.min()) <= tolerance:
                return False
    return True


def visible_ticklabels(ax: plt.Axes, which: str = "xy") -> list[Text]:
    """The tick labels of ``ax`` that are drawn (inside the view, visible, not empty), of the x
    and/or y axis (``which``); their texts are set when the figure is drawn (:func:`renderer_of`).

    >>> fig, ax = plt.subplots(); _ = ax.bar(["a", "b"], [1, 2]); _ = ax.set_xlim(-0.5, 0.5)
    >>> _ = renderer_of(fig)
    >>> [t.get_text() for t in visible_ticklabels(ax, "x")]
    ['a']
    >>> plt.close(fig)
    """
    out = []
    for axis in [a for name, a in (("x", ax.xaxis), ("y", ax.yaxis)) if name in which]:
        low, high = sorted(axis.get_view_interval())
        span = (high - low) or 1.0
        for tick in axis.get_major_ticks():
            if not low - 1e-9 * span <= tick.get_loc() <= high + 1e-9 * span:
                continue
            out += [label for label in (tick.label1, tick.label2) if label.get_visible() and label.get_text()]
    return out


def _axes_titles(ax: plt.Axes) -> list[Text]:
    return [t for t in (ax.title, getattr(ax, "_left_title", None), getattr(ax, "_right_title", None))
            if t is not None]


def box_corners(box: Bbox) -> np.ndarray:
    """The four corners of a display box, in the order :func:`overlap` takes.

    >>> box_corners(Bbox.from_extents(0, 0, 2, 1)).tolist()
    [[0.0, 0.0], [2.0, 0.0], [2.0, 1.0], [0.0, 1.0]]
    """
    return np.array([[box.x0, box.y0], [box.x1, box.y0], [box.x1, box.y1], [box.x0, box.y1]], dtype=float)


def _visible_texts(fig: plt.Figure) -> Iterator[tuple[Text, str]]:
    """Every visible, non-empty text of ``fig`` but the legends', with its role (title, label, figure,
    colorbar, tick, annotation)."""
    sup = [getattr(fig, name, None) for name in ("_suptitle", "_supxlabel", "_supylabel")]
    found: list[tuple[Text | None, str]] = [(sup[0], "title"), (sup[1], "label"), (sup[2], "label")]
    found += [(text, "figure") for text in fig.texts if not any(text is s for s in sup)]  # a suptitle is one too
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        found += [(title, "colorbar" if _is_colorbar(ax) else "title") for title in _axes_titles(ax)]
        found += [(ax.xaxis.label, "label"), (ax.yaxis.label, "label")]
        found += [(label, "tick") for label in visible_ticklabels(ax)]
        found += [(text, "annotation") for text in ax.texts]
    for text, role in found:
        if text is not None and text.get_visible() and text.get_text().strip():
            yield text, role


def texts_of(fig: plt.Figure, renderer: Any) -> list[dict[str, Any]]:
    """Every visible text of ``fig`` (each legend as one block): its string, role (title, legend,
    label, tick, annotation, figure, colorbar), corners and artist.

    >>> fig, ax = plt.subplots(); _ = ax.set_title("t"); _ = ax.plot([1, 2], label="a"); _ = ax.legend()
    >>> sorted({t["role"] for t in texts_of(fig, renderer_of(fig))})
    ['legend', 'tick', 'title']
    >>> plt.close(fig)
    """
    items: list[dict[str, Any]] = []
    for text, role in _visible_texts(fig):
        corners = text_corners(text, renderer)
        if corners is not None:
            items.append({"text": text.get_text(), "role": role, "corners": corners, "artist": text})
    for legend in _legends(fig):
        strings = [t.get_text() for t in legend.get_texts()] + [legend.get_title().get_text()]
        items.append({"text": " | ".join(s for s in strings if s), "role": "legend", "artist": legend,
                      "corners": box_corners(legend.get_window_extent(renderer)), "strings": [s for s in strings if s]})
    return items


def _legends(fig: plt.Figure) -> list[Any]:
    found = [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_visible())]
    return [leg for leg in found if leg is not None and leg.get_visible()]


def _is_colorbar(ax: plt.Axes) -> bool:
    return getattr(ax, "_colorbar", None) is not None


def _is_panel(ax: plt.Axes) -> bool:
    """A visible axes meant to hold data (not a colour bar, not one switched off)."""
    return ax.get_visible() and ax.axison and not _is_colorbar(ax)


def _rgba(colour: Any) -> tuple[float, float, float, float]:
    arr = np.asarray(colour, dtype=object)
    if arr.ndim == 2:  # a collection's per-item colours: the first
        colour = arr[0] if len(arr) else (0, 0, 0, 0)
    try:
        return to_rgba(colour)
    except (ValueError, TypeError):
        return (0.0, 0.0, 0.0, 0.0)


def _is_grey(colour: Any) -> bool:
    r, g, b, a = _rgba(colour)
    return a > 0 and bool(np.allclose((r, g, b), to_rgba(SMALL_N_COLOUR)[:3], atol=0.02))


def _errorbar_members(ax: plt.Axes) -> set[int]:
    members: set[int] = set()

    def walk(item: Any) -> None:
        if isinstance(item, (tuple, list)):
            for sub in item:
                walk(sub)
        elif item is not None:
            members.add(id(item))

    for container in ax.containers:
        if isinstance(container, ErrorbarContainer):
            walk(tuple(container))
    return members


def _reported(artist: Any, ax: plt.Axes) -> bool:
    return REPORTED in (artist.get_gid(), ax.get_gid())


def _marks(ax: plt.Axes) -> list[dict[str, Any]]:
    """The data marks of a panel, one per position: bars, marker points, scatter points, heatmap
    cells; each with its display position, whether it is greyed out and whether it is the paper's."""
    marks: list[dict[str, Any]] = []
    skip = _errorbar_members(ax)
    for container in ax.containers:
        if isinstance(container, BarContainer):
            for patch in container.patches:
                box = patch.get_window_extent()
                if _finite(box) and patch.get_visible():
                    marks.append({"xy": ((box.x0 + box.x1) / 2, box.y1), "grey": _is_grey(patch.get_facecolor()),
                                  "reported": _reported(patch, ax), "data": patch.get_center(),
                                  "small": patch.get_gid() == SMALL_N, "bar": True,
                                  "zero": bool(abs(patch.get_height()) < 1e-12)})
    for line in ax.lines:
        if id(line) in skip or not line.get_visible() or line.get_marker() in _NO_MARKER:
            continue
        xy = np.asarray(line.get_xydata(), dtype=float)
        xy = xy[np.isfinite(xy).all(axis=1)]
        grey = _is_grey(line.get_markerfacecolor()) or _is_grey(line.get_markeredgecolor())
        for data, shown in zip(xy, line.get_transform().transform(xy) if len(xy) else []):
            marks.append({"xy": tuple(shown), "grey": grey, "reported": _reported(line, ax), "data": tuple(data),
                          "small": line.get_gid() == SMALL_N})
    for coll in ax.collections:
        if isinstance(coll, PathCollection) and coll.get_visible() and id(coll) not in skip:
            offsets = np.asarray(coll.get_offsets(), dtype=float)
            offsets = offsets[np.isfinite(offsets).all(axis=1)] if len(offsets) else offsets
            grey = _is_grey(coll.get_facecolor()) or _is_grey(coll.get_edgecolor())
            for data, shown in zip(offsets, coll.get_offset_transform().transform(offsets) if len(offsets) else []):
                marks.append({"xy": tuple(shown), "grey": grey, "reported": _reported(coll, ax), "data": tuple(data),
                              "small": coll.get_gid() == SMALL_N})
        elif isinstance(coll, QuadMesh) and coll.get_visible():
            values = np.ma.masked_invalid(np.ma.asarray(coll.get_array()))
            coords = coll.get_coordinates()
            rows, cols = coords.shape[0] - 1, coords.shape[1] - 1
            grid = values.reshape(rows, cols) if values.size == rows * cols else np.ma.masked_all((rows, cols))
            for i, j in zip(*np.nonzero(~np.ma.getmaskarray(grid))):
                centre = coords[i:i + 2, j:j + 2].reshape(-1, 2).mean(axis=0)
                marks.append({"xy": tuple(coll.get_transform().transform(centre[None])[0]), "grey": False,
                              "reported": _reported(coll, ax), "data": tuple(centre), "cell": True, "small": False})
    greyed = [p.get_window_extent() for p in ax.patches
              if isinstance(p, Rectangle) and p.get_visible() and p.get_fill() and _is_grey(p.get_facecolor())]
    hatched = [p.get_window_extent() for p in ax.patches
               if isinstance(p, Rectangle) and p.get_visible() and p.get_gid() == SMALL_N]
    for mark in marks:  # a cell covered by a grey patch is greyed out, by a small-n patch hatched
        if mark.get("cell") and any(box.contains(*mark["xy"]) for box in greyed):
            mark["grey"] = True
        if mark.get("cell") and any(box.contains(*mark["xy"]) for box in hatched):
            mark["small"] = True
    by_position: dict[tuple[float, float], dict[str, Any]] = {}
    for mark in marks:  # a marker, its hollow overlay and its bubble sit on one position
        key = (round(mark["xy"][0], 1), round(mark["xy"][1], 1))
        seen = by_position.setdefault(key, {**mark})
        seen["grey"] = seen["grey"] or mark["grey"]
        seen["small"] = seen["small"] or mark["small"]
        seen["reported"] = seen["reported"] and mark["reported"]
    return list(by_position.values())


def _counted_by_rows(ax: plt.Axes, marks: list[dict[str, Any]]) -> int:
    """How many of ``marks`` an n row under the axes counts (:func:`culturelab.plots.curves.n_rows`:
    a count at an x labels every mark at that x).

    >>> import pandas as pd; from culturelab.plots.curves import n_rows
    >>> fig, ax = plt.subplots(); _ = ax.plot([5, 6], [0.2, 0.4], "o-"); _ = ax.plot([5, 6], [0.3, 0.5], "s-")
    >>> n_rows(ax, [("C0", pd.Series([30], index=[5]))]); _counted_by_rows(ax, _marks(ax))
    2
    >>> plt.close(fig)
    """
    xs = {round(float(t.xy[0]), 6) for t in ax.texts if t.get_gid() == N_ROW and t.get_visible()}
    return sum(round(float(m["data"][0]), 6) in xs for m in marks)


def _bands(ax: plt.Axes) -> int:
    """Translucent filled areas of a panel (confidence bands, radar fills)."""
    polys = [c for c in ax.collections if isinstance(c, PolyCollection) and c.get_visible() and len(c.get_paths())]
    fills = [p for p in ax.patches if isinstance(p, Polygon) and p.get_visible() and p.get_fill()
             and _rgba(p.get_facecolor())[3] < 1]
    return len(polys) + len(fills)


def _reference_values(fig: plt.Figure) -> list[float]:
    """Values of the constant lines of every axes (chance lines, rings, colour-bar marks)."""
    values: list[float] = []
    for ax in fig.axes:
        skip = _errorbar_members(ax)
        for line in ax.lines:
            if id(line) in skip or not line.get_visible() or line.get_marker() not in _NO_MARKER:
                continue
            xy = np.asarray(line.get_xydata(), dtype=float)
            if len(xy) < 2 or not np.isfinite(xy).all():
                continue
            if np.ptp(xy[:, 1]) == 0:
                values.append(float(xy[0, 1]))
            elif np.ptp(xy[:, 0]) == 0:
                values.append(float(xy[0, 0]))
        for coll in ax.collections:
            if isinstance(coll, LineCollection) and id(coll) not in skip and coll.get_visible():
                for seg in coll.get_segments():
                    seg = np.asarray(seg, dtype=float)
                    if len(seg) >= 2 and np.ptp(seg[:, 1]) == 0:
                        values.append(float(seg[0, 1]))
                    elif len(seg) >= 2 and np.ptp(seg[:, 0]) == 0:
                        values.append(float(seg[0, 0]))
    return values


def legend_hits(legend: Any, fig: plt.Figure, renderer: Any) -> list[str]:
    """What plotted data ``legend`` covers in any panel of ``fig``: bars, lines (chance lines too),
    points, bands, error bars, heatmap cells.

    >>> fig, ax = plt.subplots(); _ = ax.bar([0, 1], [1, 1], label="ours")
    >>> legend_hits(ax.legend(loc="upper left"), fig, renderer_of(fig))
    ['bars']
    >>> plt.close(fig)
    """
    box = legend.get_window_extent(renderer).expanded(1.0, 1.0)
    box = Bbox.from_extents(box.x0 + 1, box.y0 + 1, box.x1 - 1, box.y1 - 1)
    hits: list[str] = []
    for ax in fig.axes:
        if not _is_panel(ax):
            continue
        if any(box.overlaps(p.get_window_extent(renderer)) for c in ax.containers if isinstance(c, BarContainer)
               for p in c.patches if _finite(p.get_window_extent(renderer)) and p.get_window_extent(renderer).height > 0):
            hits.append("bars")
        for line in ax.lines:
            if not line.get_visible():
                continue
            path = line.get_transform().transform_path(line.get_path())
            if len(path.vertices) and np.isfinite(path.vertices).all() and path.intersects_bbox(box, filled=False):
                hits.append(f"line {line.get_label()!r}" if not line.get_label().startswith("_") else "a line")
        for coll in ax.collections:
            if not coll.get_visible():
                continue
            if isinstance(coll, PathCollection):
                offsets = coll.get_offset_transform().transform(np.asarray(coll.get_offsets(), dtype=float))
                if any(box.contains(x, y) for x, y in offsets if np.isfinite([x, y]).all()):
                    hits.append("points")
            elif isinstance(coll, (PolyCollection, LineCollection)):
                transform = coll.get_transform()
                paths = [transform.transform_path(p) for p in coll.get_paths()]
                if any(len(p.vertices) and np.isfinite(p.vertices).all()
                       and p.intersects_bbox(box, filled=isinstance(coll, PolyCollection)) for p in paths):
                    hits.append("a band" if isinstance(coll, PolyCollection) else "error bars")
            elif isinstance(coll, QuadMesh):
                corners = coll.get_transform().transform(coll.get_coordinates().reshape(-1, 2))
                if box.overlaps(Bbox.from_extents(*corners.min(axis=0), *corners.max(axis=0))):
                    hits.append("heatmap cells")
    return list(dict.fromkeys(hits))


def _luminance(rgb: Iterable[float]) -> float:
    c = np.asarray(list(rgb)[:3], dtype=float)
    c = np.where(c <= 0.03928, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return float(0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2])


def contrast(foreground: Any, background: Any) -> float:
    """WCAG contrast ratio of two colours, each composited over white (1 to 21).

    >>> round(contrast("#333333", "#000000"), 2), round(contrast("white", "black"), 1)
    (1.66, 21.0)
    """
    def over_white(colour: Any) -> np.ndarray:
        r, g, b, a = _rgba(colour)
        return np.array([r, g, b]) * a + (1 - a)

    lighter, darker = sorted((_luminance(over_white(foreground)), _luminance(over_white(background))), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def boxes_over_bar_tops(fig: plt.Figure, renderer: Any) -> list[str]:
    """Texts on an opaque box (an n label's white box) that hide the top of a bar or the end of a
    whisker: a label taller than its bar covers what the bar shows.

    >>> fig, ax = plt.subplots(); _ = ax.bar([0], [0.05]); _ = ax.set_ylim(0, 1)
    >>> _ = ax.annotate("n=40", (0, 0), xytext=(0, 2), textcoords="offset points", rotation=90, ha="center",
    ...                 bbox={"facecolor": "white", "edgecolor": "none"})
    >>> boxes_over_bar_tops(fig, renderer_of(fig))
    ['n=40']
    >>> plt.close(fig)
    """
    found = []
    for ax in fig.axes:
        tops = [(p.get_window_extent(renderer), "bar") for c in ax.containers if isinstance(c, BarContainer)
                for p in c.patches if p.get_visible()]
        ends: list[np.ndarray] = []
        for coll in (c for c in ax.collections if isinstance(c, LineCollection) and c.get_visible()):
            for seg in coll.get_segments():  # whiskers: their ends, in display
                shown = coll.get_transform().transform(np.asarray(seg, dtype=float))
                ends += [point for point in shown if np.all(np.isfinite(point))]
        for text in ax.texts:
            patch = text.get_bbox_patch()
            if not text.get_visible() or patch is None or _rgba(patch.get_facecolor())[3] < 0.5:
                continue
            text.get_window_extent(renderer)  # places the text and its box
            box = patch.get_window_extent(renderer)
            inner = Bbox.from_extents(box.x0 + 1, box.y0 + 1, box.x1 - 1, box.y1 - 1)
            hit = any(_finite(bar) and bar.x0 < inner.x1 and bar.x1 > inner.x0 and inner.y0 < bar.y1 < inner.y1
                      for bar, _ in tops) or any(inner.contains(*point) for point in ends)
            if hit:
                found.append(text.get_text())
    return found


def _low_contrast(fig: plt.Figure, renderer: Any) -> list[tuple[str, float]]:
    """Texts on a bar or cell patch that cannot be read against it."""
    found = []
    for ax in fig.axes:
        patches = [p for c in ax.containers if isinstance(c, BarContainer) for p in c.patches]
        patches += [p for p in ax.patches if isinstance(p, Rectangle) and p not in patches]
        patches = [p for p in patches if p.get_visible() and p.get_fill() and _rgba(p.get_facecolor())[3] > 0.3]
        for text in ax.texts:
            if not text.get_visible() or not text.get_text().strip():
                continue
            box = text.get_window_extent(renderer)
            x, y = (box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2
            own = text.get_bbox_patch()
            if own is not None and _rgba(own.get_facecolor())[3] >= 0.5:
                background = own.get_facecolor()
            else:
                under = [p for p in patches if p.zorder <= text.zorder and _finite(p.get_window_extent(renderer))
                         and p.get_window_extent(renderer).contains(x, y)]
                if not under:
                    continue
                background = max(under, key=lambda p: p.zorder).get_facecolor()
            ratio = contrast(text.get_color(), background)
            if ratio < MIN_CONTRAST:
                found.append((text.get_text(), round(ratio, 2)))
    return found


def _panel_name(ax: plt.Axes, index: int) -> str:
    title = next((t.get_text() for t in _axes_titles(ax) if t.get_text()), "")
    return f"axes {index}" + (f" ({title!r})" if title else "")


def empty_panels(fig: plt.Figure) -> list[str]:
    """The panels of ``fig`` with no plotted data (no bar, line, point, band, cell or image).

    >>> fig, (a, b) = plt.subplots(1, 2); _ = a.plot([1, 2], [3, 4]); _ = b.set_title("size"); _ = b.axhline(0.25)
    >>> empty_panels(fig)
    ["axes 1 ('size')"]
    >>> plt.close(fig)
    """
    empty = []
    for i, ax in enumerate(fig.axes):
        if not _is_panel(ax):
            continue
        lines = [line for line in ax.lines if line.get_transform().contains_branch(ax.transData)
                 and np.isfinite(np.asarray(line.get_xydata(), dtype=float)).all(axis=1).any()]
        bars = [p for c in ax.containers if isinstance(c, BarContainer) for p in c.patches
                if np.isfinite([p.get_x(), p.get_y(), p.get_width(), p.get_height()]).all()]
        collections = [c for c in ax.collections if not isinstance(c, LineCollection)
                       and (len(c.get_offsets()) if isinstance(c, PathCollection) else len(c.get_paths()))]
        if not (lines or bars or collections or ax.images or ax.patches):
            empty.append(_panel_name(ax, i))
    return empty


def inspect(fig: plt.Figure) -> dict[str, Any]:
    """The facts of ``fig`` the audit needs, JSON-ready: titles and legend texts, per panel its
    marks (how many, greyed, the paper's), n labels and bands, the constant lines drawn, and
    what overlaps (texts — captions and legends too —, legends over data, unreadable text on bars
    or cells), all in the layout ``savefig`` writes (:func:`saved_layout`).

    >>> fig, ax = plt.subplots(); _ = ax.plot([0, 1], [0.2, 0.4], marker="o"); _ = ax.set_title("t")
    >>> facts = inspect(fig); facts["titles"], facts["panels"][0]["marks"]
    (['t'], 2)
    >>> plt.close(fig)
    """
    with saved_layout(fig):
        return _facts(fig)


def _facts(fig: plt.Figure) -> dict[str, Any]:
    renderer = renderer_of(fig)
    texts = texts_of(fig, renderer)
    overlapping = []
    for i, a in enumerate(texts):
        for b in texts[i + 1:]:
            if overlap(a["corners"], b["corners"]):
                overlapping.append([a["text"][:60], b["text"][:60]])
    panels = []
    for i, ax in enumerate(fig.axes):
        if not _is_panel(ax):
            continue
        marks = _marks(ax)
        ours = [m for m in marks if not m["reported"]]
        n_labels = sum(len(N_LABEL.findall(t.get_text())) for t in [*ax.texts, *visible_ticklabels(ax)]
                       if t.get_visible()) + _counted_by_rows(ax, ours)
        polar = ax.name == "polar"
        needed = len({round(float(m["data"][0]) % (2 * np.pi), 6) for m in ours}) if polar else len(ours)
        bars = [m for m in ours if m.get("bar")]
        panels.append({"name": _panel_name(ax, i), "marks": len(marks), "grey": sum(m["grey"] for m in marks),
                       "ours": len(ours), "n_labels": n_labels, "n_needed": needed, "bands": _bands(ax),
                       "reported": ax.get_gid() == REPORTED, "small": sum(m["small"] or m["grey"] for m in ours),
                       "lone_point": len(marks) == 1 and len(ours) == 1 and not bars,
                       "all_zero": bool(bars) and all(m["zero"] for m in bars)})
    legend_texts = [s for t in texts if t["role"] == "legend" for s in t["strings"]]
    titles = [t.get_text() for ax in fig.axes if _is_panel(ax) for t in _axes_titles(ax) if t.get_text()]
    every_text = [t["text"] for t in texts]
    return {"titles": [t["text"] for t in texts if t["role"] == "title"], "legend_texts": legend_texts,
            "axis_texts": [t["text"] for t in texts if t["role"] in ("label", "tick", "colorbar")],
            "legend_without_data": legend_without_data(fig),
            "duplicate_titles": sorted({t for t in titles if titles.count(t) > 1}),
            "coincident_lines": coincident_lines(fig, renderer), "share_axes": share_axes_beyond_one(fig),
            "ticks_over_data": ticks_over_data(fig, renderer),
            "absolute_paths": [t for t in every_text if absolute_path(t)],
            "banner_over_reported": banner_over_reported(fig),
            "texts": [t["text"] for t in texts if t["role"] != "legend"],
            "panels": panels, "empty": empty_panels(fig), "overlapping_text": overlapping,
            "legend_over_data": [hit for legend in _legends(fig) for hit in legend_hits(legend, fig, renderer)],
            "low_contrast": _low_contrast(fig, renderer), "boxes_over_bar_tops": boxes_over_bar_tops(fig, renderer),
            "reference_values": _reference_values(fig),
            "line_labels": list(dict.fromkeys(line.get_label() for ax in fig.axes for line in ax.lines
                                              if line.get_visible() and not line.get_label().startswith("_")))}


def problems(facts: Mapping[str, Any], claims: Claims | Mapping[str, Any]) -> list[str]:
    """Where a figure's facts (:func:`inspect`) break the rules for its claims (:func:`claim`);
    empty when the figure passes.

    >>> fig, ax = plt.subplots(); _ = ax.plot([0, 1], [0.2, 0.4]); _ = ax.set_title("counts")
    >>> problems(inspect(fig), Claims(kind="data", data_source="sample"))
    ['sample data without "sample data" in its title (a footer is not enough)']
    >>> plt.close(fig)
    """
    c = claims if isinstance(claims, Claims) else Claims(**claims)
    out = []
    if c.kind not in KINDS:
        out.append(f"declares no kind: call culturelab.plots.claim(fig, kind=...) with one of {KINDS}")
    out += [f"{name}: empty panel (nothing plotted)" for name in facts["empty"]]
    out += [f"overlapping text: {a!r} and {b!r}" for a, b in facts["overlapping_text"]]
    out += [f"legend over plotted data ({hit})" for hit in facts["legend_over_data"]]
    out += [f"text {text!r} on its box hides the top of a bar or a whisker's end (lift it above the bar)"
            for text in facts.get("boxes_over_bar_tops", [])]
    out += [f"unreadable text {text!r} on its bar or cell (contrast {ratio} < {MIN_CONTRAST})"
            for text, ratio in facts["low_contrast"]]
    for p in facts["panels"]:
        if p["marks"] and p["grey"] / p["marks"] > MAX_GREY_SHARE:
            out.append(f"{p['name']}: {p['grey']} of {p['marks']} marks greyed out (the panel says nothing; "
                       "pool the groups or show fewer)")
        if p["bands"] > MAX_BANDS:
            out.append(f"{p['name']}: {p['bands']} overlapping bands (at most {MAX_BANDS} stay readable)")
    out += [f"{p['name']}: every bar of ours is 0 (nothing to see: show the table)" for p in facts["panels"]
            if p.get("all_zero")]
    out += [f"{p['name']}: one point alone on its axes (draw it beside the paper's models, or show the table)"
            for p in facts["panels"] if p.get("lone_point") and c.kind == "score"]
    out += [f"legend entry {label!r} stands for nothing drawn" for label in facts.get("legend_without_data", [])]
    out += [f"{title!r} titles more than one panel (each panel's title comes from its own data)"
            for title in facts.get("duplicate_titles", [])]
    out += [f"reference lines {a!r} and {b!r} are drawn as one line ({gap:.1f} pt apart)"
            for a, b, gap in facts.get("coincident_lines", [])]
    out += [f"{name}: a share axis ({label!r}) runs to {top:.2f}, beyond 1" for name, label, top in facts.get("share_axes", [])]
    out += [f"{name}: tick labels over the plotted data" for name in facts.get("ticks_over_data", [])]
    out += [f"absolute path in a text of the figure: {text[:80]!r}" for text in facts.get("absolute_paths", [])]
    titles = [t.lower() for t in facts["titles"]]
    if facts.get("banner_over_reported"):
        out.append("the sample-data banner sits over panels of the paper's numbers (stamp our panels only)")
    if c.data_source not in (None, "sample") and any("sample data" in t for t in titles):
        out.append(f"a sample-data banner on a figure of {c.data_source} data")
    if c.data_source == "sample" and not any("sample data" in t for t in titles):
        out.append('sample data without "sample data" in its title (a footer is not enough)')
    if c.kind != "score":
        return out
    named = titles + [t.lower() for t in [*facts["legend_texts"], *facts.get("axis_texts", [])]]
    visible = [" ".join(t.split()) for t in named]  # a title broken into lines still names it
    if not c.chance and not c.no_chance:
        out.append("declares neither a chance level nor why it has none (claim chance=... or no_chance=...)")
    for level in c.chance:
        if isinstance(level, str):
            if level not in facts["line_labels"] and not any(level in t for t in [*facts["texts"],
                                                                            *facts["legend_texts"]]):
                out.append(f"chance reference {level!r} is declared but no line label, legend entry or text shows it")
        elif not any(abs(level - v) <= 1e-6 * max(1.0, abs(level)) for v in facts["reference_values"]):
            out.append(f"chance {level:.3g} is declared but no line, ring or colour-bar mark is drawn at it")
    for p in facts["panels"]:
        if not p["reported"] and p["n_labels"] < p["n_needed"]:
            out.append(f"{p['name']}: {p['n_needed']} marks of ours but {p['n_labels']} n labels "
                       "(n = items per bar, point or cell)")
    for model in c.models or []:
        if not any(model.lower() in t or short_name(model).lower() in t for t in visible):
            out.append(f"model {model} is named in no title, legend or axis")
    if not c.methods:
        out.append("declares no scoring method (claim method=...)")
    for method in c.methods:
        if not any(method.lower() in t for t in visible):
            out.append(f"scoring method {method!r} is named in no title, legend or axis")
    return out


# ------------------------------------------------------------------------------ defects a reader sees
#: markers the project draws, for telling a legend's proxy marker among scatter points
_MARKER_SHAPES = ("o", "s", "^", "D", "v", "P", "X", "*", "h", "d", "<", ">", "p")
_ABSOLUTE = re.compile(r"(?<![\w$~.:/])/(?:[\w.+-]+/)+[\w.+-]*")
_SHARE = re.compile(r"\b(share|proportion|fraction|rate|accuracy|precision|recall)\b", re.I)


def absolute_path(text: str) -> bool:
    """Whether ``text`` names an absolute path of a machine (a caption must not).

    >>> absolute_path("data: /work/shared/data/fmlama"), absolute_path("n/a and 1/2, $CULTURELAB_DATA/fmlama")
    (True, False)
    """
    return bool(_ABSOLUTE.search(text))


def _normalised(vertices: np.ndarray) -> np.ndarray:
    v = np.asarray(vertices, dtype=float)
    v = v[np.isfinite(v).all(axis=1)]
    if not len(v):
        return v
    v = v - v.mean(axis=0)
    scale = np.abs(v).max() or 1.0
    return np.round(v / scale, 2)


def _marker_of(coll: PathCollection) -> str | None:
    """The marker symbol of a scatter collection (``None`` when none of :data:`_MARKER_SHAPES`)."""
    from matplotlib.markers import MarkerStyle

    paths = coll.get_paths()
    if not paths:
        return None
    mine = _normalised(paths[0].vertices)
    for symbol in _MARKER_SHAPES:
        style = MarkerStyle(symbol)
        theirs = _normalised(style.get_path().transformed(style.get_transform()).vertices)
        if theirs.shape == mine.shape and np.allclose(theirs, mine, atol=0.05):
            return symbol
    return None


def _hollow(colour: Any) -> bool:
    if isinstance(colour, str) and colour.lower() == "none":
        return True
    r, g, b, a = _rgba(colour)
    return a == 0 or (r, g, b) == (1.0, 1.0, 1.0)


def _same_colour(a: Any, b: Any) -> bool:
    return bool(np.allclose(_rgba(a)[:3], _rgba(b)[:3], atol=0.02))


def _drawn(fig: plt.Figure) -> dict[str, list[Any]]:
    """The data artists of every panel, by kind (lines with data, scatter collections, bar and other patches)."""
    drawn: dict[str, list[Any]] = {"lines": [], "scatter": [], "patches": [], "segments": []}
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        for line in ax.lines:
            xy = np.asarray(line.get_xydata(), dtype=float)
            if line.get_visible() and len(xy) and np.isfinite(xy).all(axis=1).any():
                drawn["lines"].append(line)
        for coll in ax.collections:
            if isinstance(coll, PathCollection) and coll.get_visible() and len(coll.get_offsets()):
                drawn["scatter"].append(coll)
        drawn["patches"] += [p for c in ax.containers if isinstance(c, BarContainer) for p in c.patches
                             if p.get_visible() and np.isfinite(p.get_height())]
        drawn["patches"] += [p for p in ax.patches if p.get_visible()]
        drawn["patches"] += [c for c in ax.collections if isinstance(c, (PolyCollection, QuadMesh)) and c.get_visible()]
        drawn["segments"] += [c for c in ax.collections if isinstance(c, LineCollection) and c.get_visible()
                              and len(c.get_segments())]
    return drawn


def _labelled(fig: plt.Figure) -> dict[str, bool]:
    """Labels of the artists of every panel, and whether the artist holds data."""
    found: dict[str, bool] = {}

    def note(label: str, has: bool) -> None:
        if label and not label.startswith("_"):
            found[label] = found.get(label, False) or has

    for ax in fig.axes:
        for line in ax.lines:
            xy = np.asarray(line.get_xydata(), dtype=float)
            note(line.get_label(), bool(len(xy)) and bool(np.isfinite(xy).all(axis=1).any()))
        for container in ax.containers:
            patches = [p for p in getattr(container, "patches", []) or [] if np.isfinite(p.get_height())]
            note(container.get_label(), bool(patches) or not isinstance(container, BarContainer))
        for coll in ax.collections:
            count = len(coll.get_offsets()) if isinstance(coll, PathCollection) else len(coll.get_paths())
            note(coll.get_label(), bool(count))
        for patch in ax.patches:
            note(patch.get_label(), True)
    return found


def _proxy_matches(handle: Any, drawn: dict[str, list[Any]]) -> bool:
    """Whether a legend's proxy handle looks like something drawn: a marker of the same shape and fill,
    a line of the same colour and style, a patch of the same colour or hatch."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    if isinstance(handle, Line2D):
        marker = handle.get_marker()
        if marker not in _NO_MARKER:
            hollow = _hollow(handle.get_markerfacecolor())
            lines = [ln for ln in drawn["lines"] if ln.get_marker() == marker
                     and _hollow(ln.get_markerfacecolor()) == hollow]
            points = [c for c in drawn["scatter"] if _marker_of(c) == marker
                      and _hollow(c.get_facecolor()[0] if len(c.get_facecolor()) else "none") == hollow]
            return bool(lines or points)
        return (any(_same_colour(ln.get_color(), handle.get_color()) and ln.get_linestyle() == handle.get_linestyle()
                    for ln in drawn["lines"])
                or any(_same_colour(colour, handle.get_color()) for coll in drawn["segments"]
                       for colour in coll.get_colors()))
    if isinstance(handle, Patch):
        hatch = handle.get_hatch()
        for patch in drawn["patches"]:
            faces = patch.get_facecolor()
            faces = faces if np.ndim(faces) == 2 else [faces]
            if any(_same_colour(face, handle.get_facecolor()) and _rgba(face)[3] > 0 for face in faces):
                return True
            if hatch and getattr(patch, "get_hatch", lambda: None)() == hatch:
                return True
        return False
    return True  # another kind of handle: not judged


def legend_without_data(fig: plt.Figure) -> list[str]:
    """Legend entries that stand for nothing drawn: a labelled artist with no data, or a proxy
    handle that matches no drawn marker, line or patch.

    >>> fig, ax = plt.subplots(); _ = ax.scatter([1], [1], marker="o")
    >>> proxies = [plt.Line2D([], [], marker=m, linestyle="", label=l) for m, l in (("o", "without"), ("s", "with"))]
    >>> _ = ax.legend(handles=proxies); legend_without_data(fig)
    ['with']
    >>> plt.close(fig)
    """
    labelled, drawn, out = _labelled(fig), _drawn(fig), []
    for legend in _legends(fig):
        for handle, text in zip(legend.legend_handles, legend.get_texts()):
            label = text.get_text()
            if not label:
                continue
            ok = labelled[label] if label in labelled else _proxy_matches(handle, drawn)
            if not ok:
                out.append(label)
    return list(dict.fromkeys(out))


def coincident_lines(fig: plt.Figure, renderer: Any, min_points: float = 1.5) -> list[tuple[str, str, float]]:
    """Labelled horizontal reference lines of one panel drawn closer than ``min_points`` (so that they
    read as one line), with their distance in points.

    >>> fig, ax = plt.subplots(); _ = ax.plot([0, 1], [0, 1]); _ = ax.axhline(0.25, label="chance")
    >>> _ = ax.axhline(0.251, label="elimination"); coincident_lines(fig, renderer_of(fig))
    [('chance', 'elimination', 0.2)]
    >>> plt.close(fig)
    """
    out = []
    for ax in fig.axes:
        found = []
        for line in ax.lines:
            xy = np.asarray(line.get_xydata(), dtype=float)
            if (line.get_visible() and not line.get_label().startswith("_") and len(xy) >= 2
                    and np.isfinite(xy).all() and np.ptp(xy[:, 1]) == 0 and line.get_marker() in _NO_MARKER):
                y = ax.transData.transform((0, xy[0, 1]))[1] * 72 / fig.dpi
                found.append((line.get_label(), y))
        for i, (a, ya) in enumerate(found):
            for b, yb in found[i + 1:]:
                if abs(ya - yb) < min_points:
                    out.append((a, b, round(float(abs(ya - yb)), 1)))
    return out


def share_axes_beyond_one(fig: plt.Figure) -> list[tuple[str, str, float]]:
    """Panels whose y axis is a share (share, rate, proportion, accuracy … not in %) but runs beyond
    1.05 while no plotted value does.

    >>> fig, ax = plt.subplots(); _ = ax.bar([0, 1], [0.3, 0.7]); _ = ax.set_ylim(0, 1.2); _ = ax.set_ylabel("share")
    >>> share_axes_beyond_one(fig)
    [('axes 0', 'share', 1.2)]
    >>> plt.close(fig)
    """
    out = []
    for i, ax in enumerate(fig.axes):
        label = ax.get_ylabel()
        if not _is_panel(ax) or ax.name == "polar" or not _SHARE.search(label) or "%" in label:
            continue
        top = ax.get_ylim()[1]
        values = [float(p.get_height() + p.get_y()) for c in ax.containers if isinstance(c, BarContainer)
                  for p in c.patches if np.isfinite(p.get_height())]
        values += [float(v) for line in ax.lines for v in np.asarray(line.get_ydata(), dtype=float) if np.isfinite(v)]
        if top > 1.05 and (not values or max(values) <= 1.0 + 1e-9):
            out.append((_panel_name(ax, i), label, round(float(top), 2)))
    return out


def _data_hit(box: Bbox, ax: plt.Axes, renderer: Any) -> bool:
    for line in ax.lines:
        if line.get_visible() and not line.get_label().startswith("chance"):
            path = line.get_transform().transform_path(line.get_path())
            if len(path.vertices) and np.isfinite(path.vertices).all() and path.intersects_bbox(box, filled=False):
                return True
    for coll in ax.collections:
        if isinstance(coll, PathCollection) and coll.get_visible():
            offsets = coll.get_offset_transform().transform(np.asarray(coll.get_offsets(), dtype=float))
            if any(box.contains(x, y) for x, y in offsets if np.isfinite([x, y]).all()):
                return True
    return False


def ticks_over_data(fig: plt.Figure, renderer: Any) -> list[str]:
    """Polar panels whose radial tick labels sit on a plotted line or point.

    >>> fig = plt.figure(); ax = fig.add_subplot(projection="polar"); _ = ax.plot([0, 0.4, 0.8], [0.4, 0.4, 0.4])
    >>> _ = ax.set_rlabel_position(10); ticks_over_data(fig, renderer_of(fig))
    ['axes 0']
    >>> plt.close(fig)
    """
    return [_panel_name(ax, i) for i, ax in enumerate(fig.axes)
            if ax.name == "polar" and _is_panel(ax) and ticklabels_hit_data(ax, renderer)]


def ticklabels_hit_data(ax: plt.Axes, renderer: Any) -> bool:
    """Whether a y (radial) tick label of ``ax`` sits on one of its plotted lines or points."""
    for label in visible_ticklabels(ax, "y"):
        box = label.get_window_extent(renderer)
        if _finite(box) and _data_hit(box, ax, renderer):
            return True
    return False


def banner_over_reported(fig: plt.Figure) -> bool:
    """Whether a sample-data banner sits over the paper's numbers: in the figure's title while some
    panel shows them (:func:`mark_reported`), or in such a panel's own title.

    >>> fig, (a, b) = plt.subplots(1, 2); mark_reported(a); _ = fig.suptitle("Fig. 5\\nsample data")
    >>> banner_over_reported(fig)
    True
    >>> plt.close(fig)
    """
    panels = [ax for ax in fig.axes if _is_panel(ax)]
    reported = [ax for ax in panels if ax.get_gid() == REPORTED]
    if not reported:
        return False
    sup = getattr(fig, "_suptitle", None)
    if sup is not None and "sample data" in sup.get_text().lower() and len(reported) < len(panels) + 1:
        return True
    return any("sample data" in ax.get_title().lower() for ax in reported)


def small_n_panels(fig: plt.Figure, claims: Claims | None = None, min_n: int = MIN_N) -> list[str]:
    """The panels of a score figure whose every mark of ours rests on too few items (drawn faded,
    hollow, hatched or grey): a figure with one is not saved as a result.

    >>> import pandas as pd
    >>> from culturelab.plots import grouped_bars
    >>> t = pd.DataFrame({"lang": ["en", "fa"], "m": "x", "acc": [0.5, 0.4], "n": [3, 2]})
    >>> small_n_panels(grouped_bars(t, "lang", "acc", "m", n="n"))
    ['axes 0: every one of its 2 marks of ours rests on fewer than 10 items']
    >>> plt.close("all")
    """
    del claims  # the caller decides which kinds of figure are judged
    renderer_of(fig)
    out = []
    for i, ax in enumerate(fig.axes):
        if not _is_panel(ax) or ax.get_gid() == REPORTED:
            continue
        ours = [m for m in _marks(ax) if not m["reported"]]
        if ours and all(m["small"] or m["grey"] for m in ours):
            out.append(f"{_panel_name(ax, i)}: every one of its {len(ours)} marks of ours rests on fewer than "
                       f"{min_n} items")
    return out


def sized_texts(fig: plt.Figure) -> list[tuple[Text, str]]:
    """Every visible text of ``fig`` with its role (``title``, ``label`` — axis labels, colour-bar
    labels —, or ``text``: ticks, legends, annotations, figure texts), laid out as drawn.

    >>> fig, ax = plt.subplots(); _ = ax.set_title("t"); _ = ax.set_xlabel("x"); _ = ax.plot([1, 2])
    >>> sorted({role for _, role in sized_texts(fig)})
    ['label', 'text', 'title']
    >>> plt.close(fig)
    """
    renderer_of(fig)
    roles = {"title": "title", "colorbar": "title", "label": "label"}
    out = [(text, roles.get(role, "text")) for text, role in _visible_texts(fig)]
    for legend in _legends(fig):
        out += [(text, "text") for text in [legend.get_title(), *legend.get_texts()] if text.get_text().strip()]
    return out


def paper_problems(fig: plt.Figure, rendering: Any, spec: Mapping[str, Any] | None = None) -> list[str]:
    """What keeps a paper rendering out of a paper: wider than its final width (and than 7 in), a
    text under 6 pt at final size (titles and axis labels under 7 pt), an absolute path in its
    caption.

    >>> from culturelab.plots.layout import Rendering
    >>> fig, ax = plt.subplots(figsize=(8, 2)); _ = ax.plot([1, 2]); _ = ax.set_title("t", fontsize=5)
    >>> [p.split(" at ")[0] for p in paper_problems(fig, Rendering("paper", "column"))]  # doctest: +ELLIPSIS
    ['6... in wide', "title or axis label 't'", "text '0.0' and ... more"]
    >>> plt.close(fig)
    """
    from culturelab.plots.context import MIN_LABEL_PT, MIN_TEXT_PT

    out = []
    target = rendering.inches
    with saved_layout(fig):
        renderer = renderer_of(fig)
        box = fig.get_tightbbox(renderer).padded(plt.rcParams["savefig.pad_inches"])
        width = float(box.width)
        texts = sized_texts(fig)
    if width > target + 0.05 or width > 7.0:
        out.append(f"{width:.1f} in wide at final size: more than the {rendering.width or 'text'} width ({target} in)")
    scale = target / width if width > target + 0.02 else 1.0  # the figure is scaled down to the width
    for roles, floor, rule in ((("title", "label"), MIN_LABEL_PT, "titles and axis labels need 7 pt"),
                               (("text",), MIN_TEXT_PT, "texts need 6 pt")):
        small = sorted((text.get_fontsize() * scale, text.get_text()) for text, role in texts
                       if role in roles and text.get_fontsize() * scale < floor - 0.05)
        if small:
            size, text = small[0]
            more = f" and {len(small) - 1} more" if len(small) > 1 else ""
            what = "title or axis label" if roles[0] == "title" else "text"
            out.append(f"{what} {text[:40]!r}{more} at {size:.1f} pt ({rule} at final size)")
    for caption in (spec or {}).get("captions", []):
        if absolute_path(caption):
            out.append(f"absolute path in the caption: {caption[:80]!r}")
    return out


def pdf_facts(path: str | Any) -> dict[str, Any]:
    """What a PDF written by matplotlib holds, read from the file itself: its page width and height
    (inches), the sizes of its texts (points, from the ``Tf`` operators of its content streams) and
    the kinds of its fonts (``CIDFontType2``/``TrueType``: embedded TrueType outlines; ``Type3``:
    fonts drawn as glyph procedures).

    >>> import tempfile
    >>> from culturelab.plots import apply_style; _ = apply_style()  # TrueType fonts in PDFs
    >>> fig, ax = plt.subplots(figsize=(3, 2)); _ = ax.set_title("t", fontsize=7)
    >>> path = tempfile.mkdtemp() + "/f.pdf"; fig.savefig(path); plt.close(fig)
    >>> facts = pdf_facts(path); facts["width_in"] <= 3.0, 7.0 in facts["font_sizes"], "Type3" in facts["font_types"]
    (True, True, False)
    """
    import zlib
    from pathlib import Path

    data = Path(path).read_bytes()
    box = re.search(rb"/MediaBox\s*\[\s*([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s*\]", data)
    if box is None:
        raise ValueError(f"{path}: no page box (not a PDF?)")
    x0, y0, x1, y1 = (float(v) for v in box.groups())
    sizes: set[float] = set()
    for stream in re.finditer(rb"stream\r?\n(.*?)\r?\nendstream", data, re.S):
        try:  # a stream object: the end-of-line before ``endstream`` may be data (a compressed stream's last \r)
            content = zlib.decompressobj().decompress(stream.group(1))
        except zlib.error:
            content = stream.group(1)
        sizes.update(float(v) for v in re.findall(rb"/F\d+\s+([\d.]+)\s+Tf", content))
    return {"width_in": round((x1 - x0) / 72, 3), "height_in": round((y1 - y0) / 72, 3),
            "font_sizes": sorted(sizes), "font_types": sorted({t.decode() for t in re.findall(
                rb"/Subtype\s*/(Type0|Type1|Type3|TrueType|CIDFontType0|CIDFontType2)\b", data)})}


def record(fig: plt.Figure) -> dict[str, Any]:
    """The audit record of ``fig``: its claims and its facts (what ``save`` writes next to it).

    >>> fig, ax = plt.subplots(); _ = ax.plot([1, 2]); _ = claim(fig, kind="data")
    >>> sorted(record(fig)), record(fig)["claims"]["kind"]
    (['claims', 'facts'], 'data')
    >>> plt.close(fig)
    """
    return {"claims": dataclasses.asdict(claims_of(fig)), "facts": inspect(fig)}

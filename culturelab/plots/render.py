"""Figures saved from their data, and rendered again from it.

A run saves each figure as a claim about a table (:func:`save_figure`, called by ``Run.savefig``)::

    runs/<run>/<notebook>/figures/<name>.csv      the tables the drawing was given (tidy, exact types)
    runs/<run>/<notebook>/figures/<name>.json     the spec: the drawing and its arguments, what the figure
                                                  claims (kind, model, method, chance), its captions, the
                                                  small-n rule, provenance, and the audit of its rendering
    <figures dir>/<paper>/<name>.pdf|png          the notebook rendering

:func:`render_run` (``culturelab figures RUN_DIR --style paper|notebook [--width column|text]``) draws
every figure of a run again from those files, without a model: the ``paper`` rendering is sized for a
3.3-in column or a 6.9-in text width with no text under 6 pt, its provenance in ``<name>.caption.md``
and in the PDF's metadata instead of under the plot.

A score figure whose every mark in a panel rests on fewer items than the small-n rule asks is not
saved as a result (:class:`SavedFigure` says why; the notebook shows the table instead).

>>> import tempfile, pandas as pd
>>> from culturelab.plots import grouped_bars
>>> data, out = Path(tempfile.mkdtemp()), Path(tempfile.mkdtemp())
>>> t = pd.DataFrame({"lang": ["en", "fa"], "model": "m", "acc": [0.6, 0.4], "n": [40, 30]})
>>> fig = grouped_bars(t, "lang", "acc", "model", n="n", chance=0.25, title="accuracy — m (generate)")
>>> saved = save_figure(fig, "acc", data_dir=data, figures_dir=out, claims={"kind": "score", "model": "m", "method": "generate"})
>>> [p.name for p in saved.paths], saved.refused
(['acc.pdf', 'acc.png'], [])
>>> [r.name for r in render_run(data, style="paper", out=out / "paper")]
['acc']
>>> sorted(p.name for p in (out / "paper").rglob("acc*"))
['acc.caption.md', 'acc.pdf', 'acc.png']
"""

from __future__ import annotations

import dataclasses
import importlib.metadata as md
import json
import os
import re
import textwrap
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
from matplotlib.layout_engine import PlaceHolderLayoutEngine
from matplotlib.transforms import Bbox

from culturelab.plots import audit
from culturelab.plots.honest import FOOTNOTE, MIN_N, footnote
from culturelab.plots.layout import MIN_LABEL_PT, MIN_TEXT_PT, SHARED_LEGEND, current, rendering
from culturelab.plots.recipe import RecipeError, load, recipe_of
from culturelab.plots.style import STAMPED, EmptyFigureError, place_margins, save, stamp_title

#: the sample-data banner: in the notebook rendering, and (shorter) in the paper one
SAMPLE_STAMP = {"notebook": "sample data (not the paper's data)", "paper": "sample data, not the paper's"}
#: the banner of a panel that draws ours (on sample data) over the paper's published marks
MIXED_STAMP = {"notebook": "ours on sample data (not the paper's data); the paper's as published",
               "paper": "ours on sample data; the paper's as published"}
#: the rendering a run writes itself; ``culturelab figures`` writes the others
RUN_STYLE = "notebook"
#: spec format, in every spec: a re-rendering refuses a spec written by another format
SPEC_VERSION = 1


@dataclass
class SavedFigure:
    """What :func:`save_figure` did: the files written, or why the figure was refused as a result."""

    name: str
    paths: list[Path] = field(default_factory=list)
    spec_path: Path | None = None
    refused: list[str] = field(default_factory=list)


@dataclass
class Rendered:
    """One figure rendered again by :func:`render_figure`: its files and the audit's problems."""

    name: str
    paths: list[Path]
    problems: list[str]
    refused: bool = False

    def layout_problems(self) -> list[str]:
        """Its problems, less those of a figure refused as a result for what its data shows
        (:data:`culturelab.plots.audit.SIGNAL_PROBLEMS`): drawn anyway, only its layout is judged."""
        return [p for p in self.problems if not (self.refused and any(s in p for s in audit.SIGNAL_PROBLEMS))]


def _version() -> str:
    try:
        return md.version("culturelab")
    except md.PackageNotFoundError:  # pragma: no cover - the project is always installed
        return "unknown"


def portable(text: str) -> str:
    """``text`` with this machine's folders named portably: the data directory as
    ``$CULTURELAB_DATA``, the checkout as ``.``, the home folder as ``~`` (a caption names no
    absolute path).

    >>> import unittest.mock
    >>> with unittest.mock.patch.dict(os.environ, {"CULTURELAB_DATA": "/srv/data"}):
    ...     portable("read /srv/data/fmlama/Dishes.csv")
    'read $CULTURELAB_DATA/fmlama/Dishes.csv'
    """
    from culturelab import config

    places = []
    if os.environ.get("CULTURELAB_DATA"):
        places.append((str(Path(os.environ["CULTURELAB_DATA"]).resolve()), "$CULTURELAB_DATA"))
        places.append((os.environ["CULTURELAB_DATA"].rstrip("/"), "$CULTURELAB_DATA"))
    root = config.project_root()
    if root is not None:
        places.append((str(root), "."))
    places.append((str(Path.home()), "~"))
    for path, name in sorted(places, key=lambda p: -len(p[0])):
        if path and path not in ("/", "."):
            text = text.replace(path, name)
    return text


def _captions(fig: plt.Figure) -> list[str]:
    return [t.get_text() for t in fig.texts if t.get_gid() == FOOTNOTE]


#: the most n-labelled marks one panel holds at a column's width: each bar (0.8 of its group's slot) still wider
#: than its 6-pt n label on a white box (about 0.13 in); a panel of more takes the text width
COLUMN_MARKS = 16


def paper_width(fig: plt.Figure) -> str:
    """The width ``fig`` takes in a paper by default: a column for one panel of no more than
    :data:`COLUMN_MARKS` n labels, the text width for more panels or more labels.

    >>> fig, ax = plt.subplots(); _ = [ax.annotate(f"n={i}", (i, 0)) for i in range(16)]; paper_width(fig)
    'column'
    >>> _ = ax.annotate("n=9", (0, 1)); paper_width(fig)
    'text'
    >>> plt.close(fig)
    """
    panels = _panels_of(fig)
    labels = max((sum(len(audit.N_LABEL.findall(t.get_text())) for t in ax.texts) for ax in panels), default=0)
    return "column" if len(panels) <= 1 and labels <= COLUMN_MARKS else "text"


def save_figure(fig: plt.Figure, name: str, *, data_dir: str | Path, figures_dir: str | Path,
                claims: Mapping[str, Any] | None = None, data_source: str | None = None, width: str | None = None,
                context: Mapping[str, Any] | None = None, min_n: int = MIN_N) -> SavedFigure:
    """Save ``fig`` (drawn by a :func:`culturelab.plots.drawing`) as data and spec under ``data_dir``
    and as its notebook rendering under ``figures_dir``. ``claims`` go to
    :func:`culturelab.plots.claim`; ``data_source`` ``"sample"`` stamps the title; ``width``
    (``column``/``text``) is the figure's width in a paper (default: a column for one panel, the
    text width for more); ``context`` (notebook, run, paper, model …) goes into the spec. A score
    figure with a panel whose every mark of ours rests on fewer than ``min_n`` items is refused as a
    result: its data and spec are written (``refused``), no PDF or PNG.
    """
    recipe = recipe_of(fig)
    if recipe is None:
        raise RecipeError(f"{name}: drawn by hand, so it cannot be drawn again from its data; draw it with a "
                          "function decorated with culturelab.plots.drawing")
    data_dir, figures_dir = Path(data_dir), Path(figures_dir)
    stated = audit.claim(fig, data_source=data_source, **dict(claims or {}))
    if data_source == "sample":
        stamp_sample(fig, "notebook")
    spec: dict[str, Any] = {
        "version": SPEC_VERSION, "figure": name, **dict(context or {}), "data_source": data_source,
        "width": width or paper_width(fig), "min_n": min_n,
        "captions": [portable(c) for c in _captions(fig)], "claims": dataclasses.asdict(stated),
        "recipe": recipe.dump(data_dir, name), "culturelab": _version(),
    }
    refused = audit.small_n_panels(fig, stated) if stated.kind == "score" else []
    empty = audit.empty_panels(fig)
    if empty:
        raise EmptyFigureError(f"{name}: nothing is plotted in {', '.join(empty)}; not saved")
    out = SavedFigure(name, refused=[f"{name}: {p}" for p in refused])
    spec["refused"] = out.refused
    if not refused:
        place_margins(fig)  # as save() lays it out: captions below, the stamped title above
        spec["facts"] = audit.inspect(fig)
        out.paths = save(fig, figures_dir / name, metadata=_metadata(spec))
    else:
        spec["facts"] = None
    out.spec_path = data_dir / f"{name}.json"
    out.spec_path.write_text(json.dumps(spec, indent=1, ensure_ascii=False, default=float), encoding="utf-8")
    return out


def _panels_of(fig: plt.Figure) -> list[Any]:
    """The panels of ``fig``: its visible axes, colour bars left out."""
    return [ax for ax in fig.axes if ax.get_visible() and ax.axison and getattr(ax, "_colorbar", None) is None]


def stamp_sample(fig: plt.Figure, style: str) -> None:
    """Put the sample-data banner over what our sample data draws: the figure's title (a one-panel
    figure's own title, at its size, when it has no suptitle), or, when some panels show the paper's
    numbers (:func:`culturelab.plots.mark_reported`), the titles of the other panels only; a panel that
    draws ours over the paper's published lines says which is which (:data:`MIXED_STAMP`).

    >>> from culturelab.plots import mark_reported
    >>> fig, (a, b) = plt.subplots(1, 2); _ = a.set_title("paper"); mark_reported(a); _ = b.set_title("ours")
    >>> stamp_sample(fig, "paper"); a.get_title(), b.get_title(), fig.get_suptitle()
    ('paper', "ours\\n(sample data, not the paper's)", '')
    >>> fig, ax = plt.subplots(); _ = ax.set_title("Accuracy"); stamp_sample(fig, "paper")
    >>> ax.get_title(), fig.get_suptitle()
    ("Accuracy\\nsample data, not the paper's", '')
    >>> fig, ax = plt.subplots(); _ = ax.set_title("Size"); mark_reported(ax.plot([1, 2])); _ = ax.plot([1], "*")
    >>> stamp_sample(fig, "paper"); ax.get_title()
    "Size\\nours on sample data; the paper's as published"
    >>> plt.close("all")
    """
    panels = _panels_of(fig)
    reported = [ax for ax in panels if ax.get_gid() == audit.REPORTED]
    mixed = any(a.get_gid() == audit.REPORTED for ax in panels if ax not in reported
                for a in (*ax.lines, *ax.patches, *ax.collections))  # the paper's lines beside our point
    stamp = (MIXED_STAMP if mixed else SAMPLE_STAMP)[style]
    if len(panels) == 1 and panels[0].get_title() and not fig.get_suptitle():  # no line of its own above the title
        if "sample data" not in panels[0].get_title().lower():
            panels[0].set_title(f"{panels[0].get_title()}\n{stamp}")
        return
    if not reported or len(reported) == len(panels):
        stamp_title(fig, stamp)
        return
    for ax in panels:
        if ax not in reported and "sample data" not in ax.get_title().lower():
            ax.set_title(f"{ax.get_title()}\n({stamp})" if ax.get_title() else f"({stamp})")


def _title(fig: plt.Figure) -> str:
    """The figure's own title (its suptitle, or the title of a one-panel figure)."""
    sup = fig.get_suptitle()
    if sup:
        return " ".join(sup.split())
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    return " ".join(titles[0].split()) if len(titles) == 1 else ""


def _metadata(spec: Mapping[str, Any], title: str = "") -> dict[str, Any]:
    subject = " ".join(" ".join(c.split()) for c in spec.get("captions", []))
    where = "/".join(str(spec[k]) for k in ("notebook", "figure") if spec.get(k))
    return {"Title": title or spec["figure"], "Subject": subject, "Keywords": f"culturelab; {where}",
            "Creator": f"culturelab {spec.get('culturelab', _version())}"}


def caption_markdown(spec: Mapping[str, Any], facts: Mapping[str, Any] | None = None, title: str = "") -> str:
    """The caption file of a paper rendering: the figure's title, then data, protocol, model, n,
    chance and method as the spec and the audit know them, and where it was drawn from — the text a
    researcher adapts into the paper's caption.

    >>> spec = {"figure": "acc", "notebook": "percul/01_benchmark", "run": "default", "min_n": 10,
    ...         "captions": ["data: sample data (ours, not the paper's) · protocol: same · model: m"],
    ...         "claims": {"kind": "score", "models": ["m"], "methods": ["generate"], "chance": [0.25],
    ...                    "no_chance": None, "data_source": "sample"}}
    >>> print(caption_markdown(spec, {"texts": ["n=40", "n=30"]}, "Accuracy"))  # doctest: +ELLIPSIS
    **acc** — Accuracy
    <BLANKLINE>
    - data: sample data (ours, not the paper's)
    - protocol: the paper's (same)
    - model: m
    - scoring method: generate
    - chance: 0.25 (dotted line)
    - n: 30–40 items per mark; marks on fewer than 10 items are faded, hollow or hatched
    <BLANKLINE>
    Drawn by culturelab ... from runs/default/percul/01_benchmark/figures/acc.csv; ...
    >>> spec["claims"]["chance"] = ["chance: rule base rate"]
    >>> [line for line in caption_markdown(spec).splitlines() if line.startswith("- chance")]
    ['- chance: rule base rate (dotted line)']
    """
    claims = spec.get("claims") or {}
    lines = [f"**{spec['figure']}**" + (f" — {title}" if title else ""), ""]
    if not spec.get("captions") and spec.get("data_source"):
        lines.append(f"- data: {spec['data_source']}" + (" (sample data written by us, not the paper's)"
                                                          if spec["data_source"] == "sample" else ""))
    for caption in spec.get("captions", []):
        for part in " ".join(caption.split()).split(" · "):  # "protocol: same" read alone: same as what?
            lines.append("- " + re.sub(r"^(data|protocol|model|model_status): same$", r"\1: the paper's (same)", part))
    if claims.get("methods"):
        lines.append(f"- scoring method: {', '.join(claims['methods'])}")
    chance = [c for c in claims.get("chance") or []]
    if chance:
        shown = ", ".join(dict.fromkeys(c.removeprefix("chance: ") if isinstance(c, str) else f"{c:.3g}" for c in chance))
        lines.append(f"- chance: {shown} (dotted line)")
    elif claims.get("no_chance"):
        lines.append(f"- no chance level: {claims['no_chance']}")
    counts = sorted({int(n) for text in (facts or {}).get("texts", []) for n in re.findall(r"\bn\s*=\s*(\d+)", text)})
    if counts:
        span = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]}–{counts[-1]}"
        lines.append(f"- n: {span} items per mark; marks on fewer than {spec.get('min_n', MIN_N)} items are faded, "
                     "hollow or hatched")
    where = f"runs/{spec.get('run', '<run>')}/{spec.get('notebook', '<notebook>')}/figures/{spec['figure']}.csv"
    lines += ["", f"Drawn by culturelab {spec.get('culturelab', _version())} from {where}; re-render with "
              f"`culturelab figures runs/{spec.get('run', '<run>')} --style paper`."]
    return portable("\n".join(lines)) + "\n"


def finish_paper(fig: plt.Figure) -> list[str]:
    """Turn a figure drawn for the paper style into its final form: the captions under it are taken
    out (returned: they go to the caption file), it is shrunk to the final width where a drawing asked
    for more, and no text is smaller than 6 pt (titles and axis labels 7 pt).

    >>> from culturelab.plots.layout import rendering
    >>> with rendering("paper", "column"):
    ...     fig, ax = plt.subplots(figsize=(8, 3)); _ = ax.plot([1, 2]); _ = ax.annotate("n=3", (1, 1), fontsize=4)
    ...     _ = footnote(fig, "data: ours"); taken = finish_paper(fig)
    >>> taken, round(float(fig.get_figwidth()), 2), ax.texts[0].get_fontsize()
    (['data: ours'], 3.3, 6.0)
    >>> plt.close(fig)
    """
    taken = _captions(fig)
    for text in list(fig.texts):
        if text.get_gid() == FOOTNOTE:
            text.remove()
    target = current().inches
    width, height = fig.get_size_inches()
    if target is not None and width > target + 1e-6:
        fig.set_size_inches(target, height * max(target / width, 0.65))
    for text, role in audit.sized_texts(fig):
        floor = MIN_LABEL_PT if role in ("title", "label") else MIN_TEXT_PT
        if text.get_fontsize() < floor:
            text.set_fontsize(floor)
    _legends_above(fig)
    on_top = _title_above_legends(fig)
    _relayout(fig)
    _wrap_titles(fig)
    _relayout(fig)
    if target is not None:
        _fit_width(fig, target)
    _legends_onto_panels(fig)
    from culturelab.plots.bars import fit_ticklabels

    for ax in fig.axes:  # narrower panels: slant colliding category labels further
        if ax.name != "polar" and ax.get_visible():
            fit_ticklabels(ax)
    if on_top is not None:  # laid out for good (a layout engine would take room for it again at each draw),
        fig.set_layout_engine("none")  # and back in what savefig's tight box keeps
        on_top.set_in_layout(True)
        place_margins(fig)  # on top of everything drawn
    return taken


def _relayout(fig: plt.Figure) -> None:
    """Lay the panels out again after a change of size (a figure legend of the drawing's own stays
    where it was put, and so do the panels; a shared legend sits above the panels' box)."""

    engine = fig.get_layout_engine()
    if engine is not None:
        engine.execute(fig)
    elif all(legend.get_gid() == SHARED_LEGEND for legend in fig.legends):
        fig.tight_layout()


def _legends_above(fig: plt.Figure) -> None:
    """Panel legends placed outside their panels (right of them, on a screen) become one legend above
    the panels: beside a panel they would take the width a paper figure does not have."""
    from culturelab.plots.layout import shared_legend

    renderer = audit.renderer_of(fig)
    outside = []
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is None or not legend.get_visible():
            continue
        box, frame = legend.get_window_extent(renderer), ax.get_window_extent(renderer)
        if box.x1 > frame.x1 + 2 or box.x0 < frame.x0 - 2:
            outside.append(ax)
    if outside and not fig.legends:
        title = outside[0].get_legend().get_title().get_text()
        shared_legend(fig, outside, **({"title": title} if title else {}))


def _legends_onto_panels(fig: plt.Figure, gap: float = 2.0) -> None:
    """Move each shared legend above the panels (:func:`culturelab.plots.layout.shared_legend`,
    anchored to the figure's top) down to ``gap`` points over what the panels draw (their titles
    and tick labels included): a layout's margin at the figure's top left empty space between them.

    >>> from culturelab.plots.layout import panel_grid, shared_legend
    >>> fig, axes = panel_grid(2); _ = [ax.plot([1, 2], label="ours") for ax in axes]; legend = shared_legend(fig, axes)
    >>> fig.set_layout_engine("constrained"); _legends_onto_panels(fig); r = audit.renderer_of(fig)
    >>> gap = legend.get_window_extent(r).y0 - max(ax.get_tightbbox(r).y1 for ax in axes)
    >>> round(float(gap / r.points_to_pixels(1.0)), 1)
    2.0
    >>> plt.close(fig)
    """
    legends = [legend for legend in fig.legends if legend.get_gid() == SHARED_LEGEND and legend.get_visible()]
    panels = _panels_of(fig)
    if not legends or not panels:
        return
    renderer = audit.renderer_of(fig)
    top = max(ax.get_tightbbox(renderer).y1 for ax in panels)
    for legend in legends:
        box = legend.get_window_extent(renderer)
        if box.y0 < top - 1:  # not above the panels
            continue
        shift = box.y0 - top - renderer.points_to_pixels(gap)
        anchor = legend.get_bbox_to_anchor()
        moved = Bbox.from_bounds(anchor.x0, anchor.y0 - shift, anchor.width, anchor.height)
        legend.set_bbox_to_anchor(fig.transFigure.inverted().transform_bbox(moved), transform=fig.transFigure)


def _title_above_legends(fig: plt.Figure) -> Any:
    """A figure whose legend sits above its panels gets its title above that legend, not between the
    legend and the panels: the suptitle (returned) is placed on top
    (:func:`culturelab.plots.style.place_margins`) and kept out of the panels' layout; a one-panel
    figure's own title (and the sample-data stamp after it) becomes that suptitle."""
    renderer = audit.renderer_of(fig)
    panels = _panels_of(fig)
    if not panels:
        return None
    top = max(ax.get_window_extent(renderer).y1 for ax in panels)
    if not any(legend.get_visible() and legend.get_window_extent(renderer).y0 >= top - 1 for legend in fig.legends):
        return None
    sup = fig.get_suptitle()
    if len(panels) == 1 and panels[0].get_title() and sup in ("", SAMPLE_STAMP["paper"], MIXED_STAMP["paper"]):
        ax = panels[0]
        fig.suptitle(ax.get_title() + (f"\n{sup}" if sup else ""), fontsize=ax.title.get_fontsize())
        ax.set_title("")
    title = getattr(fig, "_suptitle", None)
    if title is not None and title.get_text():
        title.set_gid(STAMPED)
        title.set_in_layout(False)
    engine = fig.get_layout_engine()
    if (engine is None or isinstance(engine, PlaceHolderLayoutEngine)) and all(
            legend.get_gid() == SHARED_LEGEND for legend in fig.legends):
        fig.tight_layout()  # as shared_legend laid it out, without the room the title took
    return title if title is not None and title.get_text() else None


def _wrap_titles(fig: plt.Figure) -> None:
    """Break titles wider than what they title (the figure, a panel) into lines."""
    renderer = audit.renderer_of(fig)
    width = fig.get_figwidth() * fig.dpi
    titles = [(t, width) for t in [getattr(fig, "_suptitle", None)] if t is not None]
    alone = len(_panels_of(fig)) == 1  # the one panel's title may span the figure (a colour bar's width too),
    for ax in fig.axes:                # centred on its panel
        frame = ax.get_window_extent(renderer)
        centred = 2 * min(frame.x0 + frame.width / 2, width - frame.x0 - frame.width / 2)
        titles += [(t, width if ax.name == "polar" else max(frame.width, centred) if alone else
                    max(frame.width, width / 3)) for t in
                   (ax.title, getattr(ax, "_left_title", None), getattr(ax, "_right_title", None)) if t is not None]
        if ax.name != "polar":  # axis labels no longer than their axis
            titles += [(ax.xaxis.label, max(frame.width, width / 3)), (ax.yaxis.label, frame.height * 1.15)]
    for text, room in titles:
        if not text.get_text() or not text.get_visible():
            continue
        extent = text.get_window_extent(renderer)
        shown = extent.height if abs(float(text.get_rotation()) % 180 - 90) < 1 else extent.width
        if shown <= room:
            continue
        longest = max(text.get_text().split("\n"), key=len)
        chars = max(12, int(len(longest) * room / shown * 0.95))
        text.set_text("\n".join(wrap_line(line, chars) for line in text.get_text().split("\n")))


#: a space that no wrapping breaks at (:func:`wrap_line`)
_KEPT = "\u00a0"


def wrap_line(line: str, chars: int) -> str:
    """``line`` broken into lines of at most ``chars`` characters, at spaces but never inside an
    equation such as "n = stories" (nor at a hyphen).

    >>> wrap_line("Reliability (text log-likelihood) (n = stories)", 24)
    'Reliability (text\\nlog-likelihood)\\n(n = stories)'
    """
    kept = re.sub(r"(\S+) = (\S+)", lambda m: f"{m.group(1)}{_KEPT}={_KEPT}{m.group(2)}", line)
    return textwrap.fill(kept, chars, break_on_hyphens=False).replace(_KEPT, " ")


def _fit_width(fig: plt.Figure, target: float, tries: int = 8) -> None:
    """Narrow ``fig`` until what ``savefig`` writes (its tight box: texts beyond the axes included)
    is no wider than ``target`` inches."""
    for _ in range(tries):
        box = fig.get_tightbbox(audit.renderer_of(fig)).padded(plt.rcParams["savefig.pad_inches"])
        if box.width <= target + 0.01:
            return
        width, height = fig.get_size_inches()
        fig.set_size_inches(max(width - (box.width - target) - 0.01, 0.5 * target), height)
        _relayout(fig)
        _wrap_titles(fig)
        _relayout(fig)


def render_figure(spec_path: str | Path, *, style: str = "paper", width: str | None = None,
                  out: str | Path, force: bool = False, formats: tuple[str, ...] = (".pdf", ".png")) -> Rendered | None:
    """Draw the figure of ``spec_path`` (written by :func:`save_figure`) again from its saved data in
    ``style`` (``paper``: at ``width``, default the figure's own) into ``out/<paper>/``; ``None`` for a
    figure refused as a result (drawn anyway with ``force``: to audit its layout). ``formats``: the
    image files to write."""
    spec_path = Path(spec_path)
    spec = json.loads(spec_path.read_text(encoding="utf-8"))
    if spec.get("version") != SPEC_VERSION:
        raise RecipeError(f"{spec_path}: spec version {spec.get('version')} is not {SPEC_VERSION}; run the "
                          "notebook again to save its figures")
    if spec.get("refused") and not force:
        return None
    recipe = load(spec["recipe"], spec_path.parent)
    chosen = width or spec.get("width")
    if style == "paper" and width is None and chosen == "column":  # saved before crowded figures took the text width
        with rendering(style, chosen):
            probe = recipe.draw()
            chosen = paper_width(probe)
            plt.close(probe)
    with rendering(style, chosen):
        fig = recipe.draw()
        try:
            claims = audit.claim(fig, **_claim_arguments(spec["claims"]))
            if spec.get("data_source") == "sample":
                stamp_sample(fig, style)
            if style == "paper":
                finish_paper(fig)
            else:
                for caption in spec.get("captions", []):
                    footnote(fig, caption)
            base = Path(out) / str(spec.get("paper") or "figures") / spec["figure"]
            place_margins(fig)
            facts = audit.inspect(fig)
            problems = audit.problems(facts, claims)
            if style == "paper":
                problems += audit.paper_problems(fig, current(), spec)
            title = _title(fig).replace(SAMPLE_STAMP[style], "").strip()
            paths = save(fig, base, metadata=_metadata(spec, title), formats=formats)
            if style == "paper":
                caption_path = base.with_suffix(".caption.md")
                caption_path.write_text(caption_markdown(spec, facts, title), encoding="utf-8")
                paths.append(caption_path)
        finally:
            plt.close(fig)
    return Rendered(spec["figure"], paths, problems, refused=bool(spec.get("refused")))


def _claim_arguments(stored: Mapping[str, Any]) -> dict[str, Any]:
    return {"kind": stored.get("kind"), "model": stored.get("models"), "method": stored.get("methods"),
            "chance": stored.get("chance") or None, "no_chance": stored.get("no_chance"),
            "data_source": stored.get("data_source")}


def figure_specs(run_dir: str | Path) -> list[Path]:
    """The figure specs under a run's folder (``<notebook>/figures/<name>.json`` with a recipe), in order.

    >>> figure_specs("/nonexistent")
    []
    """
    found = []
    for path in sorted(Path(run_dir).rglob("*.json")):
        try:
            spec = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(spec, dict) and "recipe" in spec:
            found.append(path)
    return found


def clear_renderings(folder: str | Path) -> None:
    """Remove the renderings (PDF, PNG, caption files) under ``folder``, keeping anything else.

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp()); (d / "p").mkdir(); _ = (d / "p" / "a.pdf").write_text("x"); _ = (d / "keep.txt").write_text("x")
    >>> clear_renderings(d); sorted(p.name for p in d.rglob("*"))
    ['keep.txt', 'p']
    """
    for path in Path(folder).rglob("*"):
        if path.is_file() and (path.suffix in (".pdf", ".png") or path.name.endswith(".caption.md")):
            path.unlink()


def render_run(run_dir: str | Path, *, style: str = "paper", width: str | None = None, out: str | Path | None = None,
               force: bool = False, names: Iterable[str] | None = None,
               formats: tuple[str, ...] = (".pdf", ".png")) -> list[Rendered]:
    """Render every figure a run saved (:func:`figure_specs`) again, in ``style``, into ``out``
    (default ``RUN_DIR/figures-<style>``); refused figures are skipped unless ``force``. ``names``:
    only these figures."""
    run_dir = Path(run_dir)
    out = Path(out) if out is not None else run_dir / f"figures-{style}"
    wanted = set(names) if names is not None else None
    done = []
    for spec_path in figure_specs(run_dir):
        if wanted is not None and spec_path.stem not in wanted:
            continue
        rendered = render_figure(spec_path, style=style, width=width, out=out, force=force, formats=formats)
        if rendered is not None:
            done.append(rendered)
    return done

"""Grouped bars (e.g. English vs native per country) and size-vs-score plots per family.

>>> import pandas as pd
>>> t = pd.DataFrame({"family": ["Qwen", "Qwen"], "params_b": [0.5, 7], "score": [0.3, 0.6]})
>>> len(size_vs_score(t, "params_b", "score", "family").axes[0].lines)
1
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.legend import Legend
from matplotlib.patches import Rectangle
from matplotlib.text import Annotation, Text
from matplotlib.ticker import FormatStrFormatter, NullFormatter

from culturelab.plots.audit import claim, mark_reported
from culturelab.plots.honest import MIN_N, SMALL_N, fade, mark_chance, note_small_n, too_few
from culturelab.plots.layout import figsize, small_text
from culturelab.plots.recipe import drawing
from culturelab.plots.style import LINESTYLES, MARKERS, apply_style, palette

_HATCHES = ["", "//", "..", "xx", "\\\\", "oo", "--", "++"]


def place_legend(ax: plt.Axes, **kwargs: Any) -> Legend:
    """The legend of ``ax`` (frameless, ``kwargs`` passed on) in the first corner of the axes where
    it fits (no wider than the axes, at most half their height) and covers no plotted data and no
    text of the figure (the audit's geometry,
    :mod:`culturelab.plots.audit`), else outside, right of the axes, in one column. Call it after the
    axes' limits are final.

    >>> fig, ax = plt.subplots(); _ = ax.bar([0, 1, 2], [1, 1, 0.2], label="score")
    >>> place_legend(ax).get_bbox_to_anchor().bounds == ax.bbox.bounds  # top left and right are bars
    True
    >>> _ = ax.bar([3, 4, 5], [1, 1, 1]); place_legend(ax)._loc  # no free corner: outside, right
    2
    >>> plt.close(fig)
    """
    from culturelab.plots import audit

    fig = ax.figure
    kwargs.setdefault("frameon", False)
    renderer = audit.renderer_of(fig)
    frame = ax.get_window_extent(renderer)
    for loc in ("upper right", "upper left", "lower right", "lower left", "upper center"):
        legend = ax.legend(loc=loc, **kwargs)
        extent = legend.get_window_extent(renderer)
        if extent.width > frame.width or extent.height > frame.height / 2:  # a corner of the axes only
            continue
        texts = [t["corners"] for t in audit.texts_of(fig, renderer) if t["artist"] is not legend]
        if not audit.legend_hits(legend, fig, renderer) and not any(
                audit.overlap(audit.box_corners(extent), t) for t in texts):
            return legend
    return ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), **{**kwargs, "ncols": 1})


def fit_ticklabels(ax: plt.Axes) -> None:
    """Slant the x tick labels of ``ax`` further (30°, then 90°) while two of them collide.

    >>> fig, ax = plt.subplots(figsize=(2, 2)); _ = ax.bar(["a long label", "another long one", "a third"], [1, 2, 3])
    >>> fit_ticklabels(ax); ax.get_xticklabels()[0].get_rotation()
    30.0
    >>> plt.close(fig)
    """
    from culturelab.plots import audit

    for angle in (30, 90):
        renderer = audit.renderer_of(ax.figure)
        labels = audit.visible_ticklabels(ax, "x")
        boxes = [c for c in (audit.text_corners(t, renderer) for t in labels) if c is not None]
        if not any(audit.overlap(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:]):
            return
        if labels and labels[0].get_rotation() >= angle:
            continue
        for label in ax.get_xticklabels():
            label.set(rotation=angle, ha="right" if angle < 90 else "center", rotation_mode="anchor"
                      if angle < 90 else "default")


class BarLabel(Annotation):
    """A bar's n label, written upwards: at the foot of the bar on a white box, or, where the bar
    (as laid out when drawn) is shorter than the label or the lower end ``low`` of its whisker comes
    down into it, just above the bar's top ``top`` (its whisker's upper end), so that it hides
    neither.

    >>> fig, ax = plt.subplots(figsize=(2, 3)); bars = ax.bar([0, 1], [0.9, 0.05]); _ = ax.set_ylim(0, 1)
    >>> from culturelab.plots.audit import renderer_of
    >>> labels = [BarLabel("n=40", bar, bar.get_height(), bar.get_height()) for bar in bars]
    >>> for label in labels: _ = ax._add_text(label)
    >>> [label.lifted(renderer_of(fig)) for label in labels]
    [False, True]
    >>> plt.close(fig)
    """

    def __init__(self, text: str, bar: Rectangle, low: float, top: float, **kwargs: Any) -> None:
        x = bar.get_x() + bar.get_width() / 2
        super().__init__(text, (x, 0), xytext=(0, 2), textcoords="offset points", ha="center", va="bottom",
                         rotation=90, color="#222222", zorder=4, bbox={"boxstyle": "square,pad=0.15",
                         "facecolor": "white", "edgecolor": "none", "alpha": 0.9}, **kwargs)
        height = bar.get_height()
        self.bar, self.low, self.top = bar, min(height, low) if np.isfinite(low) else height, max(height, top) if np.isfinite(top) else height

    def lifted(self, renderer: Any) -> bool:
        """Whether the label is taller than its bar or its whisker's lower end, as laid out now (then
        it goes above the bar)."""
        if not np.isfinite(self.low) or self.bar.get_height() < 0:
            return False
        self.xy = (self.xy[0], 0)
        super().update_positions(renderer)
        label = Text.get_window_extent(self, renderer).height + 2 * renderer.points_to_pixels(2.0)
        shown = np.diff(self.axes.transData.transform([(0, 0), (0, self.low)])[:, 1])[0]
        return bool(label > shown)

    def update_positions(self, renderer: Any) -> None:
        """Place the label at the foot of its bar, or above it when the bar is shorter than it."""
        self.xy = (self.xy[0], self.top if self.lifted(renderer) else 0)
        super().update_positions(renderer)


@drawing
def grouped_bars(df: pd.DataFrame, x: str, y: str, hue: str, *, err_low: str | None = None,
                 err_high: str | None = None, ax: plt.Axes | None = None, title: str | None = None,
                 ylabel: str | None = None, rotate: int = 0, n: str | None = None, chance: float | None = None,
                 min_n: int = MIN_N, legend: bool = True, ylim: tuple[float, float] | None = None,
                 reported: Sequence[str] = (), valid: str | None = None) -> plt.Figure:
    """Bars of ``y`` per ``x``, one bar per ``hue`` level (hatched for greyscale), optional CI whiskers.

    For model scores: ``n`` names the column of item counts (written at the foot of each bar, on a
    white label that reads on any bar, or above its whisker where the bar is shorter than the label:
    :class:`BarLabel`; bars with fewer than ``min_n`` items are faded, in their own
    colour) and ``chance`` draws the chance level. ``reported``: ``hue`` levels that are the paper's
    numbers (no n of ours: :func:`culturelab.plots.mark_reported`). ``ylim`` is set before the legend
    goes where it covers no bar (:func:`place_legend`; ``legend=False``: none); x labels that would
    collide are slanted. ``valid`` names a column with the share of valid answers behind each bar
    (free generation): it is written beside the bar's n.

    >>> t = pd.DataFrame({"country": ["TR", "IR"], "lang": ["en", "en"], "acc": [0.6, 0.4], "n": [40, 3]})
    >>> ax = grouped_bars(t, "country", "acc", "lang", n="n", chance=0.25).axes[0]
    >>> [round(p.get_facecolor()[3], 2) for p in ax.patches], ax.texts[1].get_text()
    ([0.85, 0.3], 'n=3')
    >>> ax = grouped_bars(t.assign(ok=[0.9, 0.5]), "country", "acc", "lang", n="n", valid="ok").axes[0]
    >>> ax.texts[0].get_text()
    'n=40 · 90 % valid'
    >>> ax = grouped_bars(t.assign(lo=0.05, hi=0.7), "country", "acc", "lang", n="n", err_low="lo", err_high="hi").axes[0]
    >>> ax.collections[0].get_zorder() > ax.texts[0].get_zorder()  # a whisker over its n label
    True
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
        fig, ax = plt.subplots(figsize=figsize(min(11.0, max(4.0, 0.5 * len(xs) * len(hues) + 1.5)), 3.0))
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
        shares = np.array([part[valid].get(v, np.nan) for v in xs], dtype=float) if valid else np.full(len(xs), np.nan)
        small = too_few(counts, min_n) if n else np.zeros(len(xs), bool)
        bars = ax.bar(xpos, vals, width, color=colour, alpha=0.85,
                      hatch=_HATCHES[i % len(_HATCHES)], edgecolor="white", linewidth=0.5, label=h, yerr=yerr,
                      error_kw={"elinewidth": 0.8, "capsize": 2, "zorder": 5})  # over the n label's white box
        for bar, faint, count in zip(bars, small, counts if n else small):
            if faint and (not n or not np.isnan(count)):
                bar.set(alpha=None, facecolor=fade(colour), edgecolor=colour, gid=SMALL_N)
        if h in reported:
            mark_reported(bars)
        if n:
            lows, tops = (vals, vals) if yerr is None else (vals - yerr[0], vals + yerr[1])
            for bar, low, top, count, share in zip(bars, lows, tops, counts, shares):
                if not np.isnan(count):
                    text = f"n={int(count)}" + ("" if np.isnan(share) else f" · {share:.0%} valid".replace("%", " %"))
                    ax._add_text(BarLabel(text, bar, low, top, fontsize=small_text()))
        if (small & ~np.isnan(counts)).any() if n else False:
            note_small_n(fig, min_n)
    if chance is not None:
        mark_chance(ax, chance)
        claim(fig, chance=chance)
    ax.set_xticks(base)
    ax.set_xticklabels(xs, rotation=rotate, ha="right" if rotate else "center")
    ax.set_ylabel(ylabel or y)
    if title:
        ax.set_title(title)
    if ylim is not None:
        ax.set_ylim(*ylim)
    fit_ticklabels(ax)
    if legend:
        place_legend(ax, ncols=min(len(hues) + (chance is not None), 4))
    return fig


@drawing
def size_vs_score(df: pd.DataFrame, size: str, score: str, family: str, *, label: str | None = None,
                  ax: plt.Axes | None = None, title: str | None = None, ylabel: str | None = None,
                  xlabel: str = "parameters (billions, log scale)") -> plt.Figure:
    """Score vs model size on a log x axis, one line per family (points sorted by size).

    >>> t = pd.DataFrame({"family": ["Qwen", "Qwen", "Gemma", "Gemma"], "params_b": [7, 0.5, 2, 9],
    ...                   "acc": [0.6, 0.3, 0.4, 0.7]})
    >>> ax = size_vs_score(t, "params_b", "acc", "family").axes[0]
    >>> ax.get_xscale(), len(ax.lines), ax.lines[0].get_xdata().tolist(), ax.xaxis.get_major_formatter()(10.0)
    ('log', 2, [0.5, 7.0], '10')
    >>> plt.close("all")
    """
    apply_style()
    if ax is None:
        fig, ax = plt.subplots(figsize=figsize(4.6, 3.2))
    else:
        fig = ax.figure
    fams = list(dict.fromkeys(df[family].astype(str)))
    for i, (fam, colour) in enumerate(zip(fams, palette(len(fams)))):
        part = df[df[family].astype(str) == fam].sort_values(size)
        ax.plot(part[size], part[score], color=colour, marker=MARKERS[i % len(MARKERS)],
                linestyle=LINESTYLES[i % len(LINESTYLES)], linewidth=1.2, markersize=4.5, label=fam)
        if label:
            for _, row in part.iterrows():
                ax.annotate(str(row[label]), (row[size], row[score]), fontsize=small_text(6.0), xytext=(3, 3),
                            textcoords="offset points")
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FormatStrFormatter("%g"))  # 1, 10, 100 written plainly: a 10^x superscript
    ax.xaxis.set_minor_formatter(NullFormatter())  # falls under a paper's 6 pt
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel or score)
    ax.legend(frameon=False, ncols=2 if len(fams) > 5 else 1)
    if title:
        ax.set_title(title)
    return fig

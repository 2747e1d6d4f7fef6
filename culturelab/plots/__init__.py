"""Figures in one paper style: ``style`` (fonts, palette), ``save`` (PDF + PNG, or HTML for
plotly; refuses an empty panel), one module per figure kind: ``radar``, ``heatmap``, ``curves``,
``bars``, ``honest``: what every model figure shows (n and 95 % CI per point or cell, the chance
level, marks on fewer than :data:`MIN_N` items faded, hollow or hatched; ``caption``, the one way to
write what a figure shows beside the paper under it), and ``audit``: what a
figure claims (``claim``: kind, model, scoring method, chance) checked against what it draws.
Every figure function is a ``drawing`` (``recipe``: its call is saved with the figure's data, so
``render`` draws it again), sized through ``layout`` (``figsize``, ``panel_grid``) for the notebook or
the paper rendering.

>>> from culturelab import plots
>>> len(plots.palette(3))
3
"""

from culturelab.plots.audit import claim, mark_reported
from culturelab.plots.bars import grouped_bars, place_legend, size_vs_score
from culturelab.plots.curves import metric_curve
from culturelab.plots.heatmap import heatmap
from culturelab.plots.honest import (
    MIN_N,
    caption,
    ci_text,
    fade,
    footnote,
    mark_chance,
    note_small_n,
    too_few,
)
from culturelab.plots.layout import figsize, panel_grid, rendering, shared_legend, small_text
from culturelab.plots.radar import chance_ring, radar
from culturelab.plots.recipe import drawing
from culturelab.plots.style import MARKERS, EmptyFigureError, apply_style, palette, save, stamp_title

__all__ = ["MARKERS", "MIN_N", "EmptyFigureError", "apply_style", "caption", "chance_ring", "ci_text", "claim", "drawing",
           "fade", "figsize", "footnote", "grouped_bars", "heatmap", "mark_chance", "mark_reported", "metric_curve",
           "note_small_n", "palette", "panel_grid", "place_legend", "radar", "rendering", "save", "shared_legend",
           "size_vs_score", "small_text", "stamp_title", "too_few"]

"""Figures in one paper style: ``style`` (fonts, palette), ``save`` (PDF + PNG, or HTML for
plotly), one module per figure kind: ``radar``, ``heatmap``, ``curves``, ``bars``, and ``honest``:
what every model figure shows (n and 95 % CI per point or cell, the chance level, cells with
fewer than :data:`MIN_N` items greyed out).

>>> from culturelab import plots
>>> len(plots.palette(3))
3
"""

from culturelab.plots.bars import grouped_bars, size_vs_score
from culturelab.plots.curves import metric_curve
from culturelab.plots.heatmap import heatmap
from culturelab.plots.honest import MIN_N, ci_text, mark_chance, note_small_n, too_few
from culturelab.plots.radar import chance_ring, radar
from culturelab.plots.style import MARKERS, apply_style, palette, save

__all__ = ["MARKERS", "MIN_N", "apply_style", "chance_ring", "ci_text", "grouped_bars", "heatmap", "mark_chance", "metric_curve",
           "note_small_n", "palette", "radar", "save", "size_vs_score", "too_few"]

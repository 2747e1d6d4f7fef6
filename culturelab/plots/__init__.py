"""Figures in one paper style: ``style`` (fonts, palette), ``save`` (PDF + PNG, or HTML for
plotly), and one module per figure kind: ``radar``, ``heatmap``, ``curves``, ``bars``.

>>> from culturelab import plots
>>> len(plots.palette(3))
3
"""

from culturelab.plots.bars import grouped_bars, size_vs_score
from culturelab.plots.curves import metric_curve
from culturelab.plots.heatmap import heatmap
from culturelab.plots.radar import radar
from culturelab.plots.style import MARKERS, apply_style, palette, save

__all__ = ["MARKERS", "apply_style", "grouped_bars", "heatmap", "metric_curve", "palette", "radar", "save",
           "size_vs_score"]

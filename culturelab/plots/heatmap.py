"""Annotated heatmaps (group × model scores, distractor matrices, confusion of positions).

>>> import pandas as pd
>>> fig = heatmap(pd.DataFrame([[0.1, 0.9], [0.5, 0.5]], index=["a", "b"], columns=["x", "y"]))
>>> fig.axes[0].get_xlabel()
''
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.patches import Rectangle

from culturelab.plots import layout
from culturelab.plots.audit import claim
from culturelab.plots.honest import MIN_N, SMALL_N, ci_text, note_small_n, too_few
from culturelab.plots.recipe import drawing
from culturelab.plots.style import apply_style

#: the chance reference of a heatmap with one chance per row (written under each row's label)
CHANCE_PER_ROW = "chance per row"


@drawing
def heatmap(matrix: pd.DataFrame, *, title: str | None = None, fmt: str = ".2f", cmap: str = "cividis",
            vmin: float | None = None, vmax: float | None = None, cbar_label: str | None = None,
            annot: bool = True, ax: plt.Axes | None = None, figsize: tuple[float, float] | None = None,
            counts: pd.DataFrame | None = None, ci_low: pd.DataFrame | None = None,
            ci_high: pd.DataFrame | None = None, chance: float | Mapping[Any, float] | None = None,
            min_n: int = MIN_N, cbar: bool = True) -> plt.Figure:
    """A heatmap of a wide table (rows × columns). ``cividis`` is perceptually uniform and
    monotone in lightness, so it reads the same in greyscale.

    For model scores pass ``counts`` (items per cell, same shape): each cell then shows its n
    (and its 95 % CI when ``ci_low``/``ci_high`` are given), cells with fewer than ``min_n``
    items are hatched (their colour and value stay readable), and ``chance`` is marked on the colour bar;
    a chance per row (a mapping or Series over the rows, e.g. one candidate pool per prompt language)
    is written under each row's label instead (:data:`CHANCE_PER_ROW`). ``cbar=False`` leaves the
    colour bar out (e.g. for panels sharing one scale).

    >>> m = pd.DataFrame([[0.5, 0.9]], index=["TR"], columns=["gemma", "qwen"])
    >>> n = pd.DataFrame([[40, 4]], index=["TR"], columns=["gemma", "qwen"])
    >>> ax = heatmap(m, counts=n, chance=0.25).axes[0]
    >>> [t.get_text() for t in ax.texts], len(ax.patches)
    (['0.50\\nn=40', '0.90\\nn=4'], 1)
    >>> plt.close("all")

    >>> m = pd.DataFrame([[0.25, 0.75], [0.5, 1.0]], index=["TR", "IR"], columns=["gemma", "qwen"])
    >>> fig = heatmap(m, counts=m * 40, chance={"TR": 0.2, "IR": 0.3}, cbar_label="mAP")
    >>> [t.get_text() for t in fig.axes[0].get_yticklabels()], fig.axes[1].get_ylabel()
    (['TR\\n(chance 0.20)', 'IR\\n(chance 0.30)'], 'mAP\\nchance per row')
    >>> plt.close("all")

    >>> ax = heatmap(m, title="accuracy").axes[0]
    >>> ax.get_title(), [t.get_text() for t in ax.texts]
    ('accuracy', ['0.25', '0.75', '0.50', '1.00'])
    >>> plt.close("all")
    """
    apply_style()
    if ax is None:
        w = figsize or (max(3.2, 0.55 * matrix.shape[1] + 1.8), max(2.4, 0.38 * matrix.shape[0] + 1.0))
        fig, ax = plt.subplots(figsize=layout.figsize(*w))
    else:
        fig = ax.figure
    values = matrix.astype(float)
    labels: pd.DataFrame | bool = annot
    if annot and (counts is not None or ci_low is not None):
        def cell(r: object, c: object) -> str:
            low = ci_low.loc[r, c] if ci_low is not None else np.nan
            high = ci_high.loc[r, c] if ci_high is not None else np.nan
            n = counts.loc[r, c] if counts is not None else None
            return "" if np.isnan(values.loc[r, c]) else ci_text(values.loc[r, c], low, high, n, fmt)

        labels = pd.DataFrame([[cell(r, c) for c in values.columns] for r in values.index])
    sns.heatmap(values, annot=labels if isinstance(labels, pd.DataFrame) else annot,
                fmt="" if isinstance(labels, pd.DataFrame) else fmt, cmap=cmap, vmin=vmin, vmax=vmax, ax=ax,
                linewidths=0.4, linecolor="white", annot_kws={"fontsize": 7 if labels is annot else layout.small_text()},
                cbar=cbar, cbar_kws={"label": cbar_label} if cbar_label and cbar else None)
    if counts is not None:
        small = too_few(counts.reindex(index=values.index, columns=values.columns).to_numpy(), min_n)
        for i, j in zip(*np.nonzero(small)):
            ax.add_patch(Rectangle((j, i), 1, 1, facecolor="none", edgecolor=(0.6, 0.6, 0.6, 0.8), hatch="////",
                                   linewidth=0, zorder=2, gid=SMALL_N))
        for text in ax.texts:  # the cell labels above the hatching
            text.set_zorder(3)
        if small.any():
            note_small_n(fig, min_n, what="hatched cells")
    if isinstance(chance, (Mapping, pd.Series)):  # one chance per row: under the row's label
        per_row = pd.Series(chance, dtype=float).reindex(values.index)
        ax.set_yticks(np.arange(len(values.index)) + 0.5,
                      [f"{r}\n(chance {format(c, fmt)})" if not np.isnan(c) else str(r) for r, c in per_row.items()],
                      rotation=0)
        if cbar and ax.collections and ax.collections[0].colorbar is not None:
            ax.collections[0].colorbar.set_label(f"{cbar_label + chr(10) if cbar_label else ''}{CHANCE_PER_ROW}")
        claim(fig, chance=CHANCE_PER_ROW)
    elif chance is not None and ax.collections and ax.collections[0].colorbar is not None:
        bar = ax.collections[0].colorbar  # the chance level: a dotted mark on the bar, named in its label
        bar.ax.axhline(chance, color="white", linewidth=2.4)  # a white ground: the dots read on any colour
        bar.ax.axhline(chance, color="#000000", linestyle=":", linewidth=1.4)
        bar.set_label(f"{cbar_label + chr(10) if cbar_label else ''}dotted: chance {chance:.3g}")
        claim(fig, chance=chance)
    ax.set_xlabel(matrix.columns.name or "")
    ax.set_ylabel(matrix.index.name or "")
    ax.grid(False)
    if title:
        ax.set_title(title)
    return fig

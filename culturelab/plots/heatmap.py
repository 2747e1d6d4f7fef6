"""Annotated heatmaps (group × model scores, distractor matrices, confusion of positions).

>>> import pandas as pd
>>> fig = heatmap(pd.DataFrame([[0.1, 0.9], [0.5, 0.5]], index=["a", "b"], columns=["x", "y"]))
>>> fig.axes[0].get_xlabel()
''
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from culturelab.plots.style import apply_style


def heatmap(matrix: pd.DataFrame, *, title: str | None = None, fmt: str = ".2f", cmap: str = "cividis",
            vmin: float | None = None, vmax: float | None = None, cbar_label: str | None = None,
            annot: bool = True, ax: plt.Axes | None = None, figsize: tuple[float, float] | None = None) -> plt.Figure:
    """A heatmap of a wide table (rows × columns). ``cividis`` is perceptually uniform and
    monotone in lightness, so it reads the same in greyscale.

    >>> m = pd.DataFrame([[0.25, 0.75], [0.5, 1.0]], index=["TR", "IR"], columns=["gemma", "qwen"])
    >>> ax = heatmap(m, title="accuracy").axes[0]
    >>> ax.get_title(), [t.get_text() for t in ax.texts]
    ('accuracy', ['0.25', '0.75', '0.50', '1.00'])
    >>> plt.close("all")
    """
    apply_style()
    if ax is None:
        w = figsize or (max(3.2, 0.55 * matrix.shape[1] + 1.8), max(2.4, 0.38 * matrix.shape[0] + 1.0))
        fig, ax = plt.subplots(figsize=w)
    else:
        fig = ax.figure
    sns.heatmap(matrix.astype(float), annot=annot, fmt=fmt, cmap=cmap, vmin=vmin, vmax=vmax, ax=ax,
                linewidths=0.4, linecolor="white", annot_kws={"fontsize": 7},
                cbar_kws={"label": cbar_label} if cbar_label else None)
    ax.set_xlabel(matrix.columns.name or "")
    ax.set_ylabel(matrix.index.name or "")
    ax.grid(False)
    if title:
        ax.set_title(title)
    return fig

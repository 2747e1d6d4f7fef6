"""Radar (spider) charts: one polygon per series over a set of categories.

>>> import pandas as pd
>>> t = pd.DataFrame({"category": list("abcab c".replace(" ", "")), "model": ["m"] * 3 + ["n"] * 3,
...                   "accuracy": [0.2, 0.5, 0.9, 0.4, 0.4, 0.6]})
>>> fig = radar(t, "category", "accuracy", "model")
>>> len(fig.axes[0].lines)
2
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from culturelab.plots.style import LINESTYLES, MARKERS, apply_style, palette


def radar(df: pd.DataFrame, category: str, value: str, series: str, *, categories: Sequence[str] | None = None,
          title: str | None = None, rmax: float | None = None, ax: plt.Axes | None = None,
          fill_alpha: float = 0.06, missing: str = "zero") -> plt.Figure:
    """Draw ``value`` per ``category`` (angles) with one closed polygon per ``series``.

    ``categories`` fixes the order of the spokes; categories missing for a series are drawn at 0
    (``missing="zero"``) or left as gaps in the outline, unfilled (``missing="gap"``).

    >>> t = pd.DataFrame({"category": ["food", "music", "sport"] * 2, "model": ["a"] * 3 + ["b"] * 3,
    ...                   "accuracy": [0.5, 0.25, 0.75, 1.0, 0.5, 0.5]})
    >>> ax = radar(t, "category", "accuracy", "model", rmax=1).axes[0]
    >>> len(ax.lines), [tick.get_text() for tick in ax.get_xticklabels()]
    (2, ['food', 'music', 'sport'])
    >>> plt.close("all")
    """
    if missing not in {"zero", "gap"}:
        raise ValueError(f"missing must be 'zero' or 'gap', not {missing!r}")
    apply_style()
    cats = list(categories) if categories is not None else sorted(df[category].astype(str).unique())
    angles = np.linspace(0, 2 * np.pi, len(cats), endpoint=False)
    if ax is None:
        fig, ax = plt.subplots(figsize=(4.6, 4.6), subplot_kw={"projection": "polar"})
    else:
        fig = ax.figure
    names = list(dict.fromkeys(df[series].astype(str)))
    for i, (name, colour) in enumerate(zip(names, palette(len(names)))):
        part = df[df[series].astype(str) == name].groupby(df[category].astype(str))[value].mean()
        vals = np.array([part.get(c, 0.0 if missing == "zero" else np.nan) for c in cats], dtype=float)
        closed_a, closed_v = np.append(angles, angles[0]), np.append(vals, vals[0])
        ax.plot(closed_a, closed_v, color=colour, linestyle=LINESTYLES[i % len(LINESTYLES)],
                marker=MARKERS[i % len(MARKERS)], markersize=3.5, linewidth=1.3, label=name)
        if not np.isnan(vals).any():
            ax.fill(closed_a, closed_v, color=colour, alpha=fill_alpha)
    ax.set_xticks(angles)
    ax.set_xticklabels(cats, fontsize=7.5)
    for label, angle in zip(ax.get_xticklabels(), angles):  # anchor labels away from the circle
        c = np.cos(angle)
        label.set_horizontalalignment("left" if c > 0.1 else "right" if c < -0.1 else "center")
    ax.tick_params(axis="x", pad=4)
    top = rmax if rmax is not None else max(float(np.nanmax(df[value])) * 1.05, 1e-9)
    ax.set_ylim(0, top)
    ax.tick_params(axis="y", labelsize=6.5)
    ax.grid(True, alpha=0.4)
    ax.spines["polar"].set_alpha(0.4)
    if title:
        ax.set_title(title, pad=30)
    ax.legend(loc="upper left", bbox_to_anchor=(1.12, 1.0), frameon=False)
    return fig

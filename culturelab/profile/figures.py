"""The profile's figures: scores per benchmark × task (95 % CI, chance, n) and radar charts over
cultures and categories. Cells on fewer than ``MIN_N`` items are drawn grey (see
:mod:`culturelab.plots.honest`).

>>> t = pd.DataFrame({"model": ["m", "m"], "benchmark": ["b", "b"], "task": ["t1", "t2"], "mean": [0.5, 0.3],
...                   "ci_low": [0.4, 0.2], "ci_high": [0.6, 0.4], "n": [40, 5], "chance": [0.25, 0.5],
...                   "invalid_rate": [0.0, 0.2]})
>>> fig = score_bars(t); len(fig.axes[0].patches)
2
>>> plt.close("all")
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from culturelab.plots import MIN_N, note_small_n, palette, radar, too_few


def score_bars(table: pd.DataFrame, *, min_n: int = MIN_N) -> plt.Figure:
    """One horizontal bar per benchmark × task and model, with its 95 % CI, a chance tick (dotted)
    and n; bars on fewer than ``min_n`` items are grey."""
    tasks = list(dict.fromkeys(zip(table["benchmark"], table["task"])))
    models = list(dict.fromkeys(table["model"]))
    colours = dict(zip(models, palette(max(len(models), 2))[1:] if len(models) == 1 else palette(len(models))))
    height = 0.8 / max(len(models), 1)
    fig, ax = plt.subplots(figsize=(7.5, 0.45 * len(tasks) * max(len(models), 1) + 1.2))
    for j, model in enumerate(models):
        part = table[table["model"] == model].set_index(["benchmark", "task"]).reindex(tasks)
        y = np.arange(len(tasks)) + (j - (len(models) - 1) / 2) * height
        grey = too_few(part["n"].to_numpy(float), min_n)
        ax.barh(y, part["mean"], height=height, color=[("#d9d9d9" if g else colours[model]) for g in grey],
                label=model)
        ax.errorbar(part["mean"], y, xerr=[part["mean"] - part["ci_low"], part["ci_high"] - part["mean"]],
                    fmt="none", ecolor="#333333", elinewidth=0.8, capsize=2)
        for yi, m, hi, n, bad in zip(y, part["mean"], part["ci_high"], part["n"], part["invalid_rate"]):
            if pd.notna(m):
                ax.text(np.nanmax([m, hi, 0]) + 0.01, yi, f"n={int(n)}" + (f", {bad:.1%} invalid" if bad > 0 else ""),
                        va="center", fontsize=6)
    chance = table.groupby(["benchmark", "task"], sort=False)["chance"].first().reindex(tasks)
    for i, c in enumerate(chance):
        if pd.notna(c):
            ax.vlines(c, i - 0.45, i + 0.45, linestyles=":", colors="#555555", lw=1)
    ax.set_yticks(np.arange(len(tasks)))
    ax.set_yticklabels([f"{b}: {t}" for b, t in tasks], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("score (accuracy; ρ for reordering; adaptation metrics ÷ 100) with 95 % bootstrap CI")
    ax.plot([], [], ls=":", color="#555555", label="chance")
    ax.legend(fontsize=7, loc="lower right")
    note_small_n(fig, min_n, what="bars")
    fig.tight_layout()
    return fig


def profile_radar(tidy: pd.DataFrame, column: str, *, min_n: int = MIN_N, title: str | None = None) -> plt.Figure:
    """Accuracy per value of ``column`` (``culture`` or ``category``) pooled over the binary tasks,
    one polygon per model, with 95 % CI band, n per spoke and the mean chance level.

    >>> t = pd.DataFrame({"model": "m", "benchmark": "b", "task": "t", "binary": True, "chance": 0.25,
    ...                   "culture": ["A", "B", "C"] * 4, "score": [1.0, 0.0, 1.0] * 4})
    >>> len(profile_radar(t, "culture").axes[0].get_xticklabels())
    3
    >>> plt.close("all")
    """
    from culturelab import stats

    binary = tidy[tidy["binary"].astype(bool)].dropna(subset=[column])
    table = stats.summarise(binary, "score", ["model", column])
    chance = float(pd.to_numeric(binary["chance"], errors="coerce").mean())
    return radar(table, column, "mean", "model", rlabel="accuracy", n="n", ci_low="ci_low", ci_high="ci_high",
                 chance=None if np.isnan(chance) else chance, chance_note="the pooled tasks state no chance level",
                 min_n=min_n, rmax=1.0,
                 title=title or f"accuracy by {column} (binary tasks pooled)")

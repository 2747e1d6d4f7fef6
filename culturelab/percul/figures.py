"""The paper's figures (and ours), drawn with the shared :mod:`culturelab.plots` style.

Each function takes a tidy table and returns a matplotlib figure; notebooks save them with
``run.savefig``. Paper numbers come from :mod:`culturelab.percul.paper`.

>>> from culturelab.percul import paper
>>> fig = fig4_size(paper.size_points())
>>> fig.axes[0].get_xscale()
'log'
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from culturelab.percul.data import CATEGORIES, RULE_NAMES, RULES
from culturelab.percul.prompts import category_labels
from culturelab.plots import grouped_bars, heatmap, radar, size_vs_score
from culturelab.plots.style import MARKERS, palette

SHORT = {"Iconic Figures": "Icon. Figs.", "Visible Behavior": "Vis. Behav.", "Institution": "Instit.",
         "Architecture": "Arch."}


def _human_line(ax: plt.Axes, human: float | None) -> None:
    if human is not None:
        ax.axhline(human, color="#777777", linestyle="--", linewidth=1, label=f"human {human:.3f}")


def fig4_size(points: pd.DataFrame, ours: pd.DataFrame | None = None, *, human: float | None = None,
              title: str = "Figure 4 — macro accuracy vs model size") -> plt.Figure:
    """Accuracy vs parameters (log x), one line per family; ``ours`` (``family``, ``params_b``,
    ``macro``) is overlaid with hollow markers and dotted lines."""
    fig = size_vs_score(points, "params_b", "macro", "family", ylabel="macro accuracy", title=title)
    ax = fig.axes[0]
    if ours is not None and len(ours):
        for i, (fam, part) in enumerate(ours.sort_values("params_b").groupby("family", sort=False)):
            ax.plot(part["params_b"], part["macro"], linestyle=":", marker=MARKERS[(i + 5) % len(MARKERS)],
                    markerfacecolor="white", color=palette(9)[(i + 5) % 9], markersize=6, label=f"{fam} (ours)")
    ax.axhline(0.25, color="#999999", linestyle=":", linewidth=0.8, label="chance")
    _human_line(ax, human)
    ax.set_ylim(0, 1)
    ax.legend(frameon=False, fontsize=6.5, ncols=2, loc="upper left")
    return fig


def fig5_heatmap(matrix: pd.DataFrame, *, title: str = "Figure 5 — accuracy per category") -> plt.Figure:
    """Model × category accuracy, cells annotated to 3 decimals."""
    m = matrix.rename(columns=SHORT)
    fig = heatmap(m, fmt=".3f", vmin=0, vmax=1, cbar_label="accuracy", title=title,
                  figsize=(0.62 * m.shape[1] + 2.6, 0.3 * m.shape[0] + 1.4))
    fig.axes[0].tick_params(axis="x", rotation=45)
    return fig


def fig15_radar(long: pd.DataFrame, *, value: str = "accuracy", series: str = "model",
                title: str = "Figure 15 — per-category accuracy") -> plt.Figure:
    """One polygon per model over the 11 categories (canonical order), radius 0–1."""
    cats = [c for c in CATEGORIES if c in set(long["category"].astype(str))]
    t = long.assign(category=long["category"].astype(str).replace(SHORT))
    fig = radar(t, "category", value, series, categories=[SHORT.get(c, c) for c in cats], rmax=1.0, title=title)
    fig.set_size_inches(7.2, 5.0)
    fig.subplots_adjust(left=0.05, right=0.68)
    fig.axes[0].legend(loc="upper left", bbox_to_anchor=(1.12, 1.05), frameon=False, fontsize=7)  # clear of the axes
    return fig


def fig7_translation(gap: pd.DataFrame, *, title: str = "Figure 7 — Persian vs English (translated)") -> plt.Figure:
    """Paired bars per model (``persian``, ``english`` macro), annotated with Δ = en − fa."""
    long = gap.melt(id_vars=["model"], value_vars=["persian", "english"], var_name="split", value_name="macro")
    fig = grouped_bars(long, "model", "macro", "split", ylabel="macro accuracy", title=title, rotate=25)
    ax = fig.axes[0]
    for i, (_, row) in enumerate(gap.iterrows()):
        ax.annotate(f"Δ {row['delta']:+.3f}", (i, max(row["persian"], row["english"]) + 0.02), ha="center",
                    fontsize=7)
    ax.set_ylim(0, 1.05)
    fig.set_size_inches(fig.get_size_inches()[0], 3.8)
    fig.subplots_adjust(bottom=0.4)  # room for the slanted names above the run's corner stamp
    return fig


def fig6_finetune(table: pd.DataFrame, *, title: str = "Figure 6 — Persian fine-tuned models vs their bases"
                  ) -> plt.Figure:
    """Per pair: base vs fine-tuned accuracy per category and macro (one panel per pair)."""
    pairs = list(dict.fromkeys(table["pair"]))
    fig, axes = plt.subplots(len(pairs), 1, figsize=(7.2, 2.6 * len(pairs)), squeeze=False)
    for ax, pair in zip(axes[:, 0], pairs):
        part = table[table["pair"] == pair]
        long = part.melt(id_vars=["category"], value_vars=["base", "fine_tuned"], var_name="model", value_name="acc")
        long["category"] = long["category"].replace(SHORT)
        grouped_bars(long, "category", "acc", "model", ax=ax, ylabel="accuracy", title=pair, rotate=30)
        ax.set_ylim(0, 1)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig


def rule_heatmap(matrix: pd.DataFrame, *, title: str, note: str | None = None) -> plt.Figure:
    """Row-normalised distractor-rule shares (rows: models or categories; columns R1–R6, UA)."""
    m = matrix.reindex(columns=RULES)
    m.columns = [f"{r}\n{RULE_NAMES[r].split()[0]}" for r in RULES]
    fig = heatmap(m, fmt=".3f", vmin=0, vmax=max(0.5, float(np.nanmax(m.to_numpy()))), cbar_label="share of picks",
                  title=title, figsize=(7.0, 0.32 * m.shape[0] + 1.6))
    if note:
        fig.text(0.5, -0.02, note, ha="center", va="top", fontsize=7, color="#444444", wrap=True)
    return fig


def category_bars(table: pd.DataFrame, *, hue: str = "model", human: float | None = None,
                  title: str = "Accuracy per category", persian_labels: bool = True) -> plt.Figure:
    """Accuracy per category with 95 % CI whiskers (``accuracy``, ``ci_low``, ``ci_high``); the
    x labels carry the Persian category word under the English one (matplotlib shapes it)."""
    fa = category_labels("fa") if persian_labels else {}
    t = table.assign(category=[f"{SHORT.get(c, c)}\n{fa[c]}" if c in fa else SHORT.get(c, c)
                               for c in table["category"].astype(str)])
    fig = grouped_bars(t, "category", "accuracy", hue, err_low="ci_low", err_high="ci_high", ylabel="accuracy",
                       title=title, rotate=35)
    ax = fig.axes[0]
    ax.axhline(0.25, color="#999999", linestyle=":", linewidth=0.8)
    _human_line(ax, human)
    ax.set_ylim(0, 1.05)
    ax.legend(frameon=False, fontsize=7, ncols=2)
    return fig


def reliability_diagram(bins: pd.DataFrame, *, series: str = "model", title: str = "Reliability diagram"
                        ) -> plt.Figure:
    """Accuracy vs confidence per bin (marker size ∝ bin count) against the diagonal."""
    fig, ax = plt.subplots(figsize=(3.8, 3.6))
    ax.plot([0, 1], [0, 1], color="#999999", linestyle=":", linewidth=1, label="perfect calibration")
    names = list(dict.fromkeys(bins[series]))
    for i, (name, colour) in enumerate(zip(names, palette(len(names)))):
        part = bins[(bins[series] == name) & (bins["n"] > 0)]
        ax.plot(part["confidence"], part["accuracy"], color=colour, marker=MARKERS[i % len(MARKERS)],
                linewidth=1.1, label=str(name), markersize=3)
        ax.scatter(part["confidence"], part["accuracy"], s=12 + 4 * part["n"], color=colour, alpha=0.35)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("confidence (max option probability)")
    ax.set_ylabel("accuracy")
    ax.set_title(title)
    ax.legend(frameon=False, fontsize=6.5)
    return fig


def position_bars(prior: pd.DataFrame, *, title: str = "Where the answers fall") -> plt.Figure:
    """Share of predictions per option position vs the share of correct answers there."""
    long = prior.melt(id_vars=["model", "position"], value_vars=["predicted_share", "answer_share"],
                      var_name="what", value_name="share")
    long["series"] = np.where(long["what"] == "answer_share", "correct answers", long["model"].astype(str))
    long = long.drop_duplicates(["series", "position"])
    fig = grouped_bars(long, "position", "share", "series", ylabel="share", title=title)
    fig.axes[0].axhline(0.25, color="#999999", linestyle=":", linewidth=0.8)
    fig.axes[0].set_xlabel("option position")
    return fig

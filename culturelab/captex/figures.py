"""Figures 2–8 of the paper, drawn with the project's plot functions and style.

>>> from culturelab.captex.data import load
>>> fig = fig2_step_counts(load(data_source="sample").procedures)
>>> len(fig.axes[0].texts)  # one mean label per country
7
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import FormatStrFormatter, LogLocator, NullFormatter

from culturelab.captex.data import CATEGORIES, COUNTRIES
from culturelab.captex.evaluate import VALID_TASKS
from culturelab.plots import (
    chance_ring,
    claim,
    figsize,
    footnote,
    grouped_bars,
    mark_reported,
    place_legend,
    radar,
    shared_legend,
    size_vs_score,
    small_text,
)
from culturelab.plots.curves import _percent, valid_answer_curves
from culturelab.plots.layout import current
from culturelab.plots.recipe import drawing
from culturelab.plots.style import apply_style, palette
from culturelab.tasks.reorder import ANSWER_SEP, DECODING_LABELS, _written_letters, modal_answers

#: chance accuracy of a four-option MCQ
CHANCE = 0.25
#: why a footnote-6 radar has no chance ring
NO_CHANCE_FIG6 = "the footnote-6 score averages in ROUGE-L, BERTScore and SS, which have no chance level"
_HATCH = ["", "//", "..", "xx", "\\\\", "oo"]
_SHORT = {"Food and Cuisine": "Food", "Celebrations and Festivals": "Celebrations",
          "Social Etiquette and Hospitality": "Etiquette", "Craftsmanship and Artisan Skills": "Craftsmanship",
          "Traditional Attire and Dress": "Attire", "Agricultural and Seasonal Practices": "Agriculture",
          "Religious and Spiritual Practices": "Religion", "Life Milestones and Family Rites": "Life milestones",
          "Sports, Games, and Competitions": "Sports & games", "Environmental and Nature-Based Practices": "Environment"}


def short_category(name: str) -> str:
    """A short label for a category (radar spokes).

    >>> short_category("Agricultural and Seasonal Practices")
    'Agriculture'
    """
    return _SHORT.get(name, name)


@drawing
def fig2_step_counts(procedures: pd.DataFrame, title: str | None = "Step counts by country") -> plt.Figure:
    """Fig. 2: procedures per step count (stacked, 5…10) for each country, the mean step count
    above each bar (the legend says so), the legend beside the bars (above them in a paper)."""
    apply_style()
    first = procedures.drop_duplicates("procedure_id")
    countries = [c for c in COUNTRIES if c in set(first["country"])]
    counts = first.groupby(["country", "n_steps"]).size().unstack(fill_value=0).reindex(countries)
    fig, ax = plt.subplots(figsize=figsize(6.0, 3.2))
    bottom = np.zeros(len(countries))
    steps = sorted(counts.columns)
    for i, (n, colour) in enumerate(zip(steps, palette(len(steps)))):
        ax.bar(countries, counts[n].to_numpy(), bottom=bottom, color=colour, alpha=0.85, hatch=_HATCH[i % 6],
               edgecolor="white", linewidth=0.5, label=f"{n} steps")
        bottom += counts[n].to_numpy()
    means = first.groupby("country")["n_steps"].mean().reindex(countries)
    for x, (total, mean) in enumerate(zip(bottom, means)):
        ax.text(x, total, f"{mean:.1f}", ha="center", va="bottom", fontsize=small_text(7.0))
    ax.set_ylabel("procedures")
    ax.set_ylim(0, bottom.max() * 1.15)
    ax.legend(frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0), title="above a bar: mean steps")
    if title:
        ax.set_title(title)
    claim(fig, kind="data")
    return fig


#: Fig. 5's metrics: column → axis label
FIG5_METRICS = {"rho": "Spearman ρ", "tau": "Kendall τ", "ld": "Levenshtein distance"}
#: the panel of Fig. 5 that shows copying: the share of valid answers equal to their step count's most common one
MODAL_PANEL = {"modal": "share of valid answers equal to\nthe most common one"}


@drawing
def fig5_step_curves(scored: pd.DataFrame, baseline: pd.DataFrame | None = None, *,
                     decodings: Sequence[str] | None = None, title: str | None = None, seed: int = 0) -> plt.Figure:
    """Fig. 5: ρ, τ and LD per step count from the valid answers (95 % bootstrap bands), one line
    per ``decoding`` of ``scored`` (in the order of ``decodings``), named as
    :data:`~culturelab.tasks.reorder.DECODING_LABELS` names it (the method), with the
    random-permutation expectation dotted (the chance reference); then (:data:`MODAL_PANEL`, where
    ``scored`` has the orders: ``perm``, ``pred_order``) the share of the valid answers that equal
    the most common answer of their step count (:func:`culturelab.tasks.reorder.modal_answers`):
    where it is high, a point's answers are copies of one answer, not independent readings; last,
    the share of valid answers per step count (:func:`culturelab.plots.curves.valid_answer_curves`).

    n counts **procedures** (:func:`procedure_means`: a procedure asked in English and in its native
    language, with one shuffle, is one unit — its score is the mean of its valid answers), so a
    point is hollow under 10 procedures, however many answers it holds; the legend says so.

    >>> t = pd.DataFrame({"n_steps": [5, 6] * 2, "rho": [0.2, 0.4, 0.0, 0.0], "tau": 0.1, "ld": 3,
    ...                   "valid": [True, True, False, False], "decoding": ["constrained"] * 2 + ["free"] * 2,
    ...                   "perm": [list(range(5)), list(range(6))] * 2, "pred_order": [[1, 0, 2, 3, 4], [1, 0, 2, 3, 4, 5], [], []]})
    >>> fig = fig5_step_curves(t, pd.DataFrame({"n_steps": [5, 6], "rho": 0.0, "tau": 0.0, "ld": 3.5}))
    >>> [t.get_text() for t in fig.legends[0].get_texts()][0]
    'constrained to valid orders (protocol deviation) (100 % valid)'
    >>> fig.axes[3].get_ylabel().split("\\n")[0], fig.axes[3].lines[0].get_ydata().tolist()
    ('share of valid answers equal to', [1.0, 1.0])
    >>> plt.close("all")
    """
    order = [d for d in (decodings if decodings is not None else dict.fromkeys(scored["decoding"]))
             if d in set(scored["decoding"])]
    methods = [DECODING_LABELS[d] for d in order]
    units = procedure_means(scored, list(FIG5_METRICS))
    panels = {**FIG5_METRICS, **(MODAL_PANEL if "modal" in units else {})}
    fig = valid_answer_curves(units.assign(method=units["decoding"].map(DECODING_LABELS)), "n_steps", panels,
                              hue="method", hue_order=methods, xlabel="steps in the procedure", title=title, seed=seed,
                              baseline=None if baseline is None else baseline.assign(modal=np.nan),  # no random copies
                              ylims={"rho": (-1.05, 1.05), "tau": (-1.05, 1.05), "modal": (-0.03, 1.05)})
    claim(fig, kind="score", method=methods, chance="random" if baseline is not None else None,
          no_chance=None if baseline is not None else "no random-order baseline given")
    if "procedure_id" in scored:
        footnote(fig, f"n = procedures ({scored['procedure_id'].nunique()}, each asked in English and its native "
                      "language with one shuffle): a procedure's score is the mean of its valid answers")
    if "modal" in units:
        _modal_note(fig, scored, order)
    for legend in list(fig.legends):  # one legend above the panels, saying what n counts
        legend.remove()
    if current().paper:  # three panels to a row: the n labels of six step counts need the width
        grid = fig.add_gridspec(-(-len(fig.axes) // 3), 3)
        for i, ax in enumerate(fig.axes):
            ax.set_subplotspec(grid[i // 3, i % 3])
        fig.set_size_inches(current().inches, 2.1 * grid.nrows)
    fig.tight_layout()
    shared_legend(fig, [fig.axes[-1], *fig.axes[:-1]],  # the share panel has every decoding, in order
                  title="n = procedures" if "procedure_id" in scored else "n = answers")
    return fig


def procedure_means(scored: pd.DataFrame, metrics: Sequence[str]) -> pd.DataFrame:
    """One row per decoding and procedure (``procedure_id``; each answer its own unit without it):
    ``n_steps``, ``valid`` — the share of its answers that are valid — and each of ``metrics``, the
    mean over its valid answers (NaN when it has none): the unit whose count a figure's n gives. With
    the orders (``perm``, ``pred_order``), also ``modal``: the share of its valid answers equal to the
    most common valid answer of their decoding and step count (:func:`culturelab.tasks.reorder.modal_answers`).

    >>> t = pd.DataFrame({"decoding": "free", "procedure_id": ["p", "p", "q", "q"], "n_steps": [5, 5, 6, 6],
    ...                   "valid": [True, False, False, False], "rho": [0.5, 0.0, 0.0, 0.0]})
    >>> procedure_means(t, ["rho"]).to_dict("records")
    [{'decoding': 'free', 'procedure_id': 'p', 'n_steps': 5, 'valid': 0.5, 'rho': 0.5}, {'decoding': 'free', 'procedure_id': 'q', 'n_steps': 6, 'valid': 0.0, 'rho': nan}]
    """
    frame = scored.copy() if "procedure_id" in scored else scored.assign(procedure_id=np.arange(len(scored)))
    keys = ["decoding", "procedure_id", "n_steps"]
    valid = frame["valid"].astype(bool)
    metrics = list(metrics)
    if {"perm", "pred_order"} <= set(frame.columns) and valid.any():
        modal = modal_answers(frame, ["decoding"]).set_index(["decoding", "n_steps"])["modal_answer"]
        answered = frame[valid]
        written = [ANSWER_SEP.join(letters) for letters in _written_letters(answered)]
        frame.loc[valid, "modal"] = [float(w == modal[(d, n)]) for w, d, n in
                                     zip(written, answered["decoding"], answered["n_steps"])]
        metrics.append("modal")
    shares = frame.assign(valid=valid.astype(float)).groupby(keys, sort=False)["valid"].mean()
    means = frame[valid].groupby(keys, sort=False)[metrics].mean()
    return shares.to_frame().join(means).reset_index()


def _modal_note(fig: plt.Figure, scored: pd.DataFrame, decodings: Sequence[str]) -> None:
    """Fig. 5's copying over all step counts, per decoding, as the caption states it."""
    modal = modal_answers(scored, ["decoding"])
    stated = []
    for decoding in decodings:
        part = modal[modal["decoding"] == decoding]
        if len(part):
            share = (part["modal_share"] * part["valid_answers"]).sum() / part["valid_answers"].sum()
            stated.append(f"{DECODING_LABELS[decoding].split(' (')[0]} {share:.0%}")
    footnote(fig, "valid answers equal to the most common answer of their step count: " + ", ".join(stated)
             + " — a point's answers are then copies of one answer, not independent readings")


@drawing
def fig3_language_impact(cells: pd.DataFrame, *, lmax_mode: str, title: str | None = None,
                         chance: float | None = None, method: str = "generate") -> plt.Figure:
    """Fig. 3/6: footnote-4 score per country, English vs native, with CI whiskers and n (procedures)
    per bar (``cells``: ``country``, ``lang_group``, ``score``, optional ``ci_low``/``ci_high``/``n``),
    and the footnote-4 score of random answers (``chance``: :func:`aggregate.fig3_chance`) dotted;
    the y axis names how LD entered the score (``lmax_mode``, :func:`score_label`).
    ``method``: the MCQ scoring in the aggregate, named in the title. Each language's share of
    valid answers per task (the columns of :data:`~culturelab.captex.evaluate.VALID_TASKS`) is in
    its legend entry (:func:`valid_labels`).

    >>> cells = pd.DataFrame({"country": ["Iran", "Iran"], "lang_group": ["English", "native"],
    ...                       "score": [0.1, 0.12], "n": [10, 10], "reorder_valid": [0.5, 0.25]})
    >>> ax = fig3_language_impact(cells, lmax_mode="per_instance", chance=0.151).axes[0]
    >>> [t.get_text() for t in ax.texts], ax.get_title()
    (['n=10', 'n=10'], 'Fig. 3 (MCQs by generate)')
    >>> [t.get_text() for t in ax.get_legend().get_texts()][1:]
    ['English (valid: reordering 50 %)', 'native (valid: reordering 25 %)']
    >>> plt.close("all")
    """
    order = [c for c in COUNTRIES if c in set(cells["country"])]
    named = cells.assign(lang_group=cells["lang_group"].map(valid_labels(cells, "lang_group")),
                         country=pd.Categorical(cells["country"], order, ordered=True))
    named = named.sort_values(["country", "lang_group"])
    has_ci = {"ci_low", "ci_high"} <= set(cells.columns)
    fig = grouped_bars(named.assign(country=named["country"].astype(str)), "country", "score", "lang_group",
                       err_low="ci_low" if has_ci else None, err_high="ci_high" if has_ci else None,
                       n="n" if "n" in cells else None, chance=chance, ylabel=score_label("footnote-4", lmax_mode),
                       title=f"{title or 'Fig. 3'} (MCQs by {method})")
    claim(fig, kind="score", chance=chance, method=method,
          no_chance=None if chance is not None else "L_max from the model's own cells (lmax_mode=max_cells)")
    if note := valid_note(cells, "lang_group"):
        footnote(fig, note)
    return fig


#: the most groups whose valid shares a figure's note lists one by one
MAX_NOTE_GROUPS = 4


def _weighted_share(cells: pd.DataFrame, column: str) -> float:
    """The mean of ``column`` over ``cells`` weighted by their ``n`` (NaN where no cell has it)."""
    weights = cells["n"].astype(float) if "n" in cells else pd.Series(1.0, index=cells.index)
    known = cells[column].notna()
    return float((cells.loc[known, column] * weights[known]).sum() / weights[known].sum()) if weights[known].sum() \
        else float("nan")


def _share_text(cells: pd.DataFrame, column: str) -> str:
    share = _weighted_share(cells, column)
    return "n/a" if np.isnan(share) else f"{share:.1%}"


def valid_labels(cells: pd.DataFrame, group: str, *, wrap: bool = False) -> dict[str, str]:
    """Each ``group`` value of ``cells`` named with its share of valid answers per task, weighted by
    each cell's ``n`` (the columns of :data:`~culturelab.captex.evaluate.VALID_TASKS`, or ``valid_share``
    in long form): the label a legend gives it, so the shares stand on the figure (``wrap``: the
    shares on a line of their own).

    >>> cells = pd.DataFrame({"component": ["reordering", "CB-QA"], "n": [4, 4], "valid_share": [0.25, None]})
    >>> valid_labels(cells, "component")
    {'reordering': 'reordering (25 % valid)', 'CB-QA': 'CB-QA'}
    """
    names, sep = {}, "\n" if wrap else " "
    for value, part in cells.groupby(group, sort=False):
        text = valid_shares_text(part)
        names[value] = f"{value}{sep}({text})" if text else str(value)
    return names


def valid_shares_text(cells: pd.DataFrame) -> str:
    """The shares of valid answers behind ``cells`` (weighted by ``n``), per task, as a figure writes
    them; empty where ``cells`` hold none.

    >>> valid_shares_text(pd.DataFrame({"n": [1, 3], "reorder_valid": [1.0, 0.0], "pb_mcq_valid": [1.0, 1.0]}))
    'valid: reordering 25 %, PB-MCQ 100 %'
    >>> valid_shares_text(pd.DataFrame({"n": [2], "valid_share": [0.5]}))
    '50 % valid'
    """
    if "valid_share" in cells:
        share = _weighted_share(cells, "valid_share")
        return "" if np.isnan(share) else f"{_percent(share)} valid"
    parts = [f"{task} {_percent(share)}" for column, task in VALID_TASKS.items() if column in cells
             and not np.isnan(share := _weighted_share(cells, column))]
    return "valid: " + ", ".join(parts) if parts else ""


def valid_note(cells: pd.DataFrame, group: str | None = None) -> str | None:
    """The share of valid answers behind an aggregate figure, per task and (``group``) per group,
    weighted by each cell's ``n``, with how an invalid answer is scored — the caption's line (the
    figure itself carries the shares in its legend: :func:`valid_labels`, :func:`valid_shares_text`):
    cells with the columns of :data:`culturelab.captex.evaluate.VALID_TASKS`, or in long form
    with ``valid_share`` per ``group`` (e.g. ``component``). ``None`` without such columns.

    >>> cells = pd.DataFrame({"lang_group": ["English", "native"], "n": [10, 30], "reorder_valid": [0.5, 0.0],
    ...                       "pb_mcq_valid": [1.0, 1.0]})
    >>> valid_note(cells, "lang_group")[:82]
    'valid answers: reordering 12.5% (English 50.0%, native 0.0%), PB-MCQ 100.0% (Engli'
    """
    if "valid_share" in cells and group in cells:
        parts = [f"{g} {_share_text(part, 'valid_share')}" for g, part in cells.groupby(group, sort=False)
                 if part["valid_share"].notna().any()]
    else:
        parts = [f"{task} {_share_text(cells, col)}" + (
            " (" + ", ".join(f"{g} {_share_text(part, col)}" for g, part in cells.groupby(group, sort=False))
            + ")" if group in cells else "") for col, task in VALID_TASKS.items() if col in cells]
    if not parts:
        return None
    return ("valid answers: " + ", ".join(parts) + " — an invalid answer enters the score as the invalid-answer "
            "policy scores it, while a chance line is the score of random valid answers")


#: the calibration replies of CB-QA (:func:`culturelab.captex.cbqa.reference_baselines`) and its metrics, named
CBQA_SYSTEMS = {"echo_question": "Person A's question echoed", "other_reference": "another conversation's answer",
                "reference": "the reference itself"}
CBQA_METRICS = {"rouge_l": "ROUGE-L", "bertscore": "BERTScore", "ss": "SS"}


@drawing
def cbqa_bars(summary: pd.DataFrame, *, model: str, method: str = "greedy", valid_share: float | None = None,
              title: str | None = None) -> plt.Figure:
    """CB-QA: the mean ROUGE-L, BERTScore and SS of ``model``'s replies beside the model-free
    calibration replies (``summary``: ``system``, ``metric``, ``mean``, ``ci_low``, ``ci_high``, ``n``
    from :func:`culturelab.captex.cbqa.summarise_metrics`), n per bar (conversations, one per
    procedure); ``valid_share`` (:func:`culturelab.captex.cbqa.valid_share`: the replies that are an
    answer) is written beside the n of the model's bars; ``method`` names its decoding.

    >>> s = pd.DataFrame({"system": ["hf:org/m", "reference"], "metric": "rouge_l", "mean": [0.2, 1.0],
    ...                   "ci_low": [0.1, 1.0], "ci_high": [0.3, 1.0], "n": 12})
    >>> ax = cbqa_bars(s, model="hf:org/m", valid_share=0.9).axes[0]
    >>> [t.get_text() for t in ax.texts], [t.get_text() for t in ax.get_legend().get_texts()]
    (['n=12 · 90 % valid', 'n=12'], ['m (greedy)', 'the reference itself'])
    >>> plt.close("all")
    """
    from culturelab.captex.cbqa import NO_CHANCE
    from culturelab.plots.audit import short_name

    named = summary.assign(metric=summary["metric"].map(lambda m: CBQA_METRICS.get(m, m)),
                           system=summary["system"].map(lambda s: CBQA_SYSTEMS.get(s, f"{short_name(s)} ({method})")))
    if valid_share is not None:
        named["valid_share"] = np.where(summary["system"] == model, valid_share, np.nan)
    fig = grouped_bars(named, "metric", "mean", "system", err_low="ci_low", err_high="ci_high", n="n",
                       ylim=(0, 1.05), ylabel="score", title=title, valid="valid_share" if valid_share is not None else None)
    claim(fig, kind="score", method=method, no_chance=NO_CHANCE)
    return fig


#: reference lines (chance levels) closer than this share of the value axis are drawn as one line, named for each
MERGE_SHARE = 0.03


@drawing
def accuracy_bars(table: pd.DataFrame, x: str, y: str, hue: str, *, top: float = 1.05, ax: plt.Axes | None = None,
                  elimination: float | None = None, **bars: Any) -> plt.Figure:
    """MCQ accuracy as grouped bars (:func:`culturelab.plots.grouped_bars`, ``bars`` passed on; n per
    bar: the procedures, ``n_clusters``, when ``table`` has them — a procedure's questions are not
    independent, so the small-n rule counts procedures — else ``n``) with the four-option chance level (0.25) dotted and the
    y axis from 0 to ``top``; the ``hue`` levels (e.g. the scoring methods) are in the legend. A
    generated answer can be invalid: where ``hue`` is ``method`` and ``table`` has ``invalid_rate``,
    the share of valid answers is written beside the n of each generated bar (log-likelihood answers
    are valid by construction).
    ``elimination`` adds the CB-MCQ elimination chance as a dashed line
    (:func:`culturelab.captex.construction.elimination_chance`: ruling out the options the
    conversation already narrates, guessing among the rest), claimed as a second chance level; where
    it lies within :data:`MERGE_SHARE` of the axis from 1/4, the two are one line whose label names both.

    >>> t = pd.DataFrame({"qtype": ["SA", "SN"], "method": ["generate"] * 2, "accuracy": [0.3, 0.2]})
    >>> ax = accuracy_bars(t, "qtype", "accuracy", "method").axes[0]
    >>> [float(y) for y in ax.get_ylim()], list(ax.lines[-1].get_ydata())
    ([0.0, 1.05], [0.25, 0.25])
    >>> ax = accuracy_bars(t, "qtype", "accuracy", "method", elimination=0.34).axes[0]
    >>> [line.get_ydata()[0] for line in ax.lines], sorted(t.get_text() for t in ax.get_legend().get_texts())
    ([0.25, 0.34], ['chance (0.25)', 'elimination chance (0.340)', 'generate'])
    >>> ax = accuracy_bars(t, "qtype", "accuracy", "method", elimination=0.251).axes[0]
    >>> [line.get_label() for line in ax.lines]
    ['chance (0.25) = elimination chance (0.251): one line']
    >>> plt.close("all")
    """
    bars.setdefault("n", "n_clusters" if "n_clusters" in table else "n" if "n" in table else None)
    if hue == "method" and "invalid_rate" in table and "valid" not in bars:  # generated answers can be invalid
        table = table.assign(valid_share=np.where(table[hue] == "loglikelihood", np.nan, 1 - table["invalid_rate"]))
        bars["valid"] = "valid_share"
    fig = grouped_bars(table, x, y, hue, ax=ax, chance=CHANCE, legend=False, **bars)
    if bars["n"] == "n_clusters":
        footnote(fig, "n = procedures (each gives several questions, which are not independent answers)")
    axes = ax or fig.axes[0]
    levels: list[float | str] = [CHANCE]
    if elimination is not None and np.isfinite(elimination):
        if abs(elimination - CHANCE) <= MERGE_SHARE * top:  # two lines a reader could not tell apart: one, named so
            merged = f"chance ({CHANCE:.3g}) = elimination chance ({elimination:.3f}): one line"
            next(line for line in axes.lines if line.get_label() == f"chance ({CHANCE:.3g})").set_label(merged)
            levels.append(merged)
        else:
            axes.axhline(elimination, color="#777777", linestyle="--", linewidth=1,
                         label=f"elimination chance ({elimination:.3f})")
            levels.append(float(elimination))
    axes.set_ylim(0, top)
    place_legend(axes, ncols=3)
    claim(fig, chance=levels)
    return fig


#: the task scores of a radar of components (:func:`culturelab.captex.aggregate.category_components`), named
COMPONENT_NAMES = {"reordering": "reordering", "pb_mcq": "PB-MCQ", "cb_mcq": "CB-MCQ", "cb_qa": "CB-QA",
                   "aggregate": "footnote-6 aggregate"}


@drawing
def fig4_radar(cells: pd.DataFrame, *, series: str = "country", value: str = "score",
               categories: Sequence[str] | None = None, title: str | None = None,
               rlabel: str = "footnote-6 score", chance: float | Mapping[str, float] | None = None,
               chance_note: str | None = NO_CHANCE_FIG6, rmax: float | None = None,
               method: str | None = None) -> plt.Figure:
    """Fig. 4/7: the footnote-6 score per category (spokes, the first one up, clockwise), one polygon
    per ``series`` (country, model, language or — ``component`` — task score, named by
    :data:`COMPONENT_NAMES`), the radial axis named by ``rlabel``. Only categories present in
    ``cells`` are drawn; a series without a cell in some category leaves a gap there instead
    of a zero. When ``cells`` has ``n`` (and ``ci_low``/``ci_high``: :func:`aggregate.fig4_cells`),
    each spoke shows its smallest n (and a 95 % band), and points on fewer than
    :data:`culturelab.plots.honest.MIN_N` procedures are hollow; ``method`` (the MCQ scoring in
    the score) is named beside ``rlabel``. The shares of valid answers stand in the legend: per
    series for up to :data:`MAX_NOTE_GROUPS` series (:func:`valid_labels`), pooled under the
    legend's title for more. ``chance`` adds a dashed ring; a mapping gives each series its own ring
    (e.g. :func:`aggregate.component_chance` for the task scores), and levels closer than
    :data:`MERGE_SHARE` of the radius are one grey ring named for each (:func:`chance_rings`);
    without a ring, ``chance_note`` says why under the figure (by default: the footnote-6 score has
    no chance level). ``rmax`` fixes the outer ring.

    >>> t = pd.DataFrame({"country": ["Iran", "Iran"], "category": ["Food and Cuisine", "Celebrations and Festivals"],
    ...                   "score": [0.5, 0.6], "ci_low": [0.4, 0.5], "ci_high": [0.6, 0.7], "n": [12, 3]})
    >>> ax = fig4_radar(t).axes[0]
    >>> sorted(tick.get_text().split("\\n")[1] for tick in ax.get_xticklabels())
    ['n=12', 'n=3']
    >>> t = pd.DataFrame({"component": ["pb_mcq", "cb_mcq", "reordering"], "category": "Food and Cuisine",
    ...                   "score": [0.3, 0.4, 0.2], "n": 12, "valid_share": [1.0, 1.0, 0.5]})
    >>> ax = fig4_radar(t, series="component", chance={"pb_mcq": 0.25, "cb_mcq": 0.256, "reordering": 0.08}).axes[0]
    >>> [line.get_label() for line in ax.lines if line.get_label().startswith("chance")]
    ['chance: reordering (0.08)', 'chance: PB-MCQ 0.25, CB-MCQ 0.256 (one ring)']
    >>> plt.close("all")
    """
    present = set(cells["category"])
    cats = [c for c in (categories or CATEGORIES) if c in present]
    table = cells.assign(category=cells["category"].map(short_category))
    if series == "component":
        table[series] = table[series].map(lambda c: COMPONENT_NAMES.get(c, c))
        if isinstance(chance, Mapping):
            chance = {COMPONENT_NAMES.get(k, k): v for k, v in chance.items()}
    order = [c for c in COUNTRIES if c in set(table[series])] if series == "country" else None
    if order:
        table = table.assign(**{series: pd.Categorical(table[series], order, ordered=True)}).sort_values(series)
        table[series] = table[series].astype(str)
    names = list(dict.fromkeys(table[series]))
    few = len(names) <= MAX_NOTE_GROUPS or series == "component"  # else the pooled shares under the legend's title
    shown = valid_labels(table, series, wrap=True) if few else {}
    table[series] = table[series].map(lambda s: shown.get(s, s))
    honest = {k: k for k in ("n", "ci_low", "ci_high") if k in table}
    levels = chance.values() if isinstance(chance, Mapping) else [] if chance is None else [chance]
    peak = float(np.nanmax(table[[value, "ci_high"] if "ci_high" in table else [value]].to_numpy(dtype=float)))
    top = rmax if rmax is not None or not levels else max(peak * 1.05, max(levels) * 1.1)
    fig, ax = plt.subplots(figsize=figsize(4.6, 4.6), subplot_kw={"projection": "polar"})
    ax.set_theta_offset(np.pi / 2)  # the first spoke up, the others clockwise
    ax.set_theta_direction(-1)
    radar(table, "category", value, series, categories=[short_category(c) for c in cats], title=title, ax=ax,
          missing="gap", rlabel=f"{rlabel} (MCQs by {method})" if method else rlabel, rmax=top, **honest)
    for label, angle in zip(ax.get_xticklabels(), ax.get_xticks()):  # anchored away from the circle
        x, y = np.sin(angle), np.cos(angle)
        label.set(ha="left" if x > 0.1 else "right" if x < -0.1 else "center",
                  va="bottom" if y > 0.1 else "top" if y < -0.1 else "center")
    colours = {name: next(line.get_color() for line in ax.lines if line.get_label() == shown.get(name, name))
               for name in names}
    drawn, covered = chance_rings(ax, chance, colours)
    uncovered = [name for name in colours if name not in covered]
    claim(fig, kind="score", chance=drawn or None, no_chance=chance_note if uncovered else None, method=method)
    if chance_note and uncovered:
        footnote(fig, f"no chance ring: {chance_note}")
    _radar_legend(fig, ax, f"radius: {rlabel} (MCQs by {method})" if method else f"radius: {rlabel}",
                  "" if few else valid_shares_text(cells))
    if note := valid_note(cells, series if few or series == "component" else None):
        footnote(fig, note)
    return fig


def _radar_legend(fig: plt.Figure, ax: plt.Axes, heading: str, pooled: str) -> None:
    """The legend of a radar — beside it on a screen, above it in a paper (laid out for good there) —
    titled by ``heading`` and the ``pooled`` valid shares, and the ring labels placed again, now that
    the layout is final, where they cover no data (else their values under the title)."""
    from matplotlib.ticker import ScalarFormatter

    from culturelab.plots.radar import BESIDE, _place_ring_labels

    if ax.get_legend() is not None:
        ax.get_legend().remove()
    ax.yaxis.set_major_formatter(ScalarFormatter())  # the ring labels back, wherever the first layout left them
    title = "\n".join(t for t in (heading, pooled) if t)
    if current().paper:
        legend = shared_legend(fig, [ax], title=title)
    else:
        legend = ax.legend(loc="upper left", bbox_to_anchor=BESIDE, frameon=False, title=title)
    if rings := _place_ring_labels(ax, ax.get_xticks()):
        legend.set_title("\n".join(t for t in (heading, f"(rings {rings})", pooled) if t))
    legend.get_title().set_fontsize(7)


def chance_rings(ax: plt.Axes, chance: float | Mapping[str, float] | None,
                 colours: Mapping[str, str]) -> tuple[list[float | str], set[str]]:
    """The chance rings of a radar: one grey ring at ``chance``, or (a mapping) one per series of
    ``colours`` in its colour, where levels within :data:`MERGE_SHARE` of the radius are one grey ring
    whose label names each series (and each level, where they differ). Returns what the figure
    claims (the levels drawn; a merged ring's label where its levels differ) and the series covered.

    >>> fig, ax = plt.subplots(subplot_kw={"projection": "polar"}); _ = ax.set_ylim(0, 1)
    >>> drawn, covered = chance_rings(ax, {"a": 0.25, "b": 0.25, "c": 0.5}, {"a": "k", "b": "b", "c": "r"})
    >>> drawn, sorted(covered)
    ([0.25, 0.5], ['a', 'b', 'c'])
    >>> [line.get_label() for line in ax.lines]
    ['chance: a, b (0.25)', 'chance: c (0.5)']
    >>> plt.close(fig)
    """
    if chance is None:
        return [], set()
    if not isinstance(chance, Mapping):
        chance_ring(ax, float(chance))
        return [float(chance)], set(colours)
    span = ax.get_ylim()[1]
    groups: list[list[tuple[str, float]]] = []
    for name, level in sorted(((k, float(v)) for k, v in chance.items() if k in colours), key=lambda kv: kv[1]):
        if groups and level - groups[-1][0][1] <= MERGE_SHARE * span:
            groups[-1].append((name, level))
        else:
            groups.append([(name, level)])
    claimed: list[float | str] = []
    for group in groups:
        names, values = [n for n, _ in group], [v for _, v in group]
        if len(group) == 1:
            label = f"chance: {names[0]} ({values[0]:.2g})"
        elif len({f"{v:.2g}" for v in values}) == 1:
            label = f"chance: {', '.join(names)} ({values[0]:.2g})"
        else:  # levels a reader could not tell apart, each named
            label = "chance: " + ", ".join(f"{n} {v:.3g}" for n, v in group) + " (one ring)"
        chance_ring(ax, values[0], label=label, colour=colours[names[0]] if len(group) == 1 else "#555555")
        claimed += [values[0], label] if label.endswith("(one ring)") else [values[0]]
    return claimed, {name for group in groups for name, _ in group}


def pb_mcq_cells(pb: pd.DataFrame, *, method: str = "loglikelihood", series: str = "country",
                 seed: int = 0) -> pd.DataFrame:
    """PB-MCQ accuracy per ``series`` and category for one scoring ``method``, English and native
    pooled, with a 95 % interval clustered by procedure (:func:`culturelab.captex.questions.accuracy_by`):
    ``score``, ``n`` = the procedures of a cell, the independent unit (each gives 4 types × 2
    languages of questions that share its steps), ``n_questions``, and — for generated answers, which
    can be unreadable — ``pb_mcq_valid``, the share of valid answers. What :func:`pb_mcq_radar` draws.

    >>> pb = pd.DataFrame({"country": "Iran", "category": ["Food and Cuisine"] * 8, "procedure_id": list("aaaabbbb"),
    ...                    "method": "generate", "correct": [1, 0] * 4, "valid": [True] * 7 + [False]})
    >>> pb_mcq_cells(pb, method="generate")[["score", "n", "n_questions", "pb_mcq_valid"]].to_dict("records")
    [{'score': 0.5, 'n': 2, 'n_questions': 8, 'pb_mcq_valid': 0.875}]
    """
    from culturelab.captex import questions

    cells = questions.accuracy_by(pb[pb["method"] == method], [series, "category"], seed=seed)
    cells = cells.rename(columns={"accuracy": "score", "n": "n_questions", "n_clusters": "n"})
    if method != "loglikelihood":  # a generated letter can be unreadable
        cells["pb_mcq_valid"] = 1 - cells["invalid_rate"]
    return cells


@drawing
def pb_mcq_radar(cells: pd.DataFrame, *, method: str = "loglikelihood", series: str = "country",
                 title: str | None = None) -> plt.Figure:
    """PB-MCQ accuracy per category (spokes) and ``series`` for one scoring ``method`` (``cells``:
    :func:`pb_mcq_cells`), with its 95 % band and the four-option chance (¼) as a dashed ring. n = the
    procedures of a cell: cells on fewer than 10 procedures are hollow, however many questions they
    hold. The share of valid answers (generated answers) is in the legend. The item-level companion
    of the footnote-6 radar.

    >>> pb = pd.DataFrame({"country": "Iran", "category": ["Food and Cuisine"] * 12 + ["Celebrations and Festivals"] * 4,
    ...                    "procedure_id": list("aaaaaaaabbbbcccc"), "method": "loglikelihood", "correct": [1, 0] * 8,
    ...                    "valid": True})
    >>> ax = pb_mcq_radar(pb_mcq_cells(pb)).axes[0]
    >>> sorted(t.get_text().split("\\n")[1] for t in ax.get_xticklabels()), ax.lines[-1].get_label()
    (['n=1', 'n=2'], 'chance (0.25)')
    >>> plt.close("all")
    """
    fig = fig4_radar(cells, series=series, rlabel=f"PB-MCQ accuracy ({method}; n = procedures)", chance=CHANCE,
                     rmax=1.0, title=title)
    claim(fig, method=method)
    return fig


@drawing
def fig8_size(table: pd.DataFrame, *, lmax_mode: str, title: str | None = None, ours: pd.DataFrame | None = None,
              label: str | None = None, n: str | None = None, valid: str | None = None) -> plt.Figure:
    """Fig. 8: aggregate score vs parameters (log scale), one colour and marker per family
    (rows without a size, e.g. GPT-4o, are left out); the y axis names how LD entered the score
    (``lmax_mode``, :func:`score_label`: the paper's points redrawn from Table 4 are ``table4``).
    With a ``variant`` column, base checkpoints get their own dashed line with hollow markers, so
    a family's line never zigzags between base and instruction-tuned models of the same size; each
    line joins the mean score per size, so two models of one size and variant (Mistral-7B-Instruct
    v0.2 and v0.3, both 7.2B) are two points with the line through their mean, not a vertical jog.

    ``ours``: our models' scores (same columns, the same quantity: score them with the same
    ``lmax_mode``), drawn as black stars on the figure of ``table`` (then the paper's models, marked as
    the paper's numbers: :func:`culturelab.plots.mark_reported`) — a single model's point alone on a
    size axis says nothing. ``label``, ``n`` and ``valid`` name columns of ``ours``: the model and
    the share of its answers that are valid (:func:`culturelab.captex.evaluate.valid_shares`; per task
    where ``ours`` has the task columns) in the legend, the procedures its score rests on under each star.

    >>> t = pd.DataFrame({"family": ["F"] * 3, "variant": ["base", "instruct", "instruct"],
    ...                   "params_b": [1.0, 1.0, 7.0], "score": [0.2, 0.3, 0.5]})
    >>> ax = fig8_size(t, lmax_mode="table4").axes[0]
    >>> sorted(line.get_label() for line in ax.lines if line.get_label()[0] != "_"), ax.get_ylabel()
    (['F', 'F (base)'], 'footnote-6 score\\n(LD as 1 − mean LD/5.59 (5.59 = largest LD of Table 4))')
    >>> mine = pd.DataFrame({"family": ["Gemma"], "params_b": [0.27], "score": [0.2], "model": ["bundled:gemma3-270m"],
    ...                      "n": [70], "valid_share": [0.004]})
    >>> ax = fig8_size(t, lmax_mode="table4", ours=mine, label="model", n="n", valid="valid_share").axes[0]
    >>> [a.get_text() for a in ax.texts], ax.lines[-1].get_label()
    (['n=70'], 'ours: gemma3-270m (0.4 % valid)')
    >>> plt.close("all")
    """
    from culturelab.plots.style import MARKERS

    if ours is None and (label or n or valid):
        raise ValueError("fig8_size: label, n and valid name columns of ours (our models' points); ours is missing")
    sized = table.dropna(subset=["params_b"])
    if "variant" not in sized:
        fig = size_vs_score(sized, "params_b", "score", "family", title=title,
                            ylabel=score_label("footnote-6", lmax_mode))
        ax = fig.axes[0]
    else:
        apply_style()
        fams = list(dict.fromkeys(sized["family"].astype(str)))
        fig, ax = plt.subplots(figsize=figsize(7.2, 3.4) if len(fams) > 4 else figsize(4.6, 3.2))
        for i, (fam, colour) in enumerate(zip(fams, palette(len(fams)))):
            part = sized[sized["family"].astype(str) == fam]
            for is_base, group in part.groupby(part["variant"] == "base"):
                group = group.sort_values("params_b")
                style = {"color": colour, "marker": MARKERS[i % len(MARKERS)], "markersize": 4.5,
                         "markerfacecolor": "white" if is_base else colour}
                # the line joins the mean score per size: models of one size (Mistral-7B v0.2, v0.3) are points on it
                means = group.groupby("params_b")["score"].mean()
                ax.plot(means.index, means.to_numpy(), linewidth=1.2, linestyle="--" if is_base else "-",
                        label=f"{fam} (base)" if is_base else fam, **{**style, "marker": None})
                ax.plot(group["params_b"], group["score"], linestyle="none", label=f"_{fam} points", **style)
        ax.set_xscale("log")
        ax.set_xlabel("parameters (billions, log scale)")
        ax.set_ylabel(score_label("footnote-6", lmax_mode))
        if title:
            ax.set_title(title)
    ax.xaxis.set_major_locator(LogLocator(subs=(1.0, 3.0)))  # 0.3, 1, 3, 10 … written plainly: no 10^x
    ax.xaxis.set_major_formatter(FormatStrFormatter("%g"))  # (a superscript is smaller than a paper's 6 pt)
    ax.xaxis.set_minor_formatter(NullFormatter())
    if ours is not None:
        mark_reported(ax.lines)
        _our_points(ax, ours.dropna(subset=["params_b"]), label=label, n=n, valid=valid)
    ax.legend(frameon=False, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0),
              title="dashed, hollow: base" if "variant" in sized else None, title_fontsize=7)
    return fig


#: the widest line of our models' legend entry on Fig. 8, in characters
LEGEND_CHARS = 32


def _wrap(text: str) -> str:
    """``text`` in lines of at most :data:`LEGEND_CHARS` characters, a share never parted from its "%".

    >>> _wrap("ours: gemma3-270m (valid: reordering 0.5 %, PB-MCQ 100 %)")
    'ours: gemma3-270m (valid:\\nreordering 0.5 %, PB-MCQ 100 %)'
    """
    return textwrap.fill(text.replace(" %", "\0%"), LEGEND_CHARS).replace("\0", " ")


def _our_points(ax: plt.Axes, ours: pd.DataFrame, *, label: str | None, n: str | None, valid: str | None) -> None:
    """Our models as black stars on a Fig. 8: named in the legend with their share of valid answers
    (``valid``) — per task where ``ours`` has the task columns (:data:`VALID_TASKS`), since the
    aggregate weights the tasks, not their answers (a pooled share of 82 % hid 0.5 % valid reordering
    answers), else the ``valid`` column — n beside each star (and its name, when there are several)."""
    from culturelab.plots.audit import short_name

    names = [short_name(str(m)) for m in ours[label]] if label else [""] * len(ours)
    tasks = [c for c in VALID_TASKS if c in ours]  # per task: a pooled share hides a task's invalid answers
    shares = ([valid_shares_text(ours.loc[[i], [*tasks, *(["n"] if "n" in ours else [])]]) if tasks
               else f"{_percent(float(ours.at[i, valid]))} valid" for i in ours.index] if valid else [""] * len(ours))
    entries = [" ".join(p for p in (name, f"({share})" if share else "") if p) for name, share in zip(names, shares)]
    ax.plot(ours["params_b"], ours["score"], linestyle="none", marker="*", markersize=10, color="black",
            markeredgecolor="white", markeredgewidth=0.5, zorder=5,  # legend lines as wide as a family's name
            label=_wrap("ours" + (": " + "; ".join(entries) if any(entries) else "")))
    for (_, row), name in zip(ours.iterrows(), names):
        text = " ".join(p for p in (name if len(ours) > 1 else "", f"n={int(row[n])}" if n else "") if p)
        if text:
            ax.annotate(text, (row["params_b"], row["score"]), fontsize=small_text(6.0), xytext=(0, -7),
                        textcoords="offset points", ha="center", va="top")


def score_label(footnote: str, lmax_mode: str) -> str:
    """The axis label of an aggregate score: the footnote and how LD entered it
    (:data:`culturelab.captex.protocol.LD_TERMS`) — scores under different ``lmax_mode`` are
    different quantities.

    >>> score_label("footnote-4", "per_instance")
    'footnote-4 score\\n(LD as 1 − mean(LD/n))'
    """
    from culturelab.captex.protocol import LD_TERMS

    return f"{footnote} score\n(LD as {LD_TERMS[lmax_mode]})"


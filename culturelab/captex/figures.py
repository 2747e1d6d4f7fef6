"""Figures 2–8 of the paper, drawn with the project's plot functions and style.

>>> from culturelab.captex.data import load
>>> fig = fig2_step_counts(load(data_source="sample").procedures)
>>> len(fig.axes[0].texts)  # one mean label per country
7
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from culturelab.captex.data import CATEGORIES, COUNTRIES
from culturelab.captex.evaluate import VALID_TASKS
from culturelab.plots import claim, footnote, grouped_bars, place_legend, radar, size_vs_score
from culturelab.plots.curves import valid_answer_curves
from culturelab.plots.recipe import drawing
from culturelab.plots.style import apply_style, palette
from culturelab.tasks.reorder import DECODING_LABELS, modal_answers

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
    """Fig. 2: procedures per step count (stacked, 5…10) for each country, mean printed above."""
    apply_style()
    first = procedures.drop_duplicates("procedure_id")
    countries = [c for c in COUNTRIES if c in set(first["country"])]
    counts = first.groupby(["country", "n_steps"]).size().unstack(fill_value=0).reindex(countries)
    fig, ax = plt.subplots(figsize=(6.0, 3.2))
    bottom = np.zeros(len(countries))
    steps = sorted(counts.columns)
    for i, (n, colour) in enumerate(zip(steps, palette(len(steps)))):
        ax.bar(countries, counts[n].to_numpy(), bottom=bottom, color=colour, alpha=0.85, hatch=_HATCH[i % 6],
               edgecolor="white", linewidth=0.5, label=f"{n} steps")
        bottom += counts[n].to_numpy()
    means = first.groupby("country")["n_steps"].mean().reindex(countries)
    for x, (total, mean) in enumerate(zip(bottom, means)):
        ax.text(x, total, f"{mean:.1f}", ha="center", va="bottom", fontsize=8)
    ax.set_ylabel("procedures")
    ax.set_ylim(0, bottom.max() * 1.15)
    ax.legend(frameon=False, ncols=3, fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.12))
    if title:
        ax.set_title(title)
    claim(fig, kind="data")
    return fig


@drawing
def fig5_step_curves(scored: pd.DataFrame, baseline: pd.DataFrame | None = None, *,
                     decodings: Sequence[str] | None = None, title: str | None = None, seed: int = 0) -> plt.Figure:
    """Fig. 5: ρ, τ and LD per step count from the valid answers (95 % bootstrap bands, n per
    point), one line per ``decoding`` of ``scored`` (in the order of ``decodings``), named as
    :data:`~culturelab.tasks.reorder.DECODING_LABELS` names it (the method), with the
    random-permutation expectation dotted (the chance reference); the last panel the share of valid
    answers per step count (:func:`culturelab.plots.curves.valid_answer_curves`) and, as crosses, the
    share of the valid answers that equal the most common answer of their step count
    (:func:`culturelab.tasks.reorder.modal_answers`), also stated per decoding under the figure:
    where it is high, the n of a point counts copies of one answer, not independent readings.

    >>> t = pd.DataFrame({"n_steps": [5, 6] * 2, "rho": [0.2, 0.4, 0.0, 0.0], "tau": 0.1, "ld": 3,
    ...                   "valid": [True, True, False, False], "decoding": ["constrained"] * 2 + ["free"] * 2,
    ...                   "perm": [list(range(5)), list(range(6))] * 2, "pred_order": [[1, 0, 2, 3, 4], [1, 0, 2, 3, 4, 5], [], []]})
    >>> fig = fig5_step_curves(t, pd.DataFrame({"n_steps": [5, 6], "rho": 0.0, "tau": 0.0, "ld": 3.5}))
    >>> [t.get_text() for t in fig.legends[0].get_texts()][0]
    'constrained to valid orders (protocol deviation) (100 % valid)'
    >>> [line.get_ydata().tolist() for line in fig.axes[-1].lines if line.get_marker() == "x"]
    [[1.0, 1.0]]
    >>> [t.get_text() for t in fig.texts if "most common" in t.get_text()][0][:60]
    'valid answers equal to the most common answer of their step '
    >>> plt.close("all")
    """
    order = [d for d in (decodings if decodings is not None else dict.fromkeys(scored["decoding"]))
             if d in set(scored["decoding"])]
    methods = [DECODING_LABELS[d] for d in order]
    fig = valid_answer_curves(scored.assign(method=scored["decoding"].map(DECODING_LABELS)), "n_steps",
                              {"rho": "Spearman ρ", "tau": "Kendall τ", "ld": "Levenshtein distance"},
                              hue="method", baseline=baseline, hue_order=methods, xlabel="steps in the procedure",
                              ylims={"rho": (-1.05, 1.05), "tau": (-1.05, 1.05)}, title=title, seed=seed,
                              # the English and native answers of a procedure share its shuffle: resampled together
                              cluster="procedure_id" if "procedure_id" in scored else None)
    claim(fig, kind="score", method=methods, chance="random" if baseline is not None else None,
          no_chance=None if baseline is not None else "no random-order baseline given")
    if "procedure_id" in scored:
        footnote(fig, f"n = answers, from {scored['procedure_id'].nunique()} procedures each asked in English and "
                      "its native language (one shuffle): the 95 % bands resample whole procedures")
    _modal_shares(fig.axes[-1], fig, scored, order)
    return fig


def _modal_shares(ax: plt.Axes, fig: plt.Figure, scored: pd.DataFrame, decodings: Sequence[str]) -> None:
    """Fig. 5's copying: per decoding, the share of its valid answers equal to the most common answer
    of their step count, as crosses in the decoding's colour on the share panel and stated under the figure."""
    modal = modal_answers(scored, ["decoding"])
    stated = []
    for decoding, colour in zip(decodings, palette(len(decodings))):
        part = modal[modal["decoding"] == decoding].sort_values("n_steps")
        if part.empty:
            continue
        ax.plot(part["n_steps"], part["modal_share"], color=colour, linestyle="none", marker="x", markersize=6,
                label=f"_{decoding}: most common answer")
        for x, y, n in zip(part["n_steps"], part["modal_share"], part["valid_answers"]):  # n: the valid answers
            ax.annotate(f"n={n}", (x, y), xytext=(4, -2), textcoords="offset points", fontsize=5, color=colour,
                        ha="left", va="top")
        share = float((part["modal_share"] * part["valid_answers"]).sum() / part["valid_answers"].sum())
        stated.append(f"{DECODING_LABELS[decoding].split(' (')[0]} {share:.0%}")
    if stated:
        ax.set_ylabel("share (lines: valid; ×: most common)")
        footnote(fig, "valid answers equal to the most common answer of their step count (crosses, last panel): "
                      + ", ".join(stated) + " — a point's n then counts copies of one answer, not independent readings")


@drawing
def fig3_language_impact(cells: pd.DataFrame, *, lmax_mode: str, title: str | None = None,
                         chance: float | None = None, method: str = "generate") -> plt.Figure:
    """Fig. 3/6: footnote-4 score per country, English vs native, with CI whiskers and n (procedures)
    per bar (``cells``: ``country``, ``lang_group``, ``score``, optional ``ci_low``/``ci_high``/``n``),
    and the footnote-4 score of random answers (``chance``: :func:`aggregate.fig3_chance`) dotted;
    the y axis names how LD entered the score (``lmax_mode``, :func:`score_label`).
    ``method``: the MCQ scoring in the aggregate, named in the title.

    >>> cells = pd.DataFrame({"country": ["Iran", "Iran"], "lang_group": ["English", "native"],
    ...                       "score": [0.1, 0.12], "n": [10, 10]})
    >>> ax = fig3_language_impact(cells, lmax_mode="per_instance", chance=0.151).axes[0]
    >>> [t.get_text() for t in ax.texts], ax.get_title()
    (['n=10', 'n=10'], 'Fig. 3 (MCQs by generate)')
    >>> plt.close("all")
    """
    order = [c for c in COUNTRIES if c in set(cells["country"])]
    cells = cells.assign(country=pd.Categorical(cells["country"], order, ordered=True)).sort_values(
        ["country", "lang_group"])
    has_ci = {"ci_low", "ci_high"} <= set(cells.columns)
    fig = grouped_bars(cells.assign(country=cells["country"].astype(str)), "country", "score", "lang_group",
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


def valid_note(cells: pd.DataFrame, group: str | None = None) -> str | None:
    """The share of valid answers behind an aggregate figure, per task and (``group``) per group,
    weighted by each cell's ``n``: cells with the columns of
    :data:`culturelab.captex.evaluate.VALID_TASKS`, or in long form
    with ``valid_share`` per ``group`` (e.g. ``component``). ``None`` without such columns.

    >>> cells = pd.DataFrame({"lang_group": ["English", "native"], "n": [10, 30], "reorder_valid": [0.5, 0.0],
    ...                       "pb_mcq_valid": [1.0, 1.0]})
    >>> valid_note(cells, "lang_group")[:82]
    'valid answers: reordering 12.5% (English 50.0%, native 0.0%), PB-MCQ 100.0% (Engli'
    """
    weights = cells["n"].astype(float) if "n" in cells else pd.Series(1.0, index=cells.index)

    def share(rows: pd.Series) -> str:
        w = weights[rows.index][rows.notna()]
        return f"{(rows.dropna() * w).sum() / w.sum():.1%}" if w.sum() else "n/a"

    if "valid_share" in cells and group in cells:
        parts = [f"{g} {share(part['valid_share'])}" for g, part in cells.groupby(group, sort=False)
                 if part["valid_share"].notna().any()]
    else:
        parts = [f"{task} {share(cells[col])}" + (" (" + ", ".join(f"{g} {share(part[col])}" for g, part in
                                                                cells.groupby(group, sort=False)) + ")"
                                                  if group in cells else "")
                 for col, task in VALID_TASKS.items() if col in cells]
    if not parts:
        return None
    return ("valid answers: " + ", ".join(parts) + " — an invalid answer enters the score as the invalid-answer "
            "policy scores it, while a chance line is the score of random valid answers")


@drawing
def accuracy_bars(table: pd.DataFrame, x: str, y: str, hue: str, *, top: float = 1.05, ax: plt.Axes | None = None,
                  elimination: float | None = None, **bars: Any) -> plt.Figure:
    """MCQ accuracy as grouped bars (:func:`culturelab.plots.grouped_bars`, ``bars`` passed on; n per
    bar: the procedures, ``n_clusters``, when ``table`` has them — a procedure's questions are not
    independent, so the small-n rule counts procedures — else ``n``) with the four-option chance level (0.25) dotted and the
    y axis from 0 to ``top``; the ``hue`` levels (e.g. the scoring methods) are in the legend.
    ``elimination`` adds the CB-MCQ elimination chance as a dashed line
    (:func:`culturelab.captex.construction.elimination_chance`: ruling out the options the
    conversation already narrates, guessing among the rest), claimed as a second chance level.

    >>> t = pd.DataFrame({"qtype": ["SA", "SN"], "method": ["generate"] * 2, "accuracy": [0.3, 0.2]})
    >>> ax = accuracy_bars(t, "qtype", "accuracy", "method").axes[0]
    >>> [float(y) for y in ax.get_ylim()], list(ax.lines[-1].get_ydata())
    ([0.0, 1.05], [0.25, 0.25])
    >>> ax = accuracy_bars(t, "qtype", "accuracy", "method", elimination=0.34).axes[0]
    >>> [line.get_ydata()[0] for line in ax.lines], sorted(t.get_text() for t in ax.get_legend().get_texts())
    ([0.25, 0.34], ['chance (0.25)', 'elimination chance (0.340)', 'generate'])
    >>> plt.close("all")
    """
    bars.setdefault("n", "n_clusters" if "n_clusters" in table else "n" if "n" in table else None)
    fig = grouped_bars(table, x, y, hue, ax=ax, chance=CHANCE, legend=False, **bars)
    if bars["n"] == "n_clusters":
        footnote(fig, "n = procedures (each gives several questions, which are not independent answers)")
    axes = ax or fig.axes[0]
    levels = [CHANCE]
    if elimination is not None and np.isfinite(elimination):
        axes.axhline(elimination, color="#777777", linestyle="--", linewidth=1,
                     label=f"elimination chance ({elimination:.3f})")
        levels.append(float(elimination))
    axes.set_ylim(0, top)
    place_legend(axes, ncols=3)
    claim(fig, chance=levels)
    return fig


@drawing
def fig4_radar(cells: pd.DataFrame, *, series: str = "country", value: str = "score",
               categories: Sequence[str] | None = None, title: str | None = None,
               rlabel: str = "footnote-6 score", chance: float | Mapping[str, float] | None = None,
               chance_note: str | None = NO_CHANCE_FIG6, rmax: float | None = None,
               method: str | None = None) -> plt.Figure:
    """Fig. 4/7: the footnote-6 score per category (spokes), one polygon per ``series``
    (country, or model), the radial axis named by ``rlabel``. Only categories present in
    ``cells`` are drawn; a series without a cell in some category leaves a gap there instead
    of a zero. When ``cells`` has ``n`` (and ``ci_low``/``ci_high``: :func:`aggregate.fig4_cells`),
    each spoke shows its smallest n (and a 95 % band), and points on fewer than
    :data:`culturelab.plots.honest.MIN_N` procedures are hollow; ``method`` (the MCQ scoring in
    the score) is named beside ``rlabel``; ``chance`` adds a dashed ring
    (:func:`culturelab.plots.radar.chance_ring`); without one, ``chance_note`` says why under
    the figure (by default: the footnote-6 score has no chance level); a mapping gives each series
    its own ring (e.g. :func:`aggregate.component_chance` for the task scores). ``rmax`` fixes the
    outer ring.

    >>> t = pd.DataFrame({"country": ["Iran", "Iran"], "category": ["Food and Cuisine", "Celebrations and Festivals"],
    ...                   "score": [0.5, 0.6], "ci_low": [0.4, 0.5], "ci_high": [0.6, 0.7], "n": [12, 3]})
    >>> ax = fig4_radar(t).axes[0]
    >>> sorted(tick.get_text().split("\\n")[1] for tick in ax.get_xticklabels())
    ['n=12', 'n=3']
    >>> plt.close("all")
    """
    present = set(cells["category"])
    cats = [c for c in (categories or CATEGORIES) if c in present]
    table = cells.assign(category=cells["category"].map(short_category))
    order = [c for c in COUNTRIES if c in set(table[series])] if series == "country" else None
    if order:
        table = table.assign(**{series: pd.Categorical(table[series], order, ordered=True)}).sort_values(series)
        table[series] = table[series].astype(str)
    honest = {k: k for k in ("n", "ci_low", "ci_high") if k in table}
    fig = radar(table, "category", value, series, categories=[short_category(c) for c in cats], title=title,
                missing="gap", rlabel=f"{rlabel} (MCQs by {method})" if method else rlabel, chance=chance,
                chance_note=chance_note, rmax=rmax, **honest)
    claim(fig, kind="score", chance=chance, no_chance=chance_note, method=method)
    few = series in cells and cells[series].nunique() <= MAX_NOTE_GROUPS  # one line: no country-by-country list
    if note := valid_note(cells, series if few or series == "component" else None):
        footnote(fig, note)
    return fig


@drawing
def pb_mcq_radar(pb: pd.DataFrame, *, method: str = "loglikelihood", series: str = "country",
                 title: str | None = None, seed: int = 0) -> plt.Figure:
    """PB-MCQ accuracy per category (spokes) and ``series`` for one scoring ``method``, English and
    native pooled, with a 95 % band clustered by procedure (:func:`culturelab.captex.questions.accuracy_by`)
    and the four-option chance (¼) as a dashed ring. n = the procedures of a cell, the independent
    unit (each gives 4 types × 2 languages of questions that share its steps): cells on fewer than
    10 procedures are hollow, however many questions they hold. The item-level companion of the
    footnote-6 radar.

    >>> pb = pd.DataFrame({"country": "Iran", "category": ["Food and Cuisine"] * 12 + ["Celebrations and Festivals"] * 4,
    ...                    "procedure_id": list("aaaaaaaabbbbcccc"), "method": "loglikelihood", "correct": [1, 0] * 8,
    ...                    "valid": True})
    >>> ax = pb_mcq_radar(pb).axes[0]
    >>> sorted(t.get_text().split("\\n")[1] for t in ax.get_xticklabels()), ax.lines[-1].get_label()
    (['n=1', 'n=2'], 'chance (0.25)')
    >>> plt.close("all")
    """
    from culturelab.captex import questions

    cells = questions.accuracy_by(pb[pb["method"] == method], [series, "category"], seed=seed)
    cells = cells.rename(columns={"accuracy": "score", "n": "n_questions", "n_clusters": "n"})
    fig = fig4_radar(cells, series=series, rlabel=f"PB-MCQ accuracy ({method}; n = procedures)", chance=CHANCE,
                     rmax=1.0, title=title)
    claim(fig, method=method)
    return fig


@drawing
def fig8_size(table: pd.DataFrame, *, lmax_mode: str, title: str | None = None, label: str | None = None,
              n: str | None = None, valid: str | None = None) -> plt.Figure:
    """Fig. 8: aggregate score vs parameters (log scale), one colour and marker per family
    (rows without a size, e.g. GPT-4o, are left out); the y axis names how LD entered the score
    (``lmax_mode``, :func:`score_label`: the paper's points redrawn from Table 4 are ``table4``).
    With a ``variant`` column, base checkpoints get their own dashed line with hollow markers, so
    a family's line never zigzags between base and instruction-tuned models of the same size; each
    line joins the mean score per size, so two models of one size and variant (Mistral-7B-Instruct
    v0.2 and v0.3, both 7.2B) are two points with the line through their mean, not a vertical jog.
    ``label``, ``n`` and ``valid`` name columns written beside each point (the model; the procedures its
    score rests on; the share of its answers that are valid, :func:`culturelab.captex.evaluate.valid_shares`).

    >>> t = pd.DataFrame({"family": ["F"] * 3, "variant": ["base", "instruct", "instruct"],
    ...                   "params_b": [1.0, 1.0, 7.0], "score": [0.2, 0.3, 0.5]})
    >>> ax = fig8_size(t, lmax_mode="table4").axes[0]
    >>> sorted(line.get_label() for line in ax.lines if line.get_label()[0] != "_"), ax.get_ylabel()
    (['F', 'F (base)'], 'footnote-6 score\\n(LD as 1 − mean LD/5.59 (5.59 = largest LD of Table 4))')
    >>> t = pd.DataFrame({"family": ["Gemma"], "params_b": [0.27], "score": [0.2], "model": ["gemma3-270m"], "n": [70],
    ...                   "valid_share": [0.004]})
    >>> [a.get_text() for a in fig8_size(t, lmax_mode="per_instance", label="model", n="n", valid="valid_share").axes[0].texts]
    ['gemma3-270m (n=70, 0.4% valid)']
    >>> plt.close("all")
    """
    sized = table.dropna(subset=["params_b"])
    if label or n or valid:
        counts = [", ".join(p for p in (f"n={int(row[n])}" if n else "", f"{row[valid]:.1%} valid" if valid else "") if p)
                  for _, row in sized.iterrows()]
        text = [" ".join(p for p in (str(row[label]) if label else "", f"({c})" if c else "") if p)
                for (_, row), c in zip(sized.iterrows(), counts)]
        sized = sized.assign(_label=text)
    point_label = "_label" if label or n or valid else None
    if "variant" not in sized:
        return size_vs_score(sized, "params_b", "score", "family", label=point_label, title=title,
                             ylabel=score_label("footnote-6", lmax_mode))
    from culturelab.plots.style import MARKERS

    apply_style()
    fams = list(dict.fromkeys(sized["family"].astype(str)))
    fig, ax = plt.subplots(figsize=(7.2, 3.4) if len(fams) > 4 else (4.6, 3.2))
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
            if point_label:
                for _, row in group.iterrows():
                    ax.annotate(row[point_label], (row["params_b"], row["score"]), fontsize=6, xytext=(3, 3),
                                textcoords="offset points")
    ax.set_xscale("log")
    ax.set_xlabel("parameters (billions, log scale)")
    ax.set_ylabel(score_label("footnote-6", lmax_mode))
    ax.legend(frameon=False, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0),
              title="dashed, hollow: base", title_fontsize=7)
    if title:
        ax.set_title(title)
    return fig


def score_label(footnote: str, lmax_mode: str) -> str:
    """The axis label of an aggregate score: the footnote and how LD entered it
    (:data:`culturelab.captex.protocol.LD_TERMS`) — scores under different ``lmax_mode`` are
    different quantities.

    >>> score_label("footnote-4", "per_instance")
    'footnote-4 score\\n(LD as 1 − mean(LD/n))'
    """
    from culturelab.captex.protocol import LD_TERMS

    return f"{footnote} score\n(LD as {LD_TERMS[lmax_mode]})"


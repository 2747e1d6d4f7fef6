"""The paper's aggregate scores and what can be computed from its tables alone.

* Footnote 4 (Figs. 3/6, language impact): 0.2·ρ + 0.2·τ + 0.2·(1 − LD/L_max) + 0.4·PB-MCQ.
* Footnote 6 (Figs. 4/7/8): 0.3 reordering (0.1 per metric) + 0.2 PB-MCQ + 0.2 CB-MCQ +
  0.3 CB-QA (0.1 per metric, our reading by symmetry).

Unspecified in the paper, parameters here: ``norm_scheme`` (``raw`` ρ and τ, or ``shift``
to (x+1)/2) and ``lmax_mode`` (``table4``: L_max = 5.59, the largest LD of Table 4 — the scale
of the Fig. 8 points redrawn from the paper's numbers; ``per_instance``: LD/n averaged over
instances — needs ``ld_norm``; ``max_cells``: divide by the largest mean LD among the compared
cells). Each mode is a different quantity (:data:`culturelab.captex.protocol.LD_TERMS` names it
on every axis); our points and the paper's are the same quantity only under ``table4``.

Table 4's LD is a mean over a model's instances, and footnotes 4 and 6 normalise it as
1 − L/L_max: under ``table4`` the term is 1 − (mean LD of the cell)/5.59, never clipped per row —
so the mean of per-procedure scores is exactly the score of the cell's means, and a procedure
whose LD exceeds 5.59 (a random order of 10 steps: 8.3) pulls the cell down as its LD does.
Under ``per_instance`` and ``max_cells`` 1 − LD/L_max is clipped to [0, 1] per row: an answer
with extra or repeated letters can have LD > n.

>>> cells = pd.DataFrame({"rho": [0.81], "tau": [0.75], "ld": [2.38], "pb_mcq": [0.58], "cb_mcq": [0.74],
...                       "rouge_l": [0.29], "bertscore": [0.62], "ss": [0.60]})
>>> round(float(aggregate(cells, "fig8", lmax=5.59)[0]), 2)
0.63
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from culturelab.captex import cbqa
from culturelab.protocol import Deviations

WEIGHTS = {
    "fig3": {"rho": 0.2, "tau": 0.2, "ld": 0.2, "pb_mcq": 0.4},
    "fig8": {"rho": 0.1, "tau": 0.1, "ld": 0.1, "pb_mcq": 0.2, "cb_mcq": 0.2, "rouge_l": 0.1, "bertscore": 0.1,
             "ss": 0.1},
}
NORM_SCHEMES = ("raw", "shift")
LMAX_MODES = ("per_instance", "max_cells", "table4")
#: the task scores that the aggregates combine (reordering and CB-QA average their metrics)
COMPONENTS = ("reordering", "pb_mcq", "cb_mcq", "cb_qa")


def table4_lmax() -> float:
    """L_max of ``lmax_mode="table4"``: the largest LD of Table 4 (Mamba-1.4b-hf).

    >>> table4_lmax()
    5.59
    """
    from culturelab.reported import load

    t4 = load("captex", "table4")
    return float(t4.loc[t4["metric"] == "ld", "value"].max())


def _terms(cells: pd.DataFrame, keys: Sequence[str], *, norm_scheme: str, lmax_mode: str,
           lmax: float | None = None) -> dict[str, np.ndarray]:
    """Each metric of ``keys`` as it enters a score: ρ and τ raw or shifted to (x+1)/2, LD as
    1 − LD/L_max — linear under ``table4`` (the term of a cell's mean LD is the mean of its rows'
    terms), else clipped to [0, 1] per row (LD counts extra letters too, so it can exceed n)."""
    if lmax is None and lmax_mode == "table4":
        lmax = table4_lmax()
    terms = {}
    for key in keys:
        if key == "ld":
            if lmax is not None:
                value = 1 - cells["ld"].to_numpy(float) / lmax
            elif lmax_mode == "per_instance":
                if "ld_norm" not in cells.columns:
                    raise ValueError("lmax_mode='per_instance' needs the column ld_norm (mean LD/n)")
                value = 1 - cells["ld_norm"].to_numpy(float)
            else:
                value = 1 - cells["ld"].to_numpy(float) / np.nanmax(cells["ld"].to_numpy(float))
            if lmax_mode != "table4":
                value = np.clip(value, 0.0, 1.0)
        else:
            value = cells[key].to_numpy(float)
            if key in {"rho", "tau"} and norm_scheme == "shift":
                value = (value + 1) / 2
        terms[key] = value
    return terms


def aggregate(cells: pd.DataFrame, weights: str = "fig8", *, norm_scheme: str = "raw",
              lmax_mode: str = "max_cells", lmax: float | None = None) -> np.ndarray:
    """Weighted score per row of ``cells`` (columns named as in :data:`WEIGHTS`; ``ld_norm``
    = mean LD/n when ``lmax_mode="per_instance"``). ``lmax`` overrides L_max. Under ``table4``
    the score is linear in LD: averaging rows' scores gives the score of their mean LD.

    >>> rows = pd.DataFrame({"rho": [0.0, 0.0], "tau": [0.0, 0.0], "ld": [0.0, 11.18], "pb_mcq": [0.0, 0.0]})
    >>> [round(float(v), 2) for v in aggregate(rows, "fig3", lmax_mode="table4")]  # no clipping at 0
    [0.2, -0.2]
    """
    if weights not in WEIGHTS or norm_scheme not in NORM_SCHEMES or lmax_mode not in LMAX_MODES:
        raise ValueError(f"weights ∈ {list(WEIGHTS)}, norm_scheme ∈ {NORM_SCHEMES}, lmax_mode ∈ {LMAX_MODES}")
    w = WEIGHTS[weights]
    missing = [k for k in w if k not in cells.columns and not (k == "ld" and "ld_norm" in cells.columns)]
    if missing:
        raise ValueError(f"cells lack the columns {missing} needed for the {weights} aggregate")
    terms = _terms(cells, list(w), norm_scheme=norm_scheme, lmax_mode=lmax_mode, lmax=lmax)
    total = np.zeros(len(cells))
    for key, weight in w.items():
        total += weight * terms[key]
    return total


def task_components(cells: pd.DataFrame, *, norm_scheme: str = "raw", lmax_mode: str = "max_cells") -> pd.DataFrame:
    """The four task scores per row of ``cells`` (:data:`COMPONENTS`): reordering = mean of ρ,
    τ and 1 − LD/L_max (the terms of :func:`aggregate`), PB-MCQ, CB-MCQ, CB-QA = mean of
    R-L, BS and SS.

    >>> cells = pd.DataFrame({"rho": [1.0, 0.0], "tau": [0.5, 0.0], "ld": [0.0, 4.0], "pb_mcq": [0.5, 0.25],
    ...                       "cb_mcq": [1.0, 0.0], "rouge_l": [0.3, 0.0], "bertscore": [0.6, 0.0], "ss": [0.6, 0.0]})
    >>> task_components(cells).round(2).to_dict("list")
    {'reordering': [0.83, 0.0], 'pb_mcq': [0.5, 0.25], 'cb_mcq': [1.0, 0.0], 'cb_qa': [0.5, 0.0]}
    """
    t = _terms(cells, ("rho", "tau", "ld"), norm_scheme=norm_scheme, lmax_mode=lmax_mode)
    return pd.DataFrame({"reordering": (t["rho"] + t["tau"] + t["ld"]) / 3, "pb_mcq": cells["pb_mcq"],
                         "cb_mcq": cells["cb_mcq"], "cb_qa": cells[list(cbqa.METRICS)].mean(axis=1)},
                        index=cells.index)


def table4_wide(models: Sequence[str] | None = None, include_random: bool = False) -> pd.DataFrame:
    """The paper's Table 4 as one row per model (columns ``rho`` … ``ss``), joined with the
    family and size of ``reported/captex/models.csv``.

    >>> t = table4_wide(); len(t), t.loc[t["model"] == "GPT-4o", "rho"].item()
    (31, 0.81)
    """
    from culturelab.reported import load

    t4 = load("captex", "table4").pivot(index="model", columns="metric", values="value").reset_index()
    meta = load("captex", "models")
    t4 = t4.merge(meta, on="model", how="left")
    if not include_random:
        t4 = t4[t4["model"] != "Random"]
    if models is not None:
        t4 = t4[t4["model"].isin(list(models))]
    order = load("captex", "table4")["model"].drop_duplicates().tolist()
    return t4.set_index("model").loc[[m for m in order if m in set(t4["model"])]].reset_index()


def reported_fig8(norm_scheme: str = "raw") -> pd.DataFrame:
    """Footnote-6 aggregate per model from Table 4 alone (``lmax_mode="table4"``: L_max = the
    largest LD in the table, 5.59), with family and size: what Fig. 8 can be redrawn from.

    >>> t = reported_fig8()
    >>> t.sort_values("score", ascending=False)["model"].head(3).tolist()
    ['GPT-4o', 'O3-mini', 'Qwen2.5-14B-Instruct']
    """
    t4 = table4_wide()
    t4["score"] = aggregate(t4, "fig8", norm_scheme=norm_scheme, lmax_mode="table4")
    return t4


def task_rank_correlations(table: pd.DataFrame | None = None) -> pd.DataFrame:
    """Kendall τ and Spearman ρ between the model rankings of every pair of tasks (Table 4's
    31 models by default, scored by :func:`task_components` with L_max = the largest LD;
    the paper reports "0.8–0.9" and "0.4–0.5", spec §3).

    >>> t = task_rank_correlations().set_index("pair")
    >>> round(float(t.loc["reordering–pb_mcq", "kendall"]), 2), round(float(t.loc["reordering–pb_mcq", "spearman"]), 2)
    (0.7, 0.86)
    """
    from scipy import stats

    scores = task_components(table if table is not None else table4_wide())
    rows = []
    for i, a in enumerate(COMPONENTS):
        for b in COMPONENTS[i + 1:]:
            rows.append({"pair": f"{a}–{b}", "kendall": float(stats.kendalltau(scores[a], scores[b]).statistic),
                         "spearman": float(stats.spearmanr(scores[a], scores[b]).statistic), "n_models": len(scores)})
    return pd.DataFrame(rows)


_FAMILIES = [("qwen", "Qwen"), ("llama", "Llama"), ("gemma", "Gemma"), ("mistral", "Mistral"), ("smollm", "SmolLM"),
             ("bloom", "BLOOM"), ("mt0", "mT0"), ("aya", "Aya"), ("mamba", "Mamba"), ("deepseek", "DeepSeek"),
             ("phi", "Phi"), ("gpt", "OpenAI"), ("o3", "OpenAI")]


def params_b(model: Any) -> float:
    """A model's size in billions of parameters, for Fig. 8, without loading its weights: its
    description's count once loaded, else the shapes in its local weight files' headers (a bundled
    model's converted folder, an ``hf:`` folder), else its config or id
    (:func:`culturelab.planning.parameter_count`); NaN when none says. A lazily loaded model on a
    warm cache is never loaded, so its description alone has no count.

    >>> class Lazy:
    ...     spec = "bundled:gemma3-270m"
    ...     def describe(self): return {"loaded": False}
    >>> round(params_b(Lazy()), 3)
    0.268
    """
    from pathlib import Path

    from culturelab.models.bundled import bundled_model_dir
    from culturelab.models.identity import weights_parameter_count
    from culturelab.planning import parameter_count

    n = model.describe().get("n_params")
    backend, _, arg = model.spec.partition(":")
    if not n and backend in {"bundled", "hf"}:
        folder = bundled_model_dir(arg) if backend == "bundled" else Path(arg)
        n = weights_parameter_count(folder)
    if not n:
        found = parameter_count(model.spec)
        n = found[0] if found else None
    return float(n) / 1e9 if n else float("nan")


def family_of(spec: str) -> str:
    """A model family from a spec or name (for grouping lines in Fig. 8).

    >>> family_of("hf:Qwen/Qwen2.5-7B-Instruct"), family_of("bundled:smollm2-135m")
    ('Qwen', 'SmolLM')
    """
    low = spec.lower()
    for key, name in _FAMILIES:
        if re.search(key, low):
            return name
    return "other"


def beside_fig8(ours: pd.DataFrame, deviations_of: Callable[[str], Deviations], *,
                norm_scheme: str = "raw") -> pd.DataFrame:
    """Our models' footnote-6 ``score`` (one row per ``model`` spec) beside the paper's Fig. 8
    point of the same Table 4 row (:func:`reported_fig8`, ``lmax_mode="table4"``).
    ``deviations_of(spec)`` is the run's comparison for that model's score
    (:meth:`culturelab.runner.Run.deviations`): Δ only where data, protocol (``lmax_mode``
    included: only ``table4`` is the points' quantity) and model are the paper's; a model the
    paper did not evaluate gets an empty ``paper_row`` and no reported number.

    >>> from culturelab.captex.protocol import MODELS, PROTOCOL
    >>> from culturelab.protocol import DataUsed, compare
    >>> of = lambda spec: compare(PROTOCOL["05_aggregate"], {"lmax_mode": "table4"}, DataUsed("sample"),
    ...                           model=spec, paper_models=MODELS)
    >>> t = beside_fig8(pd.DataFrame({"model": ["hf:Qwen/Qwen2.5-7B-Instruct"], "score": [0.4]}), of)
    >>> t[["paper_row", "comparable"]].to_dict("records"), bool(t["reported"].notna().all())
    ([{'paper_row': 'Qwen2.5-7B-Instruct', 'comparable': False}], True)
    """
    from culturelab.reported import compare

    paper = reported_fig8(norm_scheme).rename(columns={"model": "paper_row"})[["paper_row", "score"]]
    rows = []
    for _, row in ours.iterrows():
        deviations = deviations_of(str(row["model"]))
        paper_row = deviations.paper_model or ""
        mine = pd.DataFrame({"paper_row": [paper_row], "score": [row.get("score", np.nan)]})
        table = compare(paper[paper["paper_row"] == paper_row], mine, on=["paper_row"], value="score",
                        deviations=deviations, model_row=paper_row or None)
        rows.append(table.assign(model=row["model"]))
    cols = ["model", "paper_row", "reported", "ours", "delta", "data", "protocol", "model_status", "comparable"]
    return pd.concat(rows, ignore_index=True)[cols] if rows else pd.DataFrame(columns=cols)


def compare_with_table4(ours: dict[str, float], paper_row: str, metrics: Sequence[str], *,
                        deviations: Deviations) -> pd.DataFrame:
    """``metric | paper_row | reported | ours | delta`` and the labels of ``deviations`` (the
    run's comparison for these numbers, :meth:`culturelab.runner.Run.deviations`) for the chosen
    Table 4 metrics; Δ only where data and protocol are the paper's and the model is the
    ``paper_row``'s own (or the numbers are model-free, as a random baseline beside ``Random``).

    >>> from culturelab.captex.protocol import PROTOCOL
    >>> from culturelab.protocol import DataUsed, compare
    >>> same = compare(PROTOCOL["02_reordering.random"], {}, DataUsed("released", {"procedures": 700}))
    >>> t = compare_with_table4({"rho": 0.1}, "Random", ["rho"], deviations=same)
    >>> t.round(2)[["metric", "paper_row", "reported", "ours", "delta"]].to_dict("records")
    [{'metric': 'rho', 'paper_row': 'Random', 'reported': 0.0, 'ours': 0.1, 'delta': 0.1}]
    """
    from culturelab.reported import compare, load

    rep = load("captex", "table4")
    rep = rep[(rep["model"] == paper_row) & rep["metric"].isin(list(metrics))]
    mine = pd.DataFrame({"metric": list(metrics), "value": [ours.get(m, np.nan) for m in metrics]})
    table = compare(rep.drop(columns="model"), mine, on=["metric"], deviations=deviations, model_row=paper_row)
    table.insert(1, "paper_row", paper_row)
    return table


def table4_by_decoding(scored: pd.DataFrame, paper_row: str, deviations_of: Callable[[str], Deviations]) -> pd.DataFrame:
    """Our mean ρ, LD and τ (invalid answers as scored by the policy) beside a Table 4 row, one
    block per ``decoding``, each labelled by ``deviations_of(decoding)`` (the run's comparison:
    ``lambda d: run.deviations(decoding=d)``); constrained decoding is a protocol deviation
    (:func:`culturelab.tasks.reorder.decoding_setting`), so it never gets a Δ.

    >>> from culturelab.captex.protocol import PROTOCOL
    >>> from culturelab.protocol import DataUsed, compare
    >>> of = lambda d: compare(PROTOCOL["02_reordering"], {"decoding": d}, DataUsed("released", {"procedures": 700}))
    >>> t = pd.DataFrame({"decoding": ["free", "constrained"], "rho": [0.0, 0.5], "ld": [5, 3], "tau": [0.0, 0.4]})
    >>> table4_by_decoding(t, "Random", of).query("metric == 'rho'")[["decoding", "delta"]].values.tolist()
    [['free', 0.0], ['constrained', nan]]
    """
    parts = []
    for decoding, part in scored.groupby("decoding", sort=False):
        ours = {m: float(part[m].mean()) for m in ("rho", "ld", "tau")}
        parts.append(compare_with_table4(ours, paper_row, ["rho", "ld", "tau"], deviations=deviations_of(str(decoding)))
                     .assign(decoding=decoding))
    return pd.concat(parts, ignore_index=True)


def _score_cells(scored: pd.DataFrame, by: Sequence[str], seed: int) -> pd.DataFrame:
    """Mean ``score`` per ``by`` cell with its 95 % bootstrap CI — an aggregate score is no proportion,
    so never Wilson's, even when its values happen to be 0 or 1 — and the cell's share of valid answers
    per task (the :data:`culturelab.captex.evaluate.VALID_COLUMNS` present)."""
    from culturelab.captex.evaluate import VALID_COLUMNS
    from culturelab.stats import summarise

    cells = summarise(scored, "score", list(by), seed=seed, binary=False).rename(columns={"mean": "score"})
    shares = [c for c in VALID_COLUMNS.values() if c in scored]
    if shares:
        cells = cells.merge(scored.groupby(list(by), observed=True)[shares].mean().reset_index(), on=list(by))
    return cells


def fig3_cells(proc_lang_scores: pd.DataFrame, *, norm_scheme: str = "raw", lmax_mode: str = "per_instance",
               seed: int = 0, by: Sequence[str] = ("country", "lang_group")) -> pd.DataFrame:
    """Footnote-4 score per (procedure, language), then mean and 95 % bootstrap CI per ``by``
    cell: (country, language) gives the bars of Fig. 3/6, (category, language) a radar of the
    language gap per category; with the share of valid answers per task
    (:func:`culturelab.captex.evaluate.procedure_scores`' ``reorder_valid``, ``pb_mcq_valid``).

    >>> p = pd.DataFrame({"country": ["Iran"] * 2, "category": ["Food and Cuisine"] * 2,
    ...                   "lang_group": ["English", "native"], "rho": [1.0, 0.0], "tau": [1.0, 0.0],
    ...                   "ld_norm": [0.0, 1.0], "pb_mcq": [1.0, 0.0], "reorder_valid": [1.0, 0.0]})
    >>> fig3_cells(p, by=("category", "lang_group"))[["score", "reorder_valid", "ci_low"]].round(6).values.tolist()
    [[1.0, 1.0, nan], [0.0, 0.0, nan]]
    """
    scored = proc_lang_scores.assign(score=aggregate(proc_lang_scores, "fig3", norm_scheme=norm_scheme,
                                                     lmax_mode=lmax_mode))
    return _score_cells(scored, by, seed)


def _random_answers(step_counts: Sequence[int], seed: int, cb_mcq: float = 0.25) -> pd.DataFrame:
    """One row of task metrics for uniformly random answers on procedures with these step counts:
    ρ, τ, LD and LD/n of a random order (averaged over the procedures: the cell's means), PB-MCQ
    at 1/4, CB-MCQ at ``cb_mcq``; the CB-QA metrics, which have no chance level, are NaN."""
    from culturelab.captex import reordering

    table = reordering.random_baseline_table(sorted(set(step_counts)), seed=seed).set_index("n_steps")
    counts = pd.Series(list(step_counts))
    return pd.DataFrame({"rho": [table.loc[counts, "rho"].mean()], "tau": [table.loc[counts, "tau"].mean()],
                         "ld": [table.loc[counts, "ld"].mean()],
                         "ld_norm": [(table.loc[counts, "ld"].to_numpy() / counts.to_numpy()).mean()],
                         "pb_mcq": [0.25], "cb_mcq": [cb_mcq], **{m: [np.nan] for m in cbqa.METRICS}})


def fig3_chance(step_counts: Sequence[int], *, norm_scheme: str = "raw", lmax_mode: str = "per_instance",
                seed: int = 0) -> float | None:
    """The footnote-4 score of random answers on procedures with these step counts: ρ, τ and
    LD (or LD/n) of a uniformly random order (:func:`culturelab.metrics.ranking.random_baseline`,
    averaged over the procedures: under ``table4`` 1 − mean LD/5.59, as :func:`fig3_cells`) and
    PB-MCQ at 1/4 — the chance ring of a footnote-4 radar.
    ``None`` for ``lmax_mode="max_cells"``, where L_max depends on the model's own cells.

    >>> round(fig3_chance([5, 10]), 2), round(fig3_chance([5, 10], lmax_mode="table4"), 2)
    (0.15, 0.09)
    >>> fig3_chance([5], lmax_mode="max_cells") is None
    True
    """
    if lmax_mode == "max_cells":
        return None
    cells = _random_answers(step_counts, seed)
    return float(aggregate(cells, "fig3", norm_scheme=norm_scheme, lmax_mode=lmax_mode)[0])


def component_chance(step_counts: Sequence[int], *, norm_scheme: str = "raw", lmax_mode: str = "per_instance",
                     seed: int = 0, cb_mcq_chance: float = 0.25) -> dict[str, float]:
    """The task scores of :func:`task_components` for random answers — one chance ring per task
    on a radar of task scores. ``cb_mcq_chance``: the CB-MCQ chance of the options used — 1/4, or
    the elimination chance of options the conversation already narrates
    (:func:`culturelab.captex.construction.elimination_chance`). Tasks without a chance level
    (CB-QA; reordering under ``lmax_mode="max_cells"``) are left out.

    >>> {k: round(v, 2) for k, v in component_chance([5, 10], cb_mcq_chance=0.3).items()}
    {'reordering': 0.08, 'pb_mcq': 0.25, 'cb_mcq': 0.3}
    """
    scores = task_components(_random_answers(step_counts, seed, cb_mcq_chance), norm_scheme=norm_scheme,
                             lmax_mode="per_instance" if lmax_mode == "max_cells" else lmax_mode).iloc[0]
    drop = {"cb_qa"} | ({"reordering"} if lmax_mode == "max_cells" else set())
    return {k: float(v) for k, v in scores.items() if k not in drop}


def fig4_cells(proc_scores: pd.DataFrame, *, by: Sequence[str] = ("country", "category"), norm_scheme: str = "raw",
               lmax_mode: str = "per_instance", seed: int = 0) -> pd.DataFrame:
    """Footnote-6 score per procedure (reordering and PB-MCQ pooled over languages), averaged
    per ``by`` cell with a 95 % bootstrap CI over procedures — the radar of Fig. 4/7 — with the
    share of valid answers per task.

    >>> p = pd.DataFrame({"country": ["Iran"], "category": ["Food and Cuisine"], "rho": [1.0], "tau": [1.0],
    ...                   "ld_norm": [0.0], "pb_mcq": [1.0], "cb_mcq": [1.0], "rouge_l": [1.0], "bertscore": [1.0],
    ...                   "ss": [1.0]})
    >>> fig4_cells(p)["score"].round(6).tolist()
    [1.0]
    """
    scored = proc_scores.assign(score=aggregate(proc_scores, "fig8", norm_scheme=norm_scheme, lmax_mode=lmax_mode))
    return _score_cells(scored, by, seed)


def category_components(proc_scores: pd.DataFrame, *, norm_scheme: str = "raw",
                        lmax_mode: str = "per_instance") -> pd.DataFrame:
    """Per category: the four task scores (reordering = mean of ρ, τ, 1 − LD/L_max; CB-QA = mean
    of R-L, BS, SS) and the footnote-6 aggregate, in long form (``category``, ``component``,
    ``score``, ``n``: the procedures of the category; ``valid_share``: the share of the task's answers
    that are valid, NaN for CB-QA, whose replies are all scored, and for the aggregate) — a radar that
    stays readable when country × category cells are sparse.

    >>> p = pd.DataFrame({"category": ["Food and Cuisine"], "rho": [1.0], "tau": [1.0], "ld_norm": [0.0],
    ...                   "pb_mcq": [0.5], "cb_mcq": [1.0], "rouge_l": [0.0], "bertscore": [0.0], "ss": [0.0],
    ...                   "reorder_valid": [0.0]})
    >>> category_components(p).set_index("component").loc["reordering"].to_dict()
    {'category': 'Food and Cuisine', 'score': 1.0, 'n': 1, 'valid_share': 0.0}
    """
    parts = task_components(proc_scores, norm_scheme=norm_scheme, lmax_mode=lmax_mode).assign(
        category=proc_scores["category"],
        aggregate=aggregate(proc_scores, "fig8", norm_scheme=norm_scheme, lmax_mode=lmax_mode))
    grouped = parts.groupby("category", observed=True)
    means = grouped[[*COMPONENTS, "aggregate"]].mean().reset_index()
    long = means.melt(id_vars="category", var_name="component", value_name="score")
    valid = {component: proc_scores.groupby("category", observed=True)[column].mean()
             for component, column in (("reordering", "reorder_valid"), ("pb_mcq", "pb_mcq_valid"),
                                       ("cb_mcq", "cb_mcq_valid")) if column in proc_scores}
    shares = [valid[c].get(k, np.nan) if c in valid else np.nan for c, k in zip(long["component"], long["category"])]
    return long.assign(n=long["category"].map(grouped.size()).astype(int), valid_share=shares)


def validity_findings(ours: pd.DataFrame) -> str:
    """For each model of ``ours`` (one row per ``model`` with the columns of
    :func:`culturelab.captex.evaluate.valid_shares`), the share of its answers that are valid per task,
    and — where a task's share is under one half — that its aggregates rest mostly on invalid answers
    as the invalid-answer policy scores them, so their distance to a chance line (the score of random
    *valid* answers) says little about what it knows.

    >>> ours = pd.DataFrame({"model": ["m"], "reorder_valid": [0.005], "pb_mcq_valid": [1.0], "valid_share": [0.6]})
    >>> print(validity_findings(ours))  # doctest: +NORMALIZE_WHITESPACE
    m: 0.5% of its reordering answers and 100.0% of its PB-MCQ answers are valid; its aggregates rest mostly on
    invalid reordering answers as the invalid-answer policy scores them, so their distance to a chance line (the
    score of random valid answers) says little about what the model knows.
    """
    from culturelab.captex.evaluate import VALID_TASKS

    out = []
    for _, row in ours.iterrows():
        shares = {task: row[col] for col, task in VALID_TASKS.items() if col in row and pd.notna(row[col])}
        if not shares:
            continue
        listed = [f"{share:.1%} of its {task} answers" for task, share in shares.items()]
        low = [task for task, share in shares.items() if share < 0.5]
        text = f"{row['model']}: " + (", ".join(listed[:-1]) + " and " if len(listed) > 1 else "") + listed[-1] + " are valid"
        if low:
            text += (f"; its aggregates rest mostly on invalid {' and '.join(low)} answers as the invalid-answer policy "
                     "scores them, so their distance to a chance line (the score of random valid answers) says little "
                     "about what the model knows")
        out.append(text + ".")
    return " ".join(out)


def size_findings(point: float, pooled: float, bar: float, *, min_n: int | None = None) -> str:
    """Whether this run's aggregate figures rest on enough procedures to read (the median n of a
    country × category point, a pooled category, a country–language bar of Fig. 3) against the
    figures' small-n rule (:data:`culturelab.plots.honest.MIN_N`).

    >>> size_findings(2, 14, 5, min_n=10)  # doctest: +NORMALIZE_WHITESPACE
    'A country × category point rests on a median of 2 procedures, a pooled category on 14 and a
    country–language bar on 5: the points and bars rest on fewer than the 10 procedures of the small-n rule (drawn
    hollow or faded), their CIs are wide, and they show the method rather than a finding.'
    """
    from culturelab.plots.honest import MIN_N

    min_n = MIN_N if min_n is None else min_n
    text = (f"A country × category point rests on a median of {point:g} procedures, a pooled category on {pooled:g} "
            f"and a country–language bar on {bar:g}")
    few = [name for name, n in (("points", point), ("bars", bar), ("pooled categories", pooled)) if n < min_n]
    if not few:
        return text + f": every median reaches the {min_n} procedures of the small-n rule."
    named = ", ".join(few[:-1]) + " and " + few[-1] if len(few) > 1 else few[0]
    return (text + f": the {named} rest on fewer than the {min_n} procedures of the small-n rule (drawn "
            "hollow or faded), their CIs are wide, and they show the method rather than a finding.")

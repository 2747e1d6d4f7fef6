"""All four CAPTEx tasks on one model, with one set of settings shared by every notebook.

Notebooks ``02``–``04`` run one task each and ``05`` runs them all with the same settings,
so the same prompts reach the model and ``05`` is served from the response cache. The
allowed values of those settings are declared once, in :mod:`culturelab.captex.setup`.

>>> s = settings_from({"languages": "native", "max_reorder_tokens": 20})
>>> LANGUAGES[s.languages], s.reorder_tokens
(('native',), 20)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from culturelab import prompts
from culturelab.captex import cbqa, questions, reordering
from culturelab.captex.data import CaptexData
from culturelab.captex.protocol import budget_for
from culturelab.models.base import LanguageModel

#: the four tasks; each is also the name of its prompt in ``culturelab/prompts/captex.yaml``
TASKS = ("reorder", "pb_mcq", "cb_mcq", "cb_qa")
LANGUAGES = {"both": ("English", "native"), "en": ("English",), "native": ("native",)}
MCQ_TASK_NAMES = {"pb_mcq": "PB-MCQ", "cb_mcq": "CB-MCQ"}


@dataclass
class Settings:
    """Everything that shapes prompts and scoring; recorded next to the results. The token budgets
    are the answers' own: a reasoning model gets room for its reasoning on top
    (:func:`culturelab.captex.protocol.budget_for`)."""

    prompt_version: str = "v1"
    languages: str = "both"
    invalid_policy: str = "zero"
    methods: tuple[str, ...] = questions.METHODS
    seed: int = 0
    reorder_tokens: int = 32
    answer_tokens: int = 8
    reply_tokens: int = 48
    bertscore_backbone: str = "bundled:minilm"
    bertscore_rescale: bool = False
    ss_encoder: str = "bundled:minilm"
    rouge_stemmer: bool = True


def _template(task: str, s: Settings) -> str:
    return prompts.get("captex", task, s.prompt_version)


def run_reorder(model: LanguageModel, data: CaptexData, s: Settings, decoding: str = "free") -> pd.DataFrame:
    """Task 1 on every selected procedure × language (``decoding``: ``free``, the paper's protocol,
    or ``constrained`` to valid orders, a deviation; :func:`culturelab.tasks.reorder.generate_orders`)."""
    inst = reordering.reorder_instances(data.procedures, seed=s.seed, lang_groups=LANGUAGES[s.languages])
    out = reordering.run_reordering(model, inst, _template("reorder", s), policy=s.invalid_policy,
                                    max_new_tokens=budget_for(model.spec, s.reorder_tokens), decoding=decoding)
    return out.assign(task="reorder", prompt_version=s.prompt_version, invalid_policy=s.invalid_policy)


def _score_mcqs(model: LanguageModel, frame: pd.DataFrame, s: Settings) -> pd.DataFrame:
    return questions.score_mcqs(model, frame, s.methods, max_new_tokens=budget_for(model.spec, s.answer_tokens)).assign(
        prompt_version=s.prompt_version)


def run_pb_mcq(model: LanguageModel, data: CaptexData, s: Settings) -> pd.DataFrame:
    """Task 2 (PB-MCQ) by each method."""
    mcqs = data.mcqs[data.mcqs["lang_group"].isin(LANGUAGES[s.languages])]
    return _score_mcqs(model, questions.pb_mcq_frame(mcqs, _template("pb_mcq", s)), s)


def run_cb_mcq(model: LanguageModel, data: CaptexData, s: Settings) -> pd.DataFrame:
    """Task 3 (CB-MCQ, English only) by each method."""
    return _score_mcqs(model, questions.cb_mcq_frame(data.conversations, _template("cb_mcq", s)), s)


def run_cb_qa(model: LanguageModel, data: CaptexData, s: Settings) -> pd.DataFrame:
    """Task 4 (CB-QA, English only): generate, clean, score."""
    frame = cbqa.cbqa_frame(data.conversations, _template("cb_qa", s))
    replies = cbqa.generate_replies(model, frame, max_new_tokens=budget_for(model.spec, s.reply_tokens))
    return cbqa.score_replies(replies, bertscore_backbone=s.bertscore_backbone, bertscore_rescale=s.bertscore_rescale,
                              ss_encoder=s.ss_encoder, rouge_stemmer=s.rouge_stemmer, seed=s.seed).assign(
        prompt_version=s.prompt_version)


RUNNERS = {"reorder": run_reorder, "pb_mcq": run_pb_mcq, "cb_mcq": run_cb_mcq, "cb_qa": run_cb_qa}
#: what a generation task or an MCQ method asks the model for
NEEDS = {"reorder": "generate", "cb_qa": "generate", "generate": "generate", "loglikelihood": "loglikelihood"}
TITLES = {"reorder": "Task 1, step reordering (generation)", "cb_qa": "Task 4, CB-QA (generation)",
          "generate": "MCQs answered by a generated letter", "loglikelihood": "MCQs scored by option log-likelihood"}


def supported(run: Any, s: Settings, tasks: Sequence[str] = TASKS, spec: str | None = None) -> tuple[Settings, list[str]]:
    """The settings and tasks that the run's model (or ``spec``) can answer, decided without loading
    it: MCQ methods and generation tasks it cannot answer are dropped, each with one line in the
    notebook and a ``skipped`` entry in ``run_info.json`` (:meth:`culturelab.runner.Run.supports`);
    the MCQ tasks go when no method is left. A masked LM keeps the MCQs by log-likelihood only; a
    replay file of generations keeps everything but log-likelihood.

    >>> class R:  # a run whose model cannot generate
    ...     def supports(self, kind, section, spec=None): return kind != "generate"
    >>> s, kept = supported(R(), Settings(), TASKS)
    >>> s.methods, kept
    (('loglikelihood',), ['pb_mcq', 'cb_mcq'])
    """
    methods = s.methods
    if set(tasks) & set(MCQ_TASK_NAMES):
        methods = tuple(m for m in s.methods if run.supports(NEEDS[m], TITLES[m], spec=spec))
    kept = [t for t in tasks if (bool(methods) if t in MCQ_TASK_NAMES else run.supports(NEEDS[t], TITLES[t], spec=spec))]
    return replace(s, methods=methods), kept


def run_tasks(model: LanguageModel, data: CaptexData, s: Settings, tasks: Sequence[str] = TASKS) -> dict[str, pd.DataFrame]:
    """Run the chosen tasks; one tidy table per task."""
    return {t: RUNNERS[t](model, data, s) for t in tasks}


def position_bias_table(model: LanguageModel, results: dict[str, pd.DataFrame], s: Settings, *,
                        n_orders: int = 1, max_questions: int = 0) -> pd.DataFrame:
    """Position bias of the MCQ answers (:func:`culturelab.captex.questions.position_bias`): the
    questions of each MCQ task in ``results`` (``pb_mcq``, ``cb_mcq``) asked again with their
    options in ``n_orders`` other seeded orders and scored by log-likelihood, against the
    answers by log-likelihood. ``max_questions`` (0 = all) re-asks a seeded subset per task.
    One row per (task, order); none when the settings have no log-likelihood method.

    >>> position_bias_table(None, {}, Settings(), n_orders=0).empty
    True
    """
    rows = []
    if "loglikelihood" not in s.methods:  # the re-asked questions are scored by log-likelihood
        n_orders = 0
    for k in range(n_orders):
        for task in ("pb_mcq", "cb_mcq"):
            if task not in results:
                continue
            frame = results[task]
            base = frame[frame["method"] == "loglikelihood"]
            if max_questions and len(base) > max_questions:
                base = base.sample(n=max_questions, random_state=s.seed).sort_index()
            permuted = questions.shuffle_option_order(base.drop(columns=["scores", "pred", "correct"], errors="ignore"),
                                                      _template(task, s), s.seed + k + 1, kind=task[:2])
            rescored = questions.score_mcqs(model, permuted, ["loglikelihood"])
            rows.append({"task": MCQ_TASK_NAMES[task], "order": k + 1,
                         **questions.position_bias(base.reset_index(drop=True), rescored, seed=s.seed)})
    return pd.DataFrame(rows)


def table4_row(results: dict[str, pd.DataFrame], method: str = "generate") -> dict[str, float]:
    """Our Table 4 cells (``rho`` … ``ss``) for one model; MCQ accuracy by ``method``.

    >>> table4_row({"pb_mcq": pd.DataFrame({"method": ["generate"] * 2, "correct": [True, False]})})
    {'pb_mcq': 0.5}
    """
    row: dict[str, float] = {}
    if "reorder" in results:
        r = results["reorder"]
        row.update(rho=float(r["rho"].mean()), ld=float(r["ld"].mean()), tau=float(r["tau"].mean()),
                   ld_norm=float(r["ld_norm"].mean()) if "ld_norm" in r else np.nan)
    for task in ("pb_mcq", "cb_mcq"):
        if task in results:
            part = results[task][results[task]["method"] == method]
            row[task] = float(part["correct"].mean())
    if "cb_qa" in results:
        row.update({m: float(results["cb_qa"][m].mean()) for m in cbqa.METRICS})
    return row


def procedures_scored(results: dict[str, pd.DataFrame]) -> int:
    """How many procedures the task results cover (the n of a model's aggregate score).

    >>> procedures_scored({"reorder": pd.DataFrame({"procedure_id": [1, 1, 2]}), "pb_mcq": pd.DataFrame(
    ...     {"procedure_id": [2, 3]})})
    3
    """
    ids = [set(t["procedure_id"]) for t in results.values() if "procedure_id" in t]
    return len(set().union(*ids)) if ids else 0


#: per task, the column of :func:`procedure_scores` with the share of its answers that are valid
VALID_COLUMNS = {"reorder": "reorder_valid", "pb_mcq": "pb_mcq_valid", "cb_mcq": "cb_mcq_valid"}
#: each valid-share column's task, as tables and figures name it
VALID_TASKS = {VALID_COLUMNS[task]: name for task, name in {"reorder": "reordering", **MCQ_TASK_NAMES}.items()}


def procedure_scores(results: dict[str, pd.DataFrame], *, method: str = "generate",
                     by_language: bool = False) -> pd.DataFrame:
    """Per-procedure task scores (per language when ``by_language``, for the footnote-4
    aggregate): reordering ``rho``/``tau``/``ld``/``ld_norm``, ``pb_mcq`` (mean over its
    questions), and — pooled over languages only — ``cb_mcq`` and the CB-QA metrics; beside them
    the share of each task's answers that are valid (:data:`VALID_COLUMNS`; an invalid answer enters
    the scores as the invalid-answer policy scores it) and ``all_valid`` (every answer of the row valid).

    >>> r = {"reorder": pd.DataFrame({"procedure_id": ["p", "q"], "country": "Iran", "category": "Food",
    ...                               "rho": [0.5, 0.0], "tau": [0.4, 0.0], "ld": [1, 6], "ld_norm": [0.2, 1.2],
    ...                               "valid": [True, False]}),
    ...      "pb_mcq": pd.DataFrame({"procedure_id": ["p", "q"], "country": "Iran", "category": "Food",
    ...                              "method": "generate", "correct": [True, False], "valid": [True, True]})}
    >>> procedure_scores(r)[["procedure_id", "rho", "pb_mcq", "reorder_valid", "pb_mcq_valid", "all_valid"]].to_dict("records")
    [{'procedure_id': 'p', 'rho': 0.5, 'pb_mcq': 1.0, 'reorder_valid': 1.0, 'pb_mcq_valid': 1.0, 'all_valid': True}, {'procedure_id': 'q', 'rho': 0.0, 'pb_mcq': 0.0, 'reorder_valid': 0.0, 'pb_mcq_valid': 1.0, 'all_valid': False}]
    """
    keys = ["procedure_id", "country", "category"] + (["lang_group"] if by_language else [])
    parts = []

    def valid(task: str, frame: pd.DataFrame) -> pd.Series:
        return frame.assign(valid=frame["valid"].astype(float)).groupby(keys)["valid"].mean().rename(VALID_COLUMNS[task])

    if "reorder" in results:
        parts.append(results["reorder"].groupby(keys)[["rho", "tau", "ld", "ld_norm"]].mean())
        parts.append(valid("reorder", results["reorder"]))
    if "pb_mcq" in results:
        pb = results["pb_mcq"][results["pb_mcq"]["method"] == method]
        parts += [pb.groupby(keys)["correct"].mean().rename("pb_mcq"), valid("pb_mcq", pb)]
    if not by_language:
        if "cb_mcq" in results:
            cb = results["cb_mcq"][results["cb_mcq"]["method"] == method]
            parts += [cb.groupby(keys)["correct"].mean().rename("cb_mcq"), valid("cb_mcq", cb)]
        if "cb_qa" in results:
            parts.append(results["cb_qa"].groupby(keys)[list(cbqa.METRICS)].mean())
    table = pd.concat(parts, axis=1).reset_index()
    shares = [c for c in VALID_COLUMNS.values() if c in table]
    return table.assign(all_valid=(table[shares] == 1).all(axis=1))


def valid_shares(results: dict[str, pd.DataFrame], method: str = "generate") -> dict[str, float]:
    """The share of valid answers per task (:data:`VALID_COLUMNS`; MCQs by ``method``) and over all
    of them (``valid_share``, answers pooled: the aggregates weight tasks, not answers, so a figure of
    an aggregate gives the per-task shares, where one task's invalid answers cannot hide in the pool).

    >>> valid_shares({"reorder": pd.DataFrame({"valid": [True, False, False, False]}),
    ...               "pb_mcq": pd.DataFrame({"method": "generate", "valid": [True] * 4})})
    {'reorder_valid': 0.25, 'pb_mcq_valid': 1.0, 'valid_share': 0.625}
    """
    flags = {task: results[task]["valid"] if task == "reorder" else
             results[task].loc[results[task]["method"] == method, "valid"] for task in VALID_COLUMNS if task in results}
    shares = {VALID_COLUMNS[task]: float(v.astype(bool).mean()) for task, v in flags.items()}
    pooled = pd.concat(list(flags.values())).astype(bool) if flags else pd.Series(dtype=bool)
    return {**shares, "valid_share": float(pooled.mean()) if len(pooled) else np.nan}


_SETTING_PARAMS = {"prompt_version": "prompt_version", "languages": "languages", "invalid_policy": "invalid_policy",
                   "methods": "methods", "seed": "seed", "max_reorder_tokens": "reorder_tokens",
                   "max_answer_tokens": "answer_tokens", "max_reply_tokens": "reply_tokens",
                   "bertscore_backbone": "bertscore_backbone", "bertscore_rescale": "bertscore_rescale",
                   "ss_encoder": "ss_encoder", "rouge_stemmer": "rouge_stemmer"}


def settings_from(params: dict[str, Any]) -> Settings:
    """:class:`Settings` from notebook parameters (names as in the notebooks' parameter cells).

    >>> settings_from({"invalid_policy": "repair", "methods": ["loglikelihood"]}).methods
    ('loglikelihood',)
    """
    values = {field: params[name] for name, field in _SETTING_PARAMS.items() if name in params}
    if "methods" in values:
        values["methods"] = tuple(values["methods"])
    return Settings(**values)

"""All four CAPTEx tasks on one model, with one set of settings shared by every notebook.

Notebooks ``02``–``04`` run one task each and ``05`` runs them all with the same settings,
so the same prompts reach the model and ``05`` is served from the response cache.
:func:`check_params` validates the notebook parameters that the generic checks cannot
(allowed values), naming the key, before any data or model is loaded.

>>> check_params(languages="both", tasks=["reorder"], invalid_policy="zero")
>>> check_params(languages="german")
Traceback (most recent call last):
...
culturelab.params.ParameterError: languages: 'german' is not one of both, en, native
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from culturelab import prompts
from culturelab.captex import cbqa, questions, reordering
from culturelab.captex.aggregate import LMAX_MODES, NORM_SCHEMES, WEIGHTS
from culturelab.data.captex import CaptexData, load, normalise_category, normalise_country
from culturelab.models.base import LanguageModel
from culturelab.params import ParameterError
from culturelab.tasks.reorder import POLICIES, stable_int

TASKS = ("reorder", "pb_mcq", "cb_mcq", "cb_qa")
LANGUAGES = {"both": ("English", "native"), "en": ("English",), "native": ("native",)}
DATA_SOURCES = ("auto", "local", "hf", "sample")
PROMPT_NAMES = {"reorder": "reorder", "pb_mcq": "pb_mcq", "cb_mcq": "cb_mcq", "cb_qa": "cb_qa"}


def check_params(**values: Any) -> None:
    """Raise :class:`ParameterError` (one line per bad key) for values outside the allowed sets."""
    allowed: dict[str, Sequence[str]] = {
        "languages": list(LANGUAGES), "invalid_policy": POLICIES, "data_source": DATA_SOURCES,
        "norm_scheme": NORM_SCHEMES, "lmax_mode": LMAX_MODES, "mcq_method": questions.METHODS,
    }
    problems = []
    for key, value in values.items():
        if key in allowed and value not in allowed[key]:
            problems.append(f"{key}: {value!r} is not one of {', '.join(allowed[key])}")
        elif key in {"tasks", "methods"}:
            pool = TASKS if key == "tasks" else questions.METHODS
            bad = [v for v in value if v not in pool]
            if bad or not value:
                problems.append(f"{key}: {bad or 'empty list'} not allowed; choose from {', '.join(pool)}")
        elif key in {"countries", "categories"}:
            fn = normalise_country if key == "countries" else normalise_category
            for v in value:
                try:
                    fn(v)
                except ValueError as err:
                    problems.append(f"{key}: {v!r}: {err}")
        elif key == "prompt_version":
            for name in PROMPT_NAMES.values():
                if value not in prompts.versions("captex", name):
                    problems.append(f"prompt_version: {value!r} is not a version of captex/{name} "
                                    f"({', '.join(prompts.versions('captex', name))})")
                    break
        elif key == "weights" and value not in WEIGHTS:
            problems.append(f"weights: {value!r} is not one of {', '.join(WEIGHTS)}")
    if problems:
        raise ParameterError("\n".join(problems))


def select_procedures(procedures: pd.DataFrame, max_procedures: int, seed: int = 0) -> list[str]:
    """Up to ``max_procedures`` procedure ids (0 = all), spread over countries round-robin and,
    within a country, over categories round-robin (each country starting at a different
    category, procedures in a seeded order), so that small runs still cover every country and
    every category.

    >>> from culturelab.data.captex import load
    >>> procs = load(source="sample").procedures
    >>> ids = select_procedures(procs, 7)
    >>> sorted(i[:2] for i in ids)
    ['CN', 'ID', 'IN', 'IR', 'JP', 'NG', 'PK']
    >>> procs[procs["procedure_id"].isin(ids)]["category"].nunique()
    5
    """
    first = procedures.drop_duplicates("procedure_id")
    if not max_procedures or max_procedures >= len(first):
        return first["procedure_id"].tolist()
    categories = sorted(first["category"].unique())
    queues = []
    for i, (_, part) in enumerate(first.groupby("country", sort=True)):
        by_category = {c: sorted(g["procedure_id"], key=lambda p: stable_int(f"{seed}:{p}"))
                       for c, g in part.groupby("category")}
        rotation = categories[i % len(categories):] + categories[:i % len(categories)]
        queue: list[str] = []
        while any(by_category.values()):
            queue += [by_category[c].pop(0) for c in rotation if by_category.get(c)]
        queues.append(queue)
    chosen: list[str] = []
    while len(chosen) < max_procedures:
        for queue in queues:
            if queue and len(chosen) < max_procedures:
                chosen.append(queue.pop(0))
    return chosen


def load_data(*, data_dir: str = "", data_source: str = "auto", countries: Sequence[str] = (),
              categories: Sequence[str] = (), max_procedures: int = 0, seed: int = 0) -> CaptexData:
    """Load CAPTEx (or our sample) and restrict it as the notebook parameters say."""
    data = load(data_dir or None, source=data_source, cb_seed=seed)
    data = data.subset(countries=list(countries) or None, categories=list(categories) or None)
    return data.subset(procedure_ids=select_procedures(data.procedures, max_procedures, seed))


@dataclass
class Settings:
    """Everything that shapes prompts and scoring; recorded next to the results."""

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

    def record(self) -> dict[str, Any]:
        """The settings as plain values (for results tables)."""
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(self).items()}


def _template(task: str, s: Settings) -> str:
    return prompts.get("captex", PROMPT_NAMES[task], s.prompt_version)


def run_reorder(model: LanguageModel, data: CaptexData, s: Settings) -> pd.DataFrame:
    """Task 1 on every selected procedure × language."""
    inst = reordering.reorder_instances(data.procedures, seed=s.seed, lang_groups=LANGUAGES[s.languages])
    out = reordering.run_reordering(model, inst, _template("reorder", s), policy=s.invalid_policy,
                                    max_new_tokens=s.reorder_tokens)
    return out.assign(task="reorder", prompt_version=s.prompt_version, invalid_policy=s.invalid_policy)


def run_pb_mcq(model: LanguageModel, data: CaptexData, s: Settings) -> pd.DataFrame:
    """Task 2 (PB-MCQ) by each method."""
    mcqs = data.mcqs[data.mcqs["lang_group"].isin(LANGUAGES[s.languages])]
    frame = questions.pb_mcq_frame(mcqs, _template("pb_mcq", s))
    return questions.score_mcqs(model, frame, s.methods, max_new_tokens=s.answer_tokens).assign(
        prompt_version=s.prompt_version)


def run_cb_mcq(model: LanguageModel, data: CaptexData, s: Settings) -> pd.DataFrame:
    """Task 3 (CB-MCQ, English only) by each method."""
    frame = questions.cb_mcq_frame(data.conversations, _template("cb_mcq", s))
    return questions.score_mcqs(model, frame, s.methods, max_new_tokens=s.answer_tokens).assign(
        prompt_version=s.prompt_version)


def run_cb_qa(model: LanguageModel, data: CaptexData, s: Settings) -> pd.DataFrame:
    """Task 4 (CB-QA, English only): generate, clean, score."""
    frame = cbqa.cbqa_frame(data.conversations, _template("cb_qa", s))
    replies = cbqa.generate_replies(model, frame, max_new_tokens=s.reply_tokens)
    return cbqa.score_replies(replies, bertscore_backbone=s.bertscore_backbone, bertscore_rescale=s.bertscore_rescale,
                              ss_encoder=s.ss_encoder, rouge_stemmer=s.rouge_stemmer, seed=s.seed).assign(
        prompt_version=s.prompt_version)


RUNNERS = {"reorder": run_reorder, "pb_mcq": run_pb_mcq, "cb_mcq": run_cb_mcq, "cb_qa": run_cb_qa}


def run_tasks(model: LanguageModel, data: CaptexData, s: Settings, tasks: Sequence[str] = TASKS) -> dict[str, pd.DataFrame]:
    """Run the chosen tasks; one tidy table per task."""
    return {t: RUNNERS[t](model, data, s) for t in tasks}


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


def procedure_scores(results: dict[str, pd.DataFrame], *, method: str = "generate",
                     by_language: bool = False) -> pd.DataFrame:
    """Per-procedure task scores (per language when ``by_language``, for the footnote-4
    aggregate): reordering ``rho``/``tau``/``ld``/``ld_norm``, ``pb_mcq`` (mean over its
    questions), and — pooled over languages only — ``cb_mcq`` and the CB-QA metrics."""
    keys = ["procedure_id", "country", "category"] + (["lang_group"] if by_language else [])
    parts = []
    if "reorder" in results:
        parts.append(results["reorder"].groupby(keys)[["rho", "tau", "ld", "ld_norm"]].mean())
    if "pb_mcq" in results:
        pb = results["pb_mcq"][results["pb_mcq"]["method"] == method]
        parts.append(pb.groupby(keys)["correct"].mean().rename("pb_mcq"))
    if not by_language:
        if "cb_mcq" in results:
            cb = results["cb_mcq"][results["cb_mcq"]["method"] == method]
            parts.append(cb.groupby(keys)["correct"].mean().rename("cb_mcq"))
        if "cb_qa" in results:
            parts.append(results["cb_qa"].groupby(keys)[list(cbqa.METRICS)].mean())
    table = pd.concat(parts, axis=1).reset_index()
    return table


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


def prepare(run: Any) -> CaptexData:
    """Notebook glue right after ``start_run``: check the CAPTEx-specific parameters (before
    anything is loaded), load and restrict the data, stamp the data source on the run."""
    p = run.params
    check_params(**{k: v for k, v in p.items() if k in {
        "languages", "invalid_policy", "data_source", "norm_scheme", "lmax_mode", "mcq_method", "tasks", "methods",
        "countries", "categories", "prompt_version", "weights"}})
    data = load_data(data_dir=p.get("data_dir", ""), data_source=p.get("data_source", "auto"),
                     countries=p.get("countries", []), categories=p.get("categories", []),
                     max_procedures=p.get("max_procedures", 0), seed=p.get("seed", 0))
    run.set_data_source(data.source)
    for note in data.notes:
        print("note:", note)
    return data

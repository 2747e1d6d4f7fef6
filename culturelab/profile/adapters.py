"""Adapters: each paper notebook's per-instance results (``results.csv``, or the file
:data:`RESULTS` names) → one tidy profile table.

One row per model × benchmark × task × instance with the columns in :data:`TIDY`. The notebooks
keep their own task code; these functions only rename and pick columns.

>>> frame = pd.DataFrame({"procedure_id": ["CN-05"], "row": [3], "country": ["China"], "category": ["Food"],
...                       "language": ["zh"], "qtype": ["SA"], "method": ["loglik"], "valid": [True],
...                       "correct": [True], "data": ["sample data"], "protocol": ["same"]})
>>> adapt("captex/03_mcq", frame, model="bundled:x")[["benchmark", "task", "instance", "score", "chance"]].to_dict("records")
[{'benchmark': 'captex', 'task': 'mcq SA (loglik)', 'instance': 'CN-05/3', 'score': 1.0, 'chance': 0.25}]
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

TIDY = ["model", "benchmark", "task", "instance", "language", "culture", "category", "score", "binary",
        "chance", "valid", "data_source", "data", "protocol"]


def _col(frame: pd.DataFrame, name: str, default: object = None) -> pd.Series:
    """Column ``name`` of ``frame``, or ``default`` repeated when the notebook did not write it."""
    if name in frame.columns:
        return frame[name]
    return pd.Series([default] * len(frame), index=frame.index, dtype=object)


def _require(frame: pd.DataFrame, notebook: str, columns: list[str]) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise KeyError(f"{notebook}: {RESULTS.get(notebook, 'results.csv')} lacks columns {missing} "
                       f"(has {list(frame.columns)})")


def _bool(series: pd.Series) -> pd.Series:
    """Booleans from a CSV column read back as bool, 0/1 or 'True'/'False' strings (missing → False)."""
    return series.map(lambda v: str(v).strip().lower() in {"true", "1", "1.0"})


def _n_options(value: object, default: int = 4) -> int:
    """Number of options from a JSON list (``scores`` or ``options`` column) or ``default``."""
    try:
        parsed = json.loads(value) if isinstance(value, str) else value
    except (TypeError, ValueError):
        return default
    return len(parsed) if isinstance(parsed, (list, dict)) and len(parsed) > 1 else default


def _frame(model: str, benchmark: str, task: pd.Series | str, instance: pd.Series, score: pd.Series,
           chance: pd.Series | float, valid: pd.Series, *, binary: bool, language: pd.Series | str | None = None,
           culture: pd.Series | str | None = None, category: pd.Series | str | None = None,
           labels: pd.DataFrame | None = None) -> pd.DataFrame:
    """The tidy rows; ``labels`` is the results frame whose ``data_source`` and the ``data`` and
    ``protocol`` labels of the run's comparison with its paper (:func:`culturelab.protocol.compare`)
    each row carries (aligned on the index)."""
    out = pd.DataFrame({"model": model, "benchmark": benchmark, "task": task, "instance": instance.astype(str),
                        "language": language, "culture": culture, "category": category,
                        "score": pd.to_numeric(score, errors="coerce").astype(float), "binary": binary,
                        "chance": chance, "valid": valid.astype(bool)},
                       index=instance.index)
    for name in ("data_source", "data", "protocol"):
        if labels is not None and name != "data_source" and name not in labels.columns:
            raise KeyError(f"{benchmark}: results without the {name!r} label of the run's comparison with its "
                           f"paper (columns: {list(labels.columns)}); re-run the notebook")
        out[name] = None if labels is None else _col(labels, name).reindex(out.index)
    return out[TIDY].reset_index(drop=True)



def captex_mcq(frame: pd.DataFrame, model: str) -> pd.DataFrame:
    """CAPTEx MCQs (``captex/03_mcq``): accuracy per question type and method, chance 1/4."""
    _require(frame, "captex/03_mcq", ["procedure_id", "row", "qtype", "method", "correct"])
    chance = _col(frame, "options").map(lambda v: 1 / _n_options(v))
    return _frame(model, "captex", "mcq " + frame["qtype"].astype(str) + " (" + frame["method"].astype(str) + ")",
                  frame["procedure_id"].astype(str) + "/" + frame["row"].astype(str),
                  _bool(frame["correct"]).astype(float), chance, _bool(_col(frame, "valid", True)), binary=True,
                  language=_col(frame, "language"), culture=_col(frame, "country"),
                  category=_col(frame, "category"), labels=frame)


def captex_reorder(frame: pd.DataFrame, model: str) -> pd.DataFrame:
    """CAPTEx step reordering (``captex/02_reordering``): Spearman ρ per procedure, chance 0; answers
    constrained to valid orders (a protocol deviation) are a task of their own.

    >>> t = pd.DataFrame({"procedure_id": ["CN-01"] * 2, "language": ["en"] * 2, "rho": [0.0, 0.4],
    ...                   "decoding": ["free", "constrained"], "data": "same",
    ...                   "protocol": ["same", "answers constrained to valid orders (the paper: free generation)"]})
    >>> captex_reorder(t, "m")[["task", "protocol"]].values.tolist()[1]
    ['reorder ρ (constrained decoding)', 'answers constrained to valid orders (the paper: free generation)']
    """
    _require(frame, "captex/02_reordering", ["procedure_id", "language", "rho"])
    task = "reorder ρ" + _col(frame, "decoding", "free").map(lambda d: "" if d == "free" else f" ({d} decoding)")
    return _frame(model, "captex", task, frame["procedure_id"].astype(str) + "/" + frame["language"].astype(str),
                  frame["rho"], 0.0, _bool(_col(frame, "valid", True)), binary=False,
                  language=frame["language"], culture=_col(frame, "country"), category=_col(frame, "category"),
                  labels=frame)


def fmlama_probing(frame: pd.DataFrame, model: str) -> pd.DataFrame:
    """FmLAMA cloze probing (``fmlama/02_probing``): P@1 per dish; chance is the share of the
    candidates that are the dish's gold ingredients (``n_gold / n_candidates``: the top of a random
    ranking is gold that often), ``1 / n_candidates`` where the results have no ``n_gold``."""
    _require(frame, "fmlama/02_probing", ["dish", "lang", "p1", "template"])
    n = pd.to_numeric(_col(frame, "n_candidates", np.nan), errors="coerce")
    gold = pd.to_numeric(_col(frame, "n_gold", 1), errors="coerce")
    return _frame(model, "fmlama", "probing P@1 (template " + frame["template"].astype(str) + ")",
                  frame["dish"].astype(str) + "/" + frame["lang"].astype(str), frame["p1"],
                  (gold / n).where(n > 0), pd.Series(True, index=frame.index), binary=True,
                  language=frame["lang"], culture=_col(frame, "group"), category=None,
                  labels=frame)


def turkish_plu_mc(frame: pd.DataFrame, model: str) -> pd.DataFrame:
    """Turkish PLU multiple choice (``turkish_plu/02_mc_tasks``): accuracy per task and method."""
    _require(frame, "turkish_plu/02_mc_tasks", ["id", "task", "method", "correct"])
    chance = _col(frame, "scores").map(lambda v: 1 / _n_options(v))
    return _frame(model, "turkish_plu", frame["task"].astype(str) + " (" + frame["method"].astype(str) + ")",
                  frame["id"].astype(str), _bool(frame["correct"]).astype(float), chance,
                  _bool(_col(frame, "valid", True)), binary=True, language="tr", culture="Turkey",
                  category=_col(frame, "category"), labels=frame)


def percul_stories(frame: pd.DataFrame, model: str) -> pd.DataFrame:
    """PERCUL stories (``percul/02_models_and_categories``): accuracy per category, chance 1/4."""
    _require(frame, "percul/02_models_and_categories", ["id", "method", "correct"])
    chance = _col(frame, "options").map(lambda v: 1 / _n_options(v))
    return _frame(model, "percul", "stories (" + frame["method"].astype(str) + ")", frame["id"].astype(str),
                  _bool(frame["correct"]).astype(float), chance, _bool(_col(frame, "valid", True)), binary=True,
                  language="fa", culture="Iran", category=_col(frame, "category"),
                  labels=frame)


def fmlama_decoder(frame: pd.DataFrame, model: str) -> pd.DataFrame:
    """FmLAMA fill-in generation (``fmlama/04_decoder_llms``, the model's ``model_per_dish.csv``):
    1 when any parsed ingredient is a gold one, per dish × setting; no chance level (open answers)."""
    _require(frame, "fmlama/04_decoder_llms", ["qid", "setting", "lang", "correct", "valid"])
    context = _bool(_col(frame, "context", False))
    task = pd.Series("fill-in any-match", index=frame.index).where(~context, "fill-in any-match (context)")
    return _frame(model, "fmlama", task, frame["qid"].astype(str) + "/" + frame["setting"].astype(str),
                  _bool(frame["correct"]).astype(float), np.nan, _bool(frame["valid"]), binary=True,
                  language=frame["lang"], culture=_col(frame, "group"), category=None,
                  labels=frame)


#: CulturalRecipes per-output metric column → profile task (scores ×100 in the notebook, 0–1 here)
ADAPTATION_METRICS = {"ChrF": "adaptation chrF", "BLEU": "adaptation BLEU", "R-L": "adaptation ROUGE-L",
                      "B-Sc": "adaptation BERTScore"}


def cultural_recipes_adaptation(frame: pd.DataFrame, model: str) -> pd.DataFrame:
    """CulturalRecipes adaptation (``cultural_recipes/02_adaptation``, ``per_output.csv``): the model's
    outputs only (not Retrieval, Source copy or Ref), one task per metric on a 0–1 scale, the direction
    as ``language`` and the target culture (``en``/``zh``) as ``culture``; metrics a run did not compute
    (e.g. BERTScore without a backbone) are left out."""
    from culturelab.cultural_recipes.adaptation import MODEL_FREE
    from culturelab.cultural_recipes.data import LANGS

    _require(frame, "cultural_recipes/02_adaptation", ["recipe_id", "direction", "system", "valid"])
    frame = frame[~frame["system"].isin(MODEL_FREE)]
    unknown = sorted(set(frame["direction"]) - set(LANGS))
    if unknown:
        raise KeyError(f"cultural_recipes/02_adaptation: per_output.csv has unknown directions {unknown}")
    parts = []
    for column, task in ADAPTATION_METRICS.items():
        part = frame[pd.to_numeric(_col(frame, column), errors="coerce").notna()]
        if part.empty:
            continue
        parts.append(_frame(model, "cultural_recipes", task,
                            part["recipe_id"].astype(str) + "/" + part["direction"].astype(str),
                            pd.to_numeric(part[column]) / 100, np.nan, _bool(part["valid"]), binary=False,
                            language=part["direction"], culture=part["direction"].map(lambda d: LANGS[d][1]),
                            category=None, labels=part))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=TIDY)


ADAPTERS: dict[str, Callable[[pd.DataFrame, str], pd.DataFrame]] = {
    "captex/02_reordering": captex_reorder,
    "captex/03_mcq": captex_mcq,
    "fmlama/02_probing": fmlama_probing,
    "fmlama/04_decoder_llms": fmlama_decoder,
    "turkish_plu/02_mc_tasks": turkish_plu_mc,
    "percul/02_models_and_categories": percul_stories,
    "cultural_recipes/02_adaptation": cultural_recipes_adaptation,
}

#: the per-instance results file of a notebook, where it is not ``results.csv``
RESULTS = {"fmlama/04_decoder_llms": "model_per_dish.csv", "cultural_recipes/02_adaptation": "per_output.csv"}


def adapt(notebook: str, frame: pd.DataFrame, model: str) -> pd.DataFrame:
    """The tidy rows of one notebook's per-instance results for ``model``; rows the notebook wrote
    for other models (a ``model`` column naming another spec) are dropped.

    >>> adapt("nope/01", pd.DataFrame(), "m")
    Traceback (most recent call last):
    KeyError: 'nope/01: no profile adapter (have: captex/02_reordering, captex/03_mcq, ...)'
    """
    if notebook not in ADAPTERS:
        raise KeyError(f"{notebook}: no profile adapter (have: {', '.join(ADAPTERS)})")
    if "model" in frame.columns and frame["model"].notna().any() and (frame["model"] == model).any():
        frame = frame[frame["model"] == model]
    return ADAPTERS[notebook](frame, model)


def results_file(run_dir: Path, notebook: str) -> Path:
    """The per-instance results file of ``notebook`` in a run folder.

    >>> results_file(Path("runs/x"), "fmlama/04_decoder_llms").as_posix()
    'runs/x/fmlama/04_decoder_llms/model_per_dish.csv'
    """
    return run_dir / notebook / RESULTS.get(notebook, "results.csv")


def collect(run_dir: Path, model: str) -> pd.DataFrame:
    """Tidy rows of every adapted notebook's per-instance results under ``run_dir`` (one model's run).

    >>> collect(Path("/nonexistent"), "m").columns.tolist() == TIDY
    True
    """
    parts = [adapt(nb, pd.read_csv(results_file(run_dir, nb)), model)
             for nb in ADAPTERS if results_file(run_dir, nb).is_file()]
    parts = [p for p in parts if len(p)]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=TIDY)

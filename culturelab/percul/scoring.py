"""Running a model on PERCUL and scoring it the paper's way.

Two modes over one tidy table of stories:

* ``generate`` (the paper's protocol): the Figure 9 prompt, greedy decoding, the answer parsed
  by :func:`culturelab.percul.parsing.parse_answer`; refusals and unparseable answers are wrong.
* ``loglikelihood`` (ours, beyond the paper): the question followed by an answer cue, each
  option scored as a continuation (its text, or its number) — one ``model.loglikelihood`` call
  over all (story, option) pairs via :func:`culturelab.tasks.mcq.score_loglikelihood`.

Metrics: per-category accuracy, **macro accuracy** (mean of the per-category accuracies, the
paper's metric; :func:`culturelab.metrics.choice.macro_accuracy`), micro accuracy, the invalid
and refusal rates, and a 95 % interval for the macro (per-category Wilson intervals combined by MOVER).

>>> import pandas as pd
>>> t = pd.DataFrame({"model": "m", "category": ["a", "a", "b"], "correct": [1, 0, 1], "valid": True})
>>> summary(t, ["model"])[["macro", "micro"]].round(3).to_dict("records")
[{'macro': 0.75, 'micro': 0.667}]
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from culturelab.metrics.choice import macro_accuracy
from culturelab.models.base import LanguageModel
from culturelab.parsing import lenient_share
from culturelab.percul.data import CATEGORIES, SPLITS
from culturelab.percul.parsing import parse_answer
from culturelab.percul.prompts import LATIN_DIGITS, PERSIAN_DIGITS, answer_cue, language_of
from culturelab.stats import macro_proportion_ci, proportion_ci
from culturelab.tasks import mcq

METHODS = ("generate", "loglikelihood")
INVALID_POLICIES = ("wrong", "exclude")
LOGLIK_TARGETS = ("text", "number")
#: stop generating at the line that closes the JSON object (the parser closes it again); the
#: paper let models write to their maximum length (:mod:`culturelab.percul.protocol`) — set ``stop=None`` for that
JSON_STOP = ("\n}",)
#: the columns of :func:`summary` (also when there is nothing to summarise)
SUMMARY_COLUMNS = ["macro", "macro_ci_low", "macro_ci_high", "micro", "invalid_rate", "refusal_rate",
                   "lenient_share", "n", "n_categories"]


def subset(items: pd.DataFrame, max_instances: int = 0) -> pd.DataFrame:
    """The first ``max_instances`` stories taken round-robin over the categories (canonical order),
    so small runs still cover many categories; ``0`` keeps everything. Deterministic.

    >>> from culturelab.percul.data import load
    >>> subset(load(data_source="sample").items, 3)["category"].tolist()
    ['Objects', 'Music', 'Dress']
    """
    if not max_instances or max_instances >= len(items):
        return items.reset_index(drop=True)
    rank = items.groupby("category", observed=True).cumcount()
    order = items.assign(_rank=rank, _cat=items["category"].cat.codes if hasattr(items["category"], "cat")
                         else items["category"].map({c: i for i, c in enumerate(CATEGORIES)}))
    order = order.sort_values(["_rank", "_cat"], kind="stable").head(max_instances)
    return order.drop(columns=["_rank", "_cat"]).sort_index().reset_index(drop=True)


def run_generation(model: LanguageModel, items: pd.DataFrame, *, max_new_tokens: int = 256,
                   stop: Sequence[str] | None = None, lenient: bool = False,
                   **generate_kwargs: Any) -> pd.DataFrame:
    """The paper's protocol: greedy answers to ``items["prompt"]`` (see
    :func:`culturelab.percul.prompts.add_prompts`), parsed by
    :func:`culturelab.percul.parsing.parse_answer` (strict; ``lenient`` also scores lenient
    readings). Adds ``raw_output``, ``pred`` (−1 when not scored), ``valid``, ``parse_method``,
    ``parse_verdict``, ``parse_answer``, ``correct``, ``method``."""
    def parser(text: str, n: int, options: Sequence[str]):
        return parse_answer(text, options, n_options=n, lenient=lenient)

    return mcq.score_generation(model, items, parser=parser, max_new_tokens=max_new_tokens, temperature=0.0,
                                stop=list(stop or []), **generate_kwargs)


def rescore(results: pd.DataFrame, *, lenient: bool = True) -> pd.DataFrame:
    """The generated answers of ``results`` parsed again — scoring lenient readings too (or not) —
    without any model call: ``pred``, ``valid``, ``correct`` and the ``parse_*`` columns are recomputed
    for the ``generate`` rows; other rows are unchanged.

    >>> t = pd.DataFrame({"method": ["generate"], "raw_output": ["۲"], "options": [["a", "b", "c", "d"]],
    ...                   "answer": [1], "pred": [-1], "valid": [False], "correct": [False]})
    >>> rescore(t)[["pred", "valid", "correct", "parse_verdict"]].values.tolist()
    [[1, True, True, 'lenient']]
    """
    out = results.copy()
    generated = (out["method"] == "generate").to_numpy() if "method" in out else np.zeros(len(out), bool)
    if not generated.any():
        return out
    parsed = [parse_answer(t, o, n_options=len(o), lenient=lenient)
              for t, o in zip(out.loc[generated, "raw_output"], out.loc[generated, "options"])]
    out.loc[generated, "pred"] = [p.index if p.valid else -1 for p in parsed]
    out.loc[generated, "valid"] = [p.valid for p in parsed]
    out.loc[generated, "correct"] = out.loc[generated, "pred"] == out.loc[generated, "answer"]
    for col, values in (("parse_method", [p.method for p in parsed]), ("parse_verdict", [p.verdict for p in parsed]),
                        ("parse_answer", [p.answer for p in parsed])):
        if col not in out:
            out[col] = None
        out.loc[generated, col] = pd.Series(values, index=out.index[generated], dtype=object)
    return out


def loglik_context(question: str, split: str, version: str = "v1") -> str:
    """The context of log-likelihood scoring: the question (no JSON instruction) and the cue.

    >>> loglik_context("Q?\\n", "gpt_english_translation")
    'Q?\\nAnswer:'
    """
    return question + answer_cue(language_of(split), version)


def run_loglikelihood(model: LanguageModel, items: pd.DataFrame, *, target: str = "text",
                      normalise: str = "mean", version: str = "v1") -> pd.DataFrame:
    """Score the four options after the question: ``target="text"`` (each option's text,
    ``normalise="mean"`` per token by default) or ``"number"`` (the option's numeral ۱–۴ / 1–4).
    One ``loglikelihood`` call for the whole table. Adds ``scores``, ``pred``, ``valid``,
    ``correct``, ``method`` (``loglik-<target>-<normalise>``)."""
    if target not in LOGLIK_TARGETS:
        raise ValueError(f"loglik_target must be one of {list(LOGLIK_TARGETS)}, not {target!r}")
    frame = items.assign(context=[loglik_context(q, s, version) for q, s in zip(items["question"], items["split"])])
    if target == "number":
        labels = PERSIAN_DIGITS if (frame["split"] == SPLITS[0]).all() else LATIN_DIGITS
        if frame["split"].nunique() > 1:
            raise ValueError("score one split at a time with target='number' (the numerals differ)")
        out = mcq.score_loglikelihood(model, frame, target="letter", normalise=normalise, prompt_col="context",
                                      labels=labels)
    else:
        out = mcq.score_loglikelihood(model, frame, target="text", normalise=normalise, prompt_col="context")
    out["method"] = f"loglik-{target}-{normalise}"
    out["parse_method"] = "loglikelihood"
    return out.drop(columns=["context"])


def _policy(results: pd.DataFrame, invalid_policy: str) -> pd.DataFrame:
    if invalid_policy not in INVALID_POLICIES:
        raise ValueError(f"invalid_policy must be one of {list(INVALID_POLICIES)}, not {invalid_policy!r}")
    if invalid_policy == "exclude":
        return results[results["valid"].astype(bool)]
    return results


def per_category(results: pd.DataFrame, by: Sequence[str] = ("model",), *,
                 invalid_policy: str = "wrong") -> pd.DataFrame:
    """Accuracy per category (and group of ``by``), with ``n``, ``n_correct``, its 95 % Wilson
    interval (``ci_low``, ``ci_high``) and the invalid rate (always computed on all answers,
    whatever the policy).

    >>> t = pd.DataFrame({"model": "m", "category": ["a", "a", "b"], "correct": [1, 0, 0],
    ...                   "valid": [True, True, False]})
    >>> per_category(t)[["category", "accuracy", "invalid_rate"]].to_dict("records")
    [{'category': 'a', 'accuracy': 0.5, 'invalid_rate': 0.0}, {'category': 'b', 'accuracy': 0.0, 'invalid_rate': 1.0}]
    """
    keys = [*by, "category"]
    invalid = results.assign(_inv=~results["valid"].astype(bool)).groupby(keys, observed=True)["_inv"].mean()
    kept = _policy(results, invalid_policy).assign(_c=lambda d: d["correct"].astype(float))
    table = kept.groupby(keys, observed=True)["_c"].agg(accuracy="mean", n_correct="sum", n="size")
    table = table.join(invalid.rename("invalid_rate"), how="outer").reset_index()
    table["n_correct"] = table["n_correct"].fillna(0).astype(int)
    table["n"] = table["n"].fillna(0).astype(int)
    ci = [proportion_ci(k, n) for k, n in zip(table["n_correct"], table["n"])]
    table["ci_low"] = [lo for lo, _ in ci]
    table["ci_high"] = [hi for _, hi in ci]
    return table


def macro_ci(results: pd.DataFrame, *, level: float = 0.95) -> tuple[float, float]:
    """The 95 % interval of the macro accuracy of ``results`` (``category``, ``correct``): the MOVER
    combination of the per-category Wilson intervals (:func:`culturelab.stats.macro_proportion_ci`).

    Why not a bootstrap: resampling stories within each category (a stratified percentile bootstrap)
    gives [0, 0] when no story is right and [1, 1] when all are — on our sample's three stories per
    category that is common — and a BCa bootstrap (:func:`scipy.stats.bootstrap`) is no better there:
    every resample has the same macro. Wilson's per-category intervals stay open at 0 and n, and MOVER
    adds their half-widths as variances do, so the macro's interval is open too; it needs no resampling
    (no seed).

    >>> t = pd.DataFrame({"category": list("aaabbb"), "correct": [0] * 6})
    >>> [round(v, 3) for v in macro_ci(t)]
    [0.0, 0.397]
    """
    counts = results.assign(_c=results["correct"].astype(float)).groupby("category", observed=True)["_c"]
    return macro_proportion_ci(counts.sum(), counts.size(), level=level)


def summary(results: pd.DataFrame, by: Sequence[str] = ("model",), *, invalid_policy: str = "wrong"
            ) -> pd.DataFrame:
    """One row per group: ``macro`` (paper's metric) with its 95 % interval (:func:`macro_ci`), ``micro``,
    ``invalid_rate``, ``refusal_rate``, ``lenient_share`` (answers read only by lenient rules,
    :mod:`culturelab.parsing`; NaN for log-likelihood scoring) — those three over all answers —, and
    ``n`` and ``n_categories``: the stories and categories the macro rests on (under
    ``invalid_policy="exclude"`` the valid answers only, so a category with no valid answer is in
    neither the macro nor ``n_categories``).

    >>> t = pd.DataFrame({"model": "m", "category": ["a", "a", "b"], "correct": [1, 0, 0], "valid": [1, 1, 0]})
    >>> summary(t, invalid_policy="exclude")[["macro", "n", "n_categories", "invalid_rate"]].round(3).to_dict("records")
    [{'macro': 0.5, 'n': 2, 'n_categories': 1, 'invalid_rate': 0.333}]
    """
    by = list(by)
    rows = []
    for key, part in results.groupby(by, observed=True, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        kept = _policy(part, invalid_policy).assign(correct=lambda d: d["correct"].astype(float))
        macro = float(macro_accuracy(kept, "category")["macro_accuracy"].iloc[0]) if len(kept) else float("nan")
        lo, hi = macro_ci(kept)
        methods = part["parse_method"] if "parse_method" in part else pd.Series(dtype=str)
        rows.append({**dict(zip(by, key)), "macro": macro, "macro_ci_low": lo, "macro_ci_high": hi,
                     "micro": float(kept["correct"].mean()) if len(kept) else float("nan"),
                     "invalid_rate": float((~part["valid"].astype(bool)).mean()),
                     "refusal_rate": float((methods == "refusal").mean()) if len(methods) else 0.0,
                     "lenient_share": lenient_share(part["parse_verdict"]) if "parse_verdict" in part
                     else float("nan"),
                     "n": len(kept), "n_categories": int(kept["category"].nunique())})
    return pd.DataFrame(rows, columns=[*by, *SUMMARY_COLUMNS])


def valid_share(results: pd.DataFrame) -> float | None:
    """The share of valid answers among the generated ones (``method`` ``generate``): what a figure of
    free-generation scores shows beside them; ``None`` when nothing was generated.

    >>> t = pd.DataFrame({"method": ["generate"] * 4 + ["loglik-text-mean"], "valid": [1, 1, 1, 0, 1]})
    >>> valid_share(t), valid_share(t[t["method"] != "generate"])
    (0.75, None)
    """
    generated = results[results["method"] == "generate"] if "method" in results else results.iloc[:0]
    return float(generated["valid"].astype(bool).mean()) if len(generated) else None


_BUNDLED_FAMILY = {"bundled:gemma3-270m": ("Gemma 3", 0.27), "bundled:smollm2-135m": ("SmolLM2", 0.135)}


def family_and_size(spec: str, n_params: int | None = None) -> tuple[str, float | None]:
    """A model's family (its name without size and tuning suffixes) and size in billions
    (``n_params`` when known, else read from the name), for Figure 4.

    >>> family_and_size("hf:Qwen/Qwen2.5-7B-Instruct")
    ('Qwen2.5', 7.0)
    >>> family_and_size("hf:meta-llama/Llama-3.2-1B-Instruct", n_params=1_235_814_400)
    ('Llama-3.2', 1.236)
    """
    if spec in _BUNDLED_FAMILY:
        fam, size = _BUNDLED_FAMILY[spec]
        return fam, round(n_params / 1e9, 3) if n_params else size
    name = str(spec).split("#")[-1].split(":", 1)[-1].rstrip("/").split("/")[-1]
    match = re.search(r"[-_.]?(\d+(?:\.\d+)?)\s*([bBmM])(?![a-zA-Z])", name)
    size = None
    if match:
        size = float(match.group(1)) / (1000 if match.group(2).lower() == "m" else 1)
        name = name[: match.start()]
    if n_params:
        size = round(n_params / 1e9, 3)
    family = re.sub(r"[-_](instruct|chat|it|hf|base)$", "", name, flags=re.I) or name
    return family, size


def evaluate(model: LanguageModel, items: pd.DataFrame, methods: Sequence[str] = METHODS, *,
             max_new_tokens: int = 256, stop: Sequence[str] | None = JSON_STOP, loglik_target: str = "text",
             loglik_normalise: str = "mean", version: str = "v1", lenient: bool = False) -> pd.DataFrame:
    """Run the chosen ``methods`` on ``items`` (with ``prompt``/``question`` columns) and stack the
    per-story results, tagged with ``model`` (the spec) and ``method``."""
    unknown = set(methods) - set(METHODS)
    if unknown:
        raise ValueError(f"methods: unknown {sorted(unknown)}; use {list(METHODS)}")
    parts = []
    if "generate" in methods:
        parts.append(run_generation(model, items, max_new_tokens=max_new_tokens, stop=stop,
                                    lenient=lenient))
    if "loglikelihood" in methods:
        parts.append(run_loglikelihood(model, items, target=loglik_target, normalise=loglik_normalise,
                                       version=version))
    out = pd.concat(parts, ignore_index=True)
    out.insert(0, "model", model.spec)
    return out

"""The glue every PERCUL notebook shares once its data is open (:func:`culturelab.percul.setup.open`):
pick and prompt the stories, run one or more models — each only on the methods its backend can
answer (a masked LM does not generate; an API model or a replay file of generations gives no
option log-likelihoods): the run says so in one line per skipped (model, method) and goes on.

>>> from culturelab.percul.data import load
>>> t = stories(load(data_source="sample"), max_instances=2)
>>> list(t.columns[-2:]), len(t)
(['prompt', 'question'], 2)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from culturelab.percul.data import Benchmark
from culturelab.percul.prompts import add_prompts
from culturelab.percul.robustness import permute_items
from culturelab.percul.scoring import METHODS, evaluate, family_and_size, subset

#: the notebook section each scoring method is, for the run's "skipped" line
SECTIONS = {"generate": "Answers generated with the paper's prompt",
            "loglikelihood": "Options scored by log-likelihood"}


def stories(bench: Benchmark, *, max_instances: int = 0, prompt_version: str = "v1",
            answer_in_persian: bool = True, permutations: str = "none", n_random_orders: int = 4,
            seed: int = 0) -> pd.DataFrame:
    """The stories to ask (round-robin over categories when ``max_instances`` > 0), optionally
    once per option order (:func:`culturelab.percul.robustness.permute_items`), with prompts."""
    items = subset(bench.items, max_instances)
    if permutations != "none":
        items = permute_items(items, permutations, n_random=n_random_orders, seed=seed)
    return add_prompts(items, version=prompt_version, answer_in_persian=answer_in_persian)


def model_specs(params: dict[str, Any]) -> list[str]:
    """``model`` followed by ``extra_models`` (duplicates dropped, empty entries ignored)."""
    specs = [params.get("model") or "", *params.get("extra_models", [])]
    return list(dict.fromkeys(s for s in specs if s))


def run_models(run: Any, items: pd.DataFrame, specs: Sequence[str], methods: Sequence[str] = METHODS,
               **evaluate_kwargs: Any) -> pd.DataFrame:
    """Evaluate every model on ``items`` with the ``methods`` its backend supports
    (``run.supports``; each model loaded once through ``run.model``) and add its ``family`` and
    ``params_b`` (for Figure 4). With nothing to run, an empty table with the result columns."""
    unknown = set(methods) - set(METHODS)
    if unknown:
        raise ValueError(f"methods: unknown {sorted(unknown)}; use {list(METHODS)}")
    parts = []
    for spec in specs:
        usable = [m for m in methods if run.supports(m, SECTIONS[m], spec=spec)]
        if not usable:
            continue
        model = run.model(spec)
        out = evaluate(model, items, usable, **evaluate_kwargs)
        family, size = family_and_size(spec, model.describe().get("n_params"))
        parts.append(out.assign(family=family, params_b=size))
    if not parts:
        empty = ["model", *items.columns, "raw_output", "scores", "pred", "valid", "parse_method", "correct",
                 "method", "family", "params_b"]
        return pd.DataFrame(columns=list(dict.fromkeys(empty)))
    return pd.concat(parts, ignore_index=True)

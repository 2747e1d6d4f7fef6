"""The glue every PERCUL notebook shares once its data is open (:func:`culturelab.percul.setup.open`):
pick and prompt the stories, run one or more models.

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
from culturelab.percul.scoring import evaluate, family_and_size, subset


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


def run_models(run: Any, items: pd.DataFrame, specs: Sequence[str], **evaluate_kwargs: Any) -> pd.DataFrame:
    """Evaluate every model on ``items`` (each loaded once through ``run.model``) and add its
    ``family`` and ``params_b`` (for Figure 4)."""
    parts = []
    for spec in specs:
        model = run.model(spec)
        out = evaluate(model, items, **evaluate_kwargs)
        family, size = family_and_size(spec, model.describe().get("n_params"))
        parts.append(out.assign(family=family, params_b=size))
    return pd.concat(parts, ignore_index=True)

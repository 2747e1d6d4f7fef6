"""A model's answers to the Figure 9 prompt, gathered to be labelled by hand (the PERCUL part of
:mod:`culturelab.parsing_gold`).

:func:`harvest` asks a model the stories of a benchmark through the project's own path
(:func:`culturelab.percul.pipeline.stories` → :func:`culturelab.percul.scoring.run_generation`, greedy,
every answer cached) under several prompt and decoding variants (:data:`VARIANTS`), and keeps each
distinct answer once with what a grader needs to read it (the options as shown). The parser's reading is
dropped on purpose: a label is written from the raw text alone.

>>> VARIANTS["en-v1-96"]["max_new_tokens"], VARIANTS["en-v2-stop"]["stop"]
(96, ('\\n}',))
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from culturelab.models.base import LanguageModel
from culturelab.percul.data import SPLITS, Benchmark
from culturelab.percul.pipeline import stories
from culturelab.percul.scoring import JSON_STOP, run_generation

#: the variants asked: the split, the prompt's (:func:`~culturelab.percul.pipeline.stories`) and the
#: decoding's settings. ``96`` new tokens without a stop let a base model go on after the JSON skeleton
#: (where echoed option lists and digits in prose appear); ``stop`` is the default run's.
VARIANTS: dict[str, dict[str, Any]] = {
    "fa-v1-96": {"split": SPLITS[0], "prompt_version": "v1", "max_new_tokens": 96, "stop": None},
    "en-v1-96": {"split": SPLITS[1], "prompt_version": "v1", "max_new_tokens": 96, "stop": None},
    "fa-v2-stop": {"split": SPLITS[0], "prompt_version": "v2", "max_new_tokens": 40, "stop": JSON_STOP},
    "en-v2-stop": {"split": SPLITS[1], "prompt_version": "v2", "max_new_tokens": 40, "stop": JSON_STOP},
    "fa-v1-noformat-lang-96": {"split": SPLITS[0], "prompt_version": "v1", "answer_in_persian": False,
                               "max_new_tokens": 96, "stop": None},
}
#: the columns of :func:`harvest` (those of ``culturelab/parsing_gold/percul.csv`` a label still needs)
COLUMNS = ["model", "variant", "story", "raw", "context"]


def harvest(model: LanguageModel, benches: Mapping[str, Benchmark], variants: Sequence[str] = tuple(VARIANTS), *,
            max_instances: int = 0) -> pd.DataFrame:
    """The distinct answers of ``model`` to the stories of ``benches`` (one per split, keyed by split
    name) under each of ``variants`` (:data:`VARIANTS`): one row per distinct (model, answer), the
    first variant and story that gave it, and ``context`` (JSON: the options as shown) — no parse.

    >>> class Echo:  # a stand-in model that copies the JSON skeleton
    ...     spec = "echo"
    ...     def generate(self, prompts, **kw): return ['"Choice Number": <Sing Number 1 to 4>'] * len(prompts)
    >>> from culturelab.percul.data import load
    >>> t = harvest(Echo(), {SPLITS[0]: load(data_source="sample")}, ["fa-v2-stop"], max_instances=2)
    >>> len(t), list(t.columns)
    (1, ['model', 'variant', 'story', 'raw', 'context'])
    """
    unknown = set(variants) - set(VARIANTS)
    if unknown:
        raise ValueError(f"variants: unknown {sorted(unknown)}; use {sorted(VARIANTS)}")
    parts = []
    for name in variants:
        settings = dict(VARIANTS[name])
        split = settings.pop("split")
        if split not in benches:
            continue
        items = stories(benches[split], max_instances=max_instances, prompt_version=settings.pop("prompt_version"),
                        answer_in_persian=settings.pop("answer_in_persian", True))
        out = run_generation(model, items, **settings)
        parts.append(pd.DataFrame({"model": model.spec, "variant": name, "story": out["id"], "raw": out["raw_output"],
                                   "context": [json.dumps({"options": list(o)}, ensure_ascii=False)
                                               for o in out["options"]]}))
    if not parts:
        return pd.DataFrame(columns=COLUMNS)
    return pd.concat(parts, ignore_index=True).drop_duplicates(["model", "raw"]).reset_index(drop=True)

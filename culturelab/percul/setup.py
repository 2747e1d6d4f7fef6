"""The PERCUL notebooks' allowed parameter values, in one place, and their one entry point.

``culturelab check`` / ``culturelab run`` / ``start_run`` apply :data:`CHOICES` (and
:func:`check`) to every ``notebooks/percul/*`` notebook before any model loads; each notebook
then calls :func:`open` to get its data.

>>> from culturelab.params import check_choices
>>> check_choices({"split": "persian", "methods": ["generate", "guess"]}, CHOICES)
["split: 'persian' is not one of original_persian, gpt_english_translation", "methods: ['guess'] not allowed; choose from generate, loglikelihood"]
>>> check("03_translation", {"method": "loglikelihood", "loglik_target": "number"})
["loglik_target: 'number' scores the option numerals, which differ between the two splits; use 'text' here"]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from culturelab.data.sources import DATA_SOURCES
from culturelab.params import Choice, one_of
from culturelab.percul import distractors, paper, prompts, robustness, scoring
from culturelab.percul.data import SPLITS, Benchmark, load, load_pair


def _table5_rows(value: Any) -> str | None:
    """``radar_rows``: Table 5 rows evaluated in Persian (empty: Figure 15's models)."""
    return one_of(paper.table5_wide(paper.PERSIAN)["model"], empty_ok=True).problem(value)


CHOICES: dict[str, Choice] = {
    "data_source": one_of(DATA_SOURCES),
    "split": one_of(SPLITS),
    "methods": one_of(scoring.METHODS),
    "method": one_of(scoring.METHODS),
    "prompt_version": one_of(prompts.VERSIONS),
    "loglik_target": one_of(scoring.LOGLIK_TARGETS),
    "invalid_policy": one_of(scoring.INVALID_POLICIES),
    # notebook 05 asks every story under several orders: "none" (the stored order only) is not a choice there
    "permutations": one_of(s for s in robustness.SCHEMES if s != "none"),
    "fig16_row_order": one_of(paper.FIG16_ORDERS),
    "fig8_pooling": one_of(distractors.POOLINGS),
    "radar_rows": _table5_rows,
}


def check(topic: str, params: Mapping[str, Any]) -> list[str]:
    """Rules that tie several keys: notebook 03 scores both splits in one call, so the option
    numerals (۱–۴ in Persian, 1–4 in English) cannot be the log-likelihood target there.

    >>> check("03_translation", {"method": "generate", "loglik_target": "number"})
    []
    """
    if (topic == "03_translation" and params.get("method") == "loglikelihood"
            and params.get("loglik_target") == "number"):
        return ["loglik_target: 'number' scores the option numerals, which differ between the two splits; "
                "use 'text' here"]
    return []


def open(run: Any, split: str | None = None, pair: bool = False) -> Benchmark | tuple[Benchmark, Benchmark]:
    """The notebook's data, with ``sample``/``released`` stamped on ``run``: one split (``split``,
    else the ``split`` parameter, else ``original_persian``) or both (``pair=True``, paired by
    story ID), from the ``data_source`` and ``data_dir`` parameters (see
    :func:`culturelab.percul.data.load`).

    >>> class Run:
    ...     params = {"data_source": "sample", "data_dir": ""}
    ...     def set_data_source(self, source): self.stamp = source
    >>> run = Run()
    >>> bench = open(run, split="gpt_english_translation")
    >>> bench.split, run.stamp
    ('gpt_english_translation', 'sample')
    """
    params = run.params
    where = {"data_source": params.get("data_source", "auto"), "data_dir": params.get("data_dir", "")}
    if pair:
        fa, en = load_pair(**where)
        run.set_data_source(fa.source)
        return fa, en
    bench = load(split or params.get("split", SPLITS[0]), **where)
    run.set_data_source(bench.source)
    return bench

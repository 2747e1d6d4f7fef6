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
from dataclasses import replace
from typing import Any

from culturelab.data.sources import DATA_SOURCES
from culturelab.params import Choice, one_of
from culturelab.percul import distractors, paper, prompts, robustness, scoring
from culturelab.percul.data import CATEGORIES, SPLITS, Benchmark, load, load_pair, table1_mismatches
from culturelab.percul.protocol import locate, release_counts
from culturelab.percul.scoring import subset


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
    """The notebook's data, restricted to the stories it asks and stamped on ``run``: one split
    (``split``, else the ``split`` parameter, else ``original_persian``) or both (``pair=True``,
    the same stories in each, paired by story ID), from the ``data_source`` and ``data_dir``
    parameters (:func:`culturelab.percul.data.load`), cut to ``max_instances`` stories
    (:func:`culturelab.percul.scoring.subset`, round-robin over the categories; 0 = all).

    The run is stamped with ``sample``/``released``, the stories used and, for a release, how
    many of its 11 categories hold Table 1's count (:func:`culturelab.percul.protocol.release_counts`:
    a release cut down by ``max_instances`` reads "N of 592 stories", never the paper's data),
    and where the data came from; the Table 1 check of a release is printed.

    >>> class Run:
    ...     notebook = "percul/01_benchmark"
    ...     params = {"data_source": "sample", "data_dir": "", "max_instances": 3}
    ...     def set_data_source(self, source, counts, note): self.stamp = (source, counts["stories"])
    >>> run = Run()
    >>> bench = open(run, split="gpt_english_translation")
    >>> bench.split, len(bench.items), run.stamp
    ('gpt_english_translation', 3, ('sample', 3))
    """
    params = run.params
    where = {"data_source": params.get("data_source", "auto"), "data_dir": params.get("data_dir", "")}
    located = locate(run.notebook.rpartition("/")[2], params)
    benches = load_pair(**where) if pair else (load(split or params.get("split", SPLITS[0]), **where),)
    first = benches[0]
    matching = len(CATEGORIES)
    if first.source == "released":
        mismatches = table1_mismatches(first.items)
        matching -= len(mismatches)
        print(f"Table 1 check of {first.location}: {len(first.items)} stories; "
              + (f"{matching} of {len(CATEGORIES)} categories hold Table 1's count; differ (ours, Table 1): "
                 f"{mismatches}" if mismatches else f"every category holds Table 1's count ({len(CATEGORIES)})"))
    chosen = subset(first.items, params.get("max_instances", 0))["id"]
    benches = tuple(replace(b, items=b.items.set_index("id", drop=False).loc[chosen].reset_index(drop=True))
                    for b in benches)
    run.set_data_source(first.source, counts=release_counts(len(chosen), matching), note=located.note)
    return benches if pair else benches[0]

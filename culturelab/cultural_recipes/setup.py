"""The CulturalRecipes notebooks' allowed parameter values, in one place, and their one entry point.

``culturelab check`` / ``culturelab run`` / ``start_run`` apply :data:`CHOICES` (and
:func:`check`) to every ``notebooks/cultural_recipes/*`` notebook before any model loads; each
notebook then calls :func:`open` for its data. Nothing here imports torch.

>>> from culturelab.params import check_choices
>>> check_choices({"directions": ["zh2en", "fr2en"], "data_source": "download"}, CHOICES)
["data_source: 'download' is not one of auto, local, sample", "directions: ['fr2en'] not allowed; choose from zh2en, en2zh"]
>>> check("01_bli_alignment", {"zh_corpus": "zh.jsonl", "en_corpus": ""})
['en_corpus: give both corpus paths (zh_corpus and en_corpus) or neither']
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from culturelab.cultural_recipes import adaptation, evaluation, lexicon
from culturelab.cultural_recipes.corpus import Corpora, corpora
from culturelab.cultural_recipes.data import DATA_SOURCES, DIRECTIONS, data_source_of, load_split
from culturelab.embeddings.presets import MODES
from culturelab.params import Choice, one_of

#: the splits notebook 02 adapts (the human-checked test sets)
ADAPTATION_SPLITS = ("gold", "silver")

CHOICES: dict[str, Choice] = {
    "data_source": one_of(DATA_SOURCES),
    # 01_bli_alignment
    "mode": one_of(MODES),
    "real_vectors_modes": one_of(MODES, empty_ok=True),
    "seed_variant": one_of(lexicon.SEED_VARIANTS),
    # 02_adaptation
    "directions": one_of(DIRECTIONS),
    "split": one_of(ADAPTATION_SPLITS),
    "style": one_of(adaptation.STYLES),
    "compat": one_of(("corrected", *evaluation.COMPAT)),
}


def check(topic: str, params: Mapping[str, Any]) -> list[str]:
    """Rules that tie several keys: notebook 01 reads both corpus files or neither.

    >>> check("01_bli_alignment", {"zh_corpus": "", "en_corpus": ""})
    []
    """
    if bool(params.get("zh_corpus")) != bool(params.get("en_corpus")):
        missing = "en_corpus" if params.get("zh_corpus") else "zh_corpus"
        return [f"{missing}: give both corpus paths (zh_corpus and en_corpus) or neither"]
    return []


def open(run: Any) -> Corpora | tuple[dict[str, pd.DataFrame], dict[str, pd.DataFrame]]:
    """The notebook's data, with ``released``/``sample`` (``mixed`` when the directions differ)
    stamped on ``run``, from its parameters:

    * ``01_bli_alignment`` — the two monolingual corpora (:func:`~culturelab.cultural_recipes.corpus.corpora`:
      the ``zh_corpus``/``en_corpus`` files, else our toy sample), ``max_recipes`` recipes each;
    * ``02_adaptation`` — per direction, the first ``max_recipes`` (0 = all) recipes of ``split``,
      and the whole silver split (the *Retrieval* system's pool), from ``data_source``/``data_dir``.

    >>> class Run:
    ...     notebook = "cultural_recipes/02_adaptation"
    ...     params = {"data_source": "sample", "data_dir": "", "directions": ["en2zh"], "split": "gold",
    ...               "max_recipes": 2}
    ...     def set_data_source(self, source): self.stamp = source
    >>> run = Run()
    >>> data, silver = open(run)
    >>> len(data["en2zh"]), len(silver["en2zh"]), run.stamp
    (2, 5, 'sample')
    """
    params = run.params
    topic = run.notebook.rsplit("/", 1)[-1]
    if topic == "01_bli_alignment":
        found = corpora(params["zh_corpus"], params["en_corpus"], max_recipes=params["max_recipes"],
                        seed=params["seed"])
        run.set_data_source(found.data_source)
        return found
    where = {"data_source": params["data_source"], "data_dir": params["data_dir"]}
    data = {d: load_split(d, params["split"], **where) for d in params["directions"]}
    silver = {d: load_split(d, "silver", **where) for d in params["directions"]}
    if params["max_recipes"]:
        data = {d: t.head(params["max_recipes"]) for d, t in data.items()}
    run.set_data_source(data_source_of(data.values()))
    return data, silver

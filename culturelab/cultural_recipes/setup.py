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
from typing import Any, NamedTuple

import pandas as pd

from culturelab.cultural_recipes import adaptation, evaluation, lexicon, protocol
from culturelab.cultural_recipes.corpus import Corpora, corpora
from culturelab.cultural_recipes.data import DATA_SOURCES, DIRECTIONS, load_split
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
    "figure4_split": one_of(ADAPTATION_SPLITS),
    "zh_rouge_tokenizer": one_of(evaluation.ZH_ROUGE_TOKENIZERS),
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


class Splits(NamedTuple):
    """Notebook 02's data, per direction: the first ``max_recipes`` recipes of ``split`` (adapted
    and scored), the whole silver split (the *Retrieval* system's pool, used on the gold split
    only) and the first
    ``max_recipes`` of ``figure4_split`` (Figure 4's source recipes)."""

    data: dict[str, pd.DataFrame]
    silver: dict[str, pd.DataFrame]
    figure4: dict[str, pd.DataFrame]


def open(run: Any) -> Corpora | Splits:
    """The notebook's data, stamped on ``run`` with where it came from (``released``, ``sample``,
    ``mixed``, and a note saying which file is which) and, for notebook 02, the source recipes of
    each split and direction it used (:func:`~culturelab.cultural_recipes.protocol.recipes_key`:
    a cut release is a subset in every label):

    * ``01_bli_alignment`` — the two monolingual corpora (:func:`~culturelab.cultural_recipes.corpus.corpora`:
      the ``zh_corpus``/``en_corpus`` files, else our toy sample), ``max_recipes`` recipes each;
    * ``02_adaptation`` — :class:`Splits` from ``data_source``/``data_dir``.

    >>> class Run:
    ...     notebook = "cultural_recipes/02_adaptation"
    ...     params = {"data_source": "sample", "data_dir": "", "directions": ["en2zh"], "split": "gold",
    ...               "figure4_split": "silver", "max_recipes": 2}
    ...     def set_data_source(self, source, counts=None, note=""): self.stamp = source, counts
    >>> run = Run()
    >>> data, silver, figure4 = open(run)
    >>> len(data["en2zh"]), len(silver["en2zh"]), figure4["en2zh"]["split"].iloc[0], run.stamp
    (2, 5, 'silver', ('sample', {'gold en→zh recipes': 2, 'silver en→zh recipes': 2, 'gold en→zh recipes found in the Retrieval pool': 2}))
    """
    params = run.params
    topic = run.notebook.rsplit("/", 1)[-1]
    if topic == "01_bli_alignment":
        chosen = corpora(params["zh_corpus"], params["en_corpus"], max_recipes=params["max_recipes"],
                         seed=params["seed"])
        run.set_data_source(chosen.data_source, note=protocol.locate(topic, params).note)
        return chosen
    where = {"data_source": params["data_source"], "data_dir": params["data_dir"]}
    found: dict[tuple[str, str], str] = {}

    def read(split: str, cut: int = 0) -> dict[str, pd.DataFrame]:
        tables = {d: load_split(d, split, **where) for d in params["directions"]}
        found.update({(split, d): t.attrs["data_source"] for d, t in tables.items()})
        return {d: t.head(cut) if cut else t for d, t in tables.items()}

    data = read(params["split"], params["max_recipes"])
    figure4 = read(params["figure4_split"], params["max_recipes"])
    silver = read("silver")
    source, note = protocol.source_note(found, params["data_source"])
    counts = {protocol.recipes_key(split, d): len(t) for split, part in ((params["split"], data),
                                                                         (params["figure4_split"], figure4))
              for d, t in part.items()}
    if params["split"] == "gold":  # the gold recipes Retrieval finds in its pool (its rows' counts)
        counts |= {protocol.retrieval_key(d): int(t["recipe_id"].isin(silver[d]["recipe_id"]).sum())
                   for d, t in data.items()}
    run.set_data_source(source, counts=counts, note=note)
    return Splits(data, silver, figure4)

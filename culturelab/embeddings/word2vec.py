"""Monolingual word2vec with gensim, on streamed recipe corpora.

The paper's settings (CulturalRecipes §4.1, fn. 10) are the defaults: skip-gram, 300 dimensions,
5 epochs, min count 10, window 5, 10 negative samples. Corpora are streamed
(:class:`SentenceStream` re-reads the file on every pass), or tokenised once into a
one-sentence-per-line file (:func:`write_tokenized`) that gensim reads with its fast
``corpus_file`` mode — millions of recipes never sit in memory. A progress bar counts epochs.

Tokenisation: jieba for Chinese (default mode, HMM on), lower-cased regex words and numbers for
English (numbers are kept: the paper's Table 2 shows "350"). One sentence per title, ingredient
line and step.

>>> tokenize_en("Bake at 350 degrees, don't stir!")
['bake', 'at', '350', 'degrees', "don't", 'stir']
>>> tokenize_zh("将豆腐切块，蒸10分钟")
['将', '豆腐', '切块', '蒸', '10', '分钟']
>>> list(recipe_sentences({"title": "Red Bean Soup", "ingredients": ["1 cup beans"], "steps": ["Boil."]}, "en"))
[['red', 'bean', 'soup'], ['1', 'cup', 'beans'], ['boil']]
"""

from __future__ import annotations

import os
import re
import zlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

#: CulturalRecipes §4.1 / fn. 10, as gensim 4 arguments
PAPER_SETTINGS: dict[str, Any] = {"sg": 1, "hs": 0, "vector_size": 300, "epochs": 5, "min_count": 10, "window": 5,
                                  "negative": 10}

_EN_TOKEN = re.compile(r"[a-z]+(?:'[a-z]+)?|[0-9]+(?:[./][0-9]+)?")
_KEEP_ZH = re.compile(r"[\u3400-\u9fff\w]")


def tokenize_en(text: str) -> list[str]:
    """Lower-cased words (with inner apostrophes) and numbers (``1/2`` and ``2.5`` kept whole)."""
    return _EN_TOKEN.findall(text.lower())


def tokenize_zh(text: str) -> list[str]:
    """jieba segments, punctuation and spaces dropped, Latin letters lower-cased."""
    from culturelab.data.cultural_recipes import jieba

    return [t.lower() for t in jieba().lcut(text) if t.strip() and _KEEP_ZH.search(t)]


TOKENIZERS: dict[str, Callable[[str], list[str]]] = {"en": tokenize_en, "zh": tokenize_zh}


def tokenizer(lang: str) -> Callable[[str], list[str]]:
    """The tokeniser of a language (``en`` or ``zh``)."""
    if lang not in TOKENIZERS:
        raise ValueError(f"no tokenizer for {lang!r}; use one of {sorted(TOKENIZERS)}")
    return TOKENIZERS[lang]


def recipe_sentences(recipe: dict[str, Any], lang: str) -> Iterator[list[str]]:
    """Token lists for a recipe's title, each ingredient line and each step (empty ones skipped)."""
    tok = tokenizer(lang)
    for text in [recipe.get("title") or "", *recipe.get("ingredients", []), *recipe.get("steps", [])]:
        tokens = tok(text)
        if tokens:
            yield tokens


class SentenceStream:
    """A restartable iterable of token lists: gensim iterates it once per epoch (plus once to
    build the vocabulary), so nothing is held in memory.

    ``recipes`` is a corpus file (anything :func:`culturelab.data.cultural_recipes.iter_recipes`
    reads) or a zero-argument callable returning a fresh iterable of recipe dicts.
    """

    def __init__(self, recipes: str | os.PathLike | Callable[[], Iterable[dict]], lang: str, *,
                 max_recipes: int | None = None, scope: str = "full"):
        self.recipes = recipes
        self.lang = lang
        self.max_recipes = max_recipes
        self.scope = scope
        tokenizer(lang)

    def _recipes(self) -> Iterable[dict]:
        if callable(self.recipes):
            source: Iterable[dict] = self.recipes()
            if self.max_recipes is not None:
                from itertools import islice

                source = islice(source, self.max_recipes)
            return source
        from culturelab.data.cultural_recipes import iter_recipes

        return iter_recipes(self.recipes, scope=self.scope, max_recipes=self.max_recipes)

    def __iter__(self) -> Iterator[list[str]]:
        for recipe in self._recipes():
            yield from recipe_sentences(recipe, self.lang)


def write_tokenized(sentences: Iterable[list[str]], path: str | os.PathLike) -> dict[str, int]:
    """Write one space-joined sentence per line (gensim's ``corpus_file`` format); returns counts.

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "c.txt")
    >>> write_tokenized([["a", "b"], ["c"]], p)
    {'sentences': 2, 'tokens': 3}
    """
    n_sent = n_tok = 0
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        for tokens in sentences:
            fh.write(" ".join(tokens) + "\n")
            n_sent += 1
            n_tok += len(tokens)
    return {"sentences": n_sent, "tokens": n_tok}


def _epoch_bar(total: int, desc: str, enabled: bool) -> Any:
    from gensim.models.callbacks import CallbackAny2Vec
    from tqdm.auto import tqdm

    class EpochBar(CallbackAny2Vec):
        def __init__(self) -> None:
            self.bar = None

        def on_train_begin(self, model: Any) -> None:
            self.bar = tqdm(total=total, desc=desc, unit="epoch", disable=not enabled, leave=False)

        def on_epoch_end(self, model: Any) -> None:
            self.bar.update(1)

        def on_train_end(self, model: Any) -> None:
            self.bar.close()

    return EpochBar()


def stable_hash(text: str) -> int:
    """A process-independent string hash (gensim seeds each word's initial vector with
    ``hash(word + seed)``; Python's own ``hash`` changes with every interpreter run).

    >>> stable_hash("蒸1") == stable_hash("蒸1")
    True
    """
    return zlib.crc32(text.encode("utf-8"))


def train_word2vec(sentences: Iterable[list[str]] | None = None, *, corpus_file: str | os.PathLike | None = None,
                   seed: int = 0, workers: int = 1, progress: bool = True, **overrides: Any) -> Any:
    """Train word2vec with :data:`PAPER_SETTINGS` (overridable) and return its ``KeyedVectors``
    (vocabulary sorted by descending frequency, as alignment's vocabulary cut-off expects).

    Give either ``sentences`` (a restartable iterable such as :class:`SentenceStream`) or a
    tokenised ``corpus_file``. With ``workers=1`` (default) the result is bit-for-bit
    reproducible across runs (stable hash seeding); more workers are faster but not
    deterministic.

    >>> kv = train_word2vec([["salt", "egg"], ["egg", "salt"]] * 20, vector_size=8, min_count=1, epochs=2,
    ...                     progress=False)
    >>> sorted(kv.index_to_key), kv.vector_size
    (['egg', 'salt'], 8)
    """
    from gensim.models import Word2Vec

    if (sentences is None) == (corpus_file is None):
        raise ValueError("give exactly one of sentences= or corpus_file=")
    unknown = set(overrides) - {"sg", "hs", "vector_size", "epochs", "min_count", "window", "negative", "sample",
                                "alpha", "min_alpha", "max_vocab_size", "max_final_vocab", "ns_exponent"}
    if unknown:
        raise ValueError(f"unknown word2vec option(s) {sorted(unknown)}")
    settings = {**PAPER_SETTINGS, **overrides}
    callback = _epoch_bar(settings["epochs"], "word2vec", progress)
    model = Word2Vec(sentences=sentences, corpus_file=str(corpus_file) if corpus_file else None, seed=seed,
                     workers=workers, callbacks=[callback], hashfxn=stable_hash, **settings)
    return model.wv

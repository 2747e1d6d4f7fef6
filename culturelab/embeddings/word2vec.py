"""Monolingual word2vec with gensim, on streamed corpora.

Corpora are streamed (:class:`SentenceStream` re-reads its texts on every pass, tokenised by the
caller's tokeniser), or tokenised once into a one-sentence-per-line file
(:func:`write_tokenized`) that gensim reads with its fast ``corpus_file`` mode — millions of
documents never sit in memory. A progress bar counts epochs. What a sentence is and how it is
tokenised is the caller's choice (e.g. :mod:`culturelab.cultural_recipes.corpus` for recipes).

>>> list(SentenceStream(lambda: ["Red bean soup", "", "Boil."], str.split))
[['Red', 'bean', 'soup'], ['Boil.']]
"""

from __future__ import annotations

import inspect
import os
import zlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

#: the gensim options :func:`train_word2vec` accepts
OPTIONS = frozenset({"sg", "hs", "vector_size", "epochs", "min_count", "window", "negative", "sample", "alpha",
                     "min_alpha", "max_vocab_size", "max_final_vocab", "ns_exponent"})


class SentenceStream:
    """A restartable iterable of token lists: gensim iterates it once per epoch (plus once to
    build the vocabulary), so nothing is held in memory.

    ``texts`` is a zero-argument callable returning a fresh iterable of sentences (strings);
    ``tokenize`` turns one into tokens; sentences without tokens are skipped.
    """

    def __init__(self, texts: Callable[[], Iterable[str]], tokenize: Callable[[str], list[str]]):
        self.texts = texts
        self.tokenize = tokenize

    def __iter__(self) -> Iterator[list[str]]:
        for text in self.texts():
            tokens = self.tokenize(text)
            if tokens:
                yield tokens


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
                   seed: int = 0, workers: int = 1, progress: bool = True, **options: Any) -> Any:
    """Train word2vec (gensim's defaults, with any of :data:`OPTIONS` set) and return its
    ``KeyedVectors`` (vocabulary sorted by descending frequency, as alignment's vocabulary
    cut-off expects).

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
    unknown = set(options) - OPTIONS
    if unknown:
        raise ValueError(f"unknown word2vec option(s) {sorted(unknown)}")
    epochs = options.get("epochs", inspect.signature(Word2Vec).parameters["epochs"].default)
    callback = _epoch_bar(epochs, "word2vec", progress)
    model = Word2Vec(sentences=sentences, corpus_file=str(corpus_file) if corpus_file else None, seed=seed,
                     workers=workers, callbacks=[callback], hashfxn=stable_hash, **options)
    return model.wv

"""The paper's §4 pipeline: monolingual word2vec → mapping with 15 seed pairs → top-5 BLI of the
100 most frequent Chinese content words → Table 2 view and P@5.

:func:`embed_corpus` tokenises a corpus once (jieba / regex) into ``<cache>/corpora`` and trains
word2vec from that file (gensim ``corpus_file`` mode); :func:`align_and_translate` maps zh onto
en and retrieves the neighbours of the queries; :func:`bli_summary` puts P@k next to the paper's
68 %. The automatic label (``literal`` / ``cultural`` / ``error``) uses CC-CEDICT and our
taxonomy; ``manual_label`` stays empty for the human pass the paper made.

>>> r = paper_bli_reference()
>>> r["p_at_5"], r["cultural"], r["error"]
(0.68, 26, 6)
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from culturelab import config
from culturelab.cultural_recipes import corpus as corpus_mod
from culturelab.cultural_recipes import lexicon
from culturelab.embeddings import bli
from culturelab.embeddings.align import AlignmentResult, VecMap
from culturelab.embeddings.vectors import Embeddings
from culturelab.embeddings.word2vec import SentenceStream, train_word2vec, write_tokenized


def paper_bli_reference() -> dict[str, Any]:
    """The paper's §4.2 numbers: P@5 over 100 queries, and the split of the 32 misses."""
    return {"queries": 100, "k": 5, "p_at_5": 0.68, "misses": 32, "cultural": 26, "error": 6}


def embed_corpus(recipes: str | os.PathLike | Callable[[], Iterable[dict]], lang: str, *, name: str,
                 max_recipes: int | None = None, scope: str = "full", seed: int = 0, workers: int = 1,
                 progress: bool = True, **w2v: Any) -> tuple[Embeddings, dict[str, int]]:
    """Tokenise a corpus (file or recipe factory) once and train word2vec on it.

    Returns the embeddings (most frequent first; ``Embeddings.name`` records the corpus) and
    the word counts of its vocabulary. The tokenised file is cached under
    ``<cache>/corpora/<name>-<hash>.txt`` keyed by the source, language and size.
    """
    key = json.dumps({"src": str(recipes) if not callable(recipes) else name, "lang": lang, "max": max_recipes,
                      "scope": scope}, sort_keys=True)
    if not callable(recipes):
        stat = Path(recipes).stat()
        key += f"{stat.st_size}-{stat.st_mtime_ns}"
    tokenized = config.cache_dir() / "corpora" / f"{name}-{hashlib.sha256(key.encode()).hexdigest()[:12]}.txt"
    stream = SentenceStream(recipes, lang, max_recipes=max_recipes, scope=scope)
    if not tokenized.is_file() or callable(recipes):
        tmp = tokenized.with_suffix(".part")
        write_tokenized(stream, tmp)
        tmp.replace(tokenized)
    kv = train_word2vec(corpus_file=tokenized, seed=seed, workers=workers, progress=progress, **w2v)
    counts = {w: int(kv.get_vecattr(w, "count")) for w in kv.index_to_key}
    return Embeddings.from_keyed_vectors(kv, lang, name), counts


def select_queries(counts: dict[str, int], *, n: int = 100, seed_variant: str = "paper") -> list[str]:
    """The paper's queries: the ``n`` most frequent Chinese content words, seed words excluded."""
    return corpus_mod.content_words(counts, n=n, exclude={zh for zh, _ in lexicon.seed_pairs(seed_variant)})


def align_and_translate(zh: Embeddings, en: Embeddings, queries: list[str], *, mode: str = "semi_supervised",
                        seed_variant: str = "paper", k: int = 5, retrieval: str = "nn", device: str = "auto",
                        seed: int = 0, progress: bool = True, literal: dict[str, set[str]] | None = None,
                        cultural: dict[str, set[str]] | None = None, **overrides: Any
                        ) -> tuple[AlignmentResult, pd.DataFrame, pd.DataFrame]:
    """Map zh → en (Chinese is the query side, as in the paper) and list each query's top-``k``
    English neighbours. Returns the fit, the long neighbour table and the Table 2 view.

    ``literal``/``cultural`` default to CC-CEDICT glosses and our taxonomy.
    """
    seeds = lexicon.seed_pairs(seed_variant) if mode not in {"identical", "unsupervised"} else None
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # OOV seed pairs are reported in the summary
        result = VecMap(mode, device=device, seed=seed, progress=progress, **overrides).fit(
            zh.vectors, en.vectors, seeds, src_words=zh.words, trg_words=en.words)
    table = bli.neighbours(queries, result.xw, result.zw, zh.words, en.words, k=k, retrieval=retrieval,
                           device=device)
    literal = literal if literal is not None else lexicon.literal_translations(queries, seed_variant=seed_variant)
    cultural = cultural if cultural is not None else lexicon.cultural_equivalents(queries, literal)
    view = bli.table2_view(table, literal, cultural, k=k)
    return result, table, view


def bli_summary(view: pd.DataFrame, *, k: int = 5) -> pd.DataFrame:
    """P@k and the literal / cultural / error split of a Table 2 view, beside the paper's.

    >>> v = pd.DataFrame({"label": ["literal"] * 3 + ["cultural", "error"]})
    >>> bli_summary(v).set_index("quantity")["ours"].to_dict()
    {'P@5': 0.6, 'queries': 5.0, 'cultural (of misses)': 1.0, 'error (of misses)': 1.0}
    """
    ref = paper_bli_reference()
    n = len(view)
    counts = view["label"].value_counts()
    rows = [("P@5", float(counts.get("literal", 0)) / n if n else np.nan, ref["p_at_5"]),
            ("queries", float(n), float(ref["queries"])),
            ("cultural (of misses)", float(counts.get("cultural", 0)), float(ref["cultural"])),
            ("error (of misses)", float(counts.get("error", 0)), float(ref["error"]))]
    if k != 5:
        rows[0] = (f"P@{k}", rows[0][1], np.nan)
    table = pd.DataFrame(rows, columns=["quantity", "ours", "reported"])
    table["delta"] = table["ours"] - table["reported"]
    return table

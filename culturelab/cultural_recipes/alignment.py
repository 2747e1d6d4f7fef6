"""The paper's §4 pipeline: monolingual word2vec → mapping with 15 seed pairs → top-5 BLI of the
100 most frequent Chinese content words → Table 2 view and P@5.

:func:`embed_corpus` tokenises a corpus once (jieba / regex) into ``<cache>/corpora`` and trains
word2vec from that file (gensim ``corpus_file`` mode) with the paper's settings
(:data:`WORD2VEC`); :func:`align_and_translate` maps zh onto en and retrieves the neighbours of
the queries; :func:`bli_summary` and :func:`label_shares` put ours next to the paper's §4.2
numbers (``culturelab/reported/cultural_recipes/bli.csv``). The automatic label (``literal`` /
``cultural`` / ``error``) uses CC-CEDICT and our taxonomy; ``manual_label`` stays empty for the
human pass the paper made.

>>> reported_bli()[["P@5", "cultural (of misses)", "error (of misses)"]].tolist()
[0.68, 26.0, 6.0]
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from culturelab import config
from culturelab.cultural_recipes import corpus as corpus_mod
from culturelab.cultural_recipes import lexicon
from culturelab.cultural_recipes.corpus import Corpora, Recipes
from culturelab.embeddings import bli
from culturelab.embeddings.align import AlignmentResult, VecMap
from culturelab.embeddings.vectors import Embeddings
from culturelab.embeddings.word2vec import train_word2vec, write_tokenized
from culturelab.reported import load as load_reported

#: the paper's word2vec (§4.1, fn. 10) as gensim 4 options: skip-gram, 300 dimensions, 5 epochs,
#: min count 10, window 5, 10 negative samples
WORD2VEC: dict[str, Any] = {"sg": 1, "hs": 0, "vector_size": 300, "epochs": 5, "min_count": 10, "window": 5,
                            "negative": 10}


def reported_bli() -> pd.Series:
    """The paper's §4.2 numbers (``reported/cultural_recipes/bli.csv``) by quantity: P@5 over
    the queries, and the split of the misses into cultural equivalents and errors.

    >>> reported_bli()[["queries", "P@5"]].tolist()
    [100.0, 0.68]
    """
    return load_reported("cultural_recipes", "bli").set_index("quantity")["value"]


def embed_corpus(recipes: Recipes, lang: str, *, name: str, max_recipes: int | None = None, scope: str = "full",
                 seed: int = 0, workers: int = 1, progress: bool = True, **w2v: Any
                 ) -> tuple[Embeddings, dict[str, int]]:
    """Tokenise a corpus (file or recipe factory) once and train word2vec on it with
    :data:`WORD2VEC` (``w2v`` overrides any of them).

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
    if not tokenized.is_file() or callable(recipes):
        tmp = tokenized.with_suffix(".part")
        write_tokenized(corpus_mod.sentences(recipes, lang, max_recipes=max_recipes, scope=scope), tmp)
        tmp.replace(tokenized)
    kv = train_word2vec(corpus_file=tokenized, seed=seed, workers=workers, progress=progress, **{**WORD2VEC, **w2v})
    counts = {w: int(kv.get_vecattr(w, "count")) for w in kv.index_to_key}
    return Embeddings.from_keyed_vectors(kv, lang, name), counts


def embed_corpora(corpora: Corpora, **kw: Any) -> tuple[Embeddings, Embeddings, dict[str, int]]:
    """:func:`embed_corpus` on both corpora of a run: the Chinese and English embeddings and
    the Chinese word counts (the queries are chosen from them)."""
    zh, zh_counts = embed_corpus(corpora.zh, "zh", name=f"{corpora.name}-zh", max_recipes=corpora.max_recipes, **kw)
    en, _ = embed_corpus(corpora.en, "en", name=f"{corpora.name}-en", max_recipes=corpora.max_recipes, **kw)
    return zh, en, zh_counts


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
    ref = reported_bli()
    n = len(view)
    counts = view["label"].value_counts()
    rows = [("P@5", float(counts.get("literal", 0)) / n if n else np.nan, float(ref["P@5"])),
            ("queries", float(n), float(ref["queries"])),
            ("cultural (of misses)", float(counts.get("cultural", 0)), float(ref["cultural (of misses)"])),
            ("error (of misses)", float(counts.get("error", 0)), float(ref["error (of misses)"]))]
    if k != ref["k"]:
        rows[0] = (f"P@{k}", rows[0][1], np.nan)
    table = pd.DataFrame(rows, columns=["quantity", "ours", "reported"])
    table["delta"] = table["ours"] - table["reported"]
    return table


def label_shares(view: pd.DataFrame, ours: str) -> pd.DataFrame:
    """Share of queries per label (``literal``, ``cultural``, ``error``) in a Table 2 view
    (``source = ours``) and in the paper (the §4.2 counts over its queries).

    >>> t = label_shares(pd.DataFrame({"label": ["literal", "literal", "error", "literal"]}), "ours")
    >>> t.pivot(index="label", columns="source", values="share").round(2).to_dict("index")["error"]
    {'ours': 0.25, 'paper (Table 2, 100 queries)': 0.06}
    """
    ref = reported_bli()
    shares = view["label"].value_counts(normalize=True).reindex(list(bli.LABELS), fill_value=0)
    mine = shares.rename_axis("label").reset_index(name="share").assign(source=ours)
    paper = [ref["P@5"], ref["cultural (of misses)"] / ref["queries"], ref["error (of misses)"] / ref["queries"]]
    theirs = pd.DataFrame({"label": list(bli.LABELS), "share": paper,
                           "source": f"paper (Table 2, {int(ref['queries'])} queries)"})
    return pd.concat([mine, theirs], ignore_index=True)

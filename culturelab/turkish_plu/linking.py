"""Linking actions: retrieve the goal a step links to from a pool of goal titles; R@n.

The paper's pool is every goal title of the merged corpus (~51.5K); ours is the released
translated titles (49,562) plus the original corpus titles (2,009), normalised as the paper's
retrieval script does (no "How to", "- wikiHow", "?"), with any test gold missing from it
added (counted). Retrievers:

* :func:`bm25_scores` — BM25+ (the paper's BM25 variant, from ``rank_bm25``'s ``BM25Plus``) via
  :mod:`bm25s` (sparse matrices; the same scores as ``rank_bm25``, much faster);
* :func:`dense_scores` — cosine of sentence embeddings (e.g. ``bundled:e5-small``, query/passage
  prefixes) from :mod:`culturelab.models.encoders`.

R@n = share of steps whose gold goal is among the top ``n`` (:func:`culturelab.metrics.retrieval.recall_at_n`).

>>> pool = ["Yazıcı Kurmak", "Kek Pişirmek", "Köpek Eğitmek"]
>>> s = bm25_scores(["Yazıcı kablosunu bilgisayara tak.", "Köpeğine mama ver."], pool)
>>> recall_table(s, gold_index(["Yazıcı Kurmak", "Kek Pişirmek"], pool), ns=(1,))["value"].tolist()
[50.0, 0.75]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from culturelab.metrics.generation import UnicodeTokenizer
from culturelab.reported import compare, load
from culturelab.turkish_plu.data import normalise_title

NS = (1, 10, 30)
#: the Table 5 rows shown beside ours: BM25 (the Δ of our full-pool runs) and the best retriever (for scale)
BM25_ROW, BEST_ROW = "BM25", "Sup. SimCSE-TR BERTurk"


def build_pool(*title_lists: Sequence[str], golds: Sequence[str] = ()) -> tuple[list[str], int]:
    """Unique normalised titles of all lists (first occurrence order), plus the golds that were
    missing; returns ``(pool, n_added)``.

    >>> build_pool(["A Nasıl Yapılır?", "B"], ["B"], golds=["C"])
    (['A Nasıl Yapılır', 'B', 'C'], 1)
    """
    pool = list(dict.fromkeys(normalise_title(t) for titles in title_lists for t in titles if str(t).strip()))
    known = set(pool)
    missing = list(dict.fromkeys(g for g in (normalise_title(x) for x in golds) if g not in known))
    return pool + missing, len(missing)


def gold_index(golds: Sequence[str], pool: Sequence[str]) -> np.ndarray:
    """Position of each (normalised) gold title in the pool; a gold not in the pool is an error.

    >>> gold_index(["B Nasıl Yapılır?"], ["A", "B Nasıl Yapılır"]).tolist()
    [1]"""
    where = {t: i for i, t in enumerate(pool)}
    keys = [normalise_title(g) for g in golds]
    missing = [g for g in keys if g not in where]
    if missing:
        raise KeyError(f"{len(missing)} gold goals are not in the pool, e.g. {missing[0]!r}; build it with golds=")
    return np.array([where[g] for g in keys])


TOKENIZERS = ("whitespace", "unicode")


def tokenize(texts: Sequence[str], scheme: str = "unicode", prefix: int | None = None) -> list[list[str]]:
    """Tokens for BM25. ``unicode``: ``\\w+`` words with Turkish lower-casing, optionally cut to
    their first ``prefix`` letters (F5-style stemming when 5). ``whitespace``: ``text.split(" ")``,
    case and punctuation kept (the usage shown in ``rank_bm25``'s README).

    >>> tokenize(["Yazıcını kur."], "whitespace"), tokenize(["Yazıcını kur."], prefix=5)
    ([['Yazıcını', 'kur.']], [['yazıc', 'kur']])
    """
    if scheme == "whitespace":
        return [str(x).split(" ") for x in texts]
    if scheme != "unicode":
        raise ValueError(f"scheme must be one of {TOKENIZERS}, not {scheme!r}")
    tok = UnicodeTokenizer()
    return [[t[:prefix] if prefix else t for t in tok.tokenize(x)] for x in texts]


def bm25_scores(queries: Sequence[str], pool: Sequence[str], *, scheme: str = "unicode", prefix: int | None = None,
                k1: float = 1.5, b: float = 0.75, delta: float = 1.0) -> np.ndarray:
    """BM25+ score of every pool title for every query (queries × pool, float32); parameters are
    ``rank_bm25.BM25Plus``'s defaults; tokens from :func:`tokenize`.

    >>> int(np.argmax(bm25_scores(["kek tarifi"], ["Araba Yıkamak", "Kek Tarifi Hazırlamak"])[0]))
    1"""
    import bm25s

    retriever = bm25s.BM25(method="bm25+", k1=k1, b=b, delta=delta)
    retriever.index(tokenize(pool, scheme, prefix), show_progress=False)
    return np.stack([retriever.get_scores(q) for q in tokenize(queries, scheme, prefix)]).astype(np.float32) \
        if len(queries) else np.zeros((0, len(pool)), dtype=np.float32)


def dense_scores(queries: Sequence[str], pool: Sequence[str], encoder: str = "bundled:e5-small", *,
                 device: str = "auto") -> np.ndarray:
    """Cosine similarity of query (step) and passage (title) embeddings, queries × pool."""
    from culturelab.models.encoders import load_encoder

    enc = load_encoder(encoder, device=device)
    q = enc.encode(list(queries), role="query")
    p = enc.encode(list(pool), role="passage")
    return q @ p.T


def recall_table(scores: np.ndarray, gold: np.ndarray, ns: Sequence[int] = NS, *, groups: Sequence[str] | None = None
                 ) -> pd.DataFrame:
    """R@n (in %) and MRR for a score matrix and the gold column of each query, long form
    (``group, metric, value, n``); ``groups`` labels each query (e.g. its origin) for per-group rows
    in addition to ``all``.

    >>> recall_table(np.array([[0.2, 0.8]]), np.array([1]), ns=(1,))["value"].tolist()
    [100.0, 1.0]"""
    ranks = gold_ranks(scores, gold)  # one gold per query: R@n and MRR follow from its rank (no full sort)
    per_query = {f"R@{n}": 100.0 * (ranks <= n) for n in ns}
    per_query["MRR"] = 1.0 / ranks
    labels = np.asarray(groups) if groups is not None else None
    rows = []
    for group in ["all", *(sorted(set(labels)) if labels is not None else [])]:
        mask = np.ones(len(gold), bool) if group == "all" else labels == group
        rows += [{"group": group, "metric": m, "value": float(v[mask].mean()), "n": int(mask.sum())}
                 for m, v in per_query.items()]
    return pd.DataFrame(rows)


def small_pool(pool: Sequence[str], golds: Sequence[str], size: int, seed: int = 0) -> list[str]:
    """Every (normalised) gold title plus pool titles drawn with ``seed`` up to ``size`` in all —
    a cheaper candidate set for slow encoders (R@n is then higher than on the full pool).

    >>> small_pool(["a", "b", "c", "d"], ["c"], 2, seed=0)[0]
    'c'
    """
    golds = list(dict.fromkeys(normalise_title(g) for g in golds))
    gold_set = set(golds)
    rest = [t for t in pool if t not in gold_set]
    extra = max(0, min(size - len(golds), len(rest)))
    picked = np.sort(np.random.default_rng(seed).choice(len(rest), size=extra, replace=False)) if extra else []
    return golds + [rest[i] for i in picked]


def gold_ranks(scores: np.ndarray, gold: np.ndarray) -> np.ndarray:
    """1-based rank of each query's gold candidate, ties broken by candidate order (as
    :func:`culturelab.metrics.retrieval.recall_at_n` does).

    >>> gold_ranks(np.array([[0.1, 0.5, 0.5], [0.9, 0.2, 0.3]]), np.array([2, 0])).tolist()
    [2, 1]
    """
    rows = np.arange(len(gold))
    g = scores[rows, gold][:, None]
    before = np.arange(scores.shape[1])[None, :] < gold[:, None]
    return (scores > g).sum(axis=1) + ((scores == g) & before).sum(axis=1) + 1


def top_k(scores: np.ndarray, pool: Sequence[str], k: int = 3) -> list[list[str]]:
    """The ``k`` best pool titles of each query (for showing examples).

    >>> top_k(np.array([[0.1, 0.9, 0.5]]), ["a", "b", "c"], 2)
    [['b', 'c']]"""
    idx = np.argsort(-scores, axis=1, kind="stable")[:, :k]
    return [[pool[j] for j in row] for row in idx]


def _recall_over_all_queries(recall: pd.DataFrame) -> pd.DataFrame:
    return recall[(recall["group"] == "all") & (recall["metric"] != "MRR")]


def table5_beside(recall: pd.DataFrame) -> pd.DataFrame:
    """Each full-pool run of :func:`recall_table` (``system``, ``pool == "full"``, all queries)
    beside the paper's BM25 row of Table 5: ``metric, reported, ours, delta, system, paper_model``.

    >>> r = pd.DataFrame({"pool": "full", "group": "all", "system": "BM25+", "metric": ["R@1", "MRR"],
    ...                   "value": [5.0, 0.1]})
    >>> table5_beside(r).query("metric == 'R@1'")[["reported", "ours"]].values.tolist()
    [[4.5, 5.0]]
    """
    reported = load("turkish_plu", "table5")
    full = _recall_over_all_queries(recall[recall["pool"] == "full"])
    return pd.concat([compare(reported[reported["model"] == BM25_ROW], part, on=["metric"]).assign(system=name)
                      for name, part in full.groupby("system", sort=False)], ignore_index=True
                     ).assign(paper_model=BM25_ROW)


def recall_with_paper(recall: pd.DataFrame) -> pd.DataFrame:
    """R@n of the paper's :data:`BM25_ROW` and :data:`BEST_ROW` (``system`` "paper …") and of each of
    our runs over all queries (``system`` "<system> / <pool>"): ``system, metric, value``, for
    :func:`culturelab.turkish_plu.figures.recall_bars`.

    >>> r = pd.DataFrame({"pool": "full", "group": "all", "system": "BM25+", "metric": ["R@1"], "value": [5.0]})
    >>> recall_with_paper(r)["system"].unique().tolist()
    ['paper BM25', 'paper Sup. SimCSE-TR BERTurk', 'BM25+ / full']
    """
    reported = load("turkish_plu", "table5")
    paper = reported[reported["model"].isin([BM25_ROW, BEST_ROW])].assign(system=lambda d: "paper " + d["model"])
    ours = _recall_over_all_queries(recall).assign(system=lambda d: d["system"] + " / " + d["pool"])
    return pd.concat([paper, ours], ignore_index=True)[["system", "metric", "value"]]

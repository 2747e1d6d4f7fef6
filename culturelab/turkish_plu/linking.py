"""Linking actions: retrieve the goal a step links to from a pool of goal titles; R@n.

The paper's pool is every goal title of the merged corpus (~51.5K); ours is the released
translated titles (49,562) plus the original corpus titles (2,009), normalised as the paper's
retrieval script does (no "How to", "- wikiHow", "?"), with any test gold missing from it
added (counted). Retrievers:

* :func:`bm25_retriever` — BM25+ (the paper's BM25 variant, from ``rank_bm25``'s ``BM25Plus``) via
  :mod:`bm25s` (sparse matrices; the same scores as ``rank_bm25``, much faster);
* :func:`dense_retriever` — cosine of sentence embeddings (e.g. ``bundled:e5-small``, query/passage
  prefixes) from :mod:`culturelab.models.encoders`.

R@n = share of steps whose gold goal is among the top ``n``; MRR = mean 1 / rank of the gold.
Equal scores (frequent with BM25 on short titles) are taken in random order: each query counts
with its *expected* R@n and 1 / rank (:func:`recall_table`), so the numbers do not depend on the
order in which the pool happens to list its titles. Scores are computed ``block`` queries at a
time (:func:`rank_gold`): memory does not grow with queries × pool.

>>> pool = ["Yazıcı Kurmak", "Kek Pişirmek", "Köpek Eğitmek"]
>>> steps = ["Yazıcı kablosunu bilgisayara tak.", "Köpeğine mama ver."]
>>> ranks = rank_gold(bm25_retriever(pool), steps, gold_index(["Yazıcı Kurmak", "Kek Pişirmek"], pool))
>>> recall_table(ranks, ns=(1,))["value"].round(4).tolist()  # step 2 shares no word: 3 titles tie
[66.6667, 0.8056]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from culturelab.metrics.generation import UnicodeTokenizer
from culturelab.protocol import Deviations
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


def bm25_retriever(pool: Sequence[str], *, scheme: str = "unicode", prefix: int | None = None, k1: float = 1.5,
                   b: float = 0.75, delta: float = 1.0) -> Callable[[Sequence[str]], np.ndarray]:
    """A BM25+ index of ``pool`` (parameters: ``rank_bm25.BM25Plus``'s defaults; tokens from
    :func:`tokenize`) as a function: a block of queries → their scores (queries × pool, float32)."""
    import bm25s

    retriever = bm25s.BM25(method="bm25+", k1=k1, b=b, delta=delta)
    retriever.index(tokenize(pool, scheme, prefix), show_progress=False)

    def score(queries: Sequence[str]) -> np.ndarray:
        if not len(queries):
            return np.zeros((0, len(pool)), dtype=np.float32)
        return np.stack([retriever.get_scores(q) for q in tokenize(queries, scheme, prefix)]).astype(np.float32)
    return score


def bm25_scores(queries: Sequence[str], pool: Sequence[str], **kwargs: Any) -> np.ndarray:
    """BM25+ score of every pool title for every query (queries × pool, float32; keyword
    arguments of :func:`bm25_retriever`). For large query sets use :func:`rank_gold`, which
    scores in blocks.

    >>> int(np.argmax(bm25_scores(["kek tarifi"], ["Araba Yıkamak", "Kek Tarifi Hazırlamak"])[0]))
    1"""
    return bm25_retriever(pool, **kwargs)(queries)


def dense_retriever(pool: Sequence[str], encoder: str = "bundled:e5-small", *, device: str = "auto"
                    ) -> Callable[[Sequence[str]], np.ndarray]:
    """Cosine similarity of query (step) and passage (title) embeddings: the pool is embedded once
    (and cached on disk); the returned function scores a block of queries (queries × pool)."""
    from culturelab.models.encoders import load_encoder

    enc = load_encoder(encoder, device=device)
    passages = enc.encode(list(pool), role="passage")
    return lambda queries: enc.encode(list(queries), role="query") @ passages.T if len(queries) \
        else np.zeros((0, len(pool)), dtype=np.float32)


def rank_gold(score: Callable[[Sequence[str]], np.ndarray], queries: Sequence[str], gold: np.ndarray, *,
              block: int = 256, k: int = 3) -> pd.DataFrame:
    """Where each query's gold candidate ranks, scoring ``block`` queries at a time so that peak
    memory is ``block`` × pool, whatever the number of queries: ``above`` (candidates scored
    higher), ``tied`` (candidates with the gold's score, the gold included), ``expected_rank``
    (its rank when ties are ordered at random: ``above + (tied + 1) / 2``) and ``top`` (the
    indices of the ``k`` best candidates, ties in pool order, for showing examples).

    >>> r = rank_gold(lambda q: np.array([[0.2, 0.9, 0.9]] * len(q)), ["a", "b"], np.array([1, 0]), block=1, k=2)
    >>> r[["above", "tied", "expected_rank"]].values.tolist(), r["top"].tolist()
    ([[0.0, 2.0, 1.5], [2.0, 1.0, 3.0]], [[1, 2], [1, 2]])
    """
    from culturelab.metrics.retrieval import rank_counts

    gold = np.asarray(gold)
    parts = []
    for start in range(0, len(queries), block):
        scores = score(list(queries[start : start + block]))
        above, tied = rank_counts(scores, gold[start : start + len(scores)])
        top = np.argsort(-scores, axis=1, kind="stable")[:, :k]
        parts.append(pd.DataFrame({"above": above.astype(float), "tied": tied.astype(float), "top": top.tolist()}))
    out = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=["above", "tied", "top"])
    out.insert(2, "expected_rank", out["above"] + (out["tied"] + 1) / 2)
    return out


def recall_table(ranks: pd.DataFrame, ns: Sequence[int] = NS, *, groups: Sequence[str] | None = None,
                 seed: int = 0) -> pd.DataFrame:
    """R@n (in %) and MRR from :func:`rank_gold`'s ``above``/``tied``, equal scores taken in random
    order (their expectation, :func:`culturelab.metrics.retrieval.expected_recall`; a rule that
    does not depend on the order of the pool), long form with a 95 % CI over queries
    (:func:`culturelab.stats.summarise`: Wilson where every query's value is 0 or 1, e.g. R@n without
    ties, else bootstrap; ``group, metric, value, ci_low, ci_high, n``); ``groups`` labels each query (e.g. its
    origin) for per-group rows in addition to ``all``.

    >>> r = pd.DataFrame({"above": [0.0, 0.0], "tied": [1.0, 2.0]})
    >>> recall_table(r, ns=(1,))[["metric", "value"]].values.tolist()  # the tied gold is first half the time
    [['R@1', 75.0], ['MRR', 0.875]]"""
    from culturelab.metrics.retrieval import expected_recall, expected_reciprocal_rank
    from culturelab.stats import summarise

    above, tied = ranks["above"].to_numpy(), ranks["tied"].to_numpy()
    per_query = {f"R@{n}": expected_recall(above, tied, n) for n in ns}
    per_query["MRR"] = expected_reciprocal_rank(above, tied)
    labels = np.asarray(groups) if groups is not None else None
    rows = []
    for group in ["all", *(sorted(set(labels)) if labels is not None else [])]:
        mask = np.ones(len(ranks), bool) if group == "all" else labels == group
        for metric, values in per_query.items():
            s = summarise(pd.DataFrame({"v": values[mask]}), "v", seed=seed).iloc[0]
            scale = 1.0 if metric == "MRR" else 100.0  # R@n in %
            rows.append({"group": group, "metric": metric, "value": scale * s["mean"], "ci_low": scale * s["ci_low"],
                         "ci_high": scale * s["ci_high"], "n": int(s["n"])})
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


def comparison_pool(pool: Sequence[str], golds: Sequence[str], size: int, n_queries: int, n_steps: int,
                    seed: int = 0) -> tuple[list[str], str]:
    """The candidates of the dense-retriever comparison and its ``pool`` label: :func:`small_pool` of
    ``size`` titles, labelled by its size and the ``n_queries`` steps; with ``size = 0`` and every one
    of the ``n_steps`` test steps, the whole pool labelled ``"full"`` — the notebook's main comparison,
    whose runs the rerank may take as its first stage (as the paper reranks its best retriever's lists).

    >>> comparison_pool(["a", "b", "c", "d"], ["c"], 2, n_queries=1, n_steps=3)
    (['c', 'd'], '2 titles × 1 steps')
    >>> comparison_pool(["a", "b"], ["b"], 0, n_queries=3, n_steps=3)
    (['a', 'b'], 'full')
    """
    if size:
        cands = small_pool(pool, golds, size, seed)
        return cands, f"{len(cands):,} titles × {n_queries} steps"
    return list(pool), "full" if n_queries == n_steps else f"{len(pool):,} titles × {n_queries} steps"


def _recall_over_all_queries(recall: pd.DataFrame) -> pd.DataFrame:
    return recall[(recall["group"] == "all") & (recall["metric"] != "MRR")]


def beside_table5(recall: pd.DataFrame, paper_row: str, labels: Callable[[Mapping[str, Any]], Deviations],
                  model_row: str | None = None) -> pd.DataFrame:
    """Each run of :func:`recall_table` in ``recall`` (``system``, ``pool``; its R@n over all queries)
    beside the paper's Table 5 row ``paper_row`` (whose model is ``model_row``, ``None`` for BM25):
    ``metric, reported, ours, delta, data, protocol, model_status, comparable, system, pool,
    paper_model``, labelled by ``labels`` of the run's ``system`` and ``pool``; Δ only where data,
    protocol and model are the paper's.

    >>> from culturelab.protocol import DataUsed, Deviations
    >>> r = pd.DataFrame({"pool": "top 30", "group": "all", "system": "hf:x", "metric": ["R@1", "R@10"],
    ...                   "value": [30.0, 70.0]})
    >>> t = beside_table5(r, "+ BERTurk", lambda row: Deviations((), DataUsed("released"), "hf:x", ""), "BERTurk")
    >>> t[["metric", "reported", "ours", "model_status"]].values.tolist()[0]
    ['R@1', 40.5, 30.0, "hf:x beside the paper's BERTurk"]
    """
    reported = load("turkish_plu", "table5")
    rows = _recall_over_all_queries(recall)
    return pd.concat([compare(reported[reported["model"] == paper_row], part, on=["metric"], model_row=model_row,
                              deviations=labels({"system": system, "pool": pool})).assign(system=system, pool=pool)
                      for (system, pool), part in rows.groupby(["system", "pool"], sort=False)], ignore_index=True
                     ).assign(paper_model=paper_row)


def table5_beside(recall: pd.DataFrame, labels: Callable[[Mapping[str, Any]], Deviations]) -> pd.DataFrame:
    """Each full-pool BM25 run of :func:`recall_table` (``system``, ``pool == "full"``, all queries)
    beside the paper's BM25 row of Table 5 (:func:`beside_table5`), labelled by ``labels`` of the run's
    ``system`` and ``pool`` (:func:`culturelab.turkish_plu.protocol.linking_labels`); Δ only where
    data and protocol are the paper's.

    >>> from culturelab.protocol import DataUsed, Deviations
    >>> r = pd.DataFrame({"pool": "full", "group": "all", "system": "BM25+ whitespace", "metric": ["R@1", "MRR"],
    ...                   "value": [5.0, 0.1]})
    >>> t = table5_beside(r, lambda row: Deviations((), DataUsed("released")))
    >>> t.query("metric == 'R@1'")[["reported", "ours", "delta", "comparable"]].values.tolist()
    [[4.5, 5.0, 0.5, True]]
    """
    return beside_table5(recall[(recall["pool"] == "full") & recall["system"].str.startswith("BM25")], BM25_ROW,
                         labels)


def recall_with_paper(recall: pd.DataFrame, n_paper: int = 440, rows: Sequence[str] = (BM25_ROW, BEST_ROW)
                      ) -> pd.DataFrame:
    """R@n of the paper's Table 5 ``rows`` (default :data:`BM25_ROW` and :data:`BEST_ROW`; ``system``
    "paper …", over its ``n_paper`` test steps, no CI) and of each of our runs over all queries (``system``
    "<system> / <pool>", with CI and n): ``system, metric, value, ci_low, ci_high, n``, for
    :func:`culturelab.turkish_plu.figures.recall_bars`.

    >>> r = pd.DataFrame({"pool": "full", "group": "all", "system": "BM25+", "metric": ["R@1"], "value": [5.0],
    ...                   "ci_low": [3.0], "ci_high": [7.0], "n": [440]})
    >>> recall_with_paper(r)["system"].unique().tolist()
    ['paper BM25', 'paper Sup. SimCSE-TR BERTurk', 'BM25+ / full']
    """
    reported = load("turkish_plu", "table5")
    paper = reported[reported["model"].isin(list(rows))].assign(system=lambda d: "paper " + d["model"], n=n_paper)
    ours = _recall_over_all_queries(recall).assign(system=lambda d: d["system"] + " / " + d["pool"])
    return pd.concat([paper, ours], ignore_index=True).reindex(
        columns=["system", "metric", "value", "ci_low", "ci_high", "n"])


def findings(recall: pd.DataFrame, table5: pd.DataFrame) -> str:
    """What the linking notebook's retrieval runs show, as Markdown sentences rendered from its
    tables (:mod:`culturelab.report`): how far each full-pool BM25+ run lies from the paper's BM25
    row (``table5``: :func:`table5_beside`), how the tokenisations rank by R@1, whether the
    original-Turkish steps are harder than the translated ones, and how the runs of the second pool
    compare (``recall``: :func:`recall_table` with ``system`` and ``pool``).

    >>> r = pd.DataFrame({"system": ["BM25+ whitespace"] * 3 + ["BM25+ unicode"] * 3, "pool": "full",
    ...                   "group": ["all", "original", "translated"] * 2, "metric": "R@1",
    ...                   "value": [4.0, 0.0, 4.5, 17.0, 5.0, 19.0]})
    >>> t = pd.DataFrame({"system": ["BM25+ whitespace"] * 3, "metric": ["R@1", "R@10", "R@30"],
    ...                   "reported": [4.5, 13.4, 18.4], "ours": [4.0, 14.0, 18.0]})
    >>> print(findings(r, t))  # doctest: +NORMALIZE_WHITESPACE
    On the full pool the paper's BM25 row (R@1/10/30) lies at most 0.6 points from BM25+ whitespace. By R@1 the
    BM25+ runs rank BM25+ unicode (17.0) > BM25+ whitespace (4.0); the original-Turkish steps score below the
    translated ones on R@1 in 2 of 2 of them.
    """
    gaps = table5.dropna(subset=["ours", "reported"]).assign(gap=lambda d: (d["ours"] - d["reported"]).abs()) \
        .groupby("system", sort=False)["gap"].max()
    out = ["On the full pool the paper's BM25 row (R@1/10/30) lies at most "
           + ", ".join(f"{g:.1f} points from {s}" for s, g in gaps.items()) + "."] if len(gaps) else []
    r1 = recall[recall["metric"] == "R@1"]
    full = r1[r1["pool"] == "full"].pivot_table(index="system", columns="group", values="value")
    if len(full):
        ranked = full["all"].sort_values(ascending=False)
        harder = int((full.get("original", np.nan) < full.get("translated", np.nan)).sum())
        out.append(f"By R@1 the BM25+ runs rank {' > '.join(f'{s} ({v:.1f})' for s, v in ranked.items())}; the "
                   f"original-Turkish steps score below the translated ones on R@1 in {harder} of {len(full)} of them.")
    other = recall[(recall["pool"] != "full") & (recall["group"] == "all") & recall["metric"].isin(["R@1", "R@10"])]
    for pool, part in other.groupby("pool", sort=False):
        runs = part.pivot_table(index="system", columns="metric", values="value")
        out.append(f"On the second pool ({pool}): " + "; ".join(
            f"{s} R@1 {row['R@1']:.1f}, R@10 {row['R@10']:.1f}" for s, row in runs.iterrows()) + ".")
    return " ".join(out)

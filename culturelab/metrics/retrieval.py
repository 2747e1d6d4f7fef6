"""Ranking metrics for retrieval and cloze probing: AP / mAP, P@k, R@n and MRR.

All functions take a score matrix ``scores`` (queries × candidates, higher = better) and a
boolean ``gold`` matrix of the same shape, and work on whole matrices at once (numpy, in blocks
of :data:`BLOCK_ROWS` queries, so peak memory does not grow with the number of queries).

**Ties.** ``ties="expected"`` (the default) gives the expected value of each metric when equal
scores are put in a uniformly random order, so a metric does not depend on how the candidates
happen to be listed: four tied candidates, one of them gold, give the same AP wherever the gold
is listed. ``ties="stable"`` breaks equal scores by candidate order (a stable sort), which is
what code that sorts candidates does (trec_eval instead breaks ties by document name, in
reverse: also order-dependent). The expectations are exact, by linearity: within a tied block
of ``t`` candidates holding ``g`` gold, each slot is gold with probability ``g / t``, and a gold
item in slot ``j`` has, on average, ``(j − 1)(g − 1)/(t − 1)`` of the block's other gold before
it (AP); R@n and MRR take the hypergeometric chance that the first slots of the block hold no gold.
scikit-learn's ``average_precision_score`` instead treats a tied block as one threshold (all of
it retrieved at once), which gives 0.25 for four tied candidates with one gold where the
expected AP is (1 + 1/2 + 1/3 + 1/4) / 4 ≈ 0.52; with distinct scores all three agree.

**Queries without gold.** A query with no gold item (none listed, or none rankable) has no
AP — there is no gold rank to average over — and the same rule holds for every metric here:
it gets NaN, so means (``np.nanmean``, pandas) leave it out, and callers report how many
queries that was (:func:`n_without_gold`). trec_eval instead scores such a query 0 when it is
in the qrels with no relevant document (and drops it when it is not in the qrels at all);
scikit-learn gives 0 with a warning. Scoring it 0 would charge the model for the candidate set.

For one gold item per query, :func:`rank_counts` gives the two numbers the expectations need
(candidates scored above the gold, and candidates tied with it) and can be computed block by block.

>>> import numpy as np
>>> s = np.array([[0.9, 0.8, 0.1], [0.1, 0.2, 0.3]]); g = np.array([[0, 1, 0], [1, 0, 0]], bool)
>>> average_precision(s, g).round(3).tolist(), precision_at_k(s, g, 1).tolist(), recall_at_n(s, g, 2).tolist()
([0.5, 0.333], [0.0, 0.0], [1.0, 0.0])
>>> tied = np.zeros((2, 4)); one_gold = np.eye(4, dtype=bool)[[0, 3]]  # the gold listed first or last
>>> average_precision(tied, one_gold).round(4).tolist(), average_precision(tied, one_gold, ties="stable").tolist()
([0.5208, 0.5208], [1.0, 0.25])
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

TIES = ("expected", "stable")

#: queries scored at once (FMLAMA: thousands of dishes × 1,287 candidates)
BLOCK_ROWS = 1024


def _check_ties(ties: str) -> None:
    if ties not in TIES:
        raise ValueError(f"ties must be one of {TIES}, not {ties!r}")


def _blocks(scores: np.ndarray, gold: np.ndarray, ties: str) -> dict[str, np.ndarray]:
    """Per query, candidates in ranked order (``-inf`` last, stable), and for each ranked slot:
    ``rank`` (1-based), ``slot`` within its tied block (1-based), the block's ``size``, the gold
    items in the block (``in_block``) and above it (``above``). With ``ties="stable"`` every slot
    is its own block."""
    order = np.argsort(-scores, axis=1, kind="stable")
    s = np.take_along_axis(scores, order, axis=1)
    g = np.take_along_axis(gold, order, axis=1)
    q, n = s.shape
    pos = np.broadcast_to(np.arange(n), (q, n))
    new = np.ones((q, n), bool)  # the slot opens a block
    if ties == "expected":
        new[:, 1:] = s[:, 1:] != s[:, :-1]
    last = np.ones((q, n), bool)
    last[:, :-1] = new[:, 1:]
    start = np.maximum.accumulate(np.where(new, pos, 0), axis=1)
    end = np.minimum.accumulate(np.where(last, pos + 1, n)[:, ::-1], axis=1)[:, ::-1]
    cum = np.zeros((q, n + 1))
    cum[:, 1:] = np.cumsum(g, axis=1)
    above = np.take_along_axis(cum, start, axis=1)
    return {"rank": pos + 1.0, "slot": pos - start + 1.0, "size": (end - start).astype(float),
            "in_block": np.take_along_axis(cum, end, axis=1) - above, "above": above}


def _per_query(metric: Callable[[dict[str, np.ndarray]], np.ndarray], scores: np.ndarray, gold: np.ndarray,
               ties: str) -> np.ndarray:
    """``metric`` of the tied blocks of each query, :data:`BLOCK_ROWS` queries at a time; NaN for
    a query without gold."""
    _check_ties(ties)
    scores = np.asarray(scores, dtype=float)
    gold = np.asarray(gold, dtype=bool)
    if scores.shape != gold.shape:
        raise ValueError(f"scores {scores.shape} and gold {gold.shape} must have the same shape")
    out = np.full(len(scores), np.nan)
    for i in range(0, len(scores) if scores.shape[1] else 0, BLOCK_ROWS):
        b = _blocks(scores[i : i + BLOCK_ROWS], gold[i : i + BLOCK_ROWS], ties)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[i : i + BLOCK_ROWS] = np.where(gold[i : i + BLOCK_ROWS].any(axis=1), metric(b), np.nan)
    return out


def n_without_gold(gold: np.ndarray) -> int:
    """How many queries (rows) have no gold item: the queries every metric here leaves out (NaN).

    >>> n_without_gold([[0, 1, 0], [0, 0, 0]])
    1
    """
    return int((~np.asarray(gold, bool).any(axis=1)).sum())


def _gold_chance(b: dict[str, np.ndarray]) -> np.ndarray:
    """Probability that each ranked slot holds a gold item."""
    return b["in_block"] / b["size"]


def average_precision(scores: np.ndarray, gold: np.ndarray, *, rankable: np.ndarray | None = None,
                      ties: str = "expected") -> np.ndarray:
    """AP per query: mean of P@k at the ranks of the gold items (FMLAMA eq. 3–5), by default
    its expectation under a random order of equal scores.

    Gold items that cannot be ranked (``rankable`` False, e.g. dropped by a sub-token cap) are
    left out of the denominator, as in the paper's code; a query with no rankable gold gets NaN.

    >>> average_precision([[0.9, 0.5, 0.1]], [[0, 1, 1]]).round(3).tolist()  # (1/2 + 2/3) / 2
    [0.583]
    >>> average_precision([[0.9, 0.5, 0.1]], [[0, 1, 1]], rankable=[[1, 1, 0]]).tolist()
    [0.5]
    >>> average_precision([[0.5, 0.5]], [[1, 1]]).tolist(), average_precision([[0.5, 0.5]], [[0, 0]]).tolist()
    ([1.0], [nan])
    """
    gold = np.asarray(gold, bool) & (True if rankable is None else np.asarray(rankable, bool))

    def ap(b: dict[str, np.ndarray]) -> np.ndarray:
        # given a gold item in slot j of its block, each of the block's g − 1 other gold is before it with chance (j − 1)/(t − 1)
        others_before = (b["slot"] - 1) * (b["in_block"] - 1) / np.maximum(b["size"] - 1, 1)
        hits = b["above"] + 1 + others_before
        n_gold = b["above"][:, -1] + b["in_block"][:, -1]
        return (_gold_chance(b) * hits / b["rank"]).sum(axis=1) / n_gold

    return _per_query(ap, scores, gold, ties)


def precision_at_k(scores: np.ndarray, gold: np.ndarray, k: int, *, ties: str = "expected") -> np.ndarray:
    """Share of the top ``k`` candidates that are gold (expected under a random order of ties).

    >>> precision_at_k([[0.9, 0.5, 0.1]], [[0, 1, 1]], 2).tolist()
    [0.5]
    >>> precision_at_k([[0.9, 0.5, 0.5, 0.5]], [[0, 0, 0, 1]], 2).round(4).tolist()  # 1/2 × 1/3
    [0.1667]
    """
    return _per_query(lambda b: _gold_chance(b)[:, :k].sum(axis=1) / k, scores, gold, ties)


def recall_at_n(scores: np.ndarray, gold: np.ndarray, n: int, *, ties: str = "expected") -> np.ndarray:
    """1 if any gold item is in the top ``n`` (the linking-actions R@n of Turkish PLU), else 0;
    by default the probability of that under a random order of equal scores.

    >>> s, g = [[0.9, 0.5, 0.1]], [[0, 1, 1]]
    >>> recall_at_n(s, g, 1).tolist(), recall_at_n(s, g, 2).tolist()
    ([0.0], [1.0])
    >>> recall_at_n([[0.5, 0.5, 0.5, 0.1]], [[0, 0, 1, 0]], 1).round(4).tolist()
    [0.3333]
    """
    from scipy.stats import hypergeom

    def hit(b: dict[str, np.ndarray]) -> np.ndarray:
        if n <= 0:
            return np.zeros(len(b["rank"]))
        cut = min(n, b["rank"].shape[1]) - 1  # the last slot inside the top n
        size, in_block, above = b["size"][:, cut], b["in_block"][:, cut], b["above"][:, cut]
        taken = b["slot"][:, cut]  # slots of the cut block inside the top n
        miss = hypergeom.pmf(0, size.astype(int), in_block.astype(int), taken.astype(int))
        return np.where(above > 0, 1.0, 1.0 - miss)

    return _per_query(hit, scores, gold, ties)


def reciprocal_rank(scores: np.ndarray, gold: np.ndarray, *, ties: str = "expected") -> np.ndarray:
    """1 / rank of the first gold item, by default its expectation under a random order of
    equal scores.

    >>> reciprocal_rank([[0.9, 0.5, 0.1], [0.3, 0.2, 0.1]], [[0, 1, 1], [0, 0, 0]]).tolist()
    [0.5, nan]
    >>> reciprocal_rank([[0.5, 0.5]], [[0, 1]]).tolist(), reciprocal_rank([[0.5, 0.5]], [[0, 1]], ties="stable").tolist()
    ([0.75], [0.5])
    """
    from scipy.stats import hypergeom

    def rr(b: dict[str, np.ndarray]) -> np.ndarray:
        # the first gold sits in slot j of the first block holding gold: no gold in slots 1..j−1, then gold
        first = (b["above"] == 0) & (b["in_block"] > 0)
        size, in_block, slot = (np.where(first, b[k], 1).astype(int) for k in ("size", "in_block", "slot"))
        chance = hypergeom.pmf(0, size, in_block, slot - 1) * in_block / (size - slot + 1)
        return np.where(first, chance / b["rank"], 0.0).sum(axis=1)

    return _per_query(rr, scores, gold, ties)


def rank_counts(scores: np.ndarray, gold: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For one gold candidate per query (``gold``: its column index), how many candidates score
    strictly higher (``above``) and how many score the same, the gold included (``tied`` ≥ 1).
    Rows are independent, so a large score matrix can be processed in row blocks.

    >>> above, tied = rank_counts(np.array([[0.1, 0.5, 0.5], [0.9, 0.2, 0.3]]), np.array([2, 0]))
    >>> above.tolist(), tied.tolist()
    ([0, 0], [2, 1])
    """
    scores = np.asarray(scores)
    g = scores[np.arange(len(gold)), np.asarray(gold)][:, None]
    return (scores > g).sum(axis=1), (scores == g).sum(axis=1)


def expected_recall(above: np.ndarray, tied: np.ndarray, n: int) -> np.ndarray:
    """Expected R@n of one gold item ranked below ``above`` candidates and tied with ``tied − 1``
    others, equal scores in random order: ``clip(n − above, 0, tied) / tied``.

    >>> expected_recall(np.array([0, 0, 3]), np.array([1, 4, 2]), 2).tolist()
    [1.0, 0.5, 0.0]
    """
    above, tied = np.asarray(above, float), np.asarray(tied, float)
    return np.clip(n - above, 0, tied) / tied


def expected_reciprocal_rank(above: np.ndarray, tied: np.ndarray) -> np.ndarray:
    """Expected 1/rank of one gold item whose rank is uniform on ``above + 1 … above + tied``:
    ``(H(above + tied) − H(above)) / tied`` with harmonic numbers H.

    >>> expected_reciprocal_rank(np.array([0, 0]), np.array([1, 2])).tolist()
    [1.0, 0.75]
    """
    from scipy.special import digamma

    above, tied = np.asarray(above, float), np.asarray(tied, float)
    return (digamma(above + tied + 1) - digamma(above + 1)) / tied

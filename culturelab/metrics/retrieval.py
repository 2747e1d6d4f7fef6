"""Ranking metrics for retrieval and cloze probing: AP / mAP, P@k, R@n and MRR.

All functions take a score matrix ``scores`` (queries × candidates, higher = better) and a
boolean ``gold`` matrix of the same shape, and work on whole matrices at once.

Ties. ``ties="stable"`` (the default) breaks equal scores by candidate order, as a stable sort
does; ``ties="expected"`` gives the expected value of the metric when equal scores are put in a
uniformly random order (R@n and MRR), which does not depend on how the candidates happen to be
listed. For one gold item per query, :func:`rank_counts` gives the two numbers both need
(candidates scored above the gold, and candidates tied with it) and can be computed block by block.

>>> import numpy as np
>>> s = np.array([[0.9, 0.8, 0.1], [0.1, 0.2, 0.3]]); g = np.array([[0, 1, 0], [1, 0, 0]], bool)
>>> average_precision(s, g).round(3).tolist(), precision_at_k(s, g, 1).tolist(), recall_at_n(s, g, 2).tolist()
([0.5, 0.333], [0.0, 0.0], [1.0, 0.0])
"""

from __future__ import annotations

import numpy as np


def _ranked_gold(scores: np.ndarray, gold: np.ndarray) -> np.ndarray:
    """Gold flags in ranked order (stable: ties keep candidate order); ``-inf`` scores rank last."""
    scores = np.asarray(scores, dtype=float)
    gold = np.asarray(gold, dtype=bool)
    if scores.shape != gold.shape:
        raise ValueError(f"scores {scores.shape} and gold {gold.shape} must have the same shape")
    order = np.argsort(-scores, axis=1, kind="stable")
    return np.take_along_axis(gold, order, axis=1)


def average_precision(scores: np.ndarray, gold: np.ndarray, *, rankable: np.ndarray | None = None) -> np.ndarray:
    """AP per query: mean of P@k at the ranks of the gold items (FMLAMA eq. 3–5).

    Gold items that cannot be ranked (``rankable`` False, e.g. dropped by a sub-token cap) are
    left out of the denominator, as in the paper's code; a query with no rankable gold gets NaN
    (callers skip it).

    >>> average_precision([[0.9, 0.5, 0.1]], [[0, 1, 1]]).round(3).tolist()  # (1/2 + 2/3) / 2
    [0.583]
    >>> average_precision([[0.9, 0.5, 0.1]], [[0, 1, 1]], rankable=[[1, 1, 0]]).tolist()
    [0.5]
    """
    gold = np.asarray(gold, bool) & (np.ones_like(gold, bool) if rankable is None else np.asarray(rankable, bool))
    flags = _ranked_gold(scores, gold)
    hits = np.cumsum(flags, axis=1)
    ranks = np.arange(1, flags.shape[1] + 1)
    precision = hits / ranks
    n_gold = flags.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n_gold > 0, (precision * flags).sum(axis=1) / n_gold, np.nan)


def precision_at_k(scores: np.ndarray, gold: np.ndarray, k: int) -> np.ndarray:
    """Share of the top ``k`` candidates that are gold.

    >>> precision_at_k([[0.9, 0.5, 0.1]], [[0, 1, 1]], 2).tolist()
    [0.5]
    """
    return _ranked_gold(scores, gold)[:, :k].sum(axis=1) / k


TIES = ("stable", "expected")


def _check_ties(ties: str) -> None:
    if ties not in TIES:
        raise ValueError(f"ties must be one of {TIES}, not {ties!r}")


def _levels(scores: np.ndarray, gold: np.ndarray) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per query: distinct score levels (best first), items and gold items at each level."""
    out = []
    for s, g in zip(np.asarray(scores, dtype=float), np.asarray(gold, dtype=bool)):
        values, inverse = np.unique(-s, return_inverse=True)  # ascending −score = best level first
        out.append((values, np.bincount(inverse, minlength=len(values)),
                    np.bincount(inverse, weights=g.astype(float), minlength=len(values)).astype(int)))
    return out


def _expected_hit(size: int, golds: int, take: int) -> float:
    """P(at least one of ``golds`` items among ``take`` drawn at random from a tied block of ``size``)."""
    from scipy.special import comb

    if take <= 0 or golds == 0:
        return 0.0
    return float(1.0 - comb(size - golds, take, exact=True) / comb(size, take, exact=True))


def recall_at_n(scores: np.ndarray, gold: np.ndarray, n: int, *, ties: str = "stable") -> np.ndarray:
    """1 if any gold item is in the top ``n`` (the linking-actions R@n of Turkish PLU), else 0;
    with ``ties="expected"`` the probability of that under a random order of equal scores.

    >>> s, g = [[0.9, 0.5, 0.1]], [[0, 1, 1]]
    >>> recall_at_n(s, g, 1).tolist(), recall_at_n(s, g, 2).tolist()
    ([0.0], [1.0])
    >>> recall_at_n([[0.5, 0.5, 0.5, 0.1]], [[0, 0, 1, 0]], 1, ties="expected").round(4).tolist()
    [0.3333]
    """
    _check_ties(ties)
    if ties == "stable":
        return _ranked_gold(scores, gold)[:, :n].any(axis=1).astype(float)
    _ranked_gold(scores, gold)  # shape check
    out = []
    for _, sizes, golds in _levels(scores, gold):
        above = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        level = int(np.searchsorted(np.cumsum(sizes), n, side="left")) if n > 0 else -1
        if n <= 0:
            out.append(0.0)
        elif level >= len(sizes) or golds[:level].any():  # the cut is past every item, or a gold is above it
            out.append(float(golds[: level + 1].any()))
        else:
            out.append(_expected_hit(int(sizes[level]), int(golds[level]), n - int(above[level])))
    return np.asarray(out, dtype=float)


def reciprocal_rank(scores: np.ndarray, gold: np.ndarray, *, ties: str = "stable") -> np.ndarray:
    """1 / rank of the first gold item (0 when there is none); with ``ties="expected"`` its
    expectation under a random order of equal scores.

    >>> reciprocal_rank([[0.9, 0.5, 0.1], [0.3, 0.2, 0.1]], [[0, 1, 1], [0, 0, 0]]).tolist()
    [0.5, 0.0]
    >>> reciprocal_rank([[0.5, 0.5]], [[0, 1]], ties="expected").tolist()  # (1/1 + 1/2) / 2
    [0.75]
    """
    _check_ties(ties)
    if ties == "stable":
        flags = _ranked_gold(scores, gold)
        first = flags.argmax(axis=1)
        return np.where(flags.any(axis=1), 1.0 / (first + 1), 0.0)
    _ranked_gold(scores, gold)
    from scipy.special import comb

    out = []
    for _, sizes, golds in _levels(scores, gold):
        hit = np.flatnonzero(golds)
        if not len(hit):
            out.append(0.0)
            continue
        lvl = int(hit[0])
        before, size, g = int(sizes[:lvl].sum()), int(sizes[lvl]), int(golds[lvl])
        # the first of g golds placed at random among `size` slots lands at x with P = C(size−x, g−1) / C(size, g)
        x = np.arange(1, size - g + 2)
        p = np.array([comb(size - k, g - 1, exact=True) for k in x], dtype=float) / comb(size, g, exact=True)
        out.append(float(np.sum(p / (before + x))))
    return np.asarray(out, dtype=float)


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

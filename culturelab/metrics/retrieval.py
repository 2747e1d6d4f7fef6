"""Ranking metrics for retrieval and cloze probing: AP / mAP, P@k, R@n and MRR.

All functions take a score matrix ``scores`` (queries × candidates, higher = better) and a
boolean ``gold`` matrix of the same shape, and work on whole matrices at once.

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


def recall_at_n(scores: np.ndarray, gold: np.ndarray, n: int) -> np.ndarray:
    """1 if any gold item is in the top ``n`` (the linking-actions R@n of Turkish PLU), else 0.

    >>> s, g = [[0.9, 0.5, 0.1]], [[0, 1, 1]]
    >>> recall_at_n(s, g, 1).tolist(), recall_at_n(s, g, 2).tolist()
    ([0.0], [1.0])
    """
    return _ranked_gold(scores, gold)[:, :n].any(axis=1).astype(float)


def reciprocal_rank(scores: np.ndarray, gold: np.ndarray) -> np.ndarray:
    """1 / rank of the first gold item (0 when there is none).

    >>> reciprocal_rank([[0.9, 0.5, 0.1], [0.3, 0.2, 0.1]], [[0, 1, 1], [0, 0, 0]]).tolist()
    [0.5, 0.0]
    """
    flags = _ranked_gold(scores, gold)
    first = flags.argmax(axis=1)
    return np.where(flags.any(axis=1), 1.0 / (first + 1), 0.0)

"""Agreement between a predicted order and the gold order of ``n`` items.

An order is a list of item labels (0-based gold positions) in the predicted sequence, e.g.
``[2, 0, 1]`` says the model put step 3 first. Spearman ρ and Kendall τ compare positions;
Levenshtein distance (LD) counts edits between the label sequences (one token per label).

>>> spearman_rho([0, 1, 2, 3]), kendall_tau([3, 2, 1, 0]), levenshtein([1, 0, 2], 3)
(1.0, -1.0, 2)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from rapidfuzz.distance import Levenshtein


def _positions(order: Sequence[int]) -> np.ndarray:
    n = len(order)
    if sorted(order) != list(range(n)):
        raise ValueError(f"not a permutation of 0..{n - 1}: {list(order)}")
    pos = np.empty(n, dtype=float)
    pos[list(order)] = np.arange(n)
    return pos


def spearman_rho(order: Sequence[int]) -> float:
    """ρ = 1 − 6Σd²/(n(n²−1)) between predicted and gold positions (a permutation; n ≥ 2).

    >>> spearman_rho([1, 0, 2])  # Σd² = 2: 1 − 12/24
    0.5
    """
    n = len(order)
    d = _positions(order) - np.arange(n)
    return float(1 - 6 * np.sum(d**2) / (n * (n**2 - 1)))


def kendall_tau(order: Sequence[int]) -> float:
    """τ = (concordant − discordant) / (n(n−1)/2) (τ-a = τ-b without ties).

    >>> round(kendall_tau([1, 0, 2]), 4)  # 2 concordant, 1 discordant pair
    0.3333
    """
    n = len(order)
    pos = _positions(order)
    upper = np.triu_indices(n, 1)
    signs = np.sign(pos[upper[1]] - pos[upper[0]])
    return float(signs.sum() / (n * (n - 1) / 2))


def levenshtein(order: Sequence[int], n: int) -> int:
    """Edit distance between the predicted label sequence (any length) and ``0..n-1``.

    >>> levenshtein([0, 2], 3), levenshtein([1, 0, 2], 3), levenshtein([], 3)
    (1, 2, 3)
    """
    return int(Levenshtein.distance(list(order), list(range(n))))


def kendall_distance(order: Sequence[int]) -> int:
    """Number of discordant pairs (adjacent swaps needed to sort); 1 means "one minor swap away".

    >>> kendall_distance([0, 2, 1, 3]), kendall_distance([3, 2, 1, 0])
    (1, 6)
    """
    pos = _positions(order)
    upper = np.triu_indices(len(order), 1)
    return int(np.sum(pos[upper[1]] < pos[upper[0]]))


def partial_positions(order: Sequence[int], n: int) -> np.ndarray:
    """Predicted positions of items ``0..n-1`` from a possibly partial order: listed items take
    positions 0, 1, …; the missing ones tie for the remaining places (their average position).

    >>> partial_positions([1, 0], 4).tolist()
    [1.0, 0.0, 2.5, 2.5]
    """
    order = list(order)
    if len(set(order)) != len(order) or any(not 0 <= i < n for i in order):
        raise ValueError(f"not a partial order of distinct items in 0..{n - 1}: {order}")
    pos = np.full(n, (len(order) + n - 1) / 2, dtype=float)
    pos[order] = np.arange(len(order), dtype=float)
    return pos


def rank_correlations_with_ties(order: Sequence[int], n: int) -> dict[str, float]:
    """Spearman ρ (average ranks) and Kendall τ-b (:mod:`scipy.stats`) of a partial order whose
    missing items tie for last place; both are 0 when nothing is ranked (no information).
    For a complete permutation they equal :func:`spearman_rho` and :func:`kendall_tau`.

    >>> {k: round(v, 4) for k, v in rank_correlations_with_ties([1, 0], 4).items()}
    {'rho': 0.7379, 'tau': 0.5477}
    """
    from scipy import stats

    pos = partial_positions(order, n)
    if n < 2 or np.all(pos == pos[0]):
        return {"rho": 0.0, "tau": 0.0}
    gold = np.arange(n, dtype=float)
    return {"rho": float(stats.spearmanr(pos, gold).statistic),
            "tau": float(stats.kendalltau(pos, gold, variant="b").statistic)}


def random_orders(n: int, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` uniformly random permutations of ``0..n-1`` as rows of an int array.

    >>> o = random_orders(4, 3, np.random.default_rng(0))
    >>> o.shape, all(sorted(row) == [0, 1, 2, 3] for row in o.tolist())
    ((3, 4), True)
    """
    return np.argsort(rng.random((size, n)), axis=1)


def _metrics_matrix(orders: np.ndarray) -> dict[str, np.ndarray]:
    """Vectorised ρ, τ and LD for a matrix of permutations (one per row)."""
    size, n = orders.shape
    pos = np.empty_like(orders)
    np.put_along_axis(pos, orders, np.arange(n)[None, :].repeat(size, 0), axis=1)
    d = pos - np.arange(n)[None, :]
    rho = 1 - 6 * np.sum(d**2, axis=1) / (n * (n**2 - 1))
    i, j = np.triu_indices(n, 1)
    tau = np.sign(pos[:, j] - pos[:, i]).sum(axis=1) / (n * (n - 1) / 2)
    gold = list(range(n))
    ld = np.array([Levenshtein.distance(row, gold) for row in orders.tolist()], dtype=float)
    return {"rho": rho, "tau": tau, "ld": ld}


def random_baseline(step_counts: Sequence[int], n_samples: int = 20000, seed: int = 0,
                    by_length: bool = False) -> dict[str, float] | dict[int, dict[str, float]]:
    """Expected ρ, τ and LD of uniformly random permutations at a given mix of lengths
    (simulated: lengths are drawn from ``step_counts``, then one random order per draw).

    With ``by_length=True`` the expectation is returned per length instead (``n_samples``
    orders for each distinct length).

    >>> round(random_baseline([5], n_samples=4000)["ld"], 1)
    3.5
    >>> sorted(random_baseline([5, 6], n_samples=2000, by_length=True))
    [5, 6]
    """
    rng = np.random.default_rng(seed)
    counts = np.asarray(step_counts, dtype=int)
    if counts.size == 0 or np.any(counts < 2):
        raise ValueError("step_counts must be a non-empty list of lengths ≥ 2")
    if by_length:
        return {int(n): {k: float(v.mean()) for k, v in _metrics_matrix(random_orders(int(n), n_samples, rng)).items()}
                for n in np.unique(counts)}
    drawn = rng.choice(counts, size=n_samples)
    totals = {"rho": 0.0, "tau": 0.0, "ld": 0.0}
    for n in np.unique(drawn):
        k = int(np.sum(drawn == n))
        for key, values in _metrics_matrix(random_orders(int(n), k, rng)).items():
            totals[key] += float(values.sum())
    return {k: v / n_samples for k, v in totals.items()}

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
    """ρ = 1 − 6Σd²/(n(n²−1)) between predicted and gold positions (a permutation; n ≥ 2)."""
    n = len(order)
    d = _positions(order) - np.arange(n)
    return float(1 - 6 * np.sum(d**2) / (n * (n**2 - 1)))


def kendall_tau(order: Sequence[int]) -> float:
    """τ = (concordant − discordant) / (n(n−1)/2) (τ-a = τ-b without ties)."""
    n = len(order)
    pos = _positions(order)
    upper = np.triu_indices(n, 1)
    signs = np.sign(pos[upper[1]] - pos[upper[0]])
    return float(signs.sum() / (n * (n - 1) / 2))


def levenshtein(order: Sequence[int], n: int) -> int:
    """Edit distance between the predicted label sequence (any length) and ``0..n-1``."""
    return int(Levenshtein.distance(list(order), list(range(n))))


def random_baseline(step_counts: Sequence[int], n_samples: int = 20000, seed: int = 0) -> dict[str, float]:
    """Expected ρ, τ and LD of uniformly random permutations at a given mix of lengths.

    >>> round(random_baseline([5], n_samples=4000)["ld"], 1)
    3.4
    """
    rng = np.random.default_rng(seed)
    counts = rng.choice(np.asarray(step_counts), size=n_samples)
    rho, tau, ld = [], [], []
    for n in counts:
        order = list(rng.permutation(int(n)))
        rho.append(spearman_rho(order))
        tau.append(kendall_tau(order))
        ld.append(levenshtein(order, int(n)))
    return {"rho": float(np.mean(rho)), "tau": float(np.mean(tau)), "ld": float(np.mean(ld))}

"""Uncertainty and tests: intervals, paired tests, permutation tests, correlations.

Thin, documented wrappers around :mod:`scipy.stats` with the defaults this project uses.

**Intervals** (95 %). A proportion — the mean of 0/1 values, e.g. accuracy — gets the Wilson
score interval (:func:`proportion_ci`, scipy's ``binomtest``): it stays inside [0, 1] and keeps
a sensible width at small n and at 0 or n successes, where the percentile bootstrap collapses
(0/3 → [0, 0], 1/3 → [0, 1]; Wilson: [0, 0.56], [0.06, 0.79]). Wilson rather than the exact
Clopper–Pearson interval: its coverage is closer to 95 % on average, where Clopper–Pearson is
wider than it needs to be. Any other mean gets a percentile bootstrap (2,000 resamples, fixed
seed); :func:`mean_ci` picks between the two and :func:`summarise` uses it. A proportion over
clustered answers (one story asked in several option orders) gets the Wilson interval at the
effective sample size (:func:`clustered_proportion_ci`); a macro share, the mean of several groups'
proportions, the MOVER combination of their Wilson intervals (:func:`macro_proportion_ci`).

>>> lo, hi = bootstrap_ci([1, 0, 1, 1, 0, 1, 1, 1], seed=0)
>>> 0.3 < lo < 0.75 < hi <= 1.0
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats


def bootstrap_ci(values: Sequence[float], statistic: Callable = np.mean, *, level: float = 0.95,
                 n_resamples: int = 2000, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap CI of ``statistic``; ``(nan, nan)`` for fewer than two values.

    >>> bootstrap_ci([1, 1, 1]), bootstrap_ci([5])
    ((1.0, 1.0), (nan, nan))
    >>> lo, hi = bootstrap_ci([1, 2, 3, 4, 5], seed=0); lo < 3 < hi
    True
    """
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    if x.size < 2:
        return (float("nan"), float("nan"))
    if np.all(x == x[0]):
        return (float(x[0]), float(x[0]))
    # scipy evaluates a statistic that takes ``axis`` (np.mean, np.median, ...) on all resamples at
    # once (vectorized=None reads the signature) and draws the same resamples either way, so the
    # interval is that of one call per resample (17x slower on small groups); at most RESAMPLE_CELLS
    # resampled values are held at once
    batch = max(1, RESAMPLE_CELLS // x.size) if x.size * n_resamples > RESAMPLE_CELLS else None
    res = stats.bootstrap((x,), statistic, confidence_level=level, n_resamples=n_resamples, batch=batch,
                          method="percentile", random_state=np.random.default_rng(seed), vectorized=None)
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


#: the most resampled values :func:`bootstrap_ci` holds at once (32 MB of float64)
RESAMPLE_CELLS = 4_000_000


def mean_ci(values: Sequence[float], *, level: float = 0.95, n_resamples: int = 2000,
            seed: int = 0, binary: bool | None = None) -> tuple[float, float]:
    """CI of the mean of ``values`` (NaN left out): Wilson's for a proportion, else the percentile
    bootstrap (:func:`bootstrap_ci`). ``binary=None`` takes values that are all 0 or 1 for a
    proportion; ``False`` never does (a mean of correlations that happen to be 0 or 1 is no proportion).

    >>> [round(v, 2) for v in mean_ci([0, 0, 0])], [round(v, 2) for v in mean_ci([0, 1, 0])]
    ([0.0, 0.56], [0.06, 0.79])
    >>> mean_ci([0.5, 0.5, 0.5]), mean_ci([0.0, 0.0, 0.0], binary=False)
    ((0.5, 0.5), (0.0, 0.0))
    """
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    if binary is not False and x.size and np.isin(x, (0.0, 1.0)).all():
        return proportion_ci(int(x.sum()), x.size, level=level)
    return bootstrap_ci(x, level=level, n_resamples=n_resamples, seed=seed)


def cluster_bootstrap_ci(values: Sequence[float], clusters: Sequence[Any], *, level: float = 0.95,
                         n_resamples: int = 2000, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap CI of the mean of ``values`` over resampled ``clusters`` (whole clusters
    drawn with replacement; the mean over every value they hold): the interval of items asked
    several times (a procedure in two languages), which treating the answers as independent
    makes too narrow. NaN values are left out; ``(nan, nan)`` with fewer than two clusters.

    >>> lo, hi = cluster_bootstrap_ci([0.1, 0.1, 0.9, 0.9, 0.5, 0.5], ["a", "a", "b", "b", "c", "c"])
    >>> naive = bootstrap_ci([0.1, 0.1, 0.9, 0.9, 0.5, 0.5])
    >>> hi - lo > naive[1] - naive[0]
    True
    """
    x = np.asarray(values, dtype=float)
    keep = ~np.isnan(x)
    codes, _ = pd.factorize(pd.Series(list(clusters))[keep])
    x = x[keep]
    k = int(codes.max()) + 1 if codes.size else 0
    if k < 2:
        return (float("nan"), float("nan"))
    sums, counts = np.bincount(codes, weights=x, minlength=k), np.bincount(codes, minlength=k).astype(float)
    draws = np.random.default_rng(seed).integers(0, k, size=(n_resamples, k))
    means = sums[draws].sum(axis=1) / counts[draws].sum(axis=1)
    alpha = (1 - level) / 2
    return float(np.quantile(means, alpha)), float(np.quantile(means, 1 - alpha))


def summarise(df: pd.DataFrame, value: str, by: Sequence[str] = (), *, level: float = 0.95,
              n_resamples: int = 2000, seed: int = 0, binary: bool | None = None,
              cluster: str | None = None) -> pd.DataFrame:
    """Mean, n and 95 % CI (:func:`mean_ci`: Wilson for 0/1 values unless ``binary=False``, else
    bootstrap) of ``value`` per group — the shape every results table uses. ``cluster`` (a column):
    the CI resamples its values whole (:func:`cluster_bootstrap_ci`) and ``n_clusters`` counts them.

    >>> t = pd.DataFrame({"lang": ["en", "en", "fa", "fa"], "correct": [1, 0, 1, 1]})
    >>> summarise(t, "correct", ["lang"])[["lang", "mean", "n"]].to_dict("records")
    [{'lang': 'en', 'mean': 0.5, 'n': 2}, {'lang': 'fa', 'mean': 1.0, 'n': 2}]
    """
    groups = df.groupby(list(by), sort=True, observed=True, dropna=False) if by else [((), df)]
    rows = []
    for key, part in groups:
        key = key if isinstance(key, tuple) else (key,)
        vals = part[value].astype(float).to_numpy()
        if cluster is not None:
            lo, hi = cluster_bootstrap_ci(vals, part[cluster].to_numpy(), level=level, n_resamples=n_resamples,
                                          seed=seed)
        else:
            lo, hi = mean_ci(vals, level=level, n_resamples=n_resamples, seed=seed, binary=binary)
        rows.append({**dict(zip(by, key)), "mean": float(np.nanmean(vals)) if vals.size else float("nan"),
                     "ci_low": lo, "ci_high": hi, "n": int(vals.size),
                     **({"n_clusters": int(part[cluster].nunique())} if cluster is not None else {})})
    return pd.DataFrame(rows)


def proportion_ci(k: int, n: int, *, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a proportion k/n; ``(nan, nan)`` when n = 0.

    >>> [round(v, 3) for v in proportion_ci(3, 10)], proportion_ci(0, 0)
    ([0.108, 0.603], (nan, nan))
    """
    if n <= 0:
        return (float("nan"), float("nan"))
    ci = stats.binomtest(int(k), int(n)).proportion_ci(confidence_level=level, method="wilson")
    return float(ci.low), float(ci.high)


def macro_proportion_ci(successes: Sequence[float], trials: Sequence[float], *,
                        level: float = 0.95) -> tuple[float, float]:
    """Interval of a **macro** share — the unweighted mean of several groups' proportions k_g/n_g (e.g.
    a macro accuracy over categories) — by MOVER (method of variance estimates recovery; Zou & Donner,
    2008; Newcombe, 2011, for sums of proportions): with each group's Wilson interval [l_g, u_g]
    (:func:`proportion_ci`) and weights w = 1/G, the limits are
    m − √Σ w²(p_g − l_g)² and m + √Σ w²(u_g − p_g)². It inherits Wilson's behaviour at 0 and n
    successes, so a model right on no story still gets an upper limit above 0 (a percentile
    bootstrap gives [0, 0] there), and needs no resampling. Groups without trials are left out;
    ``(nan, nan)`` when none is left.

    >>> [round(v, 3) for v in macro_proportion_ci([0, 0, 0], [3, 3, 4])]  # nothing right: not [0, 0]
    [0.0, 0.311]
    >>> [round(v, 3) for v in macro_proportion_ci([8, 3], [10, 10])]  # macro 0.55
    [0.368, 0.718]
    """
    k, n = np.asarray(successes, dtype=float), np.asarray(trials, dtype=float)
    k, n = k[n > 0], n[n > 0]
    if n.size == 0:
        return (float("nan"), float("nan"))
    p = k / n
    low, high = np.array([proportion_ci(int(a), int(b), level=level) for a, b in zip(k, n)]).T
    m, w = float(p.mean()), 1.0 / n.size
    return (max(0.0, m - w * float(np.sqrt(np.sum((p - low) ** 2)))),
            min(1.0, m + w * float(np.sqrt(np.sum((high - p) ** 2)))))


def agresti_coull_se(p: Sequence[float] | float, n: Sequence[float] | float, *, level: float = 0.95) -> np.ndarray:
    """Standard error of a proportion p over n trials, Agresti–Coull: √(p̃(1 − p̃)/ñ) with ñ = n + z² and
    p̃ = (p·n + z²/2)/ñ — the variance behind the Wilson interval's centre, which unlike the Wald
    √(p(1 − p)/n) is not zero at p = 0 or 1 (a share of 0 is still uncertain). Works on arrays and on
    shares that are not whole counts (published accuracies).

    >>> [round(float(v), 3) for v in agresti_coull_se([0.0, 0.5], [30, 30])]
    [0.04, 0.086]
    """
    z2 = stats.norm.ppf(0.5 + level / 2) ** 2
    p, n = np.asarray(p, dtype=float), np.asarray(n, dtype=float)
    n_tilde = n + z2
    p_tilde = (p * n + z2 / 2) / n_tilde
    return np.sqrt(p_tilde * (1 - p_tilde) / n_tilde)


def cluster_variance(successes: Sequence[float], trials: Sequence[float]) -> float:
    """The cluster-robust (ratio-estimator) variance of a share pooled over clusters, p = Σk / Σn:
    v = Σ(k − p·n)² / (Σn)² (plug-in; :func:`clustered_proportion_ci` divides it by p(1−p)/Σn for
    the design effect). ``nan`` without trials.

    >>> cluster_variance([4, 0], [4, 4])  # two clusters of four identical answers: p = ½, v = (2² + 2²) / 8²
    0.125
    """
    k, n = np.asarray(successes, dtype=float), np.asarray(trials, dtype=float)
    total = float(n.sum())
    if total == 0:
        return float("nan")
    p = float(k.sum()) / total
    return float(np.sum((k - p * n) ** 2)) / total**2


def clustered_proportion_ci(successes: Sequence[float], trials: Sequence[float], *,
                            level: float = 0.95) -> tuple[float, float]:
    """Wilson interval of a proportion pooled over clusters whose answers are not independent
    (``successes`` and ``trials`` per cluster, e.g. per story asked in four option orders).

    The pooled share p = Σk / Σn has the cluster-robust (ratio-estimator) variance
    v = Σ(k − p·n)² / (Σn)² over the clusters (plug-in, like Wilson's p(1−p)/n, so that clusters
    of m identical answers give exactly Wilson on the clusters); the design effect
    deff = v / (p(1−p)/Σn), at least 1, shrinks the sample to n_eff = Σn / deff (Kish), and the
    interval is Wilson's at n_eff (rounded to whole answers, as ``binomtest`` counts them; Korn &
    Graubard, 1998, do the same with Clopper–Pearson). When p is 0 or 1 nothing estimates the
    within-cluster correlation (nor does one cluster), so each cluster counts once (n_eff = C, the
    fully correlated case).
    A percentile cluster bootstrap would give [0, 0] there. ``(nan, nan)`` without trials.

    >>> [round(v, 3) for v in clustered_proportion_ci([4, 0, 0], [4, 4, 4])]  # = Wilson for 1 of 3 stories
    [0.061, 0.792]
    >>> [round(v, 3) for v in clustered_proportion_ci([1, 1, 0, 2], [4, 4, 4, 4])]  # little correlation: Wilson, 4/16
    [0.102, 0.495]
    """
    k, n = np.asarray(successes, dtype=float), np.asarray(trials, dtype=float)
    k, n = k[n > 0], n[n > 0]
    clusters, total = len(n), float(n.sum())
    if clusters == 0:
        return (float("nan"), float("nan"))
    p = float(k.sum()) / total
    if 0.0 < p < 1.0 and clusters > 1:
        n_eff = total / max(1.0, cluster_variance(k, n) / (p * (1 - p) / total))
    else:
        n_eff = clusters
    n_eff = max(1, round(n_eff))
    return proportion_ci(round(p * n_eff), n_eff, level=level)


def mcnemar(a_correct: Sequence[bool], b_correct: Sequence[bool]) -> dict[str, float]:
    """Exact McNemar test for paired binary outcomes (e.g. English vs native on the same items).

    >>> round(mcnemar([1, 1, 1, 1, 1, 1, 0], [0, 0, 0, 0, 0, 0, 0])["p_value"], 4)
    0.0312
    """
    a, b = np.asarray(a_correct, bool), np.asarray(b_correct, bool)
    only_a, only_b = int(np.sum(a & ~b)), int(np.sum(~a & b))
    n = only_a + only_b
    p = 1.0 if n == 0 else stats.binomtest(only_a, n, 0.5).pvalue
    return {"only_a": only_a, "only_b": only_b, "p_value": float(p)}


def wilcoxon(a: Sequence[float], b: Sequence[float]) -> dict[str, float]:
    """Wilcoxon signed-rank test for paired continuous scores (e.g. ρ English vs native).

    >>> {k: round(v, 4) for k, v in wilcoxon([1, 2, 3, 4, 5], [0, 0, 0, 0, 0]).items()}  # p = 2 / 2**5
    {'statistic': 0.0, 'p_value': 0.0625, 'median_diff': 3.0}
    """
    diff = np.asarray(a, float) - np.asarray(b, float)
    if np.allclose(diff, 0):
        return {"statistic": 0.0, "p_value": 1.0, "median_diff": 0.0}
    res = stats.wilcoxon(diff)
    return {"statistic": float(res.statistic), "p_value": float(res.pvalue), "median_diff": float(np.median(diff))}


def permutation_test(a: Sequence[float], b: Sequence[float], *, paired: bool = False, n_resamples: int = 5000,
                     seed: int = 0) -> dict[str, float]:
    """Two-sided permutation test of the difference in means.

    >>> {k: round(v, 4) for k, v in permutation_test([1, 2, 3], [4, 5, 6]).items()}  # 2 of 20 splits
    {'difference': -3.0, 'p_value': 0.1}
    """
    def diff(x, y, axis=-1):
        return np.mean(x, axis=axis) - np.mean(y, axis=axis)

    res = stats.permutation_test((np.asarray(a, float), np.asarray(b, float)), diff, vectorized=True,
                                 permutation_type="samples" if paired else "independent",
                                 n_resamples=n_resamples, random_state=np.random.default_rng(seed))
    return {"difference": float(res.statistic), "p_value": float(res.pvalue)}


def correlations(x: Sequence[float], y: Sequence[float]) -> dict[str, float]:
    """Pearson r, Spearman ρ and Kendall τ with their p-values (NaN pairs dropped).

    >>> c = correlations([1, 2, 3, 4, float("nan")], [1, 3, 2, 4, 5])
    >>> c["n"], round(c["pearson"], 3), round(c["spearman"], 3), round(c["kendall"], 3)
    (4, 0.8, 0.8, 0.667)
    """
    x, y = np.asarray(x, float), np.asarray(y, float)
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y = x[keep], y[keep]
    out = {"n": int(x.size)}
    for name, fn in (("pearson", stats.pearsonr), ("spearman", stats.spearmanr), ("kendall", stats.kendalltau)):
        r = fn(x, y)
        out[name], out[f"{name}_p"] = float(r.statistic), float(r.pvalue)
    return out

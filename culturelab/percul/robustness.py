"""Beyond the paper: does the answer depend on where an option is shown, and are the option
probabilities calibrated?

* :func:`permute_items` asks every story again with its options re-ordered: the 4 cyclic
  shifts (each option visits every position once), all 24 orders, or ``n`` seeded shuffles.
* :func:`permutation_summary`: accuracy per order, mean, **strict consistency** (right under
  every order) and **answer consistency** (same option chosen under every order).
* :func:`position_prior` and :func:`debiased_accuracy`: the model's preference for positions,
  and accuracy after removing it — by averaging each option's probability over the cyclic
  orders (it then sits in every position once), and PriDe-style (Zheng et al., 2024) by dividing
  the probabilities by the estimated position prior.
* :func:`calibration_table`, :func:`reliability_bins`, :func:`expected_calibration_error`,
  :func:`brier_score`, :func:`calibration_summary`: from the softmax over the four option scores.

>>> import pandas as pd
>>> t = pd.DataFrame({"id": ["a"], "options": [["w", "x", "y", "z"]], "answer": [2]})
>>> permute_items(t, "cyclic")[["perm_id", "answer"]].to_dict("list")
{'perm_id': [0, 1, 2, 3], 'answer': [2, 1, 0, 3]}
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats
from scipy.special import softmax

from culturelab.stats import cluster_variance, clustered_proportion_ci

SCHEMES = ("none", "cyclic", "all", "random")
#: equal-width confidence bins of the reliability diagram and of ECE (one count for both)
N_BINS = 10


def permutations(n: int, scheme: str = "cyclic", *, n_random: int = 4, seed: int = 0) -> list[list[int]]:
    """Option orders as lists of original indices (``order[new_position] = original_index``):
    ``random`` gives the stored order and ``n_random − 1`` seeded shuffles (``n_random = 0``:
    every order, as ``all``).

    >>> permutations(3, "cyclic")
    [[0, 1, 2], [1, 2, 0], [2, 0, 1]]
    >>> len(permutations(4, "random", n_random=0)), len(permutations(4, "random", n_random=3))
    (24, 3)
    """
    if scheme not in SCHEMES:
        raise ValueError(f"permutations must be one of {list(SCHEMES)}, not {scheme!r}")
    if scheme == "none":
        return [list(range(n))]
    if scheme == "cyclic":
        return [[(i + k) % n for i in range(n)] for k in range(n)]
    if scheme == "all" or n_random == 0:
        return [list(p) for p in itertools.permutations(range(n))]
    rng = np.random.default_rng(seed)
    return [list(range(n))] + [[int(i) for i in rng.permutation(n)] for _ in range(max(n_random - 1, 0))]


def permute_items(items: pd.DataFrame, scheme: str = "cyclic", *, n_random: int = 4, seed: int = 0,
                  columns: Sequence[str] = ("options", "rules")) -> pd.DataFrame:
    """Every story once per order: ``perm_id``, ``order`` (original index at each position), the
    re-ordered ``options`` (and ``rules``), and the new ``answer``. Deterministic given ``seed``
    (``random`` draws one order set shared by all stories)."""
    orders = permutations(len(items["options"].iloc[0]), scheme, n_random=n_random, seed=seed)
    out = items.loc[items.index.repeat(len(orders))].reset_index(drop=True)
    perm = np.tile(np.arange(len(orders)), len(items))
    for col in (c for c in columns if c in out):
        out[col] = [[v[i] for i in orders[k]] if isinstance(v, (list, tuple)) else v for v, k in zip(out[col], perm)]
    out["answer"] = [orders[k].index(int(a)) for a, k in zip(out["answer"], perm)]
    out["perm_id"] = perm
    out["order"] = [list(orders[k]) for k in perm]
    return out


def option_probs(scores: Sequence[Sequence[float]]) -> np.ndarray:
    """Softmax over each row of option scores (log-likelihoods) → probabilities (rows sum to 1).

    >>> option_probs([[0.0, 0.0]]).tolist()
    [[0.5, 0.5]]
    """
    return softmax(np.asarray([list(s) for s in scores], dtype=float), axis=1)


def permutation_summary(results: pd.DataFrame, by: Sequence[str] = ("model",)) -> pd.DataFrame:
    """Accuracy under the original order and on average over orders, the spread across orders,
    strict consistency and answer consistency (chosen *original* option identical under all orders)."""
    by = list(by)
    res = results.assign(chosen=[o[p] if p >= 0 else -1 for o, p in zip(results["order"], results["pred"])])
    rows = []
    for key, part in res.groupby(by, observed=True, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        acc = part.groupby("perm_id")["correct"].mean()
        per_item = part.groupby("id")
        rows.append({**dict(zip(by, key)), "accuracy_original": float(acc.get(0, np.nan)),
                     "accuracy_mean": float(acc.mean()), "accuracy_min": float(acc.min()),
                     "accuracy_max": float(acc.max()), "strict_consistency": float(per_item["correct"].all().mean()),
                     "answer_consistency": float((per_item["chosen"].nunique() == 1).mean()),
                     "n_orders": int(part["perm_id"].nunique()), "n_items": int(part["id"].nunique())})
    return pd.DataFrame(rows)


def position_prior(results: pd.DataFrame, *, cluster: str = "id") -> pd.DataFrame:
    """Per model: share of predictions at each position (of ``n_predictions`` valid answers to
    ``n_stories`` stories, with its 95 % interval ``ci_low``/``ci_high`` clustered by story — the
    orders of one story are not independent answers: :func:`culturelab.stats.clustered_proportion_ci`),
    share of correct answers there (of ``n_items``), the mean probability mass per position, and
    :func:`position_test` of the predictions against where the correct answers are (``chi2_p``,
    Rao–Scott corrected with the ``design_effect`` of the story clusters; ``n_stories`` beside it).

    >>> t = pd.DataFrame({"model": "m", "id": ["s1", "s1", "s2", "s2"], "pred": [0, 0, 1, -1],
    ...                   "answer": [0, 1, 1, 2], "options": [list("abcd")] * 4})
    >>> position_prior(t)[["position", "predicted_share", "n_predictions", "n_stories"]].round(2).head(2).to_dict("list")
    {'position': [1, 2], 'predicted_share': [0.67, 0.33], 'n_predictions': [3, 3], 'n_stories': [2, 2]}
    """
    rows = []
    for model, part in results.groupby("model", sort=False):
        n = len(part["options"].iloc[0])
        pred = np.bincount(part["pred"][part["pred"] >= 0], minlength=n)
        gold = np.bincount(part["answer"], minlength=n)
        probs = option_probs(part["scores"]).mean(axis=0) if "scores" in part else np.full(n, np.nan)
        valid = part[part["pred"] >= 0]
        per_story = pd.crosstab(valid[cluster], valid["pred"]).reindex(columns=range(n), fill_value=0)
        test = position_test(valid, cluster=cluster, n_options=n)
        for pos in range(n):
            low, high = clustered_proportion_ci(per_story[pos], per_story.sum(axis=1))
            rows.append({"model": model, "position": pos + 1, "predicted_share": pred[pos] / max(pred.sum(), 1),
                         "ci_low": low, "ci_high": high, "n_predictions": int(pred.sum()),
                         "answer_share": gold[pos] / max(gold.sum(), 1), "n_items": int(gold.sum()),
                         "mean_prob": float(probs[pos]), "chi2_p": test["p_value"],
                         "design_effect": test["design_effect"], "n_stories": len(per_story)})
    return pd.DataFrame(rows)


def position_test(valid: pd.DataFrame, *, cluster: str = "id", n_options: int = 4) -> dict[str, float]:
    """Do a model's predicted positions (``pred`` ≥ 0) follow where the correct answers are
    (``answer``, the same rows)? Pearson's χ² of the predicted counts against the expected counts
    N·π (π: the share of correct answers at each position; under ``random`` orders shared by all
    stories it need not be uniform), with the Rao–Scott first-order correction for the story
    clusters (Rao & Scott, 1981): χ² / δ̄, δ̄ = Σ (1 − π_j) d_j / (K − 1), d_j = the cluster
    variance of position j's share (:func:`culturelab.stats.cluster_variance`, as
    :func:`culturelab.stats.clustered_proportion_ci`) over π_j(1 − π_j)/N, at least 1. Positions
    no correct answer holds are left out. Returns ``chi2`` (corrected), ``design_effect`` (δ̄),
    ``p_value`` (df = K − 1) and ``n_stories``.

    >>> t = pd.DataFrame({"id": ["a"] * 4 + ["b"] * 4, "pred": [0] * 4 + [1] * 4, "answer": [0, 1, 2, 3] * 2})
    >>> {k: round(v, 2) for k, v in position_test(t).items()}
    {'chi2': 3.0, 'design_effect': 2.67, 'p_value': 0.39, 'n_stories': 2}
    """
    pred, answer = valid["pred"].to_numpy(dtype=int), valid["answer"].to_numpy(dtype=int)
    stories = valid[cluster].nunique()
    expected = np.bincount(answer, minlength=n_options) / max(len(answer), 1)
    cells = np.flatnonzero(expected > 0)
    if len(pred) == 0 or len(cells) < 2:
        return {"chi2": np.nan, "design_effect": np.nan, "p_value": np.nan, "n_stories": stories}
    total = len(pred)
    observed = np.bincount(pred, minlength=n_options)
    chi2 = float(np.sum((observed[cells] - total * expected[cells]) ** 2 / (total * expected[cells])))
    per_story = pd.crosstab(valid[cluster], valid["pred"]).reindex(columns=range(n_options), fill_value=0)
    sizes = per_story.sum(axis=1)
    pi = expected[cells]
    deff = np.array([cluster_variance(per_story[j], sizes) for j in cells]) / (pi * (1 - pi) / total)
    mean_deff = max(1.0, float(np.sum((1 - pi) * np.nan_to_num(deff)) / (len(cells) - 1)))
    corrected = chi2 / mean_deff
    return {"chi2": corrected, "design_effect": mean_deff,
            "p_value": float(stats.chi2.sf(corrected, len(cells) - 1)), "n_stories": stories}


def debiased_accuracy(results: pd.DataFrame, by: Sequence[str] = ("model",)) -> pd.DataFrame:
    """Accuracy after removing position preference, two ways (needs ``scores`` and ``order``):

    * ``permutation_averaged``: each original option's probability averaged over all orders, argmax
      (with cyclic orders every option sits once in every position);
    * ``prior_corrected``: PriDe-style — probabilities divided by the position prior estimated from
      all orders (mean probability per position), renormalised, argmax; averaged over orders.
    """
    by = list(by)
    rows = []
    for key, part in results.groupby(by, observed=True, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        probs = option_probs(part["scores"])
        orders = np.array(part["order"].tolist())
        # probability of each ORIGINAL option: scatter positions back to original indices
        original = np.zeros_like(probs)
        np.put_along_axis(original, orders, probs, axis=1)
        frame = pd.DataFrame(original).assign(id=part["id"].to_numpy())
        mean_by_item = frame.groupby("id", sort=False).mean()
        gold = part.drop_duplicates("id").set_index("id").apply(lambda r: r["order"][r["answer"]], axis=1)
        averaged = float((mean_by_item.to_numpy().argmax(axis=1) == gold.loc[mean_by_item.index].to_numpy()).mean())
        prior = probs.mean(axis=0)
        corrected = probs / prior
        prior_acc = float((corrected.argmax(axis=1) == part["answer"].to_numpy()).mean())
        rows.append({**dict(zip(by, key)), "accuracy_mean": float(part["correct"].mean()),
                     "permutation_averaged": averaged, "prior_corrected": prior_acc,
                     "position_prior": [round(float(p), 4) for p in prior]})
    return pd.DataFrame(rows)


def calibration_table(confidence: Sequence[float], correct: Sequence[bool], *, n_bins: int = N_BINS,
                      stories: Sequence[object] | None = None) -> pd.DataFrame:
    """Reliability-diagram bins over [0, 1]: ``bin_low``, ``bin_high``, mean ``confidence``,
    ``accuracy``, ``n_predictions`` and ``n`` (empty bins kept with n = 0). ``n`` counts **stories**,
    the independent unit, when ``stories`` (one id per prediction) is given — one story asked in
    several option orders is one story in a bin, however many of its orders fall there —, else the
    predictions.

    >>> calibration_table([0.9, 0.8, 0.3], [1, 1, 0], n_bins=2)["n"].tolist()
    [1, 2]
    >>> calibration_table([0.9, 0.8, 0.3], [1, 1, 0], n_bins=2, stories=["a", "a", "b"])["n"].tolist()
    [1, 1]
    """
    conf = np.asarray(confidence, dtype=float)
    ok = np.asarray(correct, dtype=float)
    ids = np.arange(len(conf)) if stories is None else np.asarray(list(stories), dtype=object)
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    idx = np.clip(np.digitize(conf, edges[1:-1], right=True), 0, n_bins - 1)
    rows = []
    for b in range(n_bins):
        mask = idx == b
        rows.append({"bin_low": edges[b], "bin_high": edges[b + 1], "n": len(set(ids[mask])),
                     "n_predictions": int(mask.sum()),
                     "confidence": float(conf[mask].mean()) if mask.any() else np.nan,
                     "accuracy": float(ok[mask].mean()) if mask.any() else np.nan})
    return pd.DataFrame(rows)


def expected_calibration_error(confidence: Sequence[float], correct: Sequence[bool], *, n_bins: int = N_BINS) -> float:
    """ECE: mean |accuracy − confidence| over the bins of :func:`calibration_table`, weighted by the
    predictions in each bin.

    >>> round(expected_calibration_error([0.9, 0.9], [1, 0], n_bins=10), 2)
    0.4
    """
    t = calibration_table(confidence, correct, n_bins=n_bins)
    t = t[t["n_predictions"] > 0]
    return float((t["n_predictions"] * (t["accuracy"] - t["confidence"]).abs()).sum() / t["n_predictions"].sum())


def brier_score(probs: np.ndarray, answers: Sequence[int]) -> float:
    """Multi-class Brier score (mean squared error of the probability vector vs one-hot).

    >>> brier_score(np.array([[1.0, 0.0], [0.5, 0.5]]), [0, 1])
    0.25
    """
    onehot = np.eye(probs.shape[1])[np.asarray(answers, dtype=int)]
    return float(((probs - onehot) ** 2).sum(axis=1).mean())


def _confidence(part: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Option probabilities, confidence (max probability) and correctness of the argmax."""
    probs = option_probs(part["scores"])
    return probs, probs.max(axis=1), probs.argmax(axis=1) == part["answer"].to_numpy()


def reliability_bins(results: pd.DataFrame, *, n_bins: int = N_BINS, cluster: str = "id") -> pd.DataFrame:
    """:func:`calibration_table` of each model's answers (confidence = max option probability),
    stacked with a ``model`` column, for a reliability diagram; ``n`` counts the stories in each bin
    (``cluster``, when the results have it), ``n_predictions`` the answers.

    >>> t = pd.DataFrame({"model": "m", "id": "s", "scores": [[0.0, -9.0], [-9.0, 0.0]], "answer": [0, 0]})
    >>> reliability_bins(t, n_bins=2)[["n", "n_predictions", "accuracy", "model"]].to_dict("list")
    {'n': [0, 1], 'n_predictions': [0, 2], 'accuracy': [nan, 0.5], 'model': ['m', 'm']}
    """
    parts = []
    for model, part in results.groupby("model", sort=False):
        _, conf, ok = _confidence(part)
        parts.append(calibration_table(conf, ok, n_bins=n_bins, stories=part.get(cluster)).assign(model=model))
    return pd.concat(parts, ignore_index=True)


def calibration_summary(results: pd.DataFrame, by: Sequence[str] = ("model",), *, n_bins: int = N_BINS,
                        cluster: str = "id") -> pd.DataFrame:
    """Per group: accuracy, mean confidence (max option probability), ECE (over the ``n_bins`` bins
    of :func:`reliability_bins`: pass the diagram's count) and Brier score, of ``n`` answers to
    ``n_stories`` stories — the orders of one story are not independent answers, so ``n``
    overstates what the ECE rests on.

    >>> t = pd.DataFrame({"model": "m", "id": ["a", "a"], "scores": [[0.0, -9.0], [-9.0, 0.0]], "answer": [0, 0]})
    >>> calibration_summary(t)[["accuracy", "n", "n_stories"]].to_dict("records")
    [{'accuracy': 0.5, 'n': 2, 'n_stories': 1}]
    """
    by = list(by)
    rows = []
    for key, part in results.groupby(by, observed=True, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        probs, conf, ok = _confidence(part)
        rows.append({**dict(zip(by, key)), "accuracy": float(ok.mean()), "mean_confidence": float(conf.mean()),
                     "ece": expected_calibration_error(conf, ok, n_bins=n_bins),
                     "brier": brier_score(probs, part["answer"]), "n": len(part),
                     "n_stories": int(part[cluster].nunique()) if cluster in part else len(part)})
    return pd.DataFrame(rows)

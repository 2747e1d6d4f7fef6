"""Intervals: the fast (vectorised, batched) bootstrap gives the interval of one call per resample; Wilson
intervals for proportions, clustered ones for answers that come in groups."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from culturelab import stats


def _one_call_per_resample(x: np.ndarray, statistic=np.mean, seed: int = 0) -> tuple[float, float]:
    res = sps.bootstrap((x,), statistic, n_resamples=2000, method="percentile",
                        random_state=np.random.default_rng(seed), vectorized=False)
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


@pytest.mark.parametrize("n", [2, 7, 60, 3125])  # 3125 x 2000 resamples is over RESAMPLE_CELLS: batched
def test_the_vectorised_interval_equals_one_call_per_resample(n):
    rng = np.random.default_rng(n)
    for x in (rng.random(n), (rng.random(n) < 0.4).astype(float)):
        assert stats.bootstrap_ci(x, seed=3) == _one_call_per_resample(x, seed=3)
        assert stats.bootstrap_ci(x, np.median, seed=3) == _one_call_per_resample(x, np.median, seed=3)


def test_a_statistic_without_axis_is_called_per_resample():
    x = np.random.default_rng(0).random(40)
    trimmed = lambda v: float(np.sort(v)[2:-2].mean())  # noqa: E731
    assert stats.bootstrap_ci(x, trimmed) == _one_call_per_resample(x, trimmed)


def test_large_groups_are_resampled_in_batches_of_bounded_size(monkeypatch):
    seen = []
    original = sps.bootstrap

    def spy(*args, **kwargs):
        seen.append(kwargs["batch"])
        return original(*args, **kwargs)

    monkeypatch.setattr(stats.stats, "bootstrap", spy)
    stats.bootstrap_ci(np.arange(3125.0))
    stats.bootstrap_ci(np.arange(50.0))
    assert seen == [stats.RESAMPLE_CELLS // 3125, None]


def test_proportions_get_wilson_intervals_where_the_bootstrap_collapses():
    """0/3 and 1/3 correct (PERCUL per-category bars at n = 3): the percentile bootstrap gave [0, 0]
    and [0, 1]; Wilson gives [0, 0.56] and [0.06, 0.79]. Other means keep the bootstrap."""
    t = pd.DataFrame({"cat": list("aaabbbccc"), "correct": [0, 0, 0, 1, 0, 0, 1, 1, 1]})
    got = stats.summarise(t, "correct", ["cat"]).set_index("cat")
    for cat, k in (("a", 0), ("b", 1), ("c", 3)):
        wilson = sps.binomtest(k, 3).proportion_ci(method="wilson")
        assert got.loc[cat, ["ci_low", "ci_high"]].tolist() == pytest.approx([wilson.low, wilson.high])
    assert got.loc["a", "ci_high"] == pytest.approx(0.5615, abs=1e-4)
    assert got.loc["b", ["ci_low", "ci_high"]].round(2).tolist() == [0.06, 0.79]
    assert stats.mean_ci([1.0, np.nan]) == stats.proportion_ci(1, 1)  # one answer still has an interval
    x = np.array([0.2, 0.9, 0.4, 1.0, 0.0])
    assert stats.mean_ci(x, seed=2) == stats.bootstrap_ci(x, seed=2)


def test_clustered_proportion_counts_each_cluster_once_when_its_answers_agree():
    wilson = stats.proportion_ci
    # 10 stories x 4 orders, each story's four answers identical: the information of 10 answers, not 40
    k, n = np.array([4, 4, 4, 0, 0, 0, 0, 0, 0, 0]), np.full(10, 4)
    assert stats.clustered_proportion_ci(k, n) == pytest.approx(wilson(3, 10))
    assert wilson(12, 40)[1] - wilson(12, 40)[0] < 0.8 * (wilson(3, 10)[1] - wilson(3, 10)[0])
    # no share at all: nothing estimates the correlation, each story counts once (not [0, 0])
    assert stats.clustered_proportion_ci(np.zeros(10), n) == pytest.approx(wilson(0, 10))
    # answers that vary within stories as much as across them: plain Wilson on all answers
    assert stats.clustered_proportion_ci([1, 1, 0, 2], [4, 4, 4, 4]) == pytest.approx(wilson(4, 16))
    assert all(np.isnan(stats.clustered_proportion_ci([0, 0], [0, 0])))


@pytest.mark.parametrize("shared", [0.0, 0.5, 0.9])
def test_clustered_proportion_agrees_with_a_cluster_bootstrap_away_from_0_and_1(shared):
    rng = np.random.default_rng(0)
    stories, orders = 200, 4
    story = rng.random(stories) < 0.3
    answers = np.where(rng.random((stories, orders)) < shared, story[:, None], rng.random((stories, orders)) < 0.3)
    k, n = answers.sum(axis=1).astype(float), np.full(stories, float(orders))
    boot = sps.bootstrap((k, n), lambda k, n, axis=-1: k.sum(axis) / n.sum(axis), paired=True, vectorized=True,
                         n_resamples=4000, method="percentile", random_state=np.random.default_rng(1))
    ours = stats.clustered_proportion_ci(k, n)
    assert ours == pytest.approx((boot.confidence_interval.low, boot.confidence_interval.high), abs=0.01)


def test_a_mean_of_correlations_that_are_0_or_1_gets_no_wilson_interval():
    from culturelab.stats import mean_ci

    assert mean_ci([0.0] * 20, binary=False) == (0.0, 0.0)
    assert mean_ci([0.0] * 20)[1] > 0  # as a proportion: Wilson's upper bound


def test_answers_of_one_item_resampled_whole_widen_the_interval_as_independent_ones_would_not():
    import numpy as np

    from culturelab.stats import bootstrap_ci, cluster_bootstrap_ci

    rng = np.random.default_rng(0)
    per_item = rng.normal(size=30)
    twice = np.repeat(per_item, 2)  # each item answered twice, identically (two languages, one shuffle)
    lo, hi = cluster_bootstrap_ci(twice, np.repeat(np.arange(30), 2), seed=0)
    one = bootstrap_ci(per_item, seed=0)
    naive = bootstrap_ci(twice, seed=0)
    assert abs((hi - lo) - (one[1] - one[0])) < 0.15 * (one[1] - one[0])  # as wide as one answer per item
    assert (naive[1] - naive[0]) < 0.8 * (hi - lo)  # the independent reading is too narrow


def test_captex_reordering_intervals_are_clustered_by_procedure():
    import pandas as pd

    from culturelab.captex.reordering import summarise_reordering

    t = pd.DataFrame({"procedure_id": [f"p{i // 2}" for i in range(20)], "rho": [0.0, 0.0, 1.0, 1.0] * 5,
                      "tau": 0.0, "ld": 3.0, "valid": True, "exact": False})
    row = summarise_reordering(t).iloc[0]
    assert row["n"] == 20 and row["n_procedures"] == 10
    assert row["rho_ci_high"] - row["rho_ci_low"] > 0.5  # 10 procedures, half at 1: not Wilson's over 20 answers


def test_the_reordering_curve_bands_resample_a_procedure_s_two_languages_together():
    import matplotlib.pyplot as plt
    import numpy as np
    import pandas as pd

    from culturelab.plots.curves import valid_answer_curves

    rng = np.random.default_rng(1)
    rho = np.repeat(rng.uniform(-1, 1, 30), 2)
    t = pd.DataFrame({"steps": 5, "rho": rho, "valid": True, "m": "c", "procedure_id": np.repeat(np.arange(30), 2)})
    widths = []
    for cluster in (None, "procedure_id"):
        fig = valid_answer_curves(t, "steps", {"rho": "ρ"}, hue="m", cluster=cluster)
        band = fig.axes[0].collections[0].get_paths()[0].vertices[:, 1]
        widths.append(band.max() - band.min())
        plt.close(fig)
    assert widths[1] > 1.2 * widths[0]

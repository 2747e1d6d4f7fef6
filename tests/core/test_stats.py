"""Bootstrap intervals: the fast (vectorised, batched) path gives the interval of one call per resample."""

from __future__ import annotations

import numpy as np
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

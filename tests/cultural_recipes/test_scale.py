"""Full vocabularies at bounded memory, and "0 means all" for every size knob of the §4 notebook."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from culturelab.cultural_recipes import alignment, corpus
from culturelab.embeddings import align, vectors

PEAK = textwrap.dedent("""
    import sys
    import numpy as np, torch
    from culturelab.embeddings import align, space

    def status(key):  # kB, from the kernel's accounting of this process
        return next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith(key))

    n, budget = int(sys.argv[1]), int(sys.argv[2])
    rng = np.random.default_rng(0)
    x = torch.from_numpy(rng.normal(size=(n, 32)).astype("float32"))
    z = torch.from_numpy(rng.normal(size=(n, 32)).astype("float32"))
    space.translate(x[:50], z[:50], k=5, retrieval="csls", device="cpu")  # warm up the allocator and kernels
    align.induce_dictionary(x[:50], z[:50], csls_k=10)
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")  # reset the peak resident size to the current one
    base = status("VmRSS:")
    space.translate(x, z, k=5, retrieval="csls", device="cpu", budget_mb=budget)  # CSLS retrieval of every word
    align.induce_dictionary(x, z, csls_k=10, keep_prob=0.5, budget_mb=budget)  # stochastic CSLS induction
    print((status("VmHWM:") - base) / 1024)
""")


def peak_growth_mib(n: int, budget_mb: int) -> float:
    out = subprocess.run([sys.executable, "-c", PEAK, str(n), str(budget_mb)], capture_output=True, text=True,
                         check=True)
    return float(out.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="needs Linux's peak-RSS reset")
def test_retrieval_and_induction_over_a_large_vocabulary_stay_within_the_memory_budget():
    # 4,000 x 4,000 similarities are 61 MiB each: induction holds two (and a random draw) when allowed to
    bounded = peak_growth_mib(4000, budget_mb=8)
    unbounded = peak_growth_mib(4000, budget_mb=4096)
    assert bounded < 40, bounded
    assert unbounded > 100, unbounded  # the measurement sees the full matrices when they are allowed


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="needs Linux's peak-RSS reset")
def test_the_peak_of_a_blocked_step_does_not_grow_with_the_vocabulary():
    # 3x the words = 9x the similarities (61 -> 549 MiB each unblocked, +488 MiB); blocked, only the
    # per-word outputs (a few dozen candidates and k neighbours per word) grow: O(n k), not O(n^2)
    small, large = peak_growth_mib(4000, budget_mb=8), peak_growth_mib(12000, budget_mb=8)
    assert large < 40 and large - small < 25, (small, large)


def test_the_unsupervised_initialisation_is_capped_by_the_budget():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(300, 8)).astype("float32")
    with pytest.warns(UserWarning, match="over 209 words, not 300"):
        src, _ = align.unsupervised_init(x, x, vocab=0, budget_mb=1)
    assert src.max() < 209 and len(src) == 2 * 209
    src, _ = align.unsupervised_init(x, x, vocab=0, budget_mb=64)
    assert len(src) == 600  # all of it when it fits


def test_zero_means_all_for_the_size_knobs():
    assert len(corpus.corpora(max_recipes=0).zh()) == corpus.TOY_RECIPES
    counts = {"豆腐": 50, "蒸": 40, "菠菜": 80, "好吃": 30, "的": 900}
    assert alignment.select_queries(counts, n=0) == ["豆腐", "蒸", "好吃"] == alignment.select_queries(counts, n=3)
    assert alignment.select_queries(counts, n=1) == ["豆腐"]
    full = vectors.load_glove(max_words=0)
    assert len(full) > 300_000 and full.words[:3] == vectors.load_glove(max_words=3).words


@pytest.mark.slow
def test_real_vectors_check_reports_intervals_chance_and_food_neighbours():
    scores, food = alignment.real_vectors_check(["supervised"], vocab=2000, max_iter=2)
    assert set(scores["k"]) == {1, 5, 10} and set(scores["retrieval"]) == {"nn", "csls"}
    assert (scores["ci_low"] <= scores["precision"]).all() and (scores["precision"] <= scores["ci_high"]).all()
    # random retrieval over 2,000 English words: P@1 is about |gold| / 2,000
    assert (scores.loc[scores["k"] == 1, "chance"] < 0.002).all()
    assert (scores.loc[scores["k"] == 1, "precision"] > 10 * scores.loc[scores["k"] == 1, "chance"]).all()
    assert isinstance(food, pd.DataFrame) and food.groupby("query").size().eq(5).all()

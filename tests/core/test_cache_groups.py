"""``loglikelihood_groups``: one cache row per (context, continuation chunk) group, resumable group by
group, and per-pair rows cached by ``loglikelihood`` keep serving (warm caches stay warm)."""

from __future__ import annotations

import numpy as np
import pytest

from culturelab.fmlama.probing import score_queries
from culturelab.models.base import LanguageModel, LogLikelihood
from culturelab.models.cache import ResponseCache


class Scorer(LanguageModel):
    """log P = -(len(context) + 2 len(continuation)) / 10, n_tokens = len(continuation); counts computed pairs."""

    backend = "fake"

    def __init__(self, cache, fail_after: int | None = None):
        super().__init__("scorer", cache=cache, progress=False, chunk_size=4)
        self.pairs_computed = 0
        self.fail_after = fail_after

    def _generate(self, prompts, **params):
        raise NotImplementedError

    def _loglikelihood(self, requests):
        if self.fail_after is not None and self.pairs_computed >= self.fail_after:
            raise KeyboardInterrupt("killed")
        self.pairs_computed += len(requests)
        return [LogLikelihood(-(len(c) + 2 * len(x)) / 10, len(x), False) for c, x in requests]


GROUPS = [("The food pho has ", [f"c{i} ." for i in range(10)]), ("", [f"c{i} is in pho ." for i in range(10)]),
          ("The food bun has ", [f"c{i} ." for i in range(3)])]


def test_groups_are_one_row_each_and_equal_pairwise_scores(tmp_path):
    cache = ResponseCache(tmp_path / "r.sqlite")
    lm = Scorer(cache)
    grouped = lm.loglikelihood_groups(GROUPS)
    assert len(cache) == len(GROUPS) and lm.pairs_computed == 23
    pairwise = Scorer(False).loglikelihood([(c, x) for c, xs in GROUPS for x in xs])
    assert [r for row in grouped for r in row] == pairwise
    again = Scorer(cache)
    assert again.loglikelihood_groups(GROUPS) == grouped and again.pairs_computed == 0
    assert again.stats.requested_by_kind == {"loglikelihood": 23} and again.stats.cached == 23


def test_warm_per_pair_rows_are_reused_not_recomputed(tmp_path):
    cache = ResponseCache(tmp_path / "r.sqlite")
    old = Scorer(cache)
    old.loglikelihood([(c, x) for c, xs in GROUPS[:2] for x in xs])  # the cache as earlier versions wrote it
    assert len(cache) == 20
    lm = Scorer(cache)
    grouped = lm.loglikelihood_groups(GROUPS)
    assert lm.pairs_computed == 3  # only the pairs no earlier run had scored
    assert [r for row in grouped for r in row] == Scorer(False).loglikelihood([(c, x) for c, xs in GROUPS for x in xs])


def test_a_killed_run_resumes_at_the_first_unfinished_group(tmp_path):
    cache = ResponseCache(tmp_path / "r.sqlite")
    with pytest.raises(KeyboardInterrupt):
        Scorer(cache, fail_after=12).loglikelihood_groups(GROUPS)  # dies inside the second group
    assert len(cache) == 1  # the finished first group is committed; the half-done second is not
    lm = Scorer(cache)
    lm.loglikelihood_groups(GROUPS)
    assert lm.pairs_computed == 13


def test_fmlama_sentence_scoring_stores_one_row_per_query_and_candidate_chunk(tmp_path):
    cache = ResponseCache(tmp_path / "r.sqlite")
    queries = ["The food pho has [Y] .", "[Y] is in pho .", "The food bun has [Y] ."]
    cands = [f"c{i}" for i in range(10)]
    # 3 queries x 2 candidate chunks; "continuation": one scoring request per (candidate + rest of the sentence)
    scores = score_queries(Scorer(cache), queries, cands, chunk=5, normalise="continuation")
    assert len(cache) == 6 and scores.shape == (3, 10)
    expected = np.array([[-(len(q.split("[Y]")[0]) + 2 * len(c + q.split("[Y]")[1])) / 10 / len(c + q.split("[Y]")[1])
                          for c in cands] for q in queries], dtype=np.float32)
    assert np.allclose(scores, expected)
    # eq. 2 scores the candidate's own sub-tokens and the rest of the sentence given it: two rows per chunk
    eq2 = ResponseCache(tmp_path / "eq2.sqlite")
    assert score_queries(Scorer(eq2), queries, cands, chunk=5).shape == (3, 10) and len(eq2) == 12

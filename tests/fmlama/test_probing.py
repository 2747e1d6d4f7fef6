"""Ranking candidates: the masked ranker against a slow reference loop, causal sentence
scoring against the naive backend, the frequency baseline, and probe() end to end."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from culturelab.fmlama import data as F
from culturelab.fmlama import probing as P
from culturelab.fmlama.metrics import candidate_set
from culturelab.models import load_model

QUERIES = ["the food has ingredients of [Y] .", "rice is cooked with [Y] and butter",
           "[Y] is served with tea", "饺子 包 [Y]"]
CANDIDATES = ["rice", "saffron and butter", "tea", "lentils and onion", "soy sauce", "flour", "water",
              "noodles with egg and soy sauce", "bread is baked", "pilav", "肉", "zzz unknown", "sugar"]


@pytest.fixture(scope="module")
def mlm(tiny_masked_dir):
    return load_model(f"masked:{tiny_masked_dir}", device="cpu", cache=False, progress=False, max_masks=4)


def reference_scores(mlm, query: str, candidates: list[str], max_masks: int) -> list[float]:
    """One candidate at a time: its own query with as many masks as it has sub-tokens, one
    forward pass, mean log-probability of its sub-tokens (the paper's eq. 2)."""
    out = []
    for cand in candidates:
        ids = mlm.tokenizer(cand, add_special_tokens=False)["input_ids"]
        if not 1 <= len(ids) <= max_masks:
            out.append(-np.inf)
            continue
        prefix, suffix = query.split("[Y]")
        enc = mlm.tokenizer(prefix + " ".join(["[MASK]"] * len(ids)) + suffix, return_tensors="pt")
        with torch.no_grad():
            logits = mlm.model(**enc).logits[0]
        pos = (enc["input_ids"][0] == mlm.tokenizer.mask_token_id).nonzero()[:, 0]
        lp = torch.log_softmax(logits[pos], dim=-1)
        out.append(float(np.mean([lp[i, t].item() for i, t in enumerate(ids)])))
    return out


def test_masked_ranker_ranks_exactly_like_the_slow_reference(mlm):
    scores = P.score_queries(mlm, QUERIES, CANDIDATES)
    assert scores.shape == (len(QUERIES), len(CANDIDATES))
    lengths = [len(mlm.tokenizer(c, add_special_tokens=False)["input_ids"]) for c in CANDIDATES]
    assert max(lengths) > 4 and min(lengths) == 1  # exercises the cap and several mask counts
    for q, row in zip(QUERIES, scores):
        ref = np.array(reference_scores(mlm, q, CANDIDATES, 4))
        np.testing.assert_array_equal(np.isinf(row), np.isinf(ref))
        np.testing.assert_allclose(row[np.isfinite(ref)], ref[np.isfinite(ref)], rtol=1e-5, atol=1e-5)
        finite = np.isfinite(ref)
        order = np.argsort(-row[finite], kind="stable")
        assert order.tolist() == np.argsort(-ref[finite], kind="stable").tolist()


def test_causal_sentence_scoring_equals_the_naive_backend(tiny_causal_dir):
    lm = load_model(f"hf:{tiny_causal_dir}", device="cpu", cache=False, progress=False)
    cands = ["rice", "saffron and butter", "tea", "lentils"]
    naive_results = lm.naive_loglikelihood(P.sentence_pairs(QUERIES[:3], cands))
    summed = P.score_queries(lm, QUERIES[:3], cands, normalise="sum")
    np.testing.assert_allclose(summed.ravel(), [r.logprob for r in naive_results], rtol=1e-4, atol=1e-4)
    # "continuation": summed log-prob over the number of scored tokens (candidate and rest of the sentence)
    scores = P.score_queries(lm, QUERIES[:3], cands, normalise="continuation")
    mean = np.array([r.logprob / r.n_tokens for r in naive_results])
    np.testing.assert_allclose(scores.ravel(), mean, rtol=1e-4, atol=1e-4)
    assert not np.allclose(scores, summed)
    with pytest.raises(ValueError, match="normalise"):
        P.score_queries(lm, QUERIES, cands, normalise="max")
    # a template whose slot comes first still depends on what follows it (the default, eq. 2, too)
    for normalise in P.NORMALISES:
        a = P.score_queries(lm, ["[Y] is served with tea"], cands, normalise=normalise)
        b = P.score_queries(lm, ["[Y] is served with rice"], cands, normalise=normalise)
        assert not np.allclose(a, b)
    # prefix scoring is the core's mean log-prob and ignores the suffix
    p1 = P.score_queries(lm, ["[Y] is served with tea"], cands, scoring="prefix")
    p2 = P.score_queries(lm, ["[Y] is served with rice"], cands, scoring="prefix")
    np.testing.assert_allclose(p1, p2)
    with pytest.raises(ValueError, match="scoring"):
        P.score_queries(lm, QUERIES, cands, scoring="best")


def test_frequency_baseline_leaves_the_dish_out():
    import pandas as pd

    ref = pd.DataFrame({"url": list("vwxyz"), "dish": list("VWXYZ"), "group": "G",
                        "ingredients": [["a", "b"], ["a"], ["a", "c"], ["c"], ["a"]]})
    cands = ["a", "b", "c"]
    gold = np.array([[1, 1, 0], [1, 0, 0], [1, 0, 1], [0, 0, 1], [1, 0, 0]], bool)
    scores = P.frequency_scores(gold, seed=1)
    # counts a=4, b=1, c=2 minus the dish's own gold; the jitter only breaks ties
    np.testing.assert_array_equal(np.floor(scores), [[3, 0, 2], [3, 1, 2], [3, 1, 1], [4, 1, 1], [3, 1, 2]])
    out = P.probe_frequency(ref, "en", cands, reference=ref, seed=1)
    assert out["top"].map(lambda t: t[0]).tolist() == ["a"] * 5
    assert out.loc[3, "ap"] < 1 and out.loc[1, "ap"] == 1.0
    new = pd.DataFrame({"url": ["new"], "dish": ["N"], "group": "G", "ingredients": [["c"]]})
    top = P.probe_frequency(new, "en", cands, reference=ref, seed=1)["top"].iloc[0]
    assert top[:2] == ["a", "c"]  # a dish outside the reference loses nothing from its own gold


def test_candidate_pool_and_sampling_are_deterministic():
    table = F.load_language("en", data_source="sample")
    sampled = P.sample_dishes(table, 1, seed=3)
    assert sampled["group"].is_unique and set(sampled["group"]) == set(table["group"])
    pool = P.candidate_pool(table, sampled, 20, seed=3)
    gold = candidate_set(sampled["ingredients"])
    full = candidate_set(table["ingredients"])
    assert pool == P.candidate_pool(table, sampled, 20, seed=3)
    assert len(pool) == min(len(full), max(20, 2 * len(gold)))
    assert set(gold) <= set(pool)
    assert len(P.candidate_pool(table, sampled.head(2), 20, seed=3)) == max(20, 2 * len(
        candidate_set(sampled.head(2)["ingredients"])))
    # more gold than max_candidates: the pool still holds as many distractors as gold items
    small = P.candidate_pool(table, sampled, 3, seed=3)
    assert set(gold) <= set(small) and len(set(small) - set(gold)) == min(len(gold), len(full) - len(gold)) > 0
    assert P.candidate_pool(table, sampled, 0) == candidate_set(table["ingredients"])


def test_probe_end_to_end_on_a_tiny_model(tiny_causal_dir, tmp_cache):
    lm = load_model(f"hf:{tiny_causal_dir}", device="cpu", progress=False)
    table = F.load_language("en", data_source="sample").head(5)
    cands = candidate_set(F.load_language("en", data_source="sample")["ingredients"])
    vectors = np.eye(len(cands))
    out = P.probe(lm, table, "en", cands, context=True, template_ids=[1, 4], vectors=vectors, model_name="tiny")
    assert len(out) == 10 and set(out["template"]) == {1, 4}
    assert out["query"].iloc[0] == "In Italy, the food margherita pizza has the ingredients of [Y] ."
    assert out["ap"].between(0, 1).all() and out["top"].map(len).eq(5).all()
    assert out["ws"].between(0, 1).all() and (out["n_candidates"] == len(cands)).all()
    again = P.probe(lm, table, "en", cands, context=True, template_ids=[1, 4], vectors=vectors, model_name="tiny")
    assert lm.stats.cached > 0 and again["ap"].tolist() == out["ap"].tolist()


class _CountingLM:
    """A stand-in causal LM: the score depends on context and continuation; counts the largest call."""

    def __init__(self):
        self.largest = 0

    def loglikelihood(self, pairs):
        from culturelab.models.base import LogLikelihood

        self.largest = max(self.largest, len(pairs))
        return [LogLikelihood(-float((hash(c) % 97) + len(p)), len(c.split()), False) for p, c in pairs]


def _peak(n_queries: int, n_cands: int, chunk: int) -> tuple[int, np.ndarray, int]:
    import tracemalloc

    queries = [f"The food dish{i} has the ingredients of [Y] ." for i in range(n_queries)]
    cands = [f"ingredient number {j}" for j in range(n_cands)]
    lm = _CountingLM()
    tracemalloc.start()
    scores = P.score_queries(lm, queries, cands, chunk=chunk)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak - scores.nbytes, scores, lm.largest


def test_chunked_ranking_keeps_memory_bounded_and_equals_the_unchunked_path():
    small_chunked, chunked, largest = _peak(20, 30, chunk=64)
    _, whole, _ = _peak(20, 30, chunk=10**9)
    np.testing.assert_array_equal(chunked, whole)
    assert largest <= 64
    # 8x the pairs: the chunked peak (beyond the score matrix) stays flat, the unchunked one grows
    big_chunked, _, _ = _peak(160, 30, chunk=64)
    big_whole, _, _ = _peak(160, 30, chunk=10**9)
    assert big_chunked < 1.5 * small_chunked + 20_000
    assert big_whole > 4 * big_chunked
    # a chunk smaller than the candidate list slices the candidates too
    _, sliced, largest = _peak(3, 30, chunk=7)
    np.testing.assert_array_equal(sliced, whole[:3])
    assert largest <= 7
    with pytest.raises(ValueError, match="chunk"):
        P.score_queries(_CountingLM(), ["[Y] x"], ["a"], chunk=0)


def test_the_chance_line_carries_the_random_ranking_mws_and_figure_2_draws_it():
    import pandas as pd

    from culturelab.fmlama import figures, tables
    from culturelab.fmlama.metrics import random_ranking_ws
    from culturelab.plots.audit import claims_of

    class Encoder:  # one-hot vectors: a random top-l hits a gold with probability l / n
        def encode(self, texts, role="query"):
            return np.eye(len(texts))

    table = pd.DataFrame({"url": ["u1", "u2"], "dish": ["a", "b"], "group": "G", "origin": "Italy",
                          "ingredients": [["egg"], ["tea", "rice"]]})
    cands = ["egg", "tea", "rice", "salt"]
    job = P.ProbeJob(table, "en", cands, table)
    rows = P.probe_grid(None, [job], template_ids=[1], contexts=[False], encoder=Encoder())
    chance = rows[rows["model"] == P.RANDOM]
    np.testing.assert_allclose(chance["ws"], random_ranking_ws(list(table["ingredients"]), cands, np.eye(4)))
    np.testing.assert_allclose(chance["ws"], [1 / 4, 2 / 4])  # one-hot: E[hits] / l = l / n
    summary = tables.summarise_probing(rows.assign(context=False), by=("lang", "model", "context"))
    mws = tables.chance_of(summary, "mWS")["ALL"]
    shown = pd.concat([summary, summary.assign(context=True)])
    fig = figures.context_bars(shown, chance={"mAP": tables.chance_of(summary)["ALL"], "mWS": mws},
                               encoder="bundled:e5-small")
    assert fig.axes[1].get_title() == "mWS (ALL; bundled:e5-small vectors)"
    assert mws in claims_of(fig).chance and claims_of(fig).no_chance is None

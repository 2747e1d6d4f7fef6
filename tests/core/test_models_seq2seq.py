"""The seq2seq backend on a tiny random T5: sentinel span scoring, batching, cache, generation, FMLAMA probing."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from culturelab.models import capabilities, load_model
from culturelab.models.cache import ResponseCache
from culturelab.models.seq2seq import span_target

TEMPLATES = ["the food has ingredients of [Y] .", "[Y] is served with tea"]
CANDIDATES = ["rice", "saffron and butter", "tea", "lentils and onion", "soy sauce"]


@pytest.fixture(scope="module")
def t5_dir(tmp_path_factory):
    from culturelab.models.tiny import build_tiny_t5
    from tests.conftest import CORPUS

    return build_tiny_t5(CORPUS, tmp_path_factory.mktemp("tiny-t5"))


@pytest.fixture(scope="module")
def s2s(t5_dir):
    return load_model(f"seq2seq:{t5_dir}", device="cpu", cache=False, progress=False)


def naive_span_score(model, template: str, candidate: str) -> tuple[float, float]:
    """One unbatched forward pass: (mean, sum) log-prob of the candidate's tokens between the sentinels."""
    tok = model.tokenizer
    source = template.replace("[Y]", "<extra_id_0>")
    labels = tok(span_target(candidate), add_special_tokens=False, return_tensors="pt")["input_ids"]
    enc = tok(source, return_tensors="pt")
    with torch.no_grad():
        lp = torch.log_softmax(model.model(**enc, labels=labels).logits[0], dim=-1)
    ids = labels[0].tolist()
    lo, hi = ids.index(tok.convert_tokens_to_ids("<extra_id_0>")) + 1, ids.index(tok.convert_tokens_to_ids("<extra_id_1>"))
    picked = [lp[i, ids[i]].item() for i in range(lo, hi)]
    return float(np.mean(picked)), float(np.sum(picked))


def test_capabilities_and_spec(s2s, t5_dir):
    can = capabilities(f"seq2seq:{t5_dir}")
    assert {"generate": None, "loglikelihood": None, "rank_candidates": None}.items() <= can.items()
    assert can["generate_constrained"]  # implemented for causal LMs only
    assert s2s.spec.startswith("seq2seq:") and s2s.revision.startswith("local-")


def test_span_scores_equal_a_naive_per_candidate_computation(s2s):
    for reduce, col in (("mean", 0), ("sum", 1)):
        scores = s2s.rank_candidates(TEMPLATES, CANDIDATES, reduce=reduce)
        ref = [[naive_span_score(s2s, t, c)[col] for c in CANDIDATES] for t in TEMPLATES]
        np.testing.assert_allclose(scores, ref, atol=1e-4)


def test_loglikelihood_equals_a_naive_computation(s2s):
    tok = s2s.tokenizer
    context, continuation = "tea is served with", "sugar"
    res = s2s.loglikelihood([(context, continuation)])[0]
    labels = tok(continuation, add_special_tokens=False, return_tensors="pt")["input_ids"]
    with torch.no_grad():
        lp = torch.log_softmax(s2s.model(**tok(context, return_tensors="pt"), labels=labels).logits[0], dim=-1)
    ref = sum(lp[i, t].item() for i, t in enumerate(labels[0].tolist()))
    assert res.n_tokens == labels.shape[1]
    assert res.logprob == pytest.approx(ref, abs=1e-4)


def test_batching_does_not_change_results(t5_dir, s2s):
    small = load_model(f"seq2seq:{t5_dir}", device="cpu", cache=False, progress=False, batch_size=2)
    np.testing.assert_allclose(small.rank_candidates(TEMPLATES, CANDIDATES), s2s.rank_candidates(TEMPLATES, CANDIDATES),
                               atol=1e-5)
    pairs = [("rice is cooked with", c) for c in CANDIDATES] + [("tea is", "served")]
    a, b = small.loglikelihood(pairs), s2s.loglikelihood(pairs)
    np.testing.assert_allclose([x.logprob for x in a], [x.logprob for x in b], atol=1e-5)


def test_cache_round_trips(t5_dir, tmp_path):
    cache = ResponseCache(tmp_path / "r.sqlite")
    m = load_model(f"seq2seq:{t5_dir}", device="cpu", cache=cache, progress=False)
    first = m.rank_candidates(TEMPLATES, CANDIDATES)
    ll = m.loglikelihood([("tea is", "served")])
    assert m.stats.computed > 0 and len(cache) > 0
    again = load_model(f"seq2seq:{t5_dir}", device="cpu", cache=cache, progress=False)
    np.testing.assert_array_equal(again.rank_candidates(TEMPLATES, CANDIDATES), first)
    assert again.loglikelihood([("tea is", "served")]) == ll
    assert again.stats.computed == 0 and again.stats.cached == again.stats.requested


def test_generation_returns_strings(s2s):
    out = s2s.generate(["rice is cooked with <extra_id_0> .", "tea is"], max_new_tokens=4)
    assert len(out) == 2 and all(isinstance(t, str) for t in out)
    assert out == s2s.generate(["rice is cooked with <extra_id_0> .", "tea is"], max_new_tokens=4)


def test_fmlama_probing_ranks_sample_dishes(s2s):
    from culturelab.fmlama.data import Release
    from culturelab.fmlama.probing import probe

    table = Release("sample").language("en")
    table = table[table["dish"].isin(["sushi", "hamburger", "dal"])]
    assert len(table) == 3
    candidates = sorted({i for ings in table["ingredients"] for i in ings} | {"tea", "butter"})
    out = probe(s2s, table, "en", candidates, template_ids=[1, 2])  # "auto": sentinel span scoring for seq2seq
    assert len(out) == 6 and out["ap"].between(0, 1).all()
    expected = s2s.rank_candidates(out["query"].tolist(), candidates)
    for row, scores in zip(out.itertuples(), expected):
        assert row.top[0] == candidates[int(np.argmax(scores))]

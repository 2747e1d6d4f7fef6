"""The causal-LM backend on a tiny random GPT-2: prefix reuse equals the naive loop, batching
does not change answers, generation is deterministic, cloze ranking works, the cache serves
repeats."""

from __future__ import annotations

import numpy as np
import pytest

from culturelab.models import load_model
from culturelab.models.hf import HFCausalLM

REQUESTS = [
    ("rice is cooked with", " saffron"), ("rice is cooked with", " flour and water"),
    ("rice is cooked with", " tea"), ("the soup has", " lentils and onion"), ("the soup has", " sugar"),
    ("", "bread is baked"), ("tea is served with ", "sugar"), ("noodles with egg", " and soy sauce"),
]


@pytest.fixture(scope="module")
def tiny(tiny_causal_dir):
    return HFCausalLM(str(tiny_causal_dir), device="cpu", cache=False, progress=False, batch_size=3)


def test_prefix_reuse_matches_one_forward_per_request(tiny):
    fast = tiny.loglikelihood(REQUESTS)
    slow = tiny.naive_loglikelihood(REQUESTS)
    np.testing.assert_allclose([r.logprob for r in fast], [r.logprob for r in slow], rtol=1e-4, atol=1e-4)
    assert [r.n_tokens for r in fast] == [r.n_tokens for r in slow]
    assert [r.is_greedy for r in fast] == [r.is_greedy for r in slow]
    assert all(r.logprob < 0 for r in fast)


def test_batch_size_and_token_budget_do_not_change_scores(tiny_causal_dir):
    a = HFCausalLM(str(tiny_causal_dir), device="cpu", cache=False, progress=False, batch_size=1, token_budget=8)
    b = HFCausalLM(str(tiny_causal_dir), device="cpu", cache=False, progress=False, batch_size=64)
    np.testing.assert_allclose([r.logprob for r in a.loglikelihood(REQUESTS)],
                               [r.logprob for r in b.loglikelihood(REQUESTS)], rtol=1e-4, atol=1e-4)


def test_results_come_back_in_request_order(tiny):
    shuffled = REQUESTS[::-1]
    forward = {req: r.logprob for req, r in zip(REQUESTS, tiny.loglikelihood(REQUESTS))}
    for req, r in zip(shuffled, tiny.loglikelihood(shuffled)):
        assert r.logprob == pytest.approx(forward[req], abs=1e-5)


def test_greedy_generation_is_deterministic_and_batch_independent(tiny_causal_dir):
    prompts = ["rice is", "the soup", "tea is served with sugar and"]
    one = HFCausalLM(str(tiny_causal_dir), device="cpu", cache=False, progress=False, batch_size=1)
    many = HFCausalLM(str(tiny_causal_dir), device="cpu", cache=False, progress=False, batch_size=8)
    a = one.generate(prompts, max_new_tokens=6)
    assert a == many.generate(prompts, max_new_tokens=6)
    assert all(isinstance(t, str) and t for t in a)


def test_stop_strings_cut_the_text(tiny):
    full = tiny.generate(["rice is"], max_new_tokens=12)[0]
    stop = full.strip()[:2]
    cut = tiny.generate(["rice is"], max_new_tokens=12, stop=[stop])[0]
    assert stop not in cut and len(cut) < len(full)


def test_rank_candidates_equals_candidate_loglikelihood(tiny):
    cands = ["saffron", "flour", "tea leaves"]
    scores = tiny.rank_candidates(["rice is cooked with [Y] ."], cands, reduce="sum")
    direct = [r.logprob for r in tiny.loglikelihood([("rice is cooked with ", c) for c in cands])]
    np.testing.assert_allclose(scores[0], direct, rtol=1e-4)
    with pytest.raises(ValueError, match="exactly once"):
        tiny.rank_candidates(["no slot here"], cands)


def test_cache_serves_repeats_without_model_calls(tiny_causal_dir, tmp_cache):
    model = load_model(f"hf:{tiny_causal_dir}", device="cpu", progress=False)
    first = model.loglikelihood(REQUESTS[:4])
    assert model.stats.computed == 4
    again = load_model(f"hf:{tiny_causal_dir}", device="cpu", progress=False)
    second = again.loglikelihood(REQUESTS[:4])
    assert again.stats.computed == 0 and again.stats.cached == 4
    assert [r.logprob for r in first] == [r.logprob for r in second]
    # another decoding parameter is another request
    again.generate(["rice is"], max_new_tokens=3)
    again.generate(["rice is"], max_new_tokens=4)
    assert again.stats.by_kind["generate"] == 2


def test_local_folder_revision_is_a_fingerprint(tiny):
    assert tiny.revision.startswith("local-")
    assert tiny.describe()["device"] == "cpu"


def _tiny_gemma3(tiny_causal_dir, folder, *, sliding_window: int):
    """A random 2-layer Gemma-3 (one sliding-window layer, one full) with the tiny GPT-2's tokenizer."""
    import shutil

    import torch
    from transformers import Gemma3ForCausalLM, Gemma3TextConfig

    shutil.copytree(tiny_causal_dir, folder)
    for weights in folder.glob("*.safetensors"):
        weights.unlink()
    torch.manual_seed(0)
    config = Gemma3TextConfig(vocab_size=400, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                              num_attention_heads=2, num_key_value_heads=1, head_dim=16,
                              sliding_window=sliding_window, layer_types=["sliding_attention", "full_attention"],
                              max_position_embeddings=128, attn_implementation="sdpa")
    Gemma3ForCausalLM(config).save_pretrained(folder)
    return folder


def test_packed_scoring_respects_gemma3_sliding_window(tiny_causal_dir, tmp_path):
    """A random Gemma-3 with a 4-token sliding window on contexts longer than the window: the packed
    pass (one block mask per layer type) gives the naive per-request scores, and so does the cached
    fallback; the packed path is really the one taken."""
    folder = _tiny_gemma3(tiny_causal_dir, tmp_path / "tiny-gemma3", sliding_window=4)
    lm = HFCausalLM(str(folder), device="cpu", cache=False, progress=False, batch_size=2)
    assert lm._packing_mask_kind() == "mapping"
    # a shared prefix is not split off where the padding after it could cross the 4-token window
    assert lm._shared_prefix([(*range(20), 1), (*range(20), 2, 3)]) == 0
    lm.packed_scoring = True  # these contexts are short: "auto" would take the cached path
    long = [("rice is cooked with saffron and the soup has lentils and onion, so", opt)
            for opt in (" tea", " flour and water", " bread is baked with egg")] + REQUESTS
    packed = lm.loglikelihood(long)
    slow = lm.naive_loglikelihood(long)
    lm.packed_scoring = False
    cached = lm.loglikelihood(long)
    for other in (slow, cached):
        np.testing.assert_allclose([r.logprob for r in packed], [r.logprob for r in other], rtol=1e-4, atol=1e-4)
        assert [r.is_greedy for r in packed] == [r.is_greedy for r in other]


def test_auto_packs_long_contexts_only(tiny_causal_dir, monkeypatch):
    """`packed_scoring="auto"` packs when contexts average >= PACKED_MIN_CONTEXT tokens, and the
    packed scores equal the cached path's."""
    from culturelab.models import hf

    lm = HFCausalLM(str(tiny_causal_dir), device="cpu", cache=False, progress=False, batch_size=4)
    taken = []
    monkeypatch.setattr(HFCausalLM, "_loglikelihood_packed",
                        lambda self, encoded, groups, kind: taken.append("packed")
                        or hf.HFCausalLM._loglikelihood_cached(self, encoded, groups))
    lm.loglikelihood(REQUESTS)
    assert taken == []
    monkeypatch.setattr(hf, "PACKED_MIN_CONTEXT", 2)
    lm.loglikelihood(REQUESTS[:3])
    assert taken == ["packed"]


def test_a_prefix_shared_by_the_contexts_is_encoded_once_with_the_same_scores(tiny_causal_dir, monkeypatch):
    """Contexts that start with one instruction: the cached scorer encodes the instruction once per
    batch (a 1-row pass), repeats its keys/values, and every score equals the naive loop's and the
    unshared pass's, with contexts of different lengths (padding between prefix and rest)."""
    instruction = "Answer the question about the dishes of the world with one country name only.\nQuestion: "
    questions = ["where is pho from?", "which country is the dish of rice cooked with saffron from?",
                 "paella?", "where do they eat lentils and onion soup with bread?"]
    requests = [(instruction + q + "\nAnswer:", opt) for q in questions for opt in (" Vietnam", " Spain and Italy")]
    lm = HFCausalLM(str(tiny_causal_dir), device="cpu", cache=False, progress=False, batch_size=4)
    lm.packed_scoring = False
    shared = []
    original = HFCausalLM._shared_prefix
    monkeypatch.setattr(HFCausalLM, "_shared_prefix", lambda self, batch: shared.append(original(self, batch))
                        or shared[-1])
    fast = lm.loglikelihood(requests)
    assert shared and min(shared) >= 8, shared  # the instruction really was shared
    lm.share_prefix = False
    plain = lm.loglikelihood(requests)
    slow = lm.naive_loglikelihood(requests)
    for other in (plain, slow):
        np.testing.assert_allclose([r.logprob for r in fast], [r.logprob for r in other], rtol=1e-4, atol=1e-4)
        assert [r.is_greedy for r in fast] == [r.is_greedy for r in other]


def test_consecutive_batches_that_share_the_instruction_encode_it_once(tiny_causal_dir, monkeypatch):
    """The instruction's keys/values are kept from one batch to the next: three batches, one 1-row
    prefix pass, and the scores still equal the naive loop's."""
    instruction = "Answer the question about the dishes of the world with one country name only.\nQuestion: "
    questions = ["where is pho from?", "which country makes paella?", "rice with saffron?", "tea with sugar?",
                 "lentils and onion soup?", "bread with flour and water?", "noodles with egg?", "who eats pilav?",
                 "soup with lentils, from where?", "which land bakes bread?", "pho again?", "sugar in tea, where?"]
    requests = [(instruction + q + "\nAnswer:", opt) for q in questions for opt in (" Vietnam", " Spain and Italy")]
    lm = HFCausalLM(str(tiny_causal_dir), device="cpu", cache=False, progress=False, batch_size=4)
    lm.packed_scoring = False
    rows = []
    forward = lm.model.forward
    monkeypatch.setattr(lm.model, "forward", lambda *a, **k: rows.append(k["input_ids"].shape[0]) or forward(*a, **k))
    fast = lm.loglikelihood(requests)
    assert rows.count(4) >= 3 and rows.count(1) == 1, rows  # three 4-context batches, one prefix pass
    slow = lm.naive_loglikelihood(requests)
    np.testing.assert_allclose([r.logprob for r in fast], [r.logprob for r in slow], rtol=1e-4, atol=1e-4)
    assert [r.is_greedy for r in fast] == [r.is_greedy for r in slow]


def test_a_shared_prefix_on_gemma3_within_its_window_gives_the_naive_scores(tiny_causal_dir, tmp_path):
    """Gemma-3 keeps sliding-window caches: with contexts inside the window the shared prefix is split
    off (and repeated over the batch) and the scores still equal the naive loop's."""
    folder = _tiny_gemma3(tiny_causal_dir, tmp_path / "tiny-gemma3-wide", sliding_window=96)
    lm = HFCausalLM(str(folder), device="cpu", cache=False, progress=False, batch_size=3)
    lm.packed_scoring = False
    instruction = "Answer with the country of the dish only, please.\nQuestion: "
    requests = [(instruction + q, opt) for q in ("pho?", "where is paella from?", "rice with saffron and tea?")
                for opt in (" Vietnam", " Spain and Italy")]
    encoded = lm._encode_pairs(requests)
    assert lm._shared_prefix(sorted({ctx for ctx, _ in encoded}, key=len, reverse=True)) >= 8
    fast, slow = lm.loglikelihood(requests), lm.naive_loglikelihood(requests)
    np.testing.assert_allclose([r.logprob for r in fast], [r.logprob for r in slow], rtol=1e-4, atol=1e-4)

"""The masked-LM backend on a tiny random BERT: multi-mask ranking and pseudo-log-likelihood."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from culturelab.models import load_model


@pytest.fixture(scope="module")
def mlm(tiny_masked_dir):
    return load_model(f"masked:{tiny_masked_dir}", device="cpu", cache=False, progress=False)


def reference_score(mlm, template: str, candidate: str) -> float:
    """Slow reference: one forward pass for this candidate's own mask count."""
    ids = mlm.tokenizer(candidate, add_special_tokens=False)["input_ids"]
    prefix, suffix = template.split("[Y]")
    query = prefix + " ".join(["[MASK]"] * len(ids)) + suffix
    enc = mlm.tokenizer(query, return_tensors="pt")
    with torch.no_grad():
        logits = mlm.model(**enc).logits[0]
    positions = (enc["input_ids"][0] == mlm.tokenizer.mask_token_id).nonzero()[:, 0]
    lp = torch.log_softmax(logits[positions], dim=-1)
    return float(np.mean([lp[i, t].item() for i, t in enumerate(ids)]))


def test_ranking_matches_a_slow_reference(mlm):
    template = "the food has ingredients of [Y] ."
    cands = ["rice", "saffron and butter", "tea", "lentils and onion", "soy sauce"]
    scores = mlm.rank_candidates([template], cands)[0]
    ref = [reference_score(mlm, template, c) for c in cands]
    np.testing.assert_allclose(scores, ref, rtol=1e-4, atol=1e-5)


def test_candidates_longer_than_the_mask_cap_are_dropped(tiny_masked_dir):
    mlm = load_model(f"masked:{tiny_masked_dir}", device="cpu", cache=False, progress=False, max_masks=2)
    scores = mlm.rank_candidates(["rice is cooked with [Y] ."], ["saffron", "saffron and butter"])[0]
    assert np.isfinite(scores[0]) and scores[1] == -np.inf


def test_masked_models_do_not_generate(mlm):
    with pytest.raises(NotImplementedError, match="rank_candidates"):
        mlm.generate(["rice is"])


def test_pseudo_loglikelihood_is_negative_and_counts_tokens(mlm):
    out = mlm.loglikelihood([("rice is cooked with", " saffron and butter")])[0]
    assert out.logprob < 0 and out.n_tokens == 3

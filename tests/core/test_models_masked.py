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


def test_a_context_longer_than_the_positions_keeps_its_end(mlm):
    """CAPTEx conversations run past a small BERT's positions: the context is cut from the left."""
    positions = mlm.model.config.max_position_embeddings
    tail = "rice is cooked with"
    long = ("the soup has lentils and onion . " * positions) + tail
    cut = mlm.loglikelihood([(long, " saffron and butter")])[0]
    room = positions - 2 - 3  # [CLS] … [SEP] around the context's end and the 3 continuation tokens
    kept = mlm.tokenizer.decode(mlm.tokenizer(long, add_special_tokens=False)["input_ids"][-room:])
    assert cut.n_tokens == 3 and cut.logprob == pytest.approx(
        mlm.loglikelihood([(kept, " saffron and butter")])[0].logprob, abs=1e-4)


SP_CORPUS = ["美食饺子是以面粉和猪肉为主要原料制作的。", "美食米饭是以大米为主要原料制作的。",
             "美食炒饭是以米饭和鸡蛋为主要原料制作的。", "the food pho has the ingredients of rice noodles .",
             "rice and beans with pork", "米饭 鸡蛋 面粉 猪肉 大米"] * 20


@pytest.fixture(scope="module")
def sp_mlm(tmp_path_factory):
    """A random 2-layer XLM-R with a SentencePiece-style (Unigram + Metaspace) tokenizer."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast, XLMRobertaConfig, XLMRobertaForMaskedLM

    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    tok = Tokenizer(models.Unigram())
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    tok.train_from_iterator(SP_CORPUS, trainers.UnigramTrainer(vocab_size=120, special_tokens=specials,
                                                               unk_token="<unk>"))
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", special_tokens=[("<s>", tok.token_to_id("<s>")), ("</s>", tok.token_to_id("</s>"))])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", unk_token="<unk>",
                                   pad_token="<pad>", cls_token="<s>", sep_token="</s>", mask_token="<mask>")
    torch.manual_seed(0)
    model = XLMRobertaForMaskedLM(XLMRobertaConfig(
        vocab_size=len(fast), hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
        max_position_embeddings=130, pad_token_id=fast.pad_token_id))
    out = tmp_path_factory.mktemp("tiny-xlmr")
    fast.save_pretrained(out)
    model.save_pretrained(out)
    return load_model(f"masked:{out}", device="cpu", cache=False, progress=False)


def test_sentencepiece_candidates_follow_the_script(sp_mlm):
    tok = sp_mlm.tokenizer
    assert sp_mlm.concatenated_masks
    zh = "美食炒饭是以[Y]为主要原料制作的。"
    assert sp_mlm.attached(zh, "[Y]") and not sp_mlm.attached("the food pho has the ingredients of [Y] .", "[Y]")
    for cand in ["米饭", "鸡蛋", "面粉"]:
        ids = sp_mlm.candidate_ids([cand], attached=True)[0]
        pieces = tok.convert_ids_to_tokens(ids)
        assert not pieces[0].startswith("\u2581"), pieces  # no word-boundary piece inside a Chinese sentence
        assert "".join(pieces) == cand
        # word-initial (as after a space) the same candidate starts a word
        assert tok.convert_ids_to_tokens(sp_mlm.candidate_ids([cand])[0])[0].startswith("\u2581")
    # English candidates after a space: tokenised alone (one word-initial piece, no extra space)
    en = tok.convert_ids_to_tokens(sp_mlm.candidate_ids(["rice"])[0])
    assert en == tok.tokenize("rice") and en[0].startswith("\u2581") and en.count("\u2581") <= 1
    # ranking uses the per-script ids: mask count = attached length, scores match a slow reference
    cands = ["米饭", "鸡蛋", "rice"]
    got = sp_mlm.rank_candidates([zh, "the food pho has the ingredients of [Y] ."], cands, slot="[Y]",
                                 reduce="mean")
    for row, (template, attached) in enumerate([(zh, True), ("the food pho has the ingredients of [Y] .", False)]):
        for j, ids in enumerate(sp_mlm.candidate_ids(cands, attached=attached)):
            prefix, suffix = template.split("[Y]")
            enc = tok(prefix + "<mask>" * len(ids) + suffix, return_tensors="pt")
            with torch.no_grad():
                logits = sp_mlm.model(**enc).logits[0]
            pos = (enc["input_ids"][0] == tok.mask_token_id).nonzero()[:, 0]
            lp = torch.log_softmax(logits[pos], dim=-1)
            ref = float(np.mean([lp[i, t].item() for i, t in enumerate(ids)]))
            assert got[row][j] == pytest.approx(ref, abs=1e-4)

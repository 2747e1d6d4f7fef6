"""Shared fixtures: offline environment, a private cache per test session, and tiny randomly
initialised models (causal GPT-2 and masked BERT) built offline in seconds."""

from __future__ import annotations

import os

for _k in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"):
    os.environ.setdefault(_k, "1")
os.environ.setdefault("MPLBACKEND", "Agg")

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

CORPUS = [
    "rice is cooked with saffron and butter", "bread is baked with flour and water",
    "tea is served with sugar", "the soup has lentils and onion", "pilav pirinç ile yapılır",
    "چای با شکر", "饺子 包 肉", "the food has ingredients of rice", "noodles with egg and soy sauce",
] * 4


@pytest.fixture()
def tmp_cache(tmp_path, monkeypatch) -> Path:
    """Point culturelab's cache at a fresh folder for one test."""
    monkeypatch.setenv("CULTURELAB_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture(scope="session")
def tiny_causal_dir(tmp_path_factory) -> Path:
    """A 2-layer GPT-2 with a byte-level BPE tokenizer, saved as a 🤗 folder (random weights)."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    out = tmp_path_factory.mktemp("tiny-gpt2")
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(CORPUS, trainers.BpeTrainer(vocab_size=400, special_tokens=["<unk>", "<pad>", "<eos>"],
                                                        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", pad_token="<pad>", eos_token="<eos>",
                                   bos_token="<eos>")
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=len(fast), n_layer=2, n_head=2, n_embd=32, n_positions=256,
                                       bos_token_id=fast.eos_token_id, eos_token_id=fast.eos_token_id,
                                       pad_token_id=fast.pad_token_id))
    fast.save_pretrained(out)
    model.save_pretrained(out)
    return out


@pytest.fixture(scope="session")
def tiny_masked_dir(tmp_path_factory) -> Path:
    """A 2-layer BERT masked LM with a word-level tokenizer (random weights)."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers, processors, trainers
    from transformers import BertConfig, BertForMaskedLM, PreTrainedTokenizerFast

    out = tmp_path_factory.mktemp("tiny-bert")
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(CORPUS, trainers.WordPieceTrainer(
        vocab_size=300, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]))
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", tok.token_to_id("[CLS]")), ("[SEP]", tok.token_to_id("[SEP]"))])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
                                   sep_token="[SEP]", mask_token="[MASK]")
    torch.manual_seed(0)
    model = BertForMaskedLM(BertConfig(vocab_size=len(fast), hidden_size=32, num_hidden_layers=2,
                                       num_attention_heads=2, intermediate_size=64, max_position_embeddings=128))
    fast.save_pretrained(out)
    model.save_pretrained(out)
    return out

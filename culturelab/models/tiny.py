"""Tiny randomly initialised 🤗 models built offline in seconds, for tests and benchmarks.

They exercise the real backends (tokenisation, batching, masking, caching) without any download;
their predictions are meaningless.

>>> import tempfile
>>> from pathlib import Path
>>> d = build_tiny_bert(["rice with saffron", "tea with sugar"] * 4, Path(tempfile.mkdtemp()))
>>> {"config.json", "tokenizer.json"} <= {p.name for p in d.iterdir()}
True
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


def build_tiny_bert(texts: Sequence[str], out: Path, *, vocab_size: int = 300, hidden_size: int = 32,
                    lowercase: bool = False, seed: int = 0) -> Path:
    """Train a WordPiece tokenizer on ``texts`` and save a random 2-layer ``BertForMaskedLM`` in ``out``.

    >>> import json, tempfile
    >>> d = build_tiny_bert(["rice with saffron", "tea with sugar"] * 4, Path(tempfile.mkdtemp()))
    >>> json.loads((d / "config.json").read_text())["model_type"]
    'bert'
    """
    import torch
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import BertConfig, BertForMaskedLM, PreTrainedTokenizerFast

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    if lowercase:
        tok.normalizer = normalizers.BertNormalizer(lowercase=True)
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    else:
        tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(list(texts), trainers.WordPieceTrainer(
        vocab_size=vocab_size, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]))
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        special_tokens=[("[CLS]", tok.token_to_id("[CLS]")), ("[SEP]", tok.token_to_id("[SEP]"))])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
                                   sep_token="[SEP]", mask_token="[MASK]")
    torch.manual_seed(seed)
    model = BertForMaskedLM(BertConfig(vocab_size=len(fast), hidden_size=hidden_size, num_hidden_layers=2,
                                       num_attention_heads=2, intermediate_size=2 * hidden_size,
                                       max_position_embeddings=128))
    out.mkdir(parents=True, exist_ok=True)
    fast.save_pretrained(out)
    model.save_pretrained(out)
    return out


def build_tiny_gpt2(texts: Sequence[str], out: Path, *, vocab_size: int = 400, seed: int = 0) -> Path:
    """Train a byte-level BPE tokenizer on ``texts`` and save a random 2-layer ``GPT2LMHeadModel`` in ``out``.

    >>> import json, tempfile
    >>> d = build_tiny_gpt2(["rice with saffron", "tea with sugar"] * 4, Path(tempfile.mkdtemp()))
    >>> json.loads((d / "config.json").read_text())["model_type"]
    'gpt2'
    """
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(list(texts), trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=["<unk>", "<pad>", "<eos>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", pad_token="<pad>", eos_token="<eos>",
                                   bos_token="<eos>")
    torch.manual_seed(seed)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=len(fast), n_layer=2, n_head=2, n_embd=32, n_positions=256,
                                       bos_token_id=fast.eos_token_id, eos_token_id=fast.eos_token_id,
                                       pad_token_id=fast.pad_token_id))
    out.mkdir(parents=True, exist_ok=True)
    fast.save_pretrained(out)
    model.save_pretrained(out)
    return out


def build_tiny_t5(texts: Sequence[str], out: Path, *, vocab_size: int = 300, n_sentinels: int = 10,
                  seed: int = 0) -> Path:
    """Train a Unigram tokenizer (with ``<extra_id_N>`` sentinels) and save a random 2-layer T5 in ``out``.

    >>> import json, tempfile
    >>> d = build_tiny_t5(["rice with saffron", "tea with sugar"] * 4, Path(tempfile.mkdtemp()))
    >>> json.loads((d / "config.json").read_text())["model_type"]
    't5'
    """
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast, T5Config, T5ForConditionalGeneration

    sentinels = [f"<extra_id_{i}>" for i in range(n_sentinels)]
    tok = Tokenizer(models.Unigram())
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    tok.train_from_iterator(list(texts), trainers.UnigramTrainer(
        vocab_size=vocab_size, special_tokens=["<pad>", "</s>", "<unk>", *sentinels], unk_token="<unk>"))
    tok.post_processor = processors.TemplateProcessing(single="$A </s>",
                                                       special_tokens=[("</s>", tok.token_to_id("</s>"))])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", pad_token="<pad>", eos_token="</s>",
                                   additional_special_tokens=sentinels)
    torch.manual_seed(seed)
    model = T5ForConditionalGeneration(T5Config(
        vocab_size=len(fast), d_model=32, d_kv=16, d_ff=64, num_layers=2, num_heads=2,
        pad_token_id=fast.pad_token_id, eos_token_id=fast.eos_token_id, decoder_start_token_id=fast.pad_token_id))
    out.mkdir(parents=True, exist_ok=True)
    fast.save_pretrained(out)
    model.save_pretrained(out)
    return out

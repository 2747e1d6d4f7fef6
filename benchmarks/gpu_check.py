"""GPU checks of the causal-LM backend on CUDA (run on a GPU machine).

Builds randomly initialised models from configs (a Llama of ~1.1B parameters like TinyLlama, and
a small Gemma-3 with a 128-token sliding window so contexts exceed the window), then checks:

1. prefix reuse equals one-forward-per-request scoring (float32: max |Δ|; bf16: answer agreement);
2. MCQ throughput (items/s) of ``HFCausalLM.loglikelihood`` vs the naive loop, and batched generation;
3. ``device="auto"`` picks CUDA and bf16.

    PYTHONPATH=. python benchmarks/gpu_check.py --out gpu_check.json    # nothing is downloaded

With ``--params FILE`` it runs a short slice of a real run instead: every notebook of the parameter file
(e.g. ``papermill_params/gpu/qwen7b.yaml``) with each size knob its paper declares cut to ``--slice`` items
(:func:`culturelab.paramfiles.sliced`; the model, decoding and token budgets kept), first ``culturelab check``
on it, then ``culturelab run --jobs 1``; the report holds each notebook's status and seconds and the check's
verdict. The model is downloaded on first use (the hub must be on, or the model in the local cache).

    PYTHONPATH=. python benchmarks/gpu_check.py --params papermill_params/gpu/qwen7b.yaml --slice 4 --out slice.json
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from culturelab.models.hf import HFCausalLM

WORDS = ["rice", "saffron", "bread", "flour", "water", "tea", "sugar", "soup", "lentils", "onion", "noodles", "egg", "soy", "sauce", "dumpling", "pork", "cabbage", "ginger", "garlic", "chili", "yogurt", "mint", "lamb", "bean", "corn", "tortilla", "cheese", "tomato", "basil", "olive", "oil"]


def tokenizer_dir(root: Path) -> Path:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    rng = np.random.default_rng(0)
    corpus = [" ".join(rng.choice(WORDS, size=12)) for _ in range(2000)]
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(corpus, trainers.BpeTrainer(vocab_size=600, special_tokens=["<unk>", "<pad>", "<s>"],
                                                        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", pad_token="<pad>", eos_token="<s>",
                                   bos_token="<s>")
    out = root / "tok"
    fast.save_pretrained(out)
    return out


def build(kind: str, root: Path, tok: Path) -> Path:
    from transformers import AutoTokenizer, Gemma3ForCausalLM, Gemma3TextConfig, LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    if kind == "llama-1.1b":
        cfg = LlamaConfig(vocab_size=32000, hidden_size=2048, intermediate_size=5632, num_hidden_layers=22,
                          num_attention_heads=32, num_key_value_heads=4, max_position_embeddings=2048)
        model = LlamaForCausalLM(cfg)
    else:
        cfg = Gemma3TextConfig(vocab_size=32000, hidden_size=256, intermediate_size=512, num_hidden_layers=6,
                               num_attention_heads=4, num_key_value_heads=1, head_dim=64, sliding_window=128,
                               max_position_embeddings=4096)
        model = Gemma3ForCausalLM(cfg)
    out = root / kind
    model.save_pretrained(out)
    AutoTokenizer.from_pretrained(tok).save_pretrained(out)
    return out


def mcq_requests(n: int, ctx_words: int, seed: int = 0) -> list[tuple[str, str]]:
    rng = np.random.default_rng(seed)
    reqs = []
    for _ in range(n):
        ctx = " ".join(rng.choice(WORDS, size=ctx_words)) + " Answer:"
        reqs += [(ctx, " " + " ".join(rng.choice(WORDS, size=int(rng.integers(1, 5))))) for _ in range(4)]
    return reqs


def slice_file(params: str, n: int, folder: Path) -> Path:
    """A parameter file of ``params`` cut to ``n`` items per notebook (:func:`culturelab.paramfiles.sliced`)."""
    import yaml

    from culturelab.paramfiles import sliced

    out = folder / f"{Path(params).stem}-slice.yaml"
    out.write_text(yaml.safe_dump(sliced(params, n), sort_keys=False, allow_unicode=True))
    return out


def run_slice(params: str, n: int, timeout: float) -> dict:
    """``culturelab check`` and ``culturelab run --jobs 1`` of the slice; each notebook's status and seconds."""
    import subprocess
    import sys

    import pandas as pd
    import yaml

    from culturelab import config

    folder = Path(tempfile.mkdtemp(prefix="gpu-slice-"))
    file = slice_file(params, n, folder)
    cli = [sys.executable, "-m", "culturelab.cli"]
    check = subprocess.run([*cli, "check", str(file)], capture_output=True, text=True, timeout=600)
    entry: dict = {"params": params, "slice": n, "check_rc": check.returncode,
                   "check_verdict": (check.stdout.strip().splitlines() or [""])[-1]}
    if check.returncode == 0:
        t0 = time.perf_counter()
        run = subprocess.run([*cli, "run", str(file), "--jobs", "1"], capture_output=True, text=True, timeout=timeout)
        entry["run_rc"], entry["run_seconds"] = run.returncode, round(time.perf_counter() - t0, 1)
        summary = config.runs_dir() / yaml.safe_load(file.read_text())["run_name"] / "summary.csv"
        entry["notebooks"] = pd.read_csv(summary).to_dict("records") if summary.exists() else run.stderr[-4000:]
    if torch.cuda.is_available():
        entry["gpu"] = torch.cuda.get_device_name(0)
    return entry


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="gpu_check.json")
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--profile", action="store_true", help="print a cProfile of the scoring call")
    parser.add_argument("--params", default=None, help="run a short slice of this parameter file instead")
    parser.add_argument("--slice", type=int, default=4, help="items per size knob in the slice")
    parser.add_argument("--timeout", type=float, default=3000, help="seconds the slice's run may take")
    args = parser.parse_args()
    if args.params:
        entry = run_slice(args.params, args.slice, args.timeout)
        print(json.dumps(entry, indent=1, default=str), flush=True)
        Path(args.out).write_text(json.dumps(entry, indent=2, default=str))
        return
    assert torch.cuda.is_available(), "no CUDA device"
    report: dict = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__}
    import transformers

    report["transformers"] = transformers.__version__
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        tok = tokenizer_dir(root)
        for kind, ctx_words in (("gemma3-sliding", 300), ("llama-1.1b", 60)):
            path = build(kind, root, tok)
            entry: dict = {}
            # 1. correctness: float32 exact, bf16 answer agreement
            check = mcq_requests(40, ctx_words, seed=1)
            for dtype in ("float32", "bfloat16"):
                lm = HFCausalLM(str(path), device="cuda", dtype=dtype, cache=False, progress=False, batch_size=16)
                fast = np.array([r.logprob for r in lm.loglikelihood(check)])
                slow = np.array([r.logprob for r in lm.naive_loglikelihood(check)])
                agree = float(np.mean(fast.reshape(-1, 4).argmax(1) == slow.reshape(-1, 4).argmax(1)))
                entry[f"{dtype}_max_abs_diff"] = float(np.max(np.abs(fast - slow)))
                entry[f"{dtype}_answer_agreement"] = agree
                del lm
            # 2. throughput in the default CUDA dtype (bf16)
            auto = HFCausalLM(str(path), device="auto", cache=False, progress=False, batch_size=64, token_budget=65536)
            entry["auto_device"], entry["auto_dtype"] = auto.device, str(auto.dtype)
            reqs = mcq_requests(args.n, ctx_words)
            auto.loglikelihood(reqs[:64])
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            if args.profile:
                import cProfile
                import pstats

                with cProfile.Profile() as prof:
                    auto.loglikelihood(reqs)
                pstats.Stats(prof).sort_stats("tottime").print_stats(18)
            else:
                auto.loglikelihood(reqs)
            torch.cuda.synchronize()
            entry["ours_items_per_s"] = args.n / (time.perf_counter() - t0)
            k = 100
            t0 = time.perf_counter()
            auto.naive_loglikelihood(reqs[: 4 * k])
            torch.cuda.synchronize()
            entry["naive_items_per_s"] = k / (time.perf_counter() - t0)
            prompts = [" ".join(np.random.default_rng(i).choice(WORDS, size=30)) for i in range(64)]
            t0 = time.perf_counter()
            auto.generate(prompts, max_new_tokens=32, chat=False)
            torch.cuda.synchronize()
            entry["generate_64x32_tokens_s"] = time.perf_counter() - t0
            entry["peak_mem_gb"] = torch.cuda.max_memory_allocated() / 2**30
            report[kind] = entry
            print(kind, json.dumps(entry, indent=1), flush=True)
            del auto
            torch.cuda.empty_cache()
    Path(args.out).write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

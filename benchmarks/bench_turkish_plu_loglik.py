"""Turkish PLU at full size: zero-shot option log-likelihood on all four released test sets.

Scores every item of the goal-inference, step-inference, step-ordering and next-event-prediction
test sets (837 + 612 + 1,021 + 655 = 3,125 items, 11,240 scored options) with a causal LM, the Cetvel
prompts of ``culturelab/turkish_plu.yaml`` and both normalisations (summed and per-token-mean
log-probability; the second is served from the same scores), exactly as notebook
``turkish_plu/02_mc_tasks`` does (:func:`culturelab.turkish_plu.mc.llm_predictions`). Prints one
JSON line with wall time, items/s and tokens/s, and writes the tidy accuracy table (task × method:
accuracy, 95 % bootstrap CI, n, chance) to ``--out``.

Peak memory: run it under ``/usr/bin/time -v`` (maximum resident set size). Measure cold speed
with a private, empty response cache (``CULTURELAB_CACHE=/tmp/x``; link ``models/`` of the
shared cache into it to skip the one-time model conversion)::

    CULTURELAB_DATA=../shared/data /usr/bin/time -v python benchmarks/bench_turkish_plu_loglik.py \\
        --model bundled:gemma3-270m --out benchmarks/results/turkish_plu_full_loglik.csv

On a GPU: ``--device auto`` (the default) picks CUDA with bf16.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import pandas as pd

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="bundled:gemma3-270m")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--tasks", nargs="+", default=["gi", "si", "so", "nep"])
    parser.add_argument("--n", type=int, default=0, help="items per task (0: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="", help="tidy accuracy CSV to write")
    args = parser.parse_args(argv)

    import torch

    from culturelab.models import load_model
    from culturelab.turkish_plu import mc
    from culturelab.turkish_plu.data import Release

    release = Release()
    corpus = release.corpus()
    items = mc.subset(pd.concat([release.mc(t, "test", corpus) for t in args.tasks], ignore_index=True),
                      args.n, args.seed)
    t0 = time.perf_counter()
    model = load_model(args.model, device=args.device)
    load_s = time.perf_counter() - t0
    prompted = mc.add_prompts(items)
    n_options = int(prompted["llm_options"].map(len).sum())
    tokens = None
    tokenizer = getattr(model, "tokenizer", None)
    if tokenizer is not None:  # prompt once per item + every option (what the scorer encodes)
        tokens = sum(len(tokenizer(p)["input_ids"]) for p in prompted["prompt"]) + \
            sum(len(tokenizer(" " + o, add_special_tokens=False)["input_ids"])
                for opts in prompted["llm_options"] for o in opts)
    t0 = time.perf_counter()
    results = mc.llm_predictions(model, items)
    score_s = time.perf_counter() - t0
    acc = mc.accuracy_by_task(results, ["task", "method", "model"], seed=args.seed)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        acc.assign(n_options=acc["task"].map(items.groupby("task")["n_options"].first()),
                   device=getattr(model, "device", args.device)).round(4).to_csv(args.out, index=False)
    report = {"model": args.model, "device": str(getattr(model, "device", args.device)),
              "threads": torch.get_num_threads(), "platform": platform.platform(), "items": len(items),
              "scored_options": n_options, "tokens": tokens, "load_s": round(load_s, 1),
              "score_s": round(score_s, 1), "items_per_s": round(len(items) / score_s, 2),
              "tokens_per_s": round(tokens / score_s, 1) if tokens else None,
              "computed": model.stats.computed, "cached": model.stats.cached,
              "accuracy": {f"{r.task} {r.method}": round(r.accuracy, 4) for r in acc.itertuples()}}
    print(json.dumps(report))
    return report


if __name__ == "__main__":
    main()

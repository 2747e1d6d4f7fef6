"""Scoring throughput of ``ray:N:<spec>`` against the single-process scorer, on the same items.

Scores the same multiple-choice items (``--contexts`` seeded question-like contexts x ``--options``
options, as the notebooks' MCQs are scored) by option log-likelihood: in this process (one thread,
as each actor computes, and all cores), then over 1 and 2 Ray actors of a local cluster (one CPU
each), the setups timed in turn, round after round (median). Every setup has no response cache and
loads its weights (on every actor) before the clock starts; the answers of each setup are compared
with the one-thread single process's, float for float::

    python benchmarks/bench_ray.py --model bundled:gemma3-270m --contexts 64 --workers 1 2 --repeats 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

WORDS = ["rice", "tea", "bread", "soup", "onion", "garlic", "lentils", "saffron", "flour", "water", "sugar",
         "salt", "pepper", "butter", "egg", "milk", "fish", "beans", "noodles", "ginger", "lamb", "yogurt"]
DISHES = [" sushi", " ghormeh sabzi", " baklava", " pho", " paella", " borscht", " couscous", " tacos"]


def items(contexts: int, options: int, seed: int = 0) -> list[tuple[str, str]]:
    """``contexts`` distinct questions of 10–40 words, each with ``options`` dish names."""
    import numpy as np

    rng = np.random.default_rng(seed)
    pairs = []
    for i in range(contexts):
        words = " ".join(rng.choice(WORDS, size=int(rng.integers(10, 40))))
        context = f"Question {i}: a dish made with {words}. Which dish is it?\nAnswer:"
        pairs += [(context, dish) for dish in rng.choice(DISHES, size=options, replace=False)]
    return pairs


def timed(lm, pairs: list[tuple[str, str]], threads: int) -> tuple[float, list]:
    """Seconds to score ``pairs`` on ``threads`` threads of this process (an actor keeps its own), and the answers."""
    import torch

    torch.set_num_threads(threads)
    t0 = time.perf_counter()
    answers = lm.loglikelihood(pairs)
    return time.perf_counter() - t0, answers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="bundled:gemma3-270m")
    parser.add_argument("--contexts", type=int, default=128)
    parser.add_argument("--options", type=int, default=4)
    parser.add_argument("--chunk-size", type=int, default=64, help="requests per chunk (the unit sent to an actor)")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeats", type=int, default=3, help="rounds, each timing every setup once (median)")
    parser.add_argument("--json", default=None, help="also write the rows here")
    args = parser.parse_args()

    import ray

    from culturelab.distributed import connect
    from culturelab.models import load_model

    connect(num_cpus=sum(args.workers))  # first: a cluster that does not start fails the run at once
    pairs = items(args.contexts, args.options)
    common = {"device": "cpu", "cache": False, "progress": False, "chunk_size": args.chunk_size}
    single = load_model(args.model, **common)
    setups = [("one process, 1 thread", single, 1), (f"one process, {os.cpu_count()} threads", single, os.cpu_count())]
    setups += [(f"ray:{n}: {n} actor{'s' * (n > 1)}, 1 thread each", load_model(f"ray:{n}:{args.model}", **common), 1)
               for n in args.workers]
    try:
        for _, lm, threads in setups:  # every actor takes one chunk: its weights load now, not on the clock
            timed(lm, [(f"Warm up {i}:", " yes") for i in range(max(args.workers) * args.chunk_size)], threads)
        times: dict[str, list[float]] = {name: [] for name, _, _ in setups}
        answers: dict[str, list] = {}
        for _ in range(args.repeats):  # round robin: a change of the machine's load hits every setup alike
            for name, lm, threads in setups:
                seconds, answers[name] = timed(lm, pairs, threads)
                times[name].append(seconds)
    finally:
        ray.shutdown()
    reference = answers[setups[0][0]]
    rows = [{"setup": name, "seconds": statistics.median(times[name]), "all_seconds": times[name],
             "identical": answers[name] == reference} for name, _, _ in setups]
    base = rows[0]["seconds"]
    print(f"{args.model}: {len(pairs)} (context, option) pairs, {args.contexts} contexts, chunks of "
          f"{args.chunk_size}, {os.cpu_count()} CPUs, median of {args.repeats} round-robin rounds "
          f"(load {os.getloadavg()[0]:.1f} at the end)")
    print("| setup | seconds (median) | pairs/s | vs one process, 1 thread | answers identical to it |")
    print("|---|---:|---:|---:|---|")
    for row in rows:
        row.update(pairs_per_s=len(pairs) / row["seconds"], speedup=base / row["seconds"])
        print(f"| {row['setup']} | {row['seconds']:.1f} | {row['pairs_per_s']:.1f} | {row['speedup']:.2f}x | "
              f"{'yes' if row['identical'] else 'no (last-bit float differences)'} |")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"model": args.model, "pairs": len(pairs), "rows": rows}, f, indent=2)


if __name__ == "__main__":
    main()

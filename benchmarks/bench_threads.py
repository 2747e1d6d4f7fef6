"""Threads per kernel when notebooks run side by side (``culturelab run --jobs N``).

Scores the same CAPTEx PB-MCQs (first ``--procedures`` procedures of the data in use, English and
native) by option log-likelihood and by generation, in P processes × T threads at once, each with an
empty response cache, and prints the seconds of each process and the items per second of all of them
together. It shows why the runner gives each of N workers ``cores // N`` threads::

    CULTURELAB_DATA=../shared/data python benchmarks/bench_threads.py --configs 1x2 1x1 2x1 2x2
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def worker(model: str, procedures: int, answer_tokens: int) -> dict:
    """One process: score the PB-MCQs of ``procedures`` procedures by each method; seconds per method."""
    import torch

    from culturelab.captex import evaluate as ev
    from culturelab.captex import questions
    from culturelab.captex.data import load
    from culturelab.models import load_model

    data = load(data_source="auto")
    ids = list(dict.fromkeys(data.mcqs["procedure_id"]))[:procedures]
    frame = questions.pb_mcq_frame(data.mcqs[data.mcqs["procedure_id"].isin(ids)],
                                   ev._template("pb_mcq", ev.Settings()))
    lm = load_model(model, device="cpu")
    out = {"threads": torch.get_num_threads(), "items": len(frame)}
    for method in ("loglikelihood", "generate"):
        t0 = time.perf_counter()
        questions.score_mcqs(lm, frame, [method], max_new_tokens=answer_tokens)
        out[method] = round(time.perf_counter() - t0, 1)
    return out


def run_config(processes: int, threads: int, args: argparse.Namespace) -> dict:
    """``processes`` workers with ``threads`` threads each, started together."""
    models = Path(os.environ.get("CULTURELAB_CACHE", ".cache")).resolve() / "models"
    with tempfile.TemporaryDirectory() as tmp:
        procs = []
        for k in range(processes):
            cache = Path(tmp) / f"cache{k}"
            cache.mkdir()
            if models.is_dir():  # reuse the converted bundled weights, not the responses
                (cache / "models").symlink_to(models)
            env = {**os.environ, "CULTURELAB_CACHE": str(cache), "OMP_NUM_THREADS": str(threads),
                   "MKL_NUM_THREADS": str(threads), "TQDM_DISABLE": "1"}
            procs.append(subprocess.Popen([sys.executable, __file__, "--worker", "--model", args.model,
                                           "--procedures", str(args.procedures),
                                           "--answer-tokens", str(args.answer_tokens)],
                                          env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True))
        results = [json.loads(p.communicate()[0].strip().splitlines()[-1]) for p in procs]
    slowest = max(r["loglikelihood"] + r["generate"] for r in results)
    return {"config": f"{processes}x{threads}", "processes": results,
            "items_per_s": round(sum(2 * r["items"] for r in results) / slowest, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="bundled:smollm2-135m")
    parser.add_argument("--procedures", type=int, default=6)
    parser.add_argument("--answer-tokens", type=int, default=5)
    parser.add_argument("--configs", nargs="+", default=["1x2", "1x1", "2x1", "2x2"],
                        help="processes x threads, e.g. 2x1")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.model, args.procedures, args.answer_tokens)))
        return
    for config in args.configs:
        processes, threads = (int(x) for x in config.split("x"))
        print(json.dumps(run_config(processes, threads, args)), flush=True)


if __name__ == "__main__":
    main()

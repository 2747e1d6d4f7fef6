"""Speed of multiple-choice scoring: culturelab's backend vs a naive loop vs lm-evaluation-harness.

The same N four-option MCQs ("Which country is the dish X from?", built from FMLAMA's real
dishes when ``CULTURELAB_DATA`` is set, from the quickstart questions otherwise) are scored by
option log-likelihood three ways, with the same model folder and the same prompts:

* ``culturelab``  — ``HFCausalLM.loglikelihood``: each question's context is encoded once and its
  four options are scored from the cached keys/values (no response cache in this benchmark);
* ``naive``       — one full forward pass per (context, option);
* ``lm-eval``     — lm-evaluation-harness's HFLM (``pip install lm-eval``), run in-process if
  importable, else with ``--lm-eval-python /path/to/venv/bin/python`` in a separate venv.

Prints items/s, ratios, and whether the chosen answers agree. Usage:

    python benchmarks/bench_choice.py --n 200 --model bundled:smollm2-135m --target text
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

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

LETTERS = "ABCD"
INSTRUCTION = ("You are given a question about the world's cuisines. Choose the country the dish comes from.\n"
               "Question: Which country is the dish {dish} from?\n{options}\nAnswer:")


def build_questions(n: int, seed: int = 0) -> list[dict]:
    """N questions with 4 options (gold + 3 other origins), deterministic for a seed."""
    import pandas as pd

    from culturelab import config

    rng = np.random.default_rng(seed)
    path = config.data_dir() / "fmlama" / "data" / "data_lang" / "en" / "en_dishes.jsonl"
    if path.is_file():
        dishes = pd.read_json(path, lines=True)[["sub_label", "origin"]].drop_duplicates("sub_label")
        pool = sorted(dishes["origin"].unique())
        rows = dishes.sample(n=min(n, len(dishes)), random_state=seed).itertuples(index=False)
        pairs = [(r.sub_label, r.origin) for r in rows]
    else:
        from culturelab.quickstart.data import load_mcqs

        qs = load_mcqs()
        pool = sorted({o for opts in qs["options"] for o in opts})
        pairs = [(q, opts[a]) for q, opts, a in zip(qs["question"], qs["options"], qs["answer"])] * (n // len(qs) + 1)
    questions = []
    for dish, origin in pairs[:n]:
        distractors = list(rng.choice([c for c in pool if c != origin], size=3, replace=False))
        options = [origin, *distractors]
        rng.shuffle(options)
        text = "\n".join(f"{LETTERS[i]}. {o}" for i, o in enumerate(options))
        questions.append({"context": INSTRUCTION.format(dish=dish, options=text), "options": [str(o) for o in options],
                          "answer": options.index(origin)})
    return questions


LONG_INSTRUCTION = ("Aşağıda wikiHow'dan alınmış hedefler ve adımlar var. Her hedef için verilen adımdan sonra "
                    "gelen adımı seç.\n\n")


def build_long_questions(n: int, seed: int = 0, shots: int = 2) -> list[dict]:
    """N long-context questions: Turkish PLU next-event prediction (real wikiHow steps) with ``shots``
    solved examples before each item, so contexts run to a few hundred tokens and every option is a
    whole sentence (multi-token). Deterministic for a seed."""
    import pandas as pd

    from culturelab import config

    path = config.data_dir() / "turkish_plu" / "mc" / "next-event-prediction-test.csv"
    if not path.is_file():
        raise SystemExit(f"--workload long needs {path} (set CULTURELAB_DATA)")
    items = pd.read_csv(path).sample(frac=1.0, random_state=seed).reset_index(drop=True)
    endings = [[str(r[f"ending{j}"]) for j in range(4)] for _, r in items.iterrows()]

    def block(i: int) -> str:
        return f"Hedef: {items.sent1[i]}\nAdım: {items.sent2[i]}\nSonraki adım:"

    questions = []
    for i in range(min(n, len(items) - shots)):
        k = shots + i
        demos = "".join(f"{block(j)} {endings[j][int(items.label[j])]}\n\n" for j in range(i, i + shots))
        questions.append({"context": LONG_INSTRUCTION + demos + block(k), "options": endings[k],
                          "answer": int(items.label[k])})
    return questions


def requests_for(questions: list[dict], target: str) -> list[tuple[str, str]]:
    return [(q["context"], " " + (LETTERS[i] if target == "letter" else o))
            for q in questions for i, o in enumerate(q["options"])]


def choices(logprobs: list[float], n_options: int = 4) -> list[int]:
    return [int(i) for i in np.asarray(logprobs).reshape(-1, n_options).argmax(axis=1)]


def run_lm_eval(model_dir: str, requests: list[tuple[str, str]], batch_size: int, python: str | None) -> tuple[list[float], float]:
    """Score with lm-evaluation-harness; returns log-probs and seconds spent scoring."""
    if python is None:
        from lm_eval.api.instance import Instance
        from lm_eval.models.huggingface import HFLM

        lm = HFLM(pretrained=model_dir, device="cpu", dtype="float32", batch_size=batch_size)
        inst = [Instance(request_type="loglikelihood", doc={}, arguments=r, idx=i) for i, r in enumerate(requests)]
        t0 = time.perf_counter()
        out = lm.loglikelihood(inst, disable_tqdm=True)
        return [float(lp) for lp, _ in out], time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as tmp:
        req_file, out_file = Path(tmp) / "req.json", Path(tmp) / "out.json"
        req_file.write_text(json.dumps(requests))
        subprocess.run([python, __file__, "--lm-eval-worker", model_dir, str(req_file), str(out_file),
                        str(batch_size)], check=True)
        result = json.loads(out_file.read_text())
    return result["logprobs"], result["seconds"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--model", default="bundled:smollm2-135m")
    parser.add_argument("--target", choices=["text", "letter"], default="text")
    parser.add_argument("--workload", choices=["short", "long"], default="short",
                        help="short: FMLAMA 'which country' items; long: Turkish PLU items with 2 solved examples")
    parser.add_argument("--json", default=None, help="write the figures to this JSON file")
    parser.add_argument("--naive-n", type=int, default=40, help="questions for the (slow) naive loop")
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--lm-eval-python", default=None, help="python of a venv with lm-eval installed")
    parser.add_argument("--skip-lm-eval", action="store_true")
    args = parser.parse_args()

    import torch

    from culturelab.models import load_model

    torch.manual_seed(0)
    model = load_model(args.model, device="cpu", cache=False, progress=False, batch_size=args.batch_size)
    model_dir = model.model_id if not args.model.startswith("bundled:") else str(
        __import__("culturelab.models.bundled", fromlist=["x"]).bundled_model_dir(args.model.split(":", 1)[1]))
    questions = build_questions(args.n) if args.workload == "short" else build_long_questions(args.n)
    reqs = requests_for(questions, args.target)
    ctx_tokens = [len(model.tokenizer(q["context"])["input_ids"]) for q in questions]
    print(f"{len(questions)} questions × 4 options, workload={args.workload}, target={args.target}, "
          f"model={args.model}, threads={torch.get_num_threads()}, context tokens {min(ctx_tokens)}–"
          f"{max(ctx_tokens)} (median {int(np.median(ctx_tokens))})")

    model.loglikelihood(reqs[:8])  # warm-up
    t0 = time.perf_counter()
    ours = [r.logprob for r in model.loglikelihood(reqs)]
    t_ours = time.perf_counter() - t0
    rows = [("culturelab", len(questions) / t_ours)]

    k = min(args.naive_n, len(questions))
    t0 = time.perf_counter()
    naive = [r.logprob for r in model.naive_loglikelihood(reqs[: 4 * k])]
    t_naive = time.perf_counter() - t0
    rows.append(("naive loop", k / t_naive))
    agree_naive = choices(ours[: 4 * k]) == choices(naive)
    max_diff = float(np.max(np.abs(np.array(ours[: 4 * k]) - np.array(naive))))

    agree_lmeval = None
    if not args.skip_lm_eval:
        try:
            lmeval, t_lmeval = run_lm_eval(model_dir, reqs, args.batch_size, args.lm_eval_python)
            rows.append(("lm-eval HFLM", len(questions) / t_lmeval))
            agree_lmeval = choices(ours) == choices(lmeval)
        except (ImportError, subprocess.CalledProcessError) as err:
            print(f"lm-evaluation-harness not available ({err}); pass --lm-eval-python or pip install lm-eval")

    base = rows[1][1]
    print(f"\n{'method':<14} {'items/s':>8} {'vs naive':>9}")
    for name, speed in rows:
        print(f"{name:<14} {speed:8.2f} {speed / base:8.1f}x")
    accuracy = np.mean([c == q["answer"] for c, q in zip(choices(ours), questions)])
    print(f"\nanswers identical to naive loop (first {k}): {agree_naive} (max |Δ log-prob| = {max_diff:.2e})")
    if agree_lmeval is not None:
        print(f"answers identical to lm-eval (all {len(questions)}): {agree_lmeval}")
    print(f"accuracy of {args.model}: {accuracy:.3f} (chance 0.25)")
    if args.json:
        Path(args.json).write_text(json.dumps({
            "workload": args.workload, "target": args.target, "model": args.model, "n": len(questions),
            "items_per_s": dict(rows), "answers_identical_naive": agree_naive, "max_abs_dlogp_naive": max_diff,
            "answers_identical_lm_eval": agree_lmeval, "accuracy": float(accuracy)}, indent=1))


def _lm_eval_worker(model_dir: str, req_file: str, out_file: str, batch_size: str) -> None:
    requests = [tuple(r) for r in json.loads(Path(req_file).read_text())]
    logprobs, seconds = run_lm_eval(model_dir, requests, int(batch_size), None)
    Path(out_file).write_text(json.dumps({"logprobs": logprobs, "seconds": seconds}))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--lm-eval-worker":
        _lm_eval_worker(*sys.argv[2:6])
    else:
        main()

"""Speed and memory of one full VecMap self-learning run, ours beside the reference (issues 6, 15).

Builds a synthetic pair of n × d spaces with a planted orthogonal map plus noise (the target rows
are shuffled, so nothing is given away by the order) and runs one complete ``semi_supervised``
fit (15 seed pairs, CSLS dictionary induction over the similarities in row blocks, stochastic
induction, final whitening/re-weighting/de-whitening), then CSLS retrieval of every source word.
Prints seconds per self-learning iteration, iterations and time to convergence, P@1 of the
recovered map (CSLS, every source word) and peak resident memory (and peak CUDA memory on a GPU).
Never run by the tests.

``--reference PATH`` also runs a user-supplied checkout of the reference VecMap
(github.com/artetxem/vecmap, GPL — run as a separate process, none of its code is in this project)
on the same pair: the spaces are written as word2vec text files with the seed dictionary, and
``map_embeddings.py --semi_supervised`` — the same recipe as our preset: unit/center/unit
normalisation, whitening, re-weighting 0.5, de-whitening src/trg, self-learning over the 20,000
most frequent words, CSLS k = 10 in both directions (union), stochastic induction from keep
probability 0.1 doubling after ``--stochastic-interval`` iterations without improvement,
threshold 1e-6 — runs with ``--log``; its per-iteration times come from that log, its P@1 from its
output embeddings scored by the same CSLS retrieval, its peak memory from the kernel's accounting
of the child process.

    .venv/bin/python benchmarks/bench_vecmap.py --n 10000 --dim 300 --stochastic-interval 5 \
        --reference /tmp/vecmap

VecMap's own patience is 50 iterations per keep probability (hundreds of iterations in all);
``--stochastic-interval`` shortens it on both sides alike — the loop then ends by VecMap's rule at
another interval, not by its convergence criterion, which our side's ``stop`` and ``criterion`` say
— and ``--max-iter N`` caps our side only (the reference has no cap, so the two exclude each other).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from culturelab.embeddings.align import VecMap
from culturelab.embeddings.space import translate


def planted_pair(n: int, dim: int, noise: float, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Source vectors, target vectors (= shuffled source @ random orthogonal map + noise) and
    the gold target index of each source row."""
    rng = np.random.default_rng(seed)
    # a low-rank + isotropic mixture, so the spaces have some structure like real embeddings
    x = (rng.normal(size=(n, 32)) @ rng.normal(size=(32, dim)) * 0.3 + rng.normal(size=(n, dim))).astype(np.float32)
    q, _ = np.linalg.qr(rng.normal(size=(dim, dim)))
    perm = rng.permutation(n)
    z = np.empty_like(x)
    z[perm] = x @ q.astype(np.float32) + noise * rng.normal(size=(n, dim)).astype(np.float32)
    return x, z, perm


def csls_p_at_1(xw: np.ndarray, zw: np.ndarray, gold: np.ndarray, device: str) -> float:
    """P@1 of CSLS retrieval of every source word in the mapped spaces."""
    idx, _ = translate(xw, zw, k=1, retrieval="csls", source=xw, device=device)
    return float(np.mean(idx[:, 0] == gold))


def write_word2vec(path: Path, prefix: str, m: np.ndarray) -> None:
    """word2vec text format: a ``count dim`` header, then ``word v1 … vd`` per row."""
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(f"{m.shape[0]} {m.shape[1]}\n")
        for i, row in enumerate(m):
            fh.write(f"{prefix}{i} " + " ".join(f"{v:.7g}" for v in row) + "\n")


def read_word2vec(path: Path) -> np.ndarray:
    """The matrix of a word2vec text file written in row order (words ``<prefix><row>``)."""
    with open(path, encoding="utf-8") as fh:
        n, dim = map(int, fh.readline().split())
        return np.loadtxt(fh, usecols=range(1, dim + 1), dtype=np.float32, ndmin=2).reshape(n, dim)


def run_ours(args: argparse.Namespace, x: np.ndarray, z: np.ndarray, gold: np.ndarray) -> dict[str, Any]:
    """Our fit, timed in this process."""
    seeds = [(i, int(gold[i])) for i in range(15)]
    overrides = {"stochastic_interval": args.stochastic_interval} if args.stochastic_interval else {}
    if args.budget_mb:
        overrides["budget_mb"] = args.budget_mb
    if args.vocabulary_cutoff >= 0:
        overrides["vocabulary_cutoff"] = args.vocabulary_cutoff
    if args.device.startswith("cuda") or (args.device == "auto" and torch.cuda.is_available()):
        torch.cuda.reset_peak_memory_stats()
    t0 = time.perf_counter()
    res = VecMap("semi_supervised", device=args.device, seed=args.seed, progress=False,
                 max_iter=args.max_iter, **overrides).fit(x, z, seeds)
    t_fit = time.perf_counter() - t0
    rss_fit = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # before our own scoring below
    t1 = time.perf_counter()
    p1 = csls_p_at_1(res.xw, res.zw, gold, args.device)
    out = {"side": "ours", "device": res.device, "iterations": res.n_iter, "stop": res.stop,
           "criterion": res.criterion,
           "s_per_iteration": round(float(res.history["seconds"].median()), 3),
           "iterations_s": round(float(res.history["seconds"].sum()), 1), "fit_s": round(t_fit, 1),
           "csls_retrieval_s": round(time.perf_counter() - t1, 1), "p_at_1": p1,
           "peak_rss_mib": round(rss_fit / 1024),
           "torch_threads": torch.get_num_threads()}
    if res.device.startswith("cuda"):
        out["peak_cuda_mib"] = round(torch.cuda.max_memory_allocated() / 2**20)
    return out


def run_reference(args: argparse.Namespace, x: np.ndarray, z: np.ndarray, gold: np.ndarray) -> dict[str, Any]:
    """The reference ``map_embeddings.py`` as a child process on the same pair."""
    script = Path(args.reference) / "map_embeddings.py"
    if not script.is_file():
        raise SystemExit(f"--reference {args.reference}: no map_embeddings.py there (a checkout of artetxem/vecmap)")
    with tempfile.TemporaryDirectory(prefix="vecmap-ref-") as tmp:
        d = Path(tmp)
        write_word2vec(d / "src.txt", "s", x)
        write_word2vec(d / "trg.txt", "t", z)
        (d / "seed.txt").write_text("".join(f"s{i} t{int(gold[i])}\n" for i in range(15)), encoding="utf-8")
        # run the script in a small wrapper process that records that process's own peak RSS
        wrapper = ("import resource, runpy, sys; sys.argv = sys.argv[2:]; sys.path.insert(0, sys.argv[0].rpartition('/')[0]); "
                   "runpy.run_path(sys.argv[0], run_name='__main__'); "
                   "open(sys.argv[-1] + '.rss', 'w').write(str(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))")
        cmd = [args.reference_python, "-c", wrapper, "--", str(script), "--semi_supervised", str(d / "seed.txt"), str(d / "src.txt"),
               str(d / "trg.txt"), str(d / "src.out"), str(d / "trg.out"), "--seed", str(args.seed)]
        if args.stochastic_interval:
            cmd += ["--stochastic_interval", str(args.stochastic_interval)]
        if args.reference_cuda:
            cmd.append("--cuda")
        cmd += ["--log", str(d / "log.tsv")]  # last: the wrapper writes the RSS beside it
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, cwd=args.reference)
        wall = time.perf_counter() - t0
        log = np.loadtxt(d / "log.tsv", ndmin=2)  # iteration, objective (%), seconds
        rss_kib = int((d / "log.tsv.rss").read_text())
        xw, zw = read_word2vec(d / "src.out"), read_word2vec(d / "trg.out")
    return {"side": "reference", "device": "cuda" if args.reference_cuda else "cpu", "iterations": len(log),
            "s_per_iteration": round(float(np.median(log[:, -1])), 3), "iterations_s": round(float(log[:, -1].sum()), 1),
            "process_s (with text I/O)": round(wall, 1), "p_at_1": csls_p_at_1(xw, zw, gold, args.device),
            "peak_rss_mib": round(rss_kib / 1024)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--dim", type=int, default=300)
    ap.add_argument("--noise", type=float, default=0.3)
    ap.add_argument("--device", default="auto")
    ap.add_argument("--max-iter", type=int, default=0, help="0 = until convergence (ours only)")
    ap.add_argument("--stochastic-interval", type=int, default=0, help="0 = the preset's (VecMap's 50)")
    ap.add_argument("--budget-mb", type=int, default=0, help="similarity block budget (0 = the preset's 512)")
    ap.add_argument("--vocabulary-cutoff", type=int, default=-1,
                    help="words in the induction (0 = all; default: the preset's 20,000, as the reference)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=0, help="torch CPU threads (0 = torch default)")
    ap.add_argument("--reference", default=None, help="a checkout of github.com/artetxem/vecmap to run beside ours")
    ap.add_argument("--reference-python", default=sys.executable, help="python (with numpy) for the reference")
    ap.add_argument("--reference-cuda", action="store_true", help="pass --cuda to the reference (needs cupy)")
    ap.add_argument("--skip-ours", action="store_true", help="only the reference")
    args = ap.parse_args()
    if args.reference and args.max_iter:
        ap.error("--max-iter caps only our side; compare with the reference at convergence (--stochastic-interval)")
    if args.threads:
        torch.set_num_threads(args.threads)
    x, z, gold = planted_pair(args.n, args.dim, args.noise, args.seed)
    common = {"n": args.n, "dim": args.dim, "stochastic_interval": args.stochastic_interval or 50}
    if not args.skip_ours:
        print(json.dumps(common | run_ours(args, x, z, gold)), flush=True)
    if args.reference:
        print(json.dumps(common | run_reference(args, x, z, gold)), flush=True)


if __name__ == "__main__":
    main()

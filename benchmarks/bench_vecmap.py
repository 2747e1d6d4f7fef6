"""Speed and memory of one full VecMap self-learning run (CulturalRecipes §4, issue 6).

Builds a synthetic pair of 20k × 300-d spaces with a planted orthogonal map plus noise (the
target rows are shuffled, so nothing is given away by the order), runs one complete
``semi_supervised`` fit (15 seed pairs, CSLS dictionary induction over the 20k × 20k
similarities in row blocks, stochastic induction, final whitening/re-weighting/de-whitening),
then CSLS retrieval of every source word. Prints wall time, iterations, peak resident memory
(and peak CUDA memory on a GPU) and P@1 of the recovered map. Never run by the tests.

    .venv/bin/python benchmarks/bench_vecmap.py --n 20000 --dim 300 --device auto

On CPU the full loop (stochastic induction with VecMap's patience of 50 iterations) runs for
hundreds of iterations; ``--max-iter N`` caps it to time N iterations, and
``--stochastic-interval`` shortens the patience.
"""

from __future__ import annotations

import argparse
import json
import resource
import time

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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--dim", type=int, default=300)
    ap.add_argument("--noise", type=float, default=0.3)
    ap.add_argument("--device", default="auto")
    ap.add_argument("--max-iter", type=int, default=0, help="0 = until convergence")
    ap.add_argument("--stochastic-interval", type=int, default=0, help="0 = the preset's (VecMap's 50)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=0, help="torch CPU threads (0 = torch default)")
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    x, z, gold = planted_pair(args.n, args.dim, args.noise, args.seed)
    seeds = [(i, int(gold[i])) for i in range(15)]
    t0 = time.perf_counter()
    overrides = {"stochastic_interval": args.stochastic_interval} if args.stochastic_interval else {}
    res = VecMap("semi_supervised", device=args.device, seed=args.seed, progress=True,
                 max_iter=args.max_iter, **overrides).fit(x, z, seeds)
    t_fit = time.perf_counter() - t0
    t1 = time.perf_counter()
    idx, _ = translate(res.xw, res.zw, k=1, retrieval="csls", source=res.xw, device=args.device)
    t_ret = time.perf_counter() - t1
    out = {"n": args.n, "dim": args.dim, "device": res.device, "iterations": res.n_iter,
           "fit_s": round(t_fit, 1), "csls_retrieval_s": round(t_ret, 1),
           "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
           "p_at_1": float(np.mean(idx[:, 0] == gold)), "torch_threads": torch.get_num_threads()}
    if torch.cuda.is_available() and res.device.startswith("cuda"):
        out["peak_cuda_mib"] = round(torch.cuda.max_memory_allocated() / 2**20)
    print(json.dumps(out))


if __name__ == "__main__":
    main()

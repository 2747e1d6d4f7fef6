"""Speed of FMLAMA's masked-LM ranking: culturelab's ranker vs one candidate at a time.

A small random BERT (WordPiece vocabulary trained on FMLAMA-en's dish names and ingredients,
2 layers, hidden size 64) ranks **every** candidate ingredient of FMLAMA-en (1,287 with the
release in ``CULTURELAB_DATA``; our sample otherwise) for each dish in the 5 English templates:

* ``culturelab`` — ``MaskedLM.rank_candidates``: one forward pass per (dish, template, mask
  count d = 1..10), candidates of one length gathered in one vectorised step;
* ``reference``  — the paper's definition written plainly: for each candidate its own query with
  as many masks as it has sub-tokens, one forward pass, mean log-probability.

Prints dishes/s for both and checks that the two rank the candidates identically (up to
near-ties within 1e-5: float noise reorders candidates whose scores differ by ~1e-6). Usage:

    python benchmarks/bench_fmlama_masked.py --dishes 20 --reference-dishes 2
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def build_bert(texts: list[str], out: Path) -> Path:
    """A random 2-layer BertForMaskedLM with a WordPiece vocabulary trained on ``texts``."""
    from culturelab.models.tiny import build_tiny_bert

    return build_tiny_bert(texts, out, vocab_size=2000, hidden_size=64, lowercase=True)


def reference_rank(mlm, query: str, candidates: list[str], ids: list[list[int]], max_masks: int) -> np.ndarray:
    """One forward pass per candidate (the slow, obvious implementation)."""
    import torch

    prefix, suffix = query.split("[Y]")
    scores = np.full(len(candidates), -np.inf)
    with torch.inference_mode():
        for j, cand_ids in enumerate(ids):
            if not 1 <= len(cand_ids) <= max_masks:
                continue
            enc = mlm.tokenizer(prefix + " ".join(["[MASK]"] * len(cand_ids)) + suffix, return_tensors="pt")
            logits = mlm.model(**enc).logits[0]
            pos = (enc["input_ids"][0] == mlm.tokenizer.mask_token_id).nonzero()[:, 0]
            lp = torch.log_softmax(logits[pos], dim=-1)
            scores[j] = lp[torch.arange(len(cand_ids)), torch.tensor(cand_ids)].mean().item()
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dishes", type=int, default=20, help="dishes ranked by culturelab's ranker")
    parser.add_argument("--reference-dishes", type=int, default=2, help="dishes ranked by the reference loop")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()

    import torch

    from culturelab.data.sources import resolve_source
    from culturelab.fmlama import data as fmlama
    from culturelab.fmlama.metrics import candidate_set
    from culturelab.fmlama.templates import build_queries
    from culturelab.models import load_model

    torch.set_num_threads(args.threads)
    data_source = resolve_source("auto", fmlama.local_root(), auto="sample")  # the release if present
    table = fmlama.load_language("en", data_source=data_source)
    candidates = candidate_set(table["ingredients"])
    texts = [*table["dish"], *candidates, "the food has the ingredients of is a kind of type part with"]
    with tempfile.TemporaryDirectory() as tmp:
        mlm = load_model(f"masked:{build_bert(texts, Path(tmp))}", device="cpu", cache=False, progress=False)
        ids = mlm.candidate_ids(candidates)
        dishes = table.head(args.dishes)
        queries = build_queries(dishes, "en")["query"].tolist()
        mlm.rank_candidates(queries[:5], candidates)  # warm-up
        t0 = time.perf_counter()
        ours = mlm.rank_candidates(queries, candidates)
        t_ours = time.perf_counter() - t0
        n_ref = min(args.reference_dishes, len(dishes))
        t0 = time.perf_counter()
        ref = np.stack([reference_rank(mlm, q, candidates, ids, mlm.max_masks) for q in queries[: 5 * n_ref]])
        t_ref = time.perf_counter() - t0
    finite = np.isfinite(ref)
    same_inf = bool((np.isfinite(ours[: 5 * n_ref]) == finite).all())
    max_diff = float(np.max(np.abs(ours[: 5 * n_ref][finite] - ref[finite])))
    # the same order up to float noise: the reference's scores, read in our order, never rise by more
    # than the tolerance (exact argsort equality fails on near-ties of a random BERT)
    same_rank = all(np.all(np.diff(np.where(np.isfinite(b), b, -1e30)[np.argsort(-a, kind="stable")]) <= 1e-5)
                    for a, b in zip(ours[: 5 * n_ref], ref))
    exact = sum(int((np.argsort(-a, kind="stable") == np.argsort(-b, kind="stable")).all())
                for a, b in zip(ours[: 5 * n_ref], ref))
    lengths = np.array([len(i) for i in ids])
    print(f"data: {data_source}; {len(candidates)} candidates (sub-tokens: mean {lengths.mean():.2f}, max {lengths.max()}, "
          f"{int((lengths > mlm.max_masks).sum())} over the 10-mask cap); 5 templates per dish")
    print(f"culturelab: {len(dishes)} dishes in {t_ours:.2f} s = {len(dishes) / t_ours:.2f} dishes/s")
    print(f"reference : {n_ref} dishes in {t_ref:.2f} s = {n_ref / t_ref:.3f} dishes/s")
    print(f"speed-up ×{(len(dishes) / t_ours) / (n_ref / t_ref):.0f}; identical rankings (up to near-ties ≤ 1e-5): {same_rank}; "
          f"same unrankable set: {same_inf}; max |Δ score| {max_diff:.2e}; "
          f"bit-identical orderings {exact}/{len(ref)} queries")


if __name__ == "__main__":
    main()

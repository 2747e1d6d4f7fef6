"""Operations on embedding spaces shared by the mapping (:mod:`~culturelab.embeddings.align`) and
bilingual lexicon induction (:mod:`~culturelab.embeddings.bli`): tensors, normalisation, the
CSLS neighbourhood density, row blocks under a memory budget, and nearest-neighbour / CSLS
retrieval (:func:`translate`; Conneau et al. 2018: ``2·cos(x, z) − r_T(x) − r_S(z)``, r = mean
cosine to the k nearest neighbours in the other space), on GPU when present.

>>> import numpy as np
>>> z = np.eye(3, dtype="float32"); q = np.array([[0.9, 0.1, 0.0]], dtype="float32")
>>> idx, _ = translate(q, z, k=2)
>>> idx.tolist()
[[0, 1]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from culturelab.embeddings.presets import NORMALIZE_ACTIONS
from culturelab.models.device import resolve_device

RETRIEVALS = ("nn", "csls")


def as_tensor(a: Any, device: str | torch.device | None = None) -> torch.Tensor:
    """``a`` (array-like or tensor) as a float32 tensor, on ``device`` if given (else where it is).

    >>> as_tensor([[1, 2]]).dtype
    torch.float32
    """
    t = a if isinstance(a, torch.Tensor) else torch.as_tensor(np.asarray(a, dtype=np.float32))
    return t.to(device=device or t.device, dtype=torch.float32)


def like_input(result: torch.Tensor, original: Any) -> Any:
    """``result`` as a tensor when ``original`` was one, else as a numpy array.

    >>> type(like_input(torch.ones(1), [1.0])).__name__
    'ndarray'
    """
    return result if isinstance(original, torch.Tensor) else result.cpu().numpy()


def normalize(matrix: Any, actions: Sequence[str] = ("unit", "center", "unit")) -> Any:
    """Apply normalisation steps in order (numpy in → numpy out; torch in → torch out).

    Rows of zeros stay zero under ``unit``.

    >>> m = normalize(np.array([[3.0, 4.0], [1.0, 0.0], [0.0, 0.0]]), ["unit"])
    >>> np.round(np.linalg.norm(m, axis=1), 3).tolist()
    [1.0, 1.0, 0.0]
    >>> bool(np.allclose(normalize(np.eye(3), ["center"]).mean(axis=0), 0, atol=1e-6))
    True
    """
    t = as_tensor(matrix).clone()
    for action in actions:
        if action == "unit":
            norms = t.norm(dim=1, keepdim=True)
            t = torch.where(norms > 0, t / norms.clamp_min(1e-30), t)
        elif action == "center":
            t = t - t.mean(dim=0, keepdim=True)
        elif action == "unitdim":
            norms = t.norm(dim=0, keepdim=True)
            t = torch.where(norms > 0, t / norms.clamp_min(1e-30), t)
        elif action == "centeremb":
            t = t - t.mean(dim=1, keepdim=True)
        else:
            raise ValueError(f"unknown normalisation step {action!r}; use {NORMALIZE_ACTIONS}")
    return like_input(t, matrix)


def topk_mean(sims: torch.Tensor, k: int, dim: int = 1) -> torch.Tensor:
    """Mean of the ``k`` largest values along ``dim`` (CSLS's neighbourhood density r).

    >>> topk_mean(torch.tensor([[1.0, 3.0, 2.0]]), 2).tolist()
    [2.5]
    """
    k = min(k, sims.shape[dim])
    return sims.topk(k, dim=dim).values.mean(dim=dim)


def row_blocks(n_rows: int, n_cols: int, budget_mb: int, copies: int = 3) -> list[tuple[int, int]]:
    """Row ranges such that ``copies`` float32 blocks of width ``n_cols`` fit the budget (MiB).

    >>> row_blocks(5, 2**18, budget_mb=2, copies=1)
    [(0, 2), (2, 4), (4, 5)]
    """
    rows = max(1, int(budget_mb * 2**20 // max(1, 4 * n_cols * copies)))
    return [(a, min(a + rows, n_rows)) for a in range(0, n_rows, rows)]


def translate(queries: Any, targets: Any, *, k: int = 10, retrieval: str = "nn", csls_k: int = 10,
              source: Any | None = None, unit: bool = True, device: str = "auto",
              budget_mb: int = 512) -> tuple[np.ndarray, np.ndarray]:
    """Top-``k`` target indices and scores for each query vector.

    ``source`` is the whole mapped source space, used for the target side's CSLS density
    r_S(z) (default: the queries themselves). ``unit`` length-normalises both sides first, so
    scores are cosines (NN) or CSLS values.
    """
    if retrieval not in RETRIEVALS:
        raise ValueError(f"retrieval must be one of {RETRIEVALS}, not {retrieval!r}")
    dev = resolve_device(device) if not isinstance(queries, torch.Tensor) else queries.device
    q = as_tensor(queries, dev)
    t = as_tensor(targets, dev)
    if unit:
        q, t = normalize(q, ["unit"]), normalize(t, ["unit"])
    k = min(k, len(t))
    r_s = None
    if retrieval == "csls":
        src = q if source is None else as_tensor(source, dev)
        if unit and source is not None:
            src = normalize(src, ["unit"])
        r_s = torch.empty(len(t), device=dev)
        for a, b in row_blocks(len(t), len(src), budget_mb, copies=2):
            r_s[a:b] = topk_mean(t[a:b] @ src.T, csls_k, dim=1)
    indices = np.empty((len(q), k), dtype=np.int64)
    scores = np.empty((len(q), k), dtype=np.float32)
    for a, b in row_blocks(len(q), len(t), budget_mb, copies=2):
        sims = q[a:b] @ t.T
        if r_s is not None:
            r_t = topk_mean(sims, csls_k, dim=1)
            sims.mul_(2).sub_(r_t[:, None]).sub_(r_s[None, :])  # 2·cos − r_T − r_S in place: one block in memory
        top = sims.topk(k, dim=1)
        indices[a:b] = top.indices.cpu().numpy()
        scores[a:b] = top.values.cpu().numpy()
    return indices, scores

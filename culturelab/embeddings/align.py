"""Cross-lingual mapping of word embeddings in the VecMap framework — our own implementation.

Written from the published method (Artetxe, Labaka & Agirre: ACL 2017 "Learning bilingual word
embeddings with (almost) no bilingual data"; AAAI 2018 "Generalizing and improving bilingual word
embedding mappings with a multi-step framework of linear transformations"; ACL 2018 "A robust
self-learning method for fully unsupervised cross-lingual mappings of word embeddings"), not from
the reference code (GPL). The pieces:

1. **Normalisation** (:func:`~culturelab.embeddings.space.normalize`): ``unit`` (length), ``center`` (mean column), ``unitdim``,
   ``centeremb``; the recommended order is unit → center → unit.
2. **Initial dictionary**: a seed dictionary (``supervised`` / ``semi_supervised``), identical
   strings (``identical``), numerals, or — with no bilingual signal at all — the
   similarity-distribution initialisation (``unsupervised``, :func:`unsupervised_init`): the
   sorted rows of √(XXᵀ) are language-independent descriptors of each word.
3. **Self-learning** (:meth:`VecMap.fit`): alternate an orthogonal (Procrustes) map learned on the
   current dictionary with re-inducing the dictionary (:func:`induce_dictionary`) by CSLS
   retrieval in both directions over the ``vocabulary_cutoff`` most frequent words, with
   *stochastic dictionary induction* (each similarity kept with probability ``keep_prob``, which
   doubles after ``stochastic_interval`` iterations without improvement of the objective — the
   mean best similarity — until it reaches 1 and the loop stops: *converged*, when the rule's
   settings are the mode's VecMap preset; with any of them overridden the fit stops by another rule
   and says so, :data:`~culturelab.embeddings.presets.CRITERION`). ``max_iter`` (ours;
   VecMap has no cap) may stop the loop earlier; the last dictionary is then re-induced once at
   ``keep_prob`` 1, so the final mapping never learns from a dictionary drawn under dropout, and
   the fit records that it did not converge (:attr:`AlignmentResult.stop`).
4. **Final multi-step mapping** (:func:`advanced_map`) on the last dictionary: whitening,
   orthogonal mapping of both sides, re-weighting by the singular values, de-whitening and
   optional dimensionality reduction.

Presets (:data:`~culturelab.embeddings.presets.PRESETS`) follow the paper's recommended configurations; any field of
:class:`MappingConfig` can be overridden. The spaces may have different dimensions (the
orthogonal maps are then semi-orthogonal, from thin SVDs).

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> x = rng.normal(size=(60, 8)).astype("float32")
>>> q, _ = np.linalg.qr(rng.normal(size=(8, 8)))
>>> w = procrustes(x[:20], x[:20] @ q)
>>> bool(np.allclose(w, q, atol=1e-4))
True
"""

from __future__ import annotations

import math
import re
import time
import warnings
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import torch

from culturelab.embeddings.presets import DIRECTIONS, MappingConfig, config_for, criterion_note
from culturelab.embeddings.space import as_tensor, like_input, normalize, row_blocks, topk_mean, translate
from culturelab.models.device import resolve_device


def procrustes(xd: Any, zd: Any) -> Any:
    """Orthogonal W minimising ‖X_D W − Z_D‖ (W = V Uᵀ from Z_Dᵀ X_D = U S Vᵀ).

    With different dimensions W is semi-orthogonal (thin SVD)."""
    x, z = as_tensor(xd), as_tensor(zd)
    u, _, vt = torch.linalg.svd(z.T @ x.to(z.device), full_matrices=False)
    return like_input(vt.T @ u.T, xd)


def whitening(m: torch.Tensor, eps: float = 1e-6) -> tuple[torch.Tensor, torch.Tensor]:
    """(MᵀM)^(-1/2) and its (pseudo-)inverse (MᵀM)^(1/2), from the SVD of ``m``.

    Directions with (numerically) zero singular value are left out, so a dictionary with fewer
    pairs than dimensions gives a rank-deficient whitening, as the method implies.

    >>> w, w_inv = whitening(torch.randn(50, 4, generator=torch.Generator().manual_seed(0)))
    >>> bool(torch.allclose(w @ w_inv, torch.eye(4), atol=1e-4))
    True
    """
    _, s, vt = torch.linalg.svd(m, full_matrices=False)
    keep = s > eps * s.max()
    v = vt[keep].T
    return (v / s[keep]) @ v.T, (v * s[keep]) @ v.T


def advanced_map(x: Any, z: Any, src_idx: Any, trg_idx: Any, *, whiten: bool = True, src_reweight: float = 0.5,
                 trg_reweight: float = 0.5, src_dewhiten: str | None = "src", trg_dewhiten: str | None = "trg",
                 dim_reduction: int = 0) -> tuple[Any, Any]:
    """The multi-step mapping (AAAI 2018) of both spaces, learned on the pairs ``(src_idx, trg_idx)``:
    whitening → orthogonal mapping of both sides → re-weighting by the singular values →
    de-whitening → dimensionality reduction. Returns the mapped ``(XW, ZW)``.

    >>> rng = np.random.default_rng(1)
    >>> x = rng.normal(size=(40, 5)); z = x @ np.linalg.qr(rng.normal(size=(5, 5)))[0]
    >>> xw, zw = advanced_map(x, z, np.arange(40), np.arange(40))
    >>> bool(np.allclose(xw, zw, atol=1e-3))
    True
    """
    xt, zt = as_tensor(x), as_tensor(z)
    zt = zt.to(xt.device)
    si = torch.as_tensor(np.asarray(src_idx), device=xt.device, dtype=torch.long)
    ti = torch.as_tensor(np.asarray(trg_idx), device=xt.device, dtype=torch.long)
    xw, zw = xt, zt
    wx1 = wz1 = wx1_inv = wz1_inv = None
    if whiten:
        wx1, wx1_inv = whitening(xt[si])
        wz1, wz1_inv = whitening(zt[ti])
        xw, zw = xt @ wx1, zt @ wz1
    wx2, s, wz2t = torch.linalg.svd(xw[si].T @ zw[ti], full_matrices=False)
    wz2 = wz2t.T
    xw, zw = xw @ wx2, zw @ wz2
    xw = xw * s ** src_reweight
    zw = zw * s ** trg_reweight
    if whiten:
        inverse = {"src": (wx2, wx1_inv), "trg": (wz2, wz1_inv)}
        if src_dewhiten:
            w2, w1_inv = inverse[src_dewhiten]
            xw = xw @ (w2.T @ w1_inv @ w2)
        if trg_dewhiten:
            w2, w1_inv = inverse[trg_dewhiten]
            zw = zw @ (w2.T @ w1_inv @ w2)
    if dim_reduction > 0:
        xw, zw = xw[:, :dim_reduction], zw[:, :dim_reduction]
    return like_input(xw, x), like_input(zw, x)


def _geometric_ranks(n: int, keep_prob: float, generator: torch.Generator | None,
                     device: torch.device) -> torch.Tensor:
    """For each of ``n`` rows, the 0-based rank (in descending order of value) of the first cell
    that survives dropout with keep probability ``keep_prob``: P(rank = g) = p·(1 − p)^g.

    >>> _geometric_ranks(3, 1.0, None, torch.device("cpu")).tolist()
    [0, 0, 0]
    """
    if keep_prob >= 1:
        return torch.zeros(n, dtype=torch.long, device=device)
    u = 1 - torch.rand(n, generator=generator, device=device)  # in (0, 1]
    return torch.floor(torch.log(u) / math.log1p(-keep_prob)).clamp_max(2**40).long()


def _pick(vals: torch.Tensor, idx: torch.Tensor, ranks: torch.Tensor, keep_prob: float
          ) -> tuple[torch.Tensor, torch.Tensor]:
    """The dropout arg-max of each row from its ``m`` best cells (``vals``/``idx``, descending):
    the first surviving cell (at ``ranks``) wins when it is a candidate and positive (a dropped
    cell is 0, and nothing outside the candidates is larger). Returns the choices and a mask of
    the rows that must be resolved on the full row (:func:`_resolve`)."""
    at = ranks.clamp_max(vals.shape[1] - 1)[:, None]
    choice = idx.gather(1, at)[:, 0]
    if keep_prob >= 1:
        return choice, torch.zeros(len(choice), dtype=torch.bool, device=choice.device)
    return choice, (ranks >= vals.shape[1]) | (vals.gather(1, at)[:, 0] <= 0)


def _resolve(queries: torch.Tensor, b_mat: torch.Tensor, shift: torch.Tensor, idx: torch.Tensor, ranks: torch.Tensor,
             keep_prob: float, generator: torch.Generator | None, budget_mb: int) -> torch.Tensor:
    """Dropout arg-max over the full rows of ``queries b_matᵀ − shift``, consistent with the draws
    the candidates ``idx`` (descending) already made: those ranked before ``ranks`` were dropped,
    the one at ``ranks`` kept; every other cell draws anew."""
    out = torch.empty(len(queries), dtype=torch.long, device=queries.device)
    rank = torch.arange(idx.shape[1], device=queries.device)[None, :]
    for lo, hi in row_blocks(len(queries), len(b_mat), budget_mb, copies=3):
        s = queries[lo:hi] @ b_mat.T - shift[None, :]
        mask = torch.rand(s.shape, generator=generator, device=s.device) < keep_prob
        g, cand = ranks[lo:hi, None], idx[lo:hi]
        mask.scatter_(1, cand, (rank == g) | (rank > g) & mask.gather(1, cand))
        out[lo:hi] = torch.where(mask, s, torch.zeros((), device=s.device)).argmax(dim=1)
    return out


def _merge_top(top: tuple[torch.Tensor, torch.Tensor] | None, vals: torch.Tensor, idx: torch.Tensor, m: int
               ) -> tuple[torch.Tensor, torch.Tensor]:
    """Row-wise top-``m`` (values and their indices, descending) of ``top`` and a new block's."""
    if top is not None:
        vals, idx = torch.cat([top[0], vals], dim=1), torch.cat([top[1], idx], dim=1)
    best = vals.topk(min(m, vals.shape[1]), dim=1)
    return best.values, idx.gather(1, best.indices)


@dataclass
class Induced:
    """A dictionary induced from the mapped spaces, with its objective (mean best cosine)."""

    src: np.ndarray
    trg: np.ndarray
    objective: float


def induce_dictionary(xw: Any, zw: Any, *, csls_k: int = 10, direction: str = "union", keep_prob: float = 1.0,
                      generator: torch.Generator | None = None, budget_mb: int = 512,
                      redo_share: float = 0.02) -> Induced:
    """Induce translation pairs between two mapped spaces by (CSLS-adjusted, stochastic) retrieval.

    Forward: each source word's best target under ``sim − r_T(z)/2`` (for a fixed query this is
    the CSLS ranking) after dropping each similarity with probability ``1 − keep_prob`` (a dropped
    cell becomes 0); backward symmetrically; ``union`` keeps both lists. The objective is the mean
    of the raw best similarities (both directions averaged for ``union``).

    Only XWZWᵀ is computed, in row blocks; three block-sized buffers (the block, its transpose —
    so that backward quantities are row reductions too — and the adjusted copy) share
    ``budget_mb`` MiB. Pass 1 takes the row and column top-k (CSLS densities, best similarities)
    and the backward candidates; pass 2 the forward ones, which wait for every r_S. Candidates:
    the m best CSLS-adjusted cells of every row and column. Dropout is drawn as the rank of the
    first surviving cell (geometric), so it is exact in distribution without a random draw per
    cell; m is the smallest number of candidates that holds the survivor with probability
    ``1 − redo_share`` (1 without dropout: a plain arg-max), and rows whose survivor lies beyond
    them (or is not positive) are redone on the full row. When the whole matrix fits the budget it
    is computed once. Besides the buffers, memory is O(m · vocabulary).

    >>> e = torch.eye(4)
    >>> d = induce_dictionary(e, e[[2, 0, 3, 1]], csls_k=2)
    >>> d.src.tolist(), d.trg.tolist(), d.objective
    ([0, 1, 2, 3, 2, 0, 3, 1], [1, 3, 0, 2, 0, 1, 2, 3], 1.0)
    """
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {DIRECTIONS}, not {direction!r}")
    x = as_tensor(xw)
    z = as_tensor(zw, x.device)
    dev = x.device
    n_s, n_t = len(x), len(z)
    k = min(csls_k, n_s, n_t)
    fwd, bwd = direction != "backward", direction != "forward"
    m = 1 if keep_prob >= 1 else math.ceil(math.log(redo_share) / math.log1p(-keep_prob))
    m_row, m_col = min(m, n_t), min(m, n_s)
    blocks = row_blocks(n_s, n_t, budget_mb, copies=3)
    size = blocks[0][1] * n_t
    buf, t_buf, adj = (torch.empty(size, device=dev) for _ in range(3))  # S block, its transpose, adjusted
    best_f, half_f = torch.empty(n_s, device=dev), torch.zeros(n_s, device=dev)
    col_k: torch.Tensor | None = None  # raw column top-k (for r_S and the backward objective)
    col_top: tuple[torch.Tensor, torch.Tensor] | None = None  # backward candidates (adjusted, source index)
    choice_f = torch.empty(n_s, dtype=torch.long, device=dev)
    redo_f: list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]] = []
    half_b = torch.zeros(n_t, device=dev)

    def forward_picks(s: torch.Tensor, lo: int, hi: int) -> None:
        vals, idx = torch.sub(s, half_b[None, :], out=adj[: s.numel()].view(s.shape)).topk(m_row, dim=1)
        ranks = _geometric_ranks(hi - lo, keep_prob, generator, dev)
        choice_f[lo:hi], redo = _pick(vals, idx, ranks, keep_prob)
        rows = redo.nonzero().flatten()
        if len(rows):
            redo_f.append((rows + lo, idx[rows], ranks[rows]))

    for lo, hi in blocks:  # pass 1: row statistics of S = XWZWᵀ, column ones from its transpose
        b = hi - lo
        s = torch.mm(x[lo:hi], z.T, out=buf[: b * n_t].view(b, n_t))
        if k:
            top = s.topk(k, dim=1).values
            best_f[lo:hi], half_f[lo:hi] = top[:, 0], top.mean(dim=1) / 2
        else:
            best_f[lo:hi] = s.amax(dim=1)
        if fwd and not k:  # nothing to wait for: pick at once
            forward_picks(s, lo, hi)
        if not (k or bwd):
            continue
        t = t_buf[: b * n_t].view(n_t, b)
        t.copy_(s.T)  # column reductions are much slower than row ones: transpose once, reduce rows
        col = t.topk(min(max(k, 1), b), dim=1).values
        if col_k is not None:
            col = torch.cat([col_k, col], dim=1)
            col = col.topk(min(max(k, 1), col.shape[1]), dim=1).values
        col_k = col
        if bwd:
            vals, idx = torch.sub(t, half_f[None, lo:hi], out=adj[: b * n_t].view(n_t, b)).topk(min(m_col, b), dim=1)
            col_top = _merge_top(col_top, vals, idx + lo, m_col)
    if k:
        half_b = col_k.mean(dim=1) / 2
        if fwd:  # pass 2: forward candidates need r_S of every target
            for lo, hi in blocks:
                b = hi - lo
                s = buf[: b * n_t].view(b, n_t)
                if len(blocks) > 1:
                    torch.mm(x[lo:hi], z.T, out=s)
                forward_picks(s, lo, hi)
    buf = t_buf = adj = torch.empty(0, device=dev)  # release the block buffers before the redo
    src_parts, trg_parts, objective = [], [], []
    if fwd:
        for rows, idx, ranks in redo_f:
            choice_f[rows] = _resolve(x[rows], z, half_b, idx, ranks, keep_prob, generator, budget_mb)
        src_parts.append(torch.arange(n_s, device=dev))
        trg_parts.append(choice_f)
        objective.append(best_f.mean())
    if bwd:
        vals, idx = col_top
        ranks = _geometric_ranks(n_t, keep_prob, generator, dev)
        choice_b, redo = _pick(vals, idx, ranks, keep_prob)
        rows = redo.nonzero().flatten()
        if len(rows):
            choice_b[rows] = _resolve(z[rows], x, half_f, idx[rows], ranks[rows], keep_prob, generator, budget_mb)
        src_parts.append(choice_b)
        trg_parts.append(torch.arange(n_t, device=dev))
        objective.append(col_k[:, 0].mean())
    return Induced(torch.cat(src_parts).cpu().numpy(), torch.cat(trg_parts).cpu().numpy(),
                   float(torch.stack(objective).mean()))


def unsupervised_init(x: Any, z: Any, *, vocab: int = 4000, actions: Sequence[str] = ("unit", "center", "unit"),
                      csls_k: int = 10, direction: str = "union", budget_mb: int = 512
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Initial dictionary with no bilingual signal (ACL 2018): over the first ``vocab`` rows of each
    (normalised, frequency-sorted) space (``0``: all), describe every word by the **sorted** row of
    √(XXᵀ) — invariant to rotations of the space — and match the descriptors by CSLS in both
    directions. The descriptors are n × n, so n is capped (with a warning) at what fits
    ``budget_mb`` MiB (about six n × n float32 matrices at the peak).

    >>> rng = np.random.default_rng(0)
    >>> x = normalize(rng.normal(size=(30, 6)))
    >>> src, trg = unsupervised_init(x, x @ np.linalg.qr(rng.normal(size=(6, 6)))[0], vocab=30)
    >>> float(np.mean(src == trg))
    1.0
    """
    xt = as_tensor(x)
    zt = as_tensor(z, xt.device)
    n = min(len(xt), len(zt), vocab) if vocab > 0 else min(len(xt), len(zt))
    fits = math.isqrt(budget_mb * 2**20 // (6 * 4))
    if n > fits:
        warnings.warn(f"unsupervised initialisation over {fits} words, not {n}: {n} x {n} descriptors do not fit "
                      f"budget_mb={budget_mb}", stacklevel=2)
        n = fits

    def profile(m: torch.Tensor) -> torch.Tensor:
        u, s, _ = torch.linalg.svd(m[:n], full_matrices=False)
        return normalize(((u * s) @ u.T).sort(dim=1).values, actions)

    sim = profile(xt) @ profile(zt).T
    if csls_k:
        sim = sim - topk_mean(sim, csls_k, dim=1)[:, None] / 2 - topk_mean(sim, csls_k, dim=0)[None, :] / 2
    ar = torch.arange(n, device=sim.device)
    src, trg = [], []
    if direction != "backward":
        src.append(ar)
        trg.append(sim.argmax(dim=1))
    if direction != "forward":
        src.append(sim.argmax(dim=0))
        trg.append(ar)
    return torch.cat(src).cpu().numpy(), torch.cat(trg).cpu().numpy()


# --------------------------------------------------------------------------- dictionaries ↔ indices
def pairs_to_indices(pairs: Sequence[tuple[Any, Any]], src_words: Sequence[str] | None = None,
                     trg_words: Sequence[str] | None = None) -> tuple[np.ndarray, np.ndarray, list[tuple[Any, Any]]]:
    """Turn word (or index) pairs into index arrays; pairs with an out-of-vocabulary word are
    returned separately (they are skipped, as VecMap does).

    >>> pairs_to_indices([("egg", "蛋"), ("pour", "镯")], ["egg", "salt"], ["盐", "蛋"])
    (array([0]), array([1]), [('pour', '镯')])
    """
    src_index = {w: i for i, w in enumerate(src_words)} if src_words is not None else None
    trg_index = {w: i for i, w in enumerate(trg_words)} if trg_words is not None else None
    src, trg, skipped = [], [], []
    for s, t in pairs:
        i = src_index.get(s) if src_index is not None and not isinstance(s, (int, np.integer)) else s
        j = trg_index.get(t) if trg_index is not None and not isinstance(t, (int, np.integer)) else t
        if i is None or j is None:
            skipped.append((s, t))
        else:
            src.append(int(i))
            trg.append(int(j))
    return np.array(src, dtype=np.int64), np.array(trg, dtype=np.int64), skipped


def identical_pairs(src_words: Sequence[str], trg_words: Sequence[str], *, numerals_only: bool = False
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs of strings present in both vocabularies (or only numerals ``^[0-9]+$``).

    >>> identical_pairs(["paris", "chat", "1990"], ["cat", "paris", "1990"])
    (array([0, 2]), array([1, 2]))
    """
    trg_index = {w: i for i, w in enumerate(trg_words)}
    numeral = re.compile(r"^[0-9]+$")
    src, trg = [], []
    for i, w in enumerate(src_words):
        j = trg_index.get(w)
        if j is not None and (not numerals_only or numeral.match(w)):
            src.append(i)
            trg.append(j)
    return np.array(src, dtype=np.int64), np.array(trg, dtype=np.int64)


# --------------------------------------------------------------------------- the self-learning loop
@dataclass
class AlignmentResult:
    """Mapped spaces, the final dictionary and the per-iteration history of one fit."""

    xw: np.ndarray
    zw: np.ndarray
    src_idx: np.ndarray
    trg_idx: np.ndarray
    history: pd.DataFrame
    mode: str
    config: MappingConfig
    seconds: float
    n_seed_pairs: int = 0
    skipped_seed_pairs: list = field(default_factory=list)
    device: str = "cpu"
    #: why self-learning stopped: ``converged`` (VecMap's criterion), ``other criterion`` (VecMap's rule under
    #: settings other than the mode's preset: :attr:`criterion`), ``max_iter`` (our cap) or ``no self-learning``
    stop: str = "no self-learning"
    #: keep_prob of the last dictionary the schedule induced (below 1 when ``max_iter`` cut it short)
    keep_prob_reached: float = 1.0
    #: the stopping rule's settings: ``VecMap's`` (the mode's preset), else what differs from it
    criterion: str = "VecMap's"
    #: pairs of the initial dictionary removed because their source word was held out (a test word)
    seed_pairs_held_out: int = 0
    #: whether this fit was read from the on-disk cache (:mod:`culturelab.embeddings.fit_cache`)
    cached: bool = False

    @property
    def n_iter(self) -> int:
        """Dictionary inductions run (0 for a purely supervised fit), the re-induction at
        keep_prob 1 after a cap included."""
        return len(self.history)

    @property
    def converged(self) -> bool:
        """Whether self-learning ended by VecMap's own criterion (keep_prob 1 and the preset's
        ``stochastic_interval`` iterations without improvement), or there was none: False when
        ``max_iter`` stopped it, or the rule ran with other settings than the mode's preset."""
        return self.stop in {"converged", "no self-learning"}

    def summary(self) -> dict[str, Any]:
        """One-line description for results tables: iterations, why the loop stopped, whether it
        converged, the stopping rule's settings, the keep_prob the schedule reached and that of
        the final dictionary, its objective (mean best cosine)."""
        last = self.history.iloc[-1] if len(self.history) else None
        return {"mode": self.mode, "iterations": self.n_iter, "stop": self.stop, "converged": self.converged,
                "criterion": self.criterion, "keep_prob_reached": self.keep_prob_reached,
                "final_keep_prob": 1.0 if last is None else float(last["keep_prob"]),
                "seconds": round(self.seconds, 2), "dictionary_size": len(self.src_idx),
                "objective": None if last is None else float(last["objective"]),
                "seed_pairs_used": self.n_seed_pairs, "seed_pairs_skipped": len(self.skipped_seed_pairs),
                "seed_pairs_held_out": self.seed_pairs_held_out,
                "device": self.device}


class VecMap:
    """Map a source embedding space onto a target space (see the module docstring).

    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(200, 10)).astype("float32")
    >>> z = x @ np.linalg.qr(rng.normal(size=(10, 10)))[0] + 0.01 * rng.normal(size=(200, 10))
    >>> res = VecMap("semi_supervised", progress=False).fit(x, z, [(i, i) for i in range(15)])
    >>> float(np.mean(translate(res.xw, res.zw, k=1)[0][:, 0] == np.arange(200)))
    1.0
    """

    def __init__(self, mode: str = "semi_supervised", *, device: str = "auto", seed: int = 0, progress: bool = True,
                 **overrides: Any):
        self.mode = mode
        self.config = config_for(mode, **overrides)
        self.device = resolve_device(device)
        self.seed = seed
        self.progress = progress

    def _initial(self, x: torch.Tensor, z: torch.Tensor, seed_pairs: Sequence[tuple[Any, Any]] | None,
                 src_words: Sequence[str] | None, trg_words: Sequence[str] | None
                 ) -> tuple[np.ndarray, np.ndarray, int, list]:
        cfg = self.config
        if cfg.init == "seed":
            if not seed_pairs:
                raise ValueError(f"mode {self.mode!r} needs seed pairs (a seed dictionary)")
            src, trg, skipped = pairs_to_indices(seed_pairs, src_words, trg_words)
            if skipped:
                warnings.warn(f"{len(skipped)} seed pair(s) out of vocabulary, skipped: {skipped[:5]}", stacklevel=3)
            if not len(src):
                raise ValueError("no seed pair is in both vocabularies")
            return src, trg, len(src), skipped
        if cfg.init in {"identical", "numerals"}:
            if src_words is None or trg_words is None:
                raise ValueError(f"init {cfg.init!r} needs src_words and trg_words")
            src, trg = identical_pairs(src_words, trg_words, numerals_only=cfg.init == "numerals")
            if not len(src):
                raise ValueError(f"no {'numeral ' if cfg.init == 'numerals' else ''}string is in both vocabularies")
            return src, trg, len(src), []
        src, trg = unsupervised_init(x, z, vocab=cfg.unsupervised_vocab, actions=cfg.normalize,
                                     csls_k=cfg.csls_k, direction=cfg.direction, budget_mb=cfg.budget_mb)
        return src, trg, 0, []

    def fit(self, x: Any, z: Any, seed_pairs: Sequence[tuple[Any, Any]] | None = None, *,
            src_words: Sequence[str] | None = None, trg_words: Sequence[str] | None = None,
            validation: dict[int, set[int]] | None = None, held_out: Collection[str] = ()) -> AlignmentResult:
        """Learn the mapping. ``x``/``z`` are (frequency-sorted) source/target matrices;
        ``seed_pairs`` are index pairs, or word pairs together with ``src_words``/``trg_words``.
        ``validation`` ({source index: gold target indices}) adds NN P@1 to the history.
        ``held_out``: source words (the test words of an evaluation) that no pair of a given or
        identical-strings initial dictionary may hold: such pairs are removed and counted
        (:attr:`AlignmentResult.seed_pairs_held_out`)."""
        from tqdm.auto import tqdm

        cfg = self.config
        changed = criterion_note(self.mode, cfg)
        t0 = time.perf_counter()
        x_t = normalize(as_tensor(x, self.device), cfg.normalize)
        z_t = normalize(as_tensor(z, self.device), cfg.normalize)
        src, trg, n_seed, skipped = self._initial(x_t, z_t, seed_pairs, src_words, trg_words)
        n_held = 0
        if held_out and cfg.init != "unsupervised":
            if src_words is None:
                raise ValueError("held_out needs src_words")
            held = set(held_out)
            keep = np.array([src_words[i] not in held for i in src.tolist()], dtype=bool)
            src, trg, n_held = src[keep], trg[keep], int((~keep).sum())
            if not len(src):
                raise ValueError("every pair of the initial dictionary is held out")
            n_seed = len(src)
        generator = torch.Generator(device=self.device).manual_seed(self.seed)
        cut_s = min(len(x_t), cfg.vocabulary_cutoff) if cfg.vocabulary_cutoff > 0 else len(x_t)
        cut_t = min(len(z_t), cfg.vocabulary_cutoff) if cfg.vocabulary_cutoff > 0 else len(z_t)
        val_q = np.array(sorted(validation), dtype=np.int64) if validation else None
        keep_prob, best, last_improvement, it = cfg.stochastic_initial, -np.inf, 0, 1
        end = not cfg.self_learning
        stop, reached, last_keep = ("no self-learning" if end else ""), 1.0, 1.0  # last_keep: of the dictionary
        history: list[dict[str, Any]] = []
        bar = tqdm(desc=f"vecmap {self.mode}", unit="it", disable=not (self.progress and cfg.self_learning), leave=False)
        while True:
            t_it = time.perf_counter()
            if stop == "max_iter":  # the re-induction at keep_prob 1 is done: map from it
                end = True
            elif not end and it - last_improvement > cfg.stochastic_interval:
                if keep_prob >= 1:
                    end, stop, reached = True, "other criterion" if changed else "converged", 1.0
                keep_prob = min(1.0, cfg.stochastic_multiplier * keep_prob)
                last_improvement = it
            if not end and cfg.max_iter and it > cfg.max_iter:
                stop, reached = "max_iter", last_keep
                end = last_keep >= 1  # else: re-induce once without dropout, as VecMap's last dictionary is
                keep_prob = 1.0
            si = torch.as_tensor(src, device=self.device)
            ti = torch.as_tensor(trg, device=self.device)
            if cfg.orthogonal or not end:
                xw, zw = x_t @ procrustes(x_t[si], z_t[ti]), z_t
            else:
                xw, zw = advanced_map(x_t, z_t, src, trg, whiten=cfg.whiten, src_reweight=cfg.src_reweight,
                                      trg_reweight=cfg.trg_reweight, src_dewhiten=cfg.src_dewhiten,
                                      trg_dewhiten=cfg.trg_dewhiten, dim_reduction=cfg.dim_reduction)
            if end:
                break
            induced = induce_dictionary(xw[:cut_s], zw[:cut_t], csls_k=cfg.csls_k, direction=cfg.direction,
                                        keep_prob=keep_prob, generator=generator, budget_mb=cfg.budget_mb)
            src, trg, last_keep = induced.src, induced.trg, keep_prob
            if induced.objective - best >= cfg.threshold:
                last_improvement, best = it, induced.objective
            row = {"iteration": it, "objective": induced.objective, "keep_prob": keep_prob,
                   "dictionary_size": len(src), "seconds": time.perf_counter() - t_it}
            if val_q is not None:
                top = translate(xw[torch.as_tensor(val_q, device=self.device)], zw, k=1,
                                device=self.device, budget_mb=cfg.budget_mb)[0][:, 0]
                row["val_p1"] = float(np.mean([t in validation[q] for q, t in zip(val_q.tolist(), top.tolist())]))
            history.append(row)
            bar.update(1)
            bar.set_postfix(objective=f"{induced.objective:.4f}", keep_prob=keep_prob)
            it += 1
        bar.close()
        return AlignmentResult(xw=xw.cpu().numpy(), zw=zw.cpu().numpy(), src_idx=np.asarray(src),
                               trg_idx=np.asarray(trg), history=pd.DataFrame(history), mode=self.mode, config=cfg,
                               seconds=time.perf_counter() - t0, n_seed_pairs=n_seed, skipped_seed_pairs=skipped,
                               device=self.device, stop=stop, keep_prob_reached=reached,
                               criterion=changed or "VecMap's", seed_pairs_held_out=n_held)

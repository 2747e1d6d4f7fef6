"""BERT-style masked LMs: FMLAMA's multi-mask cloze ranking.

For a template with an answer slot and a candidate set, each candidate is tokenised into
``d`` sub-tokens (candidates longer than ``max_masks`` are dropped, as in the paper and get
``-inf``). For each ``d`` one query with ``d`` mask tokens is built; one forward pass gives
log-probabilities at the masks, and a candidate's score is the **mean over its sub-tokens**
of ``log p(mask_i = c_i)`` taken from the query with its own length (FMLAMA eq. 2). Scores of
all candidates of one length are gathered in a single vectorised step.

>>> mask_span("[MASK]", 3, concatenated=False)
'[MASK] [MASK] [MASK]'
>>> mask_span("<mask>", 2, concatenated=True)
'<mask><mask>'
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch

from culturelab.models.base import LanguageModel, LogLikelihood, split_template
from culturelab.models.device import default_dtype, resolve_device
from culturelab.models.identity import local_fingerprint


def mask_span(mask_token: str, d: int, *, concatenated: bool) -> str:
    """``d`` mask tokens: space separated for BERT, concatenated for RoBERTa/XLM-R.

    >>> mask_span("[MASK]", 2, concatenated=False), mask_span("<mask>", 2, concatenated=True)
    ('[MASK] [MASK]', '<mask><mask>')
    """
    return ("" if concatenated else " ").join([mask_token] * d)


class MaskedLM(LanguageModel):
    """A masked LM (BERT, mBERT, XLM-R, …) used for cloze ranking and pseudo-log-likelihood."""

    backend = "masked"

    def __init__(self, model: str, *, revision: str | None = None, device: str = "auto", max_masks: int = 10,
                 batch_size: int = 32, model_id: str | None = None, **kwargs: Any):
        from transformers import AutoModelForMaskedLM, AutoTokenizer

        self.device = resolve_device(device)
        local = Path(model).expanduser()
        if local.is_dir():
            revision = revision or local_fingerprint(local)
            model = str(local.resolve())
        self.tokenizer = AutoTokenizer.from_pretrained(model, revision=revision)
        # masked LMs are small: float32 keeps the paper's numerics even on a GPU
        dtype = torch.float32 if default_dtype(self.device) == torch.bfloat16 else default_dtype(self.device)
        self.model = AutoModelForMaskedLM.from_pretrained(model, revision=revision, dtype=dtype).to(self.device).eval()
        if self.tokenizer.mask_token is None:
            raise ValueError(f"{model} has no mask token: it is not a masked LM")
        super().__init__(model_id or model, revision or getattr(self.model.config, "_commit_hash", None) or "unknown",
                         **kwargs)
        self.max_masks = max_masks
        self.batch_size = batch_size
        # SentencePiece/BPE masks attach to the previous piece; WordPiece masks are words
        self.concatenated_masks = self.tokenizer.mask_token.startswith("<")
        # SentencePiece marks a word start itself ("rice" → "▁rice"); byte-level BPE needs the space
        probe = self.tokenizer.convert_ids_to_tokens(self.tokenizer("a", add_special_tokens=False)["input_ids"][:1])
        self.sentencepiece = bool(probe) and probe[0].startswith("\u2581")
        self._candidate_ids: tuple[tuple[str, ...], list[list[int]]] | None = None  # last candidate list

    def _generate(self, prompts: list[str], **params: Any) -> list[str]:
        raise NotImplementedError("masked LMs do not generate text; use rank_candidates() or loglikelihood()")

    def candidate_ids(self, candidates: list[str], *, attached: bool = False) -> list[list[int]]:
        """Sub-token ids of each candidate, tokenised as it would appear inside a sentence.

        SentencePiece/BPE candidates (XLM-R, RoBERTa) after a space are word-initial ("rice" →
        "▁rice", " rice" → "Ġrice"); ``attached`` ones (scripts written without spaces: "是以[Y]为") carry no word
        boundary, so a leading bare "▁" piece is dropped and a "▁x" piece becomes "x" where the
        vocabulary has it. WordPiece candidates are tokenised as they are.
        """
        if not candidates:
            return []
        key = (tuple(candidates), attached and self.concatenated_masks)
        cached = self._candidate_ids
        if cached is None or cached[0] != key:  # rank_candidates calls once per chunk of queries
            space = self.concatenated_masks and not self.sentencepiece and not attached
            texts = [" " + c if space else c for c in candidates]
            ids = [list(i) for i in self.tokenizer(texts, add_special_tokens=False)["input_ids"]]
            if key[1]:
                ids = [self._without_word_boundary(i) for i in ids]
            self._candidate_ids = cached = (key, ids)
        return [list(i) for i in cached[1]]

    def _without_word_boundary(self, ids: list[int]) -> list[int]:
        """``ids`` without the SentencePiece word-boundary marker on the first piece."""
        first = self.tokenizer.convert_ids_to_tokens(ids[:1])
        if not first or not first[0].startswith("\u2581"):
            return ids
        if first[0] == "\u2581":
            return ids[1:] if len(ids) > 1 else ids
        bare = self.tokenizer.convert_tokens_to_ids(first[0][1:])
        return ids if bare is None or bare == self.tokenizer.unk_token_id else [bare, *ids[1:]]

    def attached(self, template: str, slot: str) -> bool:
        """Whether the slot of ``template`` follows a non-space character (e.g. Chinese)."""
        prefix, _ = split_template(template, slot)
        return self.concatenated_masks and bool(prefix) and not prefix[-1].isspace()

    @torch.inference_mode()
    def _mask_logprobs(self, queries: list[str]) -> list[torch.Tensor]:
        """Log-softmax over the vocabulary at every mask position of each query."""
        out = []
        for start in range(0, len(queries), self.batch_size):
            enc = self.tokenizer(queries[start : start + self.batch_size], return_tensors="pt", padding=True,
                                 truncation=True).to(self.device)
            logits = self.model(**enc).logits.float()
            is_mask = enc["input_ids"] == self.tokenizer.mask_token_id
            for row in range(logits.shape[0]):
                out.append(torch.log_softmax(logits[row][is_mask[row]], dim=-1))
        return out

    def _rank_candidates(self, templates: list[str], candidates: list[str], *, slot: str,
                         reduce: str) -> list[np.ndarray]:
        modes = [self.attached(t, slot) for t in templates]
        if len(set(modes)) > 1:  # rank each tokenisation mode on its own
            merged: list[np.ndarray] = [np.empty(0)] * len(templates)
            for mode in set(modes):
                idx = [i for i, m in enumerate(modes) if m == mode]
                for i, r in zip(idx, self._rank_candidates([templates[i] for i in idx], candidates, slot=slot,
                                                           reduce=reduce)):
                    merged[i] = r
            return merged
        ids = self.candidate_ids(candidates, attached=bool(modes) and modes[0])
        lengths = np.array([len(t) for t in ids])
        usable = (lengths >= 1) & (lengths <= self.max_masks)
        depth = int(lengths[usable].max()) if usable.any() else 0
        queries = []
        for template in templates:
            prefix, suffix = split_template(template, slot)
            queries.extend(prefix + mask_span(self.tokenizer.mask_token, d, concatenated=self.concatenated_masks)
                           + suffix for d in range(1, depth + 1))
        logprobs = self._mask_logprobs(queries)
        by_length = {d: np.flatnonzero(usable & (lengths == d)) for d in range(1, depth + 1)}
        device = logprobs[0].device if logprobs else self.device
        tokens = {d: torch.tensor([ids[i] for i in members], device=device)  # (n, d), built once per call
                  for d, members in by_length.items() if members.size}
        results = []
        for t in range(len(templates)):
            scores = np.full(len(candidates), -np.inf, dtype=np.float32)
            for d, members in by_length.items():
                if members.size == 0:
                    continue
                lp = logprobs[t * depth + d - 1]  # (d, vocab)
                if lp.shape[0] != d:
                    raise RuntimeError(f"query for {d} masks kept {lp.shape[0]} after truncation: template too long")
                picked = lp[torch.arange(d, device=lp.device)[None, :], tokens[d]]  # (n, d)
                pooled = picked.mean(-1) if reduce == "mean" else picked.sum(-1)
                scores[members] = pooled.cpu().numpy()
            results.append(scores)
        return results

    @torch.inference_mode()
    def _loglikelihood(self, requests: list[tuple[str, str]]) -> list[LogLikelihood]:
        """Pseudo-log-likelihood of the continuation: each of its tokens masked in turn. A context
        longer than the model's positions keeps its end (as the causal backend does)."""
        out = []
        specials = self.tokenizer("", add_special_tokens=True)["input_ids"]  # e.g. [CLS] [SEP]
        positions_max = getattr(self.model.config, "max_position_embeddings", None) or 512
        for context, continuation in requests:
            ctx = self.tokenizer(context, add_special_tokens=False)["input_ids"]
            cont = self.tokenizer(continuation, add_special_tokens=False)["input_ids"]
            room = max(0, positions_max - len(specials) - len(cont))
            ctx = ctx[len(ctx) - room:] if len(ctx) > room else ctx
            base = specials[:1] + ctx + cont + specials[1:]
            rows = torch.tensor([base] * len(cont), device=self.device)
            positions = torch.arange(len(cont), device=self.device) + len(specials[:1]) + len(ctx)
            rows[torch.arange(len(cont)), positions] = self.tokenizer.mask_token_id
            lp = torch.log_softmax(self.model(input_ids=rows).logits.float(), dim=-1)
            picked = lp[torch.arange(len(cont)), positions]
            target = torch.tensor(cont, device=self.device)
            total = picked.gather(-1, target[:, None]).sum().item()
            greedy = bool((picked.argmax(-1) == target).all())
            out.append(LogLikelihood(total, len(cont), greedy))
        return out

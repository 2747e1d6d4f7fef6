"""Encoder–decoder LMs (T5, mT5): span filling with sentinel tokens, as FMLAMA probes T5/mT5.

A cloze template's answer slot becomes the first sentinel (``<extra_id_0>``) in the encoder
input; each candidate is scored as the decoder target ``<extra_id_0> candidate <extra_id_1>``
by the log-probabilities of the candidate's own tokens (the sentinels are not counted).
``reduce="mean"`` is FMLAMA's score (mean token log-likelihood, i.e. minus the mean NLL).

>>> span_target("rice")
'<extra_id_0> rice <extra_id_1>'
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch

from culturelab.models.base import LanguageModel, LogLikelihood, split_template
from culturelab.models.device import default_dtype, resolve_device
from culturelab.models.identity import local_fingerprint

#: The first two T5 sentinels: the masked span and the end of that span.
SENTINELS = ("<extra_id_0>", "<extra_id_1>")


def span_target(candidate: str) -> str:
    """The decoder target that fills the first sentinel with ``candidate``.

    >>> span_target("soy sauce")
    '<extra_id_0> soy sauce <extra_id_1>'
    """
    return f"{SENTINELS[0]} {candidate} {SENTINELS[1]}"


class Seq2SeqLM(LanguageModel):
    """A 🤗 encoder–decoder LM (``AutoModelForSeq2SeqLM``) for scoring, span filling and generation."""

    backend = "seq2seq"

    def __init__(self, model: str, *, revision: str | None = None, device: str = "auto", batch_size: int = 64,
                 model_id: str | None = None, **kwargs: Any):
        from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

        self.device = resolve_device(device)
        local = Path(model).expanduser()
        if local.is_dir():
            revision = revision or local_fingerprint(local)
            model = str(local.resolve())
        self.tokenizer = AutoTokenizer.from_pretrained(model, revision=revision)
        dtype = torch.float32 if default_dtype(self.device) == torch.bfloat16 else default_dtype(self.device)
        self.model = AutoModelForSeq2SeqLM.from_pretrained(model, revision=revision,
                                                           dtype=dtype).to(self.device).eval()
        missing = [s for s in SENTINELS if self.tokenizer.convert_tokens_to_ids(s) in
                   (None, self.tokenizer.unk_token_id)]
        if missing:
            raise ValueError(f"{model}: tokenizer has no sentinel token(s) {missing}: not a T5-style model")
        self.sentinel_ids = [self.tokenizer.convert_tokens_to_ids(s) for s in SENTINELS]
        super().__init__(model_id or model, revision or getattr(self.model.config, "_commit_hash", None) or "unknown",
                         **kwargs)
        self.batch_size = batch_size

    @torch.inference_mode()
    def _token_logprobs(self, sources: list[str], targets: list[list[int]]) -> list[torch.Tensor]:
        """Log-probability (row 0) and greedy match (row 1) of every target token given its source, in batches
        of ``batch_size``; requests sharing a source (a template's candidates) share one encoder pass."""
        out: list[torch.Tensor] = []
        for start in range(0, len(sources), self.batch_size):
            src = sources[start : start + self.batch_size]
            tgt = targets[start : start + self.batch_size]
            unique = list(dict.fromkeys(src))  # each distinct source goes through the encoder once
            enc = self.tokenizer(unique, return_tensors="pt", padding=True, truncation=True).to(self.device)
            index = torch.tensor([unique.index(s) for s in src], device=self.device)
            hidden = self.model.get_encoder()(**enc).last_hidden_state[index]
            width = max(len(t) for t in tgt)
            labels = torch.full((len(tgt), width), -100, dtype=torch.long)
            for row, ids in enumerate(tgt):
                labels[row, : len(ids)] = torch.tensor(ids, dtype=torch.long)
            labels = labels.to(self.device)
            logits = self.model(encoder_outputs=(hidden,), attention_mask=enc["attention_mask"][index],
                                labels=labels).logits.float()
            lp = torch.log_softmax(logits, dim=-1)
            picked = lp.gather(-1, labels.clamp(min=0)[..., None])[..., 0]
            greedy = lp.argmax(-1) == labels
            for row, ids in enumerate(tgt):
                out.append(torch.stack([picked[row, : len(ids)], greedy[row, : len(ids)].float()]).cpu())
        return out

    def _loglikelihood(self, requests: list[tuple[str, str]]) -> list[LogLikelihood]:
        """Log P(continuation | context): the context is the encoder input, the continuation the decoder target."""
        targets = [list(ids) for ids in self.tokenizer([c for _, c in requests], add_special_tokens=False)["input_ids"]]
        rows = self._token_logprobs([c for c, _ in requests], targets) if requests else []
        return [LogLikelihood(float(r[0].sum()), int(r.shape[1]), bool(r[1].all())) for r in rows]

    def _rank_candidates(self, templates: list[str], candidates: list[str], *, slot: str,
                         reduce: str) -> list[np.ndarray]:
        targets = [list(ids) for ids in
                   self.tokenizer([span_target(c) for c in candidates], add_special_tokens=False)["input_ids"]]
        spans = []  # positions of each candidate's own tokens, between the two sentinels
        for cand, ids in zip(candidates, targets):
            if self.sentinel_ids[0] not in ids or self.sentinel_ids[1] not in ids:
                raise ValueError(f"candidate {cand!r} was not tokenised with both sentinels: {ids}")
            spans.append((ids.index(self.sentinel_ids[0]) + 1, ids.index(self.sentinel_ids[1])))
        sources = []
        for template in templates:
            prefix, suffix = split_template(template, slot)
            sources.extend([prefix + SENTINELS[0] + suffix] * len(candidates))
        rows = self._token_logprobs(sources, targets * len(templates)) if candidates else []
        results = []
        for t in range(len(templates)):
            scores = np.full(len(candidates), -np.inf, dtype=np.float32)
            for i, (lo, hi) in enumerate(spans):
                if hi > lo:
                    lp = rows[t * len(candidates) + i][0, lo:hi]
                    scores[i] = float(lp.mean() if reduce == "mean" else lp.sum())
            results.append(scores)
        return results

    @torch.inference_mode()
    def _generate(self, prompts: list[str], **params: Any) -> list[str]:
        """``model.generate`` on each prompt (T5 has no chat template: ``chat``/``system`` are ignored)."""
        texts: list[str] = []
        sample = params["temperature"] > 0
        if sample:
            torch.manual_seed(params["seed"])
        for start in range(0, len(prompts), self.batch_size):
            enc = self.tokenizer(prompts[start : start + self.batch_size], return_tensors="pt", padding=True,
                                 truncation=True).to(self.device)
            extra = {"temperature": params["temperature"], "top_p": params["top_p"]} if sample else {}
            ids = self.model.generate(**enc, max_new_tokens=params["max_new_tokens"], do_sample=sample, **extra)
            texts.extend(self.tokenizer.batch_decode(ids, skip_special_tokens=True))
        return [t.strip() for t in texts]

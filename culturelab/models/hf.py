"""Causal language models through 🤗 transformers (hub ids, local folders, bundled models).

Generation can be constrained to the orderings of a set of labels
(:class:`~culturelab.models.base.PermutationConstraint`): the answer is written label by label, each
label scored by its probability summed over every tokenisation the tokenizer writes it with at that
position (:mod:`culturelab.models.permutations`), so every answer is a valid permutation.

Log-likelihood scoring encodes each distinct context **once** together with all of its
continuations (MCQ options, cloze candidates): one forward pass over the row
``[context, option 1, option 2, …]`` with a block attention mask (each option sees the context and
itself, its position ids continue the context's; Gemma-3 gets one mask per layer type for its
sliding-window layers). Models that take no custom mask (flash attention, Mistral-style windows)
fall back to scoring the options on top of the context's key/value cache. Either way each option
gets the number a separate forward pass of context + option would give (lm-eval's), without
re-encoding the context per option.

>>> from culturelab.models.hf import move_trailing_space
>>> move_trailing_space("Answer: ", "B")
('Answer:', ' B')
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from culturelab.models.base import LanguageModel, LogLikelihood, PermutationConstraint
from culturelab.models.device import default_dtype, resolve_device
from culturelab.models.identity import local_fingerprint
from culturelab.models.kvcache import copy_cache
from culturelab.models.permutations import (
    ANCHOR_CHARS,
    PermutationTokens,
    decode_permutations,
    permutation_tokens,
)

#: mean context length (tokens) from which ``packed_scoring="auto"`` packs options into one row
PACKED_MIN_CONTEXT = 128
#: shortest prefix shared by a batch's contexts that the cached scorer encodes once for the batch
PREFIX_MIN_TOKENS = 8
#: model types whose decoder takes one attention mask per layer type (full / sliding window)
_MASK_MAPPING_MODELS = frozenset({"gemma3_text"})


def move_trailing_space(context: str, continuation: str) -> tuple[str, str]:
    """Move the context's trailing white space onto the continuation (lm-eval's convention).

    >>> move_trailing_space("The capital is  ", "Paris")
    ('The capital is', '  Paris')
    """
    stripped = context.rstrip()
    return stripped, context[len(stripped):] + continuation


try:  # cache layers that update their state tensors in place (hybrid linear-attention models)
    from transformers.cache_utils import LinearAttentionCacheLayerMixin as _IN_PLACE_LAYERS
except ImportError:  # pragma: no cover - older transformers have no such layers
    _IN_PLACE_LAYERS = ()


class HFCausalLM(LanguageModel):
    """A causal LM on ``device`` (``auto``: CUDA + bf16 when present, CPU float32 otherwise)."""

    backend = "hf"

    def __init__(self, model: str, *, revision: str | None = None, device: str = "auto",
                 dtype: torch.dtype | str | None = None, batch_size: int = 16, max_length: int | None = None,
                 token_budget: int = 16384, trust_remote_code: bool = False, model_id: str | None = None,
                 **kwargs: Any):
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.device = resolve_device(device)
        if isinstance(dtype, str):
            dtype = getattr(torch, dtype)
        self.dtype = dtype or default_dtype(self.device)
        local = Path(model).expanduser()
        if local.is_dir():
            revision = revision or local_fingerprint(local)
            model = str(local.resolve())
        self.tokenizer = AutoTokenizer.from_pretrained(model, revision=revision, trust_remote_code=trust_remote_code)
        self.model = AutoModelForCausalLM.from_pretrained(
            model, revision=revision, dtype=self.dtype, trust_remote_code=trust_remote_code
        ).to(self.device).eval()
        if revision is None:
            revision = getattr(self.model.config, "_commit_hash", None) or "unknown"
        # results are committed to the response cache chunk by chunk: large chunks keep a GPU busy
        kwargs.setdefault("chunk_size", 2048 if self.device.startswith("cuda") else 128)
        super().__init__(model_id or model, revision, **kwargs)
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.batch_size = batch_size
        self.token_budget = token_budget
        #: score [context, option 1, option 2, …] rows in one pass (``_loglikelihood_packed``): True,
        #: False, or "auto" — packed when the contexts average at least ``PACKED_MIN_CONTEXT`` tokens
        #: (measured on CPU: 2x faster on ~290-token contexts, 2x slower on ~50-token ones)
        self.packed_scoring: bool | str = "auto"
        #: encode a prefix shared by a batch's contexts once (the cached path; see _context_pass)
        self.share_prefix = True
        self._last_prefix: tuple[tuple[int, ...], Any] | None = None  # (token ids, keys/values): _prefix_cache
        self.max_length = max_length or min(getattr(self.model.config, "max_position_embeddings", 4096) or 4096,
                                            8192)
        self.has_chat_template = bool(getattr(self.tokenizer, "chat_template", None))

    def describe(self) -> dict[str, Any]:
        n_params = sum(p.numel() for p in self.model.parameters())
        return {**self.identity(), "device": self.device, "dtype": str(self.dtype).replace("torch.", ""),
                "n_params": n_params, "chat_template": self.has_chat_template}

    # ------------------------------------------------------------------ prompts
    def format_prompt(self, prompt: str, *, chat: bool = True, system: str | None = None) -> str:
        """The exact text the model sees: the chat template applied when asked for and available."""
        if not (chat and self.has_chat_template):
            return prompt
        messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": prompt}]
        return self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)

    def _encode(self, text: str, *, special: bool = True) -> list[int]:
        return self.tokenizer(text, add_special_tokens=special)["input_ids"]

    # ------------------------------------------------------------------ generation
    def _prompt_batches(self, texts: list[str], *, chat: bool,
                        new_tokens: int) -> tuple[list[list[int]], list[tuple[int, list[int]]]]:
        """The token ids of prompts as the model sees them (:meth:`format_prompt`; cut to leave
        ``new_tokens`` free) and the batches to run them in: ``(offset, indices)``, prompts of similar
        length together."""
        special = not (chat and self.has_chat_template)  # a chat template already contains the BOS token
        encoded = [self._encode(t, special=special)[-(self.max_length - new_tokens):] for t in texts]
        order = sorted(range(len(encoded)), key=lambda i: -len(encoded[i]))
        return encoded, [(start, order[start : start + self.batch_size]) for start in range(0, len(order), self.batch_size)]

    @torch.inference_mode()
    def _generate(self, prompts: list[str], *, max_new_tokens: int, temperature: float, top_p: float,
                  stop: list[str], chat: bool, system: str | None, seed: int | None) -> list[str]:
        """Generate in left-padded batches of similar length (``stop`` strings end a row early)."""
        encoded, batches = self._prompt_batches([self.format_prompt(p, chat=chat, system=system) for p in prompts],
                                                chat=chat, new_tokens=max_new_tokens)
        out: list[str] = [""] * len(encoded)
        pad = self.tokenizer.pad_token_id
        gen_kwargs: dict[str, Any] = {"pad_token_id": pad, "do_sample": temperature > 0, "max_new_tokens": max_new_tokens}
        if stop:
            gen_kwargs.update(stop_strings=list(stop), tokenizer=self.tokenizer)
        if temperature > 0:
            gen_kwargs.update(temperature=temperature, top_p=top_p)
        else:
            gen_kwargs.update(temperature=None, top_p=None, top_k=None)
        for start, idx in batches:
            width = max(len(encoded[i]) for i in idx)
            ids = torch.full((len(idx), width), pad, dtype=torch.long)
            mask = torch.zeros((len(idx), width), dtype=torch.long)
            for row, i in enumerate(idx):  # left padding: every prompt ends at the same column
                ids[row, width - len(encoded[i]):] = torch.tensor(encoded[i])
                mask[row, width - len(encoded[i]):] = 1
            if seed is not None:
                torch.manual_seed(seed + start)
            result = self.model.generate(input_ids=ids.to(self.device), attention_mask=mask.to(self.device),
                                         **gen_kwargs)
            for row, i in enumerate(idx):
                out[i] = self.tokenizer.decode(result[row, width:], skip_special_tokens=True)
        return out

    @torch.inference_mode()
    def _generate_constrained(self, prompts: list[str], constraints: list[PermutationConstraint], *,
                              temperature: float, top_p: float, chat: bool, system: str | None,
                              seed: int | None) -> list[str]:
        """Each row writes an ordering of its constraint's labels, label by label
        (:func:`culturelab.models.permutations.decode_permutations`), in batches of similar length."""
        texts = [self.format_prompt(p, chat=chat, system=system) for p in prompts]
        tables = [self._permutation_tokens(c, text) for c, text in zip(constraints, texts)]
        encoded, batches = self._prompt_batches(texts, chat=chat, new_tokens=max(t.max_tokens for t in tables))
        out: list[str] = [""] * len(encoded)
        for start, idx in batches:
            generator = torch.Generator().manual_seed(seed + start) if seed is not None else None
            labels = decode_permutations(self, [encoded[i] for i in idx], [tables[i] for i in idx],
                                         temperature=temperature, top_p=top_p, generator=generator)
            for i, written in zip(idx, labels):
                out[i] = constraints[i].sep.join(constraints[i].labels[k] for k in written)
        return out

    def _permutation_tokens(self, constraint: PermutationConstraint, context: str) -> PermutationTokens:
        """:func:`~culturelab.models.permutations.permutation_tokens` with this model's tokenizer, after
        the end of ``context`` (the prompt as the model sees it), kept per constraint and prompt end."""
        tables = self.__dict__.setdefault("_permutation_tables", {})
        key = (constraint, context[-ANCHOR_CHARS:])
        if key not in tables:
            tables[key] = permutation_tokens(self.tokenizer, constraint, key[1])
        return tables[key]

    # ------------------------------------------------------------------ scoring
    def _encode_pairs(self, requests: list[tuple[str, str]]) -> list[tuple[tuple[int, ...], list[int]]]:
        """Token ids of (context, continuation) pairs, lm-eval style: the continuation is what the
        whole text has beyond the context's tokens. All texts go to the tokenizer in two batched
        calls (each distinct context once)."""
        pairs = [move_trailing_space(c, x) for c, x in requests]
        contexts = list(dict.fromkeys(c for c, _ in pairs if c))
        ctx_ids = dict(zip(contexts, self.tokenizer(contexts, add_special_tokens=True)["input_ids"])) if contexts else {}
        with_ctx = [c + x for c, x in pairs if c]
        wholes = iter(self.tokenizer(with_ctx, add_special_tokens=True)["input_ids"] if with_ctx else [])
        start = self.tokenizer.bos_token_id
        start = start if start is not None else self.tokenizer.eos_token_id
        out = []
        for context, continuation in pairs:
            if context:
                ctx = ctx_ids[context]
                cont = next(wholes)[len(ctx):]
            else:  # nothing to condition on: start from BOS (or EOS for models without one)
                ctx, cont = [start], self._encode(continuation, special=False)
            if not cont:
                raise ValueError(f"continuation {continuation!r} encodes to no tokens after context {context[-40:]!r}")
            out.append((tuple(ctx[-(self.max_length - len(cont)):]), cont))
        return out

    def _packing_mask_kind(self) -> str | None:
        """How the packed scorer hands its block mask to this model: ``"tensor"`` (one 4D mask for all
        layers), ``"mapping"`` (one per layer type: Gemma-3's full and sliding-window layers), or
        ``None`` when the model cannot take a custom mask (flash attention, unknown layer types)."""
        config = self.model.config.get_text_config()
        if getattr(config, "_attn_implementation", None) not in {"sdpa", "eager"}:
            return None
        layer_types = set(getattr(config, "layer_types", None) or [])
        if not layer_types:
            # a sliding window without per-layer types (Mistral-style) applies to every layer
            return "tensor" if getattr(config, "sliding_window", None) is None else None
        if layer_types == {"full_attention"}:
            return "tensor"
        if layer_types <= {"full_attention", "sliding_attention"} and config.model_type in _MASK_MAPPING_MODELS:
            return "mapping"
        return None

    @torch.inference_mode()
    def _loglikelihood(self, requests: list[tuple[str, str]]) -> list[LogLikelihood]:
        encoded = self._encode_pairs(requests)
        groups: dict[tuple[int, ...], list[int]] = {}
        for i, (ctx, _) in enumerate(encoded):
            groups.setdefault(ctx, []).append(i)
        packed = self.packed_scoring
        if packed == "auto":
            packed = sum(len(ctx) for ctx in groups) >= PACKED_MIN_CONTEXT * len(groups)
        kind = self._packing_mask_kind() if packed else None
        if kind is not None:
            return self._loglikelihood_packed(encoded, groups, kind)
        return self._loglikelihood_cached(encoded, groups)

    def _loglikelihood_packed(self, encoded: list[tuple[tuple[int, ...], list[int]]],
                              groups: dict[tuple[int, ...], list[int]], kind: str) -> list[LogLikelihood]:
        """One forward pass per row ``[context, option 1, option 2, …]``: a block mask lets each option
        see the context and itself only, and its position ids continue the context's, so every option
        is scored exactly as if it followed the context alone (lm-eval's number) — without a second
        pass or a copy of the context's keys/values per option."""
        rows = []  # (context, request ids) — a context with many long options is split over rows
        for ctx, idx in groups.items():
            limit = max(2 * len(ctx), len(ctx) + 512)
            row: list[int] = []
            length = len(ctx)
            for i in sorted(idx, key=lambda i: len(encoded[i][1])):
                extra = len(encoded[i][1]) - 1
                if row and extra and length + extra > limit:
                    rows.append((ctx, row))
                    row, length = [], len(ctx)
                row.append(i)
                length += extra
            rows.append((ctx, row))
        tails = [sum(len(encoded[i][1]) - 1 for i in idx) for _, idx in rows]
        order = sorted(range(len(rows)), key=lambda r: (len(rows[r][0]) + tails[r], tails[r]), reverse=True)
        vocab = self.model.config.get_text_config().vocab_size
        logit_budget = max(1, int(2**29 // (vocab * 4)))  # ≈512 MiB of float32 logits per pass
        results: list[LogLikelihood | None] = [None] * len(encoded)
        start = 0
        while start < len(order):
            width, tail, n = 0, 0, 0
            for r in order[start : start + self.batch_size]:
                w, t = max(width, len(rows[r][0]) + tails[r]), max(tail, tails[r] + 1)
                if n and ((n + 1) * w > self.token_budget or (n + 1) * t > logit_budget):
                    break
                width, tail, n = w, t, n + 1
            batch = [rows[r] for r in order[start : start + n]]
            start += n
            self._score_packed(batch, encoded, width, tail, results, kind)
        return results  # type: ignore[return-value]

    def _score_packed(self, batch: list[tuple[tuple[int, ...], list[int]]], encoded: list, width: int, tail: int,
                      results: list, kind: str) -> None:
        """Score the rows of one batch, left-padded to ``width``; logits only for the last ``tail`` columns."""
        n_rows = len(batch)
        ids = torch.full((n_rows, width), self.tokenizer.pad_token_id, dtype=torch.long)
        positions = torch.zeros((n_rows, width), dtype=torch.long)
        allowed = torch.eye(width, dtype=torch.bool).repeat(n_rows, 1, 1)  # padding sees itself only
        causal = torch.ones((width, width), dtype=torch.bool).tril()
        pick_row, pick_col, target, owner = [], [], [], []
        for r, (ctx, idx) in enumerate(batch):
            n_ctx = len(ctx)
            col = width - n_ctx - sum(len(encoded[i][1]) - 1 for i in idx)
            ctx_cols = slice(col, col + n_ctx)
            ids[r, ctx_cols] = torch.tensor(ctx)
            positions[r, ctx_cols] = torch.arange(n_ctx)
            allowed[r, ctx_cols, ctx_cols] = causal[:n_ctx, :n_ctx]
            last = col + n_ctx - 1 - (width - tail)  # the context's last column among the kept logits
            col += n_ctx
            for i in idx:
                cont = encoded[i][1]
                m = len(cont) - 1  # the last token is never an input
                seg = slice(col, col + m)
                ids[r, seg] = torch.tensor(cont[:-1], dtype=torch.long)
                positions[r, seg] = torch.arange(n_ctx, n_ctx + m)
                allowed[r, seg, ctx_cols] = True
                allowed[r, seg, seg] = causal[:m, :m]
                kept = list(range(col - (width - tail), col - (width - tail) + m))
                pick_row.extend([r] * (m + 1))
                pick_col.extend([last, *kept])
                target.extend(cont)
                owner.extend([i] * (m + 1))
                col += m
        config = self.model.config.get_text_config()
        mask: Any = self._additive(allowed)
        if kind == "mapping":
            window = positions[:, :, None] - positions[:, None, :] < config.sliding_window
            mask = {"full_attention": mask, "sliding_attention": self._additive(allowed & window)}
        logits = self.model(input_ids=ids.to(self.device), attention_mask=mask, position_ids=positions.to(self.device),
                            use_cache=False, logits_to_keep=tail).logits
        picked = logits[torch.tensor(pick_row, device=self.device), torch.tensor(pick_col, device=self.device)].float()
        target_t = torch.tensor(target, device=self.device)
        token_lp = (picked.gather(-1, target_t[:, None])[:, 0] - torch.logsumexp(picked, dim=-1)).double()
        misses = (picked.argmax(-1) != target_t).long()
        requests = sorted(set(owner))
        slot = {i: k for k, i in enumerate(requests)}
        owner_t = torch.tensor([slot[i] for i in owner], device=self.device)
        sums = torch.zeros(len(requests), dtype=torch.float64, device=self.device).index_add_(0, owner_t, token_lp)
        missed = torch.zeros(len(requests), dtype=torch.long, device=self.device).index_add_(0, owner_t, misses)
        for i, lp, miss in zip(requests, sums.tolist(), missed.tolist()):
            results[i] = LogLikelihood(lp, len(encoded[i][1]), miss == 0)

    def _additive(self, allowed: torch.Tensor) -> torch.Tensor:
        """A boolean ``(rows, q, k)`` mask as the additive ``(rows, 1, q, k)`` float mask attention layers add."""
        blocked = torch.finfo(self.dtype).min
        mask = torch.zeros(allowed.shape, dtype=self.dtype).masked_fill_(~allowed, blocked)
        return mask[:, None].to(self.device)

    def _loglikelihood_cached(self, encoded: list[tuple[tuple[int, ...], list[int]]],
                              groups: dict[tuple[int, ...], list[int]]) -> list[LogLikelihood]:
        """Fallback for models that take no custom mask: each context encoded once, its continuations
        scored on top of its key/value cache (expanded per continuation)."""
        contexts = sorted(groups, key=len, reverse=True)
        results: list[LogLikelihood | None] = [None] * len(encoded)
        vocab = self.model.config.get_text_config().vocab_size
        start = 0
        while start < len(contexts):
            # as many contexts as fit the token budget (they are sorted longest first)
            n_ctx = max(1, min(self.batch_size, self.token_budget // max(len(contexts[start]), 1)))
            batch = contexts[start : start + n_ctx]
            start += len(batch)
            first_lp, ctx_cache, mask = self._context_pass(batch)
            rows = [(g, i) for g, ctx in enumerate(batch) for i in groups[ctx]]
            # the first continuation token of every row is scored by the context pass (one transfer)
            g_idx = torch.tensor([g for g, _ in rows], device=self.device)
            first_tok = torch.tensor([encoded[i][1][0] for _, i in rows], device=self.device)
            lp0 = first_lp[g_idx, first_tok].tolist()
            greedy0 = (first_lp.argmax(-1)[g_idx] == first_tok).tolist()
            multi = []
            for (g, i), lp, greedy in zip(rows, lp0, greedy0):
                if len(encoded[i][1]) == 1:  # single-token answers (" A", " B", …) are done
                    results[i] = LogLikelihood(lp, 1, bool(greedy))
                else:
                    multi.append((g, i, lp, bool(greedy)))
            # the rest: continuation tokens on top of the cached context, rows bounded by memory;
            # rows of similar length share a pass, so little compute goes to padding
            multi.sort(key=lambda m: len(encoded[m[1]][1]))
            cont_budget = max(1, int(2**29 // (vocab * 4)))  # ≈512 MiB of float32 logits per pass
            pos = 0
            while pos < len(multi):
                longest = max(len(encoded[m[1]][1]) for m in multi[pos : pos + self.batch_size * 4])
                n_rows = max(1, min(self.batch_size * 4, cont_budget // max(longest - 1, 1)))
                chunk = multi[pos : pos + n_rows]
                pos += len(chunk)
                self._score_continuations(chunk, encoded, ctx_cache, mask, results)
        return results  # type: ignore[return-value]

    def _shared_prefix(self, batch: list[tuple[int, ...]]) -> int:
        """Tokens that every context of ``batch`` starts with (the task instruction, as a rule), when
        worth a pass of their own (≥ ``PREFIX_MIN_TOKENS``), leaving each context at least one token.
        0 where a sliding window could be crossed: the padding between the shared prefix and a short
        context's rest would count as distance in the window.

        >>> lm = HFCausalLM.__new__(HFCausalLM); lm.share_prefix = True
        >>> lm.model = type("M", (), {"config": type("C", (), {"get_text_config": lambda self: self})()})()
        >>> lm._shared_prefix([(*range(20), 1), (*range(20), 2, 3)])
        20
        >>> lm._shared_prefix([tuple(range(5)), tuple(range(20))])  # shorter than PREFIX_MIN_TOKENS
        0
        """
        if not self.share_prefix or len(batch) < 2:
            return 0
        window = getattr(self.model.config.get_text_config(), "sliding_window", None)
        if window is not None and max(len(ctx) for ctx in batch) >= window:
            return 0
        first, n = batch[0], min(len(ctx) for ctx in batch) - 1
        for ctx in batch[1:]:
            k = 0
            while k < n and ctx[k] == first[k]:
                k += 1
            n = k
        return n if n >= PREFIX_MIN_TOKENS else 0

    def _prefix_cache(self, prefix: tuple[int, ...], repeats: int) -> Any:
        """The keys/values of ``prefix`` repeated over a batch of ``repeats`` rows. The last prefix's
        are kept, so consecutive batches that share it (a task's instruction) encode it once."""
        if self._last_prefix is not None and self._last_prefix[0] == prefix:
            cache = copy_cache(self._last_prefix[1])
        else:
            cache = self.model(input_ids=torch.tensor([prefix], device=self.device), use_cache=True,
                               logits_to_keep=1).past_key_values
            # linear-attention layers update their states in place: such a cache is used once, never kept
            kept = not any(isinstance(layer, _IN_PLACE_LAYERS) for layer in getattr(cache, "layers", []))
            self._last_prefix = (prefix, cache) if kept else None
            cache = copy_cache(cache) if kept else cache
        cache.batch_repeat_interleave(repeats)
        return cache

    def _context_pass(self, batch: list[tuple[int, ...]]) -> tuple[torch.Tensor, Any, torch.Tensor]:
        """Encode a batch of contexts: the log-probabilities after each context, its key/value cache and
        the attention mask over that cache. A prefix shared by every context is encoded once and
        its keys/values are repeated over the batch; the rests follow it, left-padded against it."""
        pad = self.tokenizer.pad_token_id
        prefix = self._shared_prefix(batch)
        cache = self._prefix_cache(batch[0][:prefix], len(batch)) if prefix else None
        width = max(len(ctx) for ctx in batch) - prefix
        ids = torch.full((len(batch), width), pad, dtype=torch.long)
        rest = torch.zeros((len(batch), width), dtype=torch.long)
        for row, ctx in enumerate(batch):
            ids[row, width - len(ctx) + prefix:] = torch.tensor(ctx[prefix:])
            rest[row, width - len(ctx) + prefix:] = 1
        ids, rest = ids.to(self.device), rest.to(self.device)
        mask = torch.cat([torch.ones((len(batch), prefix), dtype=torch.long, device=self.device), rest], dim=1)
        positions = prefix + (rest.cumsum(-1) - 1).clamp(min=0)
        out = self.model(input_ids=ids, attention_mask=mask, position_ids=positions, past_key_values=cache,
                         use_cache=True, logits_to_keep=1)
        return torch.log_softmax(out.logits[:, -1, :].float(), dim=-1), out.past_key_values, mask

    def _score_continuations(self, chunk: list[tuple[int, int, float, bool]], encoded: list, ctx_cache: Any,
                             ctx_mask: torch.Tensor, results: list) -> None:
        """Score tokens 2..n of each row's continuation from the shared context cache, vectorised."""
        pad = self.tokenizer.pad_token_id
        conts = [encoded[i][1] for _, i, _, _ in chunk]
        width = max(len(c) for c in conts) - 1  # the last token is never an input
        ids = torch.full((len(chunk), width), pad, dtype=torch.long)
        targets = torch.zeros((len(chunk), width), dtype=torch.long)
        cmask = torch.zeros((len(chunk), width), dtype=torch.long)
        for row, c in enumerate(conts):
            ids[row, : len(c) - 1] = torch.tensor(c[:-1])
            targets[row, : len(c) - 1] = torch.tensor(c[1:])
            cmask[row, : len(c) - 1] = 1
        ids, targets, cmask = ids.to(self.device), targets.to(self.device), cmask.to(self.device)
        g_idx = torch.tensor([g for g, _, _, _ in chunk], device=self.device)
        cache = copy_cache(ctx_cache)
        cache.reorder_cache(g_idx)
        row_ctx_mask = ctx_mask.index_select(0, g_idx)
        attn = torch.cat([row_ctx_mask, cmask], dim=1)
        positions = row_ctx_mask.sum(-1, keepdim=True) + torch.arange(width, device=self.device)[None, :]
        # padded slots of a row whose context was cut to max_length may run past the last position
        positions = positions.clamp(max=self.max_length - 1)
        logits = self.model(input_ids=ids, attention_mask=attn, position_ids=positions, past_key_values=cache,
                            use_cache=True).logits.float()
        # logits[:, j] predicts continuation token j + 1
        token_lp = logits.gather(-1, targets[..., None])[..., 0] - torch.logsumexp(logits, dim=-1)
        valid = cmask.bool()
        sums = (token_lp * valid).sum(-1).tolist()
        greedy = ((logits.argmax(-1) == targets) | ~valid).all(-1).tolist()
        for (_, i, lp0, greedy0), c, rest, g in zip(chunk, conts, sums, greedy):
            results[i] = LogLikelihood(lp0 + rest, len(c), greedy0 and bool(g))

    def naive_loglikelihood(self, requests: list[tuple[str, str]]) -> list[LogLikelihood]:
        """Reference implementation: one full forward pass per request (for tests and benchmarks)."""
        out = []
        with torch.inference_mode():
            for ctx, cont in self._encode_pairs(requests):
                ids = torch.tensor([list(ctx) + cont], device=self.device)
                lp = torch.log_softmax(self.model(input_ids=ids).logits[0, :-1].float(), dim=-1)
                tgt = ids[0, 1:]
                tok_lp = lp[torch.arange(len(tgt)), tgt][len(ctx) - 1:]
                greedy = bool((lp.argmax(-1)[len(ctx) - 1:] == tgt[len(ctx) - 1:]).all())
                out.append(LogLikelihood(tok_lp.sum().item(), len(cont), greedy))
        return out


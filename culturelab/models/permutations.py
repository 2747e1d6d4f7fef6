"""Decoding constrained to the orderings of a set of labels, one label at a time.

An answer to a :class:`~culturelab.models.base.PermutationConstraint` ("C, A, B") is written label
by label. At each position every label not yet written is scored by its probability **summed over
every tokenisation the tokenizer writes it with at that position** (:class:`PermutationTokens`): the
first label bare, after a space, after one or two line breaks (with or without a space), as the
tokenizer splits the prompt's end followed by it; a later label after the separator, with the same
variants after the separator's visible part (``","``). The best label (greedy) or a sampled one is
taken, and its likeliest tokenisation is appended to what the model conditions on next. The answer
returned is the labels joined by the constraint's separator.

Scoring a label by one forced tokenisation (the bare ``"C"``) measures how likely the model is to
write that spelling, not that label: after ``"Answer:"`` a model puts most of its mass on ``"▁C"`` or a
line break, and the bare tokens' small remainder favours other letters than the natural ones.

>>> t = PermutationTokens(first=(((10,), (20, 10)), ((11,), (20, 11))), later=(((5, 10),), ((5, 11),)))
>>> t.paths([]), t.paths([1]), t.max_tokens
({0: ((10,), (20, 10)), 1: ((11,), (20, 11))}, {0: ((5, 10),)}, 4)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from culturelab.models.base import PermutationConstraint
from culturelab.models.kvcache import copy_cache

#: what may stand before a label at its position: nothing, a space, one or two line breaks (and a space)
LEADS = ("", " ", "\n", "\n ", "\n\n", "\n\n ")
#: characters of the prompt's end after which a first label's tokenisations are taken
ANCHOR_CHARS = 16
#: the most float32 logits one pass keeps (≈512 MiB)
LOGIT_BUDGET = 2**27

TokenPath = tuple[int, ...]


@dataclass(frozen=True)
class PermutationTokens:
    """The token sequences that write each label: ``first[i]`` as the first item, ``later[i]``
    (separator included) after another. No sequence of one label starts a sequence of another at
    the same position, so a written prefix belongs to one label only.

    >>> PermutationTokens(first=(((1,),), ((1, 2),)), later=(((5, 1),), ((5, 2),)))
    Traceback (most recent call last):
    ...
    ValueError: label token sequences must be non-empty and none may start another label's: (((1,),), ((1, 2),))
    """

    first: tuple[tuple[TokenPath, ...], ...]
    later: tuple[tuple[TokenPath, ...], ...]

    def __post_init__(self) -> None:
        if len(self.first) != len(self.later) or not self.first:
            raise ValueError(f"first and later need one entry per label, got {len(self.first)} and {len(self.later)}")
        for position in (self.first, self.later):
            for i, paths in enumerate(position):
                clash = any(o[:len(p)] == p for j, others in enumerate(position) if j != i for p in paths for o in others)
                if not paths or not all(paths) or clash:
                    raise ValueError(f"label token sequences must be non-empty and none may start another label's: "
                                     f"{position}")

    @property
    def n_labels(self) -> int:
        """How many labels an answer writes."""
        return len(self.first)

    @property
    def max_tokens(self) -> int:
        """The longest answer, in tokens."""
        longest = sorted(max(map(len, paths)) for paths in self.later)
        return max(max(map(len, paths)) for paths in self.first) + sum(longest[1:])

    def paths(self, written: Sequence[int]) -> dict[int, tuple[TokenPath, ...]]:
        """The token sequences of each label not in ``written`` at the next position (label → sequences)."""
        position = self.later if written else self.first
        return {i: position[i] for i in range(self.n_labels) if i not in written}


def permutation_tokens(tokenizer: Any, constraint: PermutationConstraint, context: str = "") -> PermutationTokens:
    """Every tokenisation of ``constraint``'s labels that ``tokenizer`` writes at each position: a first
    label as the tokens that ``lead + label`` adds to the end of ``context`` (its last
    :data:`ANCHOR_CHARS` characters; the text's own tokens where the two merge), for each lead of
    :data:`LEADS`; a later one as what the separator and the label (or the separator's visible part, a
    lead and the label) add to another label. A tokenisation that does not decode to the label is left
    out; a label without any is refused.

    >>> from culturelab.models.tiny import build_tiny_gpt2; import tempfile; from pathlib import Path
    >>> from transformers import AutoTokenizer
    >>> tok = AutoTokenizer.from_pretrained(build_tiny_gpt2(["Answer: C, A, B"] * 8, Path(tempfile.mkdtemp())))
    >>> t = permutation_tokens(tok, PermutationConstraint.letters(3), context="Answer:")
    >>> [tok.decode(p) for p in t.first[2]]  # bare, after a space, after line breaks
    ['C', ' C', '\\nC', '\\n C', '\\n\\nC', '\\n\\n C']
    >>> tok.decode([*t.first[2][0], *t.later[0][0], *t.later[1][0]])
    'C, A, B'
    """
    def encode(text: str) -> TokenPath:
        return tuple(tokenizer(text, add_special_tokens=False)["input_ids"])

    def after(prefix: str, text: str) -> TokenPath:
        head, whole = encode(prefix), encode(prefix + text)
        return whole[len(head):] if prefix and len(whole) > len(head) and whole[:len(head)] == head else encode(text)

    def spellings(prefix: str, texts: Sequence[str], target: str) -> tuple[TokenPath, ...]:
        visible = "".join(target.split())
        paths = tuple(p for p in dict.fromkeys(after(prefix, t) for t in texts)
                      if p and "".join(tokenizer.decode(list(p)).split()) == visible)
        if not paths:
            raise ValueError(f"the tokenizer writes {target!r} in no way that decodes to it: labels "
                             f"{list(constraint.labels)} with separator {constraint.sep!r} cannot be constrained")
        return paths

    labels, sep = constraint.labels, constraint.sep
    anchor, core = context[-ANCHOR_CHARS:], sep.rstrip()
    first = tuple(spellings(anchor, [lead + label for lead in LEADS], label) for label in labels)
    later = tuple(spellings(labels[0], [sep + label, *(core + lead + label for lead in LEADS if core)], sep + label)
                  for label in labels)
    return PermutationTokens(first, later)


def choose_label(scores: dict[int, float], *, temperature: float = 0.0, top_p: float = 1.0,
                 generator: torch.Generator | None = None) -> int:
    """The label to write from each remaining label's log-probability: the best (``temperature`` 0;
    ties go to the first), else one sampled at ``temperature`` from the smallest set of labels whose
    probability reaches ``top_p``.

    >>> choose_label({2: -1.0, 0: -0.5}), choose_label({2: -1.0, 0: -0.5}, temperature=1.0, top_p=0.1)
    (0, 0)
    """
    labels = list(scores)
    values = torch.tensor([scores[k] for k in labels], dtype=torch.float64)
    if temperature <= 0:
        return labels[int(torch.argmax(values))]
    probs = torch.softmax(values / temperature, 0)
    order = torch.argsort(probs, descending=True)
    kept = order[(torch.cumsum(probs[order], 0) - probs[order]) < top_p]
    weights = torch.zeros_like(probs)
    weights[kept] = probs[kept]
    return labels[int(torch.multinomial(weights, 1, generator=generator))]


@dataclass
class _Prompts:
    """A left-padded batch of prompts once encoded: its key/value cache, attention mask, and the
    log-probabilities of the token after each prompt."""

    cache: Any
    mask: torch.Tensor
    start: torch.Tensor


def decode_permutations(lm: Any, encoded: Sequence[Sequence[int]], tables: Sequence[PermutationTokens], *,
                        temperature: float = 0.0, top_p: float = 1.0,
                        generator: torch.Generator | None = None) -> list[list[int]]:
    """The labels each prompt's answer writes, in order (:func:`choose_label` on each label's
    probability summed over its tokenisations), for one batch of prompts (token ids) on a
    :class:`~culturelab.models.hf.HFCausalLM` ``lm``. The prompts are encoded once; at each position,
    the written tokens and the tokenisations' inner prefixes are scored on top of their cache, one
    pass per query length (no padding inside a query)."""
    pad = lm.tokenizer.pad_token_id
    width = max(map(len, encoded))
    ids = torch.full((len(encoded), width), pad, dtype=torch.long)
    mask = torch.zeros((len(encoded), width), dtype=torch.long)
    for row, prompt in enumerate(encoded):  # left padding: every prompt ends at the same column
        ids[row, width - len(prompt):] = torch.tensor(list(prompt), dtype=torch.long)
        mask[row, width - len(prompt):] = 1
    ids, mask = ids.to(lm.device), mask.to(lm.device)
    out = lm.model(input_ids=ids, attention_mask=mask, position_ids=(mask.cumsum(-1) - 1).clamp(min=0),
                   use_cache=True, logits_to_keep=1)
    prompts = _Prompts(out.past_key_values, mask, torch.log_softmax(out.logits[:, -1].float(), dim=-1))
    written: list[list[int]] = [[] for _ in encoded]
    tokens: list[TokenPath] = [() for _ in encoded]
    while todo := {r: t.paths(w) for r, (t, w) in enumerate(zip(tables, written)) if len(w) < t.n_labels}:
        logprob = _token_logprobs(lm, prompts, tokens, todo)
        for row, per_label in todo.items():
            path_lp = {k: [sum(logprob[row, tokens[row] + p[:j], p[j]] for j in range(len(p))) for p in paths]
                       for k, paths in per_label.items()}
            label = choose_label({k: float(torch.logsumexp(torch.tensor(v, dtype=torch.float64), 0))
                                  for k, v in path_lp.items()}, temperature=temperature, top_p=top_p,
                                 generator=generator)
            best = max(range(len(per_label[label])), key=path_lp[label].__getitem__)
            tokens[row] += per_label[label][best]
            written[row].append(label)
    return written


def _token_logprobs(lm: Any, prompts: _Prompts, tokens: list[TokenPath],
                    todo: dict[int, dict[int, tuple[TokenPath, ...]]]) -> dict[tuple[int, TokenPath, int], float]:
    """``(row, prefix, token) → log P(token | prompt, prefix)`` for every token a remaining label's
    tokenisation needs, where ``prefix`` is what the row has written plus the tokenisation's start.
    One query per row and longest inner prefix (the shorter ones are read from its earlier positions)."""
    needed: dict[tuple[int, TokenPath], set[int]] = {}
    for row, per_label in todo.items():
        for paths in per_label.values():
            for p in paths:
                for j in range(len(p)):
                    needed.setdefault((row, tokens[row] + p[:j]), set()).add(p[j])
    found: dict[tuple[int, TokenPath, int], float] = {}
    queries: dict[int, list[tuple[int, TokenPath]]] = {}  # query length → (row, query tokens)
    for row, prefix in needed:
        if not any(r == row and len(q) > len(prefix) and q[:len(prefix)] == prefix for r, q in needed):
            queries.setdefault(len(prefix), []).append((row, prefix))
    for row in [r for r, prefix in needed if not prefix]:  # nothing written yet: the prompt's own pass
        first = list(needed[row, ()])
        found.update(((row, (), t), v) for t, v in zip(first, prompts.start[row, first].tolist()))
    vocab = prompts.start.shape[-1]
    for length, group in sorted(queries.items()):
        if not length:
            continue
        # the earliest read: after the written tokens (the prompt's own pass when nothing is written yet)
        keep = length - min(max(len(tokens[r]) - 1, 0) for r, _ in group)
        step = max(1, LOGIT_BUDGET // (vocab * keep))
        for start in range(0, len(group), step):
            chunk = group[start:start + step]
            rows = torch.tensor([r for r, _ in chunk], device=lm.device)
            cache = copy_cache(prompts.cache)
            cache.reorder_cache(rows)
            mask = prompts.mask.index_select(0, rows)
            ids = torch.tensor([q for _, q in chunk], device=lm.device)
            logits = lm.model(input_ids=ids, attention_mask=torch.cat([mask, torch.ones_like(ids)], dim=1),
                              position_ids=mask.sum(-1, keepdim=True) + torch.arange(length, device=lm.device),
                              past_key_values=cache, use_cache=True, logits_to_keep=keep).logits
            logprobs = torch.log_softmax(logits.float(), dim=-1)
            picks = [(g, j, t, (row, query[:j + 1]))
                     for g, (row, query) in enumerate(chunk) for j in range(length - keep, length)
                     if (row, query[:j + 1]) in needed for t in needed[row, query[:j + 1]]]
            index = torch.tensor([(g, j - length + keep, t) for g, j, t, _ in picks], device=logprobs.device)
            values = logprobs[index[:, 0], index[:, 1], index[:, 2]].tolist()
            found.update(((key[0], key[1], t), v) for (_, _, t, key), v in zip(picks, values))
    return found

"""The counting backend: a model that counts a notebook's requests and tokens instead of computing them.

Under ``culturelab plan`` (:mod:`culturelab.planning`) each notebook runs with ``$CULTURELAB_COUNT_REQUESTS``
naming a folder of JSON-lines logs; :meth:`culturelab.runner.Run.model` then hands out a
:class:`CountingModel` instead of loading weights. It records every request the notebook sends
(kind, count, prompt tokens) and answers with cheap dummies, so the notebooks' own
request-building code is what is counted. The other places that would load weights count
instead of computing while :func:`counting` is true: encoder embeddings
(:mod:`culturelab.models.encoders`, kind ``embed``) and fine-tuning
(:mod:`culturelab.turkish_plu.finetune`, kind ``finetune``).

Prompt tokens use the spec's real tokenizer when it is available offline, else ``len(text) / 4``;
a call of more than :data:`SAMPLE` requests is tokenized on an evenly strided sample and scaled,
so counting stays fast at any size (request counts are always exact). Generated tokens are
``max_new_tokens`` per generation request: an upper bound. A request is billed once per notebook,
as the response cache serves its repeats.

>>> m = CountingModel("hf:none", tokenizer=None)
>>> m.generate(["abcdefgh"], max_new_tokens=5), m.records
([''], [{'kind': 'generate', 'model': 'hf:none', 'requests': 1, 'prompt_tokens': 2, 'generated_tokens': 5, 'scored_tokens': 0}])
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from culturelab.models.base import (
    SLOT,
    LanguageModel,
    LogLikelihood,
    PermutationConstraint,
    per_prompt,
    split_template,
)

ENV = "CULTURELAB_COUNT_REQUESTS"
#: requests per call tokenized exactly; larger calls are tokenized on a strided sample this size
SAMPLE = 512
_DUMMY = LogLikelihood(-1.0, 1, False)
_active_log: Path | None = None


def counting() -> bool:
    """Whether this process runs under ``culturelab plan`` (model requests are counted, not computed).

    >>> counting()
    False
    """
    return bool(os.environ.get(ENV))


def request_log(notebook: str) -> Path | None:
    """The JSON-lines file that records ``notebook``'s requests under ``culturelab plan``, else ``None``;
    also the file :func:`record` appends to from now on in this process.

    >>> request_log("captex/02_reordering") is None
    True
    """
    global _active_log
    folder = os.environ.get(ENV)
    _active_log = Path(folder) / (notebook.replace("/", "__") + ".jsonl") if folder else None
    return _active_log


def record(kind: str, model: str, requests: int, prompt_tokens: int, generated_tokens: int = 0,
           log: Path | None = None, scored_tokens: int = 0) -> dict[str, Any]:
    """Append one counted call to ``log`` (default: the current notebook's :func:`request_log`).
    ``scored_tokens``: the continuation tokens among the prompt tokens of scoring requests (each
    needs the full-vocabulary output, a context token does not).

    >>> record("embed", "bundled:e5-small", 3, 12)
    {'kind': 'embed', 'model': 'bundled:e5-small', 'requests': 3, 'prompt_tokens': 12, 'generated_tokens': 0, 'scored_tokens': 0}
    """
    row = {"kind": kind, "model": model, "requests": int(requests), "prompt_tokens": int(prompt_tokens),
           "generated_tokens": int(generated_tokens), "scored_tokens": int(scored_tokens)}
    log = log or _active_log
    if log is not None:
        with log.open("a", encoding="utf-8") as f:
            f.write(json.dumps(row) + "\n")
    return row


def count_tokens(texts: Sequence[str], tokenizer: Any | None = None) -> int:
    """Tokens of all ``texts``: the tokenizer's count (else ``len(text) // 4``, at least 1 each),
    exact up to :data:`SAMPLE` texts, else from an evenly strided sample scaled to ``len(texts)``.

    >>> count_tokens(["abcdefgh", "abcd"]), count_tokens(["abcdefgh"] * 10_000)
    (3, 20000)
    """
    n = len(texts)
    if n == 0:
        return 0
    sample = texts if n <= SAMPLE else [texts[i] for i in range(0, n, -(-n // SAMPLE))]
    if tokenizer is not None:
        counts = [len(ids) for ids in tokenizer(list(sample), add_special_tokens=False)["input_ids"]]
    else:
        counts = [max(1, len(t) // 4) for t in sample]
    return round(sum(counts) * n / len(sample))


class FastTokenizer:
    """A ``tokenizer.json`` read by 🤗 ``tokenizers`` alone, called like a ``transformers`` tokenizer
    (``tok(texts, add_special_tokens=False)["input_ids"]``): the same token ids, without importing
    ``transformers`` (seconds per notebook under ``plan``)."""

    def __init__(self, path: str | Path):
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(path))

    def __call__(self, texts: str | Sequence[str], add_special_tokens: bool = True) -> dict[str, Any]:
        if isinstance(texts, str):
            return {"input_ids": self.tokenizer.encode(texts, add_special_tokens=add_special_tokens).ids}
        encoded = self.tokenizer.encode_batch(list(texts), add_special_tokens=add_special_tokens)
        return {"input_ids": [e.ids for e in encoded]}


def _tokenizer_file(backend: str, arg: str) -> Path | None:
    """The spec's ``tokenizer.json`` on this machine (a bundled model's folder, a local folder, or
    the local Hugging Face cache), else ``None``."""
    if backend == "bundled":
        from culturelab.models.bundled import bundled_model_dir

        return bundled_model_dir(arg) / "tokenizer.json"
    if Path(arg).expanduser().is_dir():
        return Path(arg).expanduser() / "tokenizer.json"
    from huggingface_hub import try_to_load_from_cache

    found = try_to_load_from_cache(arg, "tokenizer.json")
    return Path(found) if isinstance(found, str) else None


@functools.cache
def offline_tokenizer(spec: str) -> Any | None:
    """The spec's tokenizer when it loads without network (bundled or cached models), else ``None``;
    loaded once per process (a ``tokenizer.json`` by :class:`FastTokenizer`, else ``transformers``).

    >>> offline_tokenizer("replay:/x.jsonl") is None
    True
    >>> tok = offline_tokenizer("bundled:smollm2-135m"); type(tok).__name__, len(tok("Hello world")["input_ids"])
    ('FastTokenizer', 2)
    """
    from culturelab.models.ray_backend import unwrap

    backend, _, arg = unwrap(spec).partition(":")
    if backend not in {"bundled", "hf", "masked"}:
        return None
    try:
        file = _tokenizer_file(backend, arg)
        if file is not None and file.is_file():
            return FastTokenizer(file)
        from transformers import AutoTokenizer

        return AutoTokenizer.from_pretrained(str(file.parent) if file is not None else arg)
    except Exception:  # no local copy: token counts fall back to characters / 4
        return None


class CountingModel(LanguageModel):
    """Counts each call's requests and tokens (one log row per call) and answers with dummies:
    empty generations, log-likelihood -1 per request, all-zero ranking scores."""

    backend = "counting"

    def __init__(self, spec: str, *, tokenizer: Any | None, log: Path | None = None):
        super().__init__(spec, "counting", cache=False, progress=False)
        self.counted_spec = spec
        self.tokenizer = tokenizer
        self.log = log
        self.records: list[dict[str, Any]] = []
        # hashes of the requests billed so far (the response cache serves repeats); a hash, not the
        # request, so that the memory of a 60M-pair plan stays small
        self._seen: set[int] = set()

    def _new(self, keys: Sequence[tuple]) -> list[int]:
        """Positions of the keys not billed before (the first of repeats within the call), marked billed."""
        fresh = []
        for i, key in enumerate(keys):
            h = hash(key)
            if h not in self._seen:
                self._seen.add(h)
                fresh.append(i)
        return fresh

    @property
    def spec(self) -> str:
        """The spec being planned for (notebooks key tables and reference rows by it)."""
        return self.counted_spec

    def _count(self, kind: str, requests: int, prompt_tokens: int, generated: int = 0, scored: int = 0) -> None:
        self.stats.requested += requests
        self.stats.requested_by_kind[kind] = self.stats.requested_by_kind.get(kind, 0) + requests
        self.records.append(record(kind, self.counted_spec, requests, prompt_tokens, generated,
                                   log=self.log or Path(os.devnull), scored_tokens=scored))

    def generate(self, prompts: Sequence[str], *, max_new_tokens: int = 64,
                 constraint: PermutationConstraint | Sequence[PermutationConstraint] | None = None,
                 **params: Any) -> list[str]:
        """Count the distinct generation requests of ``max_new_tokens`` each; with a ``constraint``,
        constrained generation requests of two tokens per label (label and separator, the end
        token last), answered with the labels in their order.

        >>> m = CountingModel("hf:none", tokenizer=None)
        >>> _ = m.generate(["a", "a", "b"], max_new_tokens=4); _ = m.generate(["a"], max_new_tokens=4)
        >>> [r["requests"] for r in m.records], m.generate(["a"], max_new_tokens=8) and m.records[-1]["requests"]
        ([2, 0], 1)
        >>> m.generate(["a"], constraint=PermutationConstraint.letters(3)), m.records[-1]["kind"], m.records[-1]["generated_tokens"]
        (['A, B, C'], 'generate_constrained', 6)
        """
        prompts = [str(p) for p in prompts]
        if constraint is not None:
            constraints = per_prompt(constraint, len(prompts))
            decoding = tuple(sorted((k, repr(v)) for k, v in params.items() if k not in {"stop"}))
            fresh = self._new([("generate_constrained", p, c, *decoding) for p, c in zip(prompts, constraints)])
            self._count("generate_constrained", len(fresh), count_tokens([prompts[i] for i in fresh], self.tokenizer),
                        sum(2 * len(constraints[i].labels) for i in fresh))
            return [c.sep.join(c.labels) for c in constraints]
        decoding = (int(max_new_tokens), *sorted((k, repr(v)) for k, v in params.items()))
        fresh = [prompts[i] for i in self._new([("generate", p, *decoding) for p in prompts])]
        self._count("generate", len(fresh), count_tokens(fresh, self.tokenizer), len(fresh) * int(max_new_tokens))
        return self._generate(prompts)

    def _count_pairs(self, pairs: list[tuple[str, str]]) -> None:
        step = max(1, -(-len(pairs) // SAMPLE))
        sample = pairs[::step]
        scale = len(pairs) / max(1, len(sample))
        whole = count_tokens([c + x for c, x in sample], self.tokenizer)
        scored = count_tokens([x for _, x in sample], self.tokenizer)
        self._count("loglikelihood", len(pairs), round(whole * scale), scored=round(min(scored, whole) * scale))

    def loglikelihood(self, requests: Sequence[tuple[str, str]]) -> list[LogLikelihood]:
        """Count the distinct scoring requests (context + continuation tokens).

        >>> m = CountingModel("hf:none", tokenizer=None)
        >>> _ = m.loglikelihood([("q", " a"), ("q", " b"), ("q", " a")]); _ = m.loglikelihood([("q", " b")])
        >>> [r["requests"] for r in m.records]
        [2, 0]
        """
        requests = [(str(c), str(x)) for c, x in requests]
        self._count_pairs([requests[i] for i in self._new([("loglikelihood", c, x) for c, x in requests])])
        return self._loglikelihood(requests)

    def loglikelihood_groups(self, groups: Sequence[tuple[str, Sequence[str]]]) -> list[list[LogLikelihood]]:
        """Count every (context, continuation) pair of the groups not billed before as one scoring
        request; a repeated group is served whole from its cache row, pairs billed one by one by
        :meth:`loglikelihood` are reused (as :meth:`LanguageModel.loglikelihood_groups` does)."""
        groups = [(str(c), [str(x) for x in xs]) for c, xs in groups]
        pairs = []
        for i in self._new([("group", c, *xs) for c, xs in groups]):
            context, continuations = groups[i]
            pairs += [(context, x) for x in continuations if hash(("loglikelihood", context, x)) not in self._seen]
        self._count_pairs(pairs)
        return [[_DUMMY] * len(xs) for _, xs in groups]

    def rank_candidates(self, templates: Sequence[str], candidates: Sequence[str], *, slot: str = SLOT,
                        reduce: str = "mean") -> np.ndarray:
        """Count ``len(templates) x len(candidates)`` ranking pairs (template + candidate tokens)."""
        if reduce not in {"mean", "sum"}:
            raise ValueError(f"reduce must be 'mean' or 'sum', not {reduce!r}")
        templates, candidates = [str(t) for t in templates], [str(c) for c in candidates]
        frames = ["".join(split_template(t, slot)) for t in templates]
        tokens = (count_tokens(frames, self.tokenizer) * len(candidates)
                  + count_tokens(candidates, self.tokenizer) * len(templates))
        self._count("rank_candidates", len(templates) * len(candidates), tokens)
        return np.asarray(self._rank_candidates(templates, candidates, slot=slot, reduce=reduce),
                          dtype=np.float32).reshape(len(templates), len(candidates))

    def _generate(self, prompts: list[str], **params: Any) -> list[str]:
        return [""] * len(prompts)

    def _loglikelihood(self, requests: list[tuple[str, str]]) -> list[LogLikelihood]:
        return [_DUMMY] * len(requests)

    def _rank_candidates(self, templates: list[str], candidates: list[str], *, slot: str,
                         reduce: str) -> list[np.ndarray]:
        return [np.zeros(len(candidates), dtype=np.float32) for _ in templates]


def dummy_vectors(texts: Sequence[str], dim: int = 16) -> np.ndarray:
    """Stand-in embeddings under ``plan``: one fixed unit vector per distinct text (same text, same vector).

    >>> v = dummy_vectors(["rice", "tea", "rice"])
    >>> v.shape, bool((v[0] == v[2]).all()), round(float(np.linalg.norm(v[1])), 3)
    ((3, 16), True, 1.0)
    """
    import zlib

    rows = [np.random.default_rng(zlib.crc32(t.encode("utf-8"))).standard_normal(dim) for t in texts]
    out = np.asarray(rows, dtype=np.float32).reshape(len(texts), dim)
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)

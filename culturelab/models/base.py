"""One interface for every model backend, with the on-disk cache built in.

A backend implements three private methods on plain Python lists (``_generate``,
``_loglikelihood``, ``_rank_candidates``), and ``_generate_constrained`` when it can restrict
decoding to a :class:`PermutationConstraint`. The public methods here add what every backend
needs and none should write again: request de-duplication, the on-disk response cache
(keyed by backend, model id + revision, request and decoding parameters), chunked progress
bars, and committing each finished chunk so a killed run resumes where it stopped.

>>> from culturelab.models.base import LogLikelihood
>>> LogLikelihood(logprob=-3.0, n_tokens=2, is_greedy=False).mean
-1.5
"""

from __future__ import annotations

import hashlib
import json
import string
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from culturelab.models.cache import ResponseCache, default_cache

#: The placeholder of the answer slot in cloze templates (FMLAMA's notation).
SLOT = "[Y]"

#: The kinds of request a backend may answer (``culturelab.models.capabilities`` says which it can);
#: ``generate_constrained`` is :meth:`LanguageModel.generate` with a ``constraint``.
KINDS = ("generate", "loglikelihood", "rank_candidates", "generate_constrained")
#: The version of the constrained-decoding algorithm, in the cache key of every constrained request:
#: bump it when what a backend does under a constraint changes (the label tokens it allows, its end
#: rule), so that answers of the old algorithm are recomputed, never served as answers of the new one.
#: 2: labels scored over every tokenisation at their position (:mod:`culturelab.models.permutations`),
#: not forced as one spelling (the bare letter).
CONSTRAINED_DECODING_VERSION = 2


@dataclass(frozen=True)
class PermutationConstraint:
    """Decoding restricted to orderings of ``labels``: each label exactly once, joined by ``sep``
    (at every position only the labels not yet written may come next, then the end of the text),
    so every answer is a valid permutation.

    >>> c = PermutationConstraint.letters(3)
    >>> c.labels, c.accepts("C, A, B"), c.accepts("C, A"), c.accepts("C, A, A")
    (('A', 'B', 'C'), True, False, False)
    >>> PermutationConstraint(("x", "x"))
    Traceback (most recent call last):
    ...
    ValueError: a permutation constraint needs distinct, non-empty labels, got ('x', 'x')
    """

    labels: tuple[str, ...]
    sep: str = ", "

    def __post_init__(self) -> None:
        labels = tuple(str(label) for label in self.labels)
        if not labels or len(set(labels)) != len(labels) or not all(labels):
            raise ValueError(f"a permutation constraint needs distinct, non-empty labels, got {labels!r}")
        if any(self.sep in label for label in labels) if self.sep else any(len(label) != 1 for label in labels):
            raise ValueError(f"labels must not contain the separator {self.sep!r} (single characters when it is "
                             f"empty), got {labels!r}")
        object.__setattr__(self, "labels", labels)

    @classmethod
    def letters(cls, n: int, sep: str = ", ") -> PermutationConstraint:
        """The step letters A, B, … of ``n`` steps (the reordering prompts' labels).

        >>> PermutationConstraint.letters(2, sep=" ")
        PermutationConstraint(labels=('A', 'B'), sep=' ')
        """
        if not 1 <= n <= len(string.ascii_uppercase):
            raise ValueError(f"need 1 to {len(string.ascii_uppercase)} letters, got {n}")
        return cls(tuple(string.ascii_uppercase[:n]), sep)

    def key(self) -> dict[str, Any]:
        """The constraint as plain data (part of the cache key of a constrained request).

        >>> PermutationConstraint.letters(2).key()
        {'type': 'permutation', 'labels': ['A', 'B'], 'sep': ', '}
        """
        return {"type": "permutation", "labels": list(self.labels), "sep": self.sep}

    @classmethod
    def from_key(cls, key: dict[str, Any]) -> PermutationConstraint:
        """The inverse of :meth:`key`.

        >>> c = PermutationConstraint.letters(4); PermutationConstraint.from_key(c.key()) == c
        True
        """
        return cls(tuple(key["labels"]), key["sep"])

    def accepts(self, text: str) -> bool:
        """Whether ``text`` (outer white space ignored) is one ordering of the labels."""
        parts = text.strip().split(self.sep) if self.sep else list(text.strip())
        return sorted(parts) == sorted(self.labels)


def per_prompt(constraint: PermutationConstraint | Sequence[PermutationConstraint], n: int) -> list[PermutationConstraint]:
    """One constraint per prompt: a single constraint repeated, or a sequence of ``n``.

    >>> c = PermutationConstraint.letters(2); per_prompt(c, 2) == [c, c]
    True
    """
    if isinstance(constraint, PermutationConstraint):
        return [constraint] * n
    constraints = list(constraint)
    if len(constraints) != n or not all(isinstance(c, PermutationConstraint) for c in constraints):
        raise ValueError(f"constraint must be one PermutationConstraint or one per prompt ({n}), "
                         f"got {len(constraints)} items")
    return constraints


@dataclass(frozen=True)
class LogLikelihood:
    """Log-probability of a continuation given a context (natural log, summed over tokens)."""

    logprob: float
    n_tokens: int
    is_greedy: bool

    @property
    def mean(self) -> float:
        """Per-token mean log-probability (length-normalised score)."""
        return self.logprob / max(self.n_tokens, 1)


@dataclass
class CallStats:
    """How many requests were asked for (in all and by kind), served from the cache, and computed
    (``by_kind``: computed requests by kind)."""

    requested: int = 0
    cached: int = 0
    computed: int = 0
    by_kind: dict[str, int] = field(default_factory=dict)
    requested_by_kind: dict[str, int] = field(default_factory=dict)


def split_template(template: str, slot: str = SLOT) -> tuple[str, str]:
    """Split a cloze template at its answer slot.

    >>> split_template("The food [X] has [Y] .".replace("[X]", "pho"))
    ('The food pho has ', ' .')
    """
    if template.count(slot) != 1:
        raise ValueError(f"template must contain the slot {slot!r} exactly once: {template!r}")
    prefix, suffix = template.split(slot)
    return prefix, suffix


class LanguageModel(ABC):
    """The protocol every backend follows: ``generate``, ``loglikelihood``, ``rank_candidates``."""

    backend: str = "abstract"

    def __init__(self, model_id: str, revision: str | None = None, *, cache: ResponseCache | bool = True,
                 progress: bool = True, chunk_size: int = 64):
        self.model_id = model_id
        self.revision = revision
        self.progress = progress
        self.chunk_size = chunk_size
        self.stats = CallStats()
        if cache is True:
            cache = default_cache()
        self.cache: ResponseCache | None = cache if isinstance(cache, ResponseCache) else None

    # ------------------------------------------------------------------ identity
    @property
    def spec(self) -> str:
        """The string that selects this backend, e.g. ``hf:Qwen/Qwen2.5-0.5B`` or ``bundled:gemma3-270m``."""
        if self.model_id.startswith("bundled:"):
            return self.model_id
        return f"{self.backend}:{self.model_id}"

    def identity(self) -> dict[str, Any]:
        """What makes two models' answers interchangeable (part of every cache key)."""
        return {"backend": self.backend, "model": self.model_id, "revision": self.revision}

    def describe(self) -> dict[str, Any]:
        """Identity plus anything useful to record in a run's metadata."""
        return self.identity()

    # ------------------------------------------------------------------ public API
    def generate(self, prompts: Sequence[str], *, max_new_tokens: int = 64, temperature: float = 0.0,
                 top_p: float = 1.0, stop: Sequence[str] | None = None, chat: bool = True,
                 system: str | None = None, seed: int = 0,
                 constraint: PermutationConstraint | Sequence[PermutationConstraint] | None = None) -> list[str]:
        """Continue each prompt; greedy when ``temperature == 0``.

        ``chat=True`` wraps each prompt as a user turn with the model's chat template when it has
        one; ``stop`` strings end the text (the stop string itself is removed).

        ``constraint`` (one :class:`PermutationConstraint`, or one per prompt) restricts decoding to
        the orderings of its labels: every answer is a valid permutation, as long as the
        constraint needs (``max_new_tokens`` and ``stop`` do not apply), written label by label, each
        label scored over every tokenisation of it at its position
        (:mod:`culturelab.models.permutations`). These are requests of
        their own kind, ``generate_constrained``, cached under the constraint; backends that cannot
        constrain decoding say so in :func:`culturelab.models.capabilities` and raise
        ``NotImplementedError``.
        """
        if constraint is not None:
            return self._generate_permutations(prompts, per_prompt(constraint, len(prompts)),
                                               temperature=temperature, top_p=top_p, chat=chat, system=system,
                                               seed=seed)
        params = {"max_new_tokens": int(max_new_tokens), "temperature": float(temperature),
                  "top_p": float(top_p), "stop": list(stop or []), "chat": bool(chat),
                  "system": system, "seed": int(seed) if temperature > 0 else None}
        requests = [{"prompt": str(p)} for p in prompts]

        def compute(reqs: list[dict]) -> list[str]:
            texts = self._generate([r["prompt"] for r in reqs], **params)
            return [truncate_at_stop(t, params["stop"]) for t in texts]

        return self._cached("generate", requests, params, compute)

    def _generate_permutations(self, prompts: Sequence[str], constraints: list[PermutationConstraint], *,
                               temperature: float, top_p: float, chat: bool, system: str | None,
                               seed: int) -> list[str]:
        """The cached side of constrained generation (:meth:`generate` with a ``constraint``)."""
        params = {"temperature": float(temperature), "top_p": float(top_p), "chat": bool(chat), "system": system,
                  "seed": int(seed) if temperature > 0 else None}
        requests = [{"prompt": str(p), "constraint": c.key(), "algorithm": CONSTRAINED_DECODING_VERSION}
                    for p, c in zip(prompts, constraints)]

        def compute(reqs: list[dict]) -> list[str]:
            chunk = [PermutationConstraint.from_key(r["constraint"]) for r in reqs]
            texts = self._generate_constrained([r["prompt"] for r in reqs], chunk, **params)
            for text, c in zip(texts, chunk):
                if not c.accepts(text):
                    raise RuntimeError(f"{self.spec}: constrained decoding returned {text!r}, not an ordering of "
                                       f"{list(c.labels)}")
            return [text.strip() for text in texts]

        return self._cached("generate_constrained", requests, params, compute)

    def loglikelihood(self, requests: Sequence[tuple[str, str]]) -> list[LogLikelihood]:
        """Log P(continuation | context) for each ``(context, continuation)`` pair.

        Requests that share a context are scored from one encoding of that context.
        """
        reqs = [{"context": str(c), "continuation": str(x)} for c, x in requests]
        # keep requests with the same context in the same chunk: the backend encodes it once
        order = sorted(range(len(reqs)), key=lambda i: (reqs[i]["context"], i))
        results = self._cached("loglikelihood", [reqs[i] for i in order], {},
                               lambda rs: [asdict(r) for r in self._loglikelihood(
                                   [(r["context"], r["continuation"]) for r in rs])])
        out: list[LogLikelihood | None] = [None] * len(reqs)
        for pos, i in enumerate(order):
            out[i] = LogLikelihood(**results[pos])
        return out  # type: ignore[return-value]

    def rank_candidates(self, templates: Sequence[str], candidates: Sequence[str], *, slot: str = SLOT,
                        reduce: str = "mean") -> np.ndarray:
        """Score every candidate in every cloze template; higher is better.

        Returns an array of shape ``(len(templates), len(candidates))``. ``reduce`` is ``"mean"``
        (mean log-prob per sub-token, FMLAMA's pooling) or ``"sum"``.
        """
        if reduce not in {"mean", "sum"}:
            raise ValueError(f"reduce must be 'mean' or 'sum', not {reduce!r}")
        candidates = [str(c) for c in candidates]
        params = {"slot": slot, "reduce": reduce, "candidates": _digest(candidates), "n_candidates": len(candidates)}
        reqs = [{"template": str(t)} for t in templates]
        for r in reqs:
            split_template(r["template"], slot)  # fail early on malformed templates
        rows = self._cached("rank_candidates", reqs, params,
                            lambda rs: list(self._rank_candidates([r["template"] for r in rs], candidates,
                                                                  slot=slot, reduce=reduce)),
                            chunk_divisor=8)
        if not rows:
            return np.zeros((0, len(candidates)), dtype=np.float32)
        return np.vstack([np.asarray(r, dtype=np.float32) for r in rows])

    def loglikelihood_groups(self, groups: Sequence[tuple[str, Sequence[str]]]) -> list[list[LogLikelihood]]:
        """Log P(continuation | context) for every continuation of each ``(context, continuations)``
        group, e.g. one cloze query and a chunk of candidate fillers.

        The cache holds one row per group (not per pair), committed as each group finishes, so a
        killed run over millions of pairs resumes group by group; pairs cached one by one by
        :meth:`loglikelihood` are reused, not recomputed. Requests are counted under the
        ``loglikelihood`` kind.
        """
        groups = [(str(c), [str(x) for x in xs]) for c, xs in groups]
        keys = [self._request_key("loglikelihood_group", {}, {"context": c, "continuations": _digest(xs), "n": len(xs)})
                for c, xs in groups]
        found = self.cache.get_many(keys) if self.cache is not None else {}
        n_pairs = sum(len(xs) for _, xs in groups)
        self.stats.requested += n_pairs
        self.stats.requested_by_kind["loglikelihood"] = self.stats.requested_by_kind.get("loglikelihood", 0) + n_pairs
        todo = [(k, c, xs) for k, (c, xs) in zip(keys, groups) if k not in found]
        self.stats.cached += n_pairs - sum(len(xs) for _, _, xs in todo)
        found.update(self._score_groups(todo))
        return [[LogLikelihood(*v) for v in zip(found[k]["logprob"], found[k]["n_tokens"], found[k]["is_greedy"])]
                for k in keys]

    def _score_groups(self, todo: list[tuple[str, str, list[str]]]) -> dict[str, dict[str, list]]:
        """The groups of :meth:`loglikelihood_groups` missing from the cache, ``(key, context,
        continuations)``: per-pair cache rows reused, the rest computed in chunks
        (:meth:`_map_chunks`), each group's row stored once its last chunk is in."""
        values: list[dict[int, dict]] = []
        jobs: list[tuple[int, list[int]]] = []  # (group, positions of its continuations) per chunk
        for g, (_, context, continuations) in enumerate(todo):
            pair_keys = [self._request_key("loglikelihood", {}, {"context": context, "continuation": x})
                         for x in continuations]
            old = self.cache.get_many(pair_keys) if self.cache is not None else {}
            values.append({i: old[k] for i, k in enumerate(pair_keys) if k in old})
            missing = [i for i, k in enumerate(pair_keys) if k not in old]
            self.stats.cached += len(continuations) - len(missing)
            step = self.chunk_size if missing else 1  # read on a miss only (a lazy model's needs torch)
            jobs += [(g, missing[start : start + step]) for start in range(0, len(missing), step)]
        left = [0] * len(todo)
        for g, _ in jobs:
            left[g] += 1
        out: dict[str, dict[str, list]] = {}
        bar = tqdm(total=len(todo), desc=f"{self.spec} loglikelihood groups", unit="group",
                   disable=not self.progress or not todo, leave=False)

        def finish(g: int) -> None:
            key, _, continuations = todo[g]
            ordered = [values[g][i] for i in range(len(continuations))]
            out[key] = {f: [v[f] for v in ordered] for f in ("logprob", "n_tokens", "is_greedy")}
            if self.cache is not None:
                self.cache.put_many({key: out[key]})
            bar.update(1)

        for g in range(len(todo)):
            if not left[g]:
                finish(g)
        chunks = [[(todo[g][1], todo[g][2][i]) for i in positions] for g, positions in jobs]
        for j, scored in self._map_chunks(self._loglikelihood, chunks):
            g, positions = jobs[j]
            values[g].update((i, asdict(r)) for i, r in zip(positions, scored))
            self.stats.computed += len(positions)
            self.stats.by_kind["loglikelihood"] = self.stats.by_kind.get("loglikelihood", 0) + len(positions)
            left[g] -= 1
            if not left[g]:
                finish(g)
        bar.close()
        return out

    def _map_chunks(self, compute: Callable[[list], list], chunks: list[list]) -> Iterator[tuple[int, list]]:
        """``(position, answers)`` of each chunk of requests, computed by ``compute``: here one chunk
        after another, in order. A backend that spreads chunks over workers (``ray:N:``,
        :mod:`culturelab.models.ray_backend`) yields each as it finishes; the caller commits it then.

        >>> list(LanguageModel._map_chunks(None, lambda c: [x * 2 for x in c], [[1], [2, 3]]))
        [(0, [2]), (1, [4, 6])]
        """
        for i, chunk in enumerate(chunks):
            yield i, compute(chunk)

    # ------------------------------------------------------------------ backend hooks
    @abstractmethod
    def _generate(self, prompts: list[str], **params: Any) -> list[str]:
        ...

    @abstractmethod
    def _loglikelihood(self, requests: list[tuple[str, str]]) -> list[LogLikelihood]:
        ...

    def _generate_constrained(self, prompts: list[str], constraints: list[PermutationConstraint],
                              **params: Any) -> list[str]:
        """Generation restricted by one constraint per prompt; backends that can, override this."""
        raise NotImplementedError(f"{self.spec}: the {self.backend} backend cannot constrain decoding "
                                  "(see culturelab.models.capabilities)")

    def _rank_candidates(self, templates: list[str], candidates: list[str], *, slot: str,
                         reduce: str) -> list[np.ndarray]:
        """Default cloze ranking for scoring backends: candidate log-likelihood after the prefix."""
        pairs = []
        for template in templates:
            prefix, _ = split_template(template, slot)
            pairs.extend((prefix, c) for c in candidates)
        scores = self._loglikelihood(pairs)
        values = np.array([s.mean if reduce == "mean" else s.logprob for s in scores], dtype=np.float32)
        return list(values.reshape(len(templates), len(candidates)))

    # ------------------------------------------------------------------ caching machinery
    def _request_key(self, kind: str, params: dict, request: dict) -> str:
        """The cache key of one request: kind, model identity, decoding parameters and the request."""
        return ResponseCache.key({"kind": kind, **self.identity(), "params": params, "request": request})

    def _cached(self, kind: str, requests: list[dict], params: dict, compute: Callable[[list[dict]], list],
                chunk_divisor: int = 1) -> list:
        keys = [self._request_key(kind, params, r) for r in requests]
        found = self.cache.get_many(keys) if self.cache is not None else {}
        todo: dict[str, dict] = {}
        for k, r in zip(keys, requests):
            if k not in found and k not in todo:
                todo[k] = r
        self.stats.requested += len(requests)
        self.stats.requested_by_kind[kind] = self.stats.requested_by_kind.get(kind, 0) + len(requests)
        self.stats.cached += len(requests) - sum(1 for k in keys if k not in found)
        if todo:
            chunk_size = max(1, self.chunk_size // chunk_divisor)  # read on a miss only (a lazy model's needs torch)
            items = list(todo.items())
            chunks = [items[start : start + chunk_size] for start in range(0, len(items), chunk_size)]
            bar = tqdm(total=len(items), desc=f"{self.spec} {kind}", unit="req",
                       disable=not self.progress, leave=False)
            for i, values in self._map_chunks(compute, [[r for _, r in chunk] for chunk in chunks]):
                chunk = chunks[i]
                if len(values) != len(chunk):
                    raise RuntimeError(f"{self.spec}: backend returned {len(values)} answers for {len(chunk)} requests")
                fresh = dict(zip([k for k, _ in chunk], values))
                if self.cache is not None:
                    self.cache.put_many(fresh)
                found.update(fresh)
                self.stats.computed += len(chunk)
                self.stats.by_kind[kind] = self.stats.by_kind.get(kind, 0) + len(chunk)
                bar.update(len(chunk))
            bar.close()
        return [found[k] for k in keys]


def _digest(texts: Sequence[str]) -> str:
    """SHA-256 of a list of strings (a group's continuations in a cache key).

    >>> _digest(["a", "b"]) == _digest(["a", "b"]) != _digest(["b", "a"])
    True
    """
    return hashlib.sha256(json.dumps(list(texts), ensure_ascii=False).encode("utf-8")).hexdigest()


def truncate_at_stop(text: str, stop: Sequence[str]) -> str:
    """Cut ``text`` at the first occurrence of any stop string.

    >>> truncate_at_stop("A\\nQuestion: next", ["\\nQuestion:"])
    'A'
    """
    cut = len(text)
    for s in stop:
        if s and (i := text.find(s)) != -1:
            cut = min(cut, i)
    return text[:cut]

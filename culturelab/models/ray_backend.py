"""``ray:N:<spec>``: one notebook's model requests spread over N Ray actors, each holding the model
``<spec>`` names on its own GPU (or on CPU), e.g. ``ray:4:hf:Qwen/Qwen2.5-7B`` or
``ray:2:bundled:gemma3-270m``.

The notebook cannot tell the difference: :class:`RayModel` is a
:class:`~culturelab.models.base.LanguageModel` whose identity is the wrapped model's, so the response
cache sits in front of it as for any backend and its answers are interchangeable with the wrapped
model's (one cache row serves both). The requests the cache misses are cut into exactly the chunks
one process would compute (the wrapped model's ``chunk_size``), so each chunk's batches, and its
numbers, are the same; the chunks go to the actors longest first, each to the next free actor
(balanced by length), and every chunk is committed to the cache as it comes back, its answers in
request order. An actor that dies is replaced (or restarted by Ray) and its chunk sent again.
On a CPU the numbers are those of one process computing on as many threads as an actor has
(``cpus_per_actor``, default 1): a matrix product summed over another number of threads can
differ in its last bit.

Ray is optional (``pip install -e '.[ray]'``); the spec validates without it.

>>> split_ray_spec("ray:2:bundled:gemma3-270m")
(2, 'bundled:gemma3-270m')
>>> split_ray_spec("hf:gpt2") is None, unwrap("ray:4:hf:Qwen/Qwen2.5-7B")
(True, 'hf:Qwen/Qwen2.5-7B')
"""

from __future__ import annotations

import queue
import socket
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any

import numpy as np

from culturelab.models.base import LanguageModel, LogLikelihood, PermutationConstraint

PREFIX = "ray"
#: times a chunk is sent again after its actor died (each time to a fresh actor)
RETRIES = 2


def split_ray_spec(spec: str) -> tuple[int, str] | None:
    """``(N, wrapped spec)`` of a ``ray:N:<spec>``; ``None`` for any other spec. The wrapped spec
    is not checked here (:func:`culturelab.models.parse_spec` does).

    >>> split_ray_spec("ray:0:hf:gpt2")
    Traceback (most recent call last):
    ...
    ValueError: model spec 'ray:0:hf:gpt2' must look like 'ray:N:<spec>' with N ≥ 1 Ray actors and a spec that is not itself 'ray:' (e.g. 'ray:2:bundled:gemma3-270m')
    """
    spec = str(spec)
    if not spec.startswith(PREFIX + ":"):
        return None
    _, count, inner = [*spec.split(":", 2), ""][:3]
    if not count.isdigit() or int(count) < 1 or not inner or inner.startswith(PREFIX + ":"):
        raise ValueError(f"model spec {spec!r} must look like 'ray:N:<spec>' with N ≥ 1 Ray actors and a spec that "
                         "is not itself 'ray:' (e.g. 'ray:2:bundled:gemma3-270m')")
    return int(count), inner


def unwrap(spec: str) -> str:
    """The spec a ``ray:N:<spec>`` shards; any other spec as it is.

    >>> unwrap("bundled:gemma3-270m")
    'bundled:gemma3-270m'
    """
    split = split_ray_spec(spec)
    return split[1] if split else spec


def chunk_length(chunk: list) -> int:
    """Characters in a chunk of requests (request dicts or ``(context, continuation)`` pairs): the
    cost the chunks are balanced by.

    >>> chunk_length([{"prompt": "abc"}, ("ab", "c")])
    6
    """
    return sum(sum(len(str(v)) for v in (r.values() if isinstance(r, dict) else r)) for r in chunk)


class ModelShard:
    """What one actor holds: the wrapped model, loaded without a cache (the driver's cache sits in
    front), computing on ``threads`` CPU threads, answering the backend hooks (``_generate``,
    ``_loglikelihood`` …) it is sent."""

    def __init__(self, spec: str, device: str, threads: int, kwargs: dict[str, Any]):
        import torch

        from culturelab.models import load_model

        torch.set_num_threads(threads)
        self.model = load_model(spec, device=device, cache=False, progress=False, **kwargs)

    def info(self) -> dict[str, Any]:
        """The wrapped model's identity, backend and chunk size, and where the actor runs."""
        return {"identity": self.model.identity(), "backend": self.model.backend,
                "chunk_size": self.model.chunk_size, "node": socket.gethostname()}

    def describe(self) -> dict[str, Any]:
        """The wrapped model's description."""
        return self.model.describe()

    def call(self, hook: str, *args: Any, **kwargs: Any) -> Any:
        """The wrapped model's ``hook`` on these arguments."""
        return getattr(self.model, hook)(*args, **kwargs)


def wants_gpu(device: str, cluster_gpus: float) -> bool:
    """Whether a worker for ``device`` should hold a GPU: ``cuda``/``cuda:N``, or ``auto`` on a
    cluster that has GPUs.

    >>> wants_gpu("auto", 0), wants_gpu("auto", 8), wants_gpu("cuda:1", 0), wants_gpu("cpu", 8)
    (False, True, True, False)
    """
    return str(device).startswith("cuda") or (device == "auto" and cluster_gpus >= 1)


class RayModel(LanguageModel):
    """``n`` actors holding the model ``spec`` names (see the module docstring)."""

    def __init__(self, spec: str, n: int, *, device: str = "auto", chunk_size: int | None = None,
                 cpus_per_actor: int = 1, cache: Any = True, progress: bool = True, **kwargs: Any):
        from culturelab.distributed import connect, require_ray

        ray = require_ray()
        connect()
        self.inner_spec, self.n_actors = spec, n
        gpu = wants_gpu(device, ray.cluster_resources().get("GPU", 0))
        if gpu and ray.cluster_resources().get("GPU", 0) < 1:
            raise RuntimeError(f"ray:{n}:{spec}: device={device!r} asks for a GPU per actor, but the Ray cluster has "
                               "none; use device='auto' (CPU actors where there is no GPU)")
        # a Ray worker with a GPU sees only its own, as cuda:0
        self.actor_device = "cuda" if gpu else ("cpu" if device == "auto" else device)
        self.cpus_per_actor = cpus_per_actor
        self._options = {"num_cpus": cpus_per_actor, "num_gpus": 1 if gpu else 0, "max_restarts": RETRIES,
                         "max_task_retries": RETRIES}
        self._kwargs = {**kwargs, **({"chunk_size": chunk_size} if chunk_size else {})}
        self.actors = [self._start_actor() for _ in range(n)]
        info = ray.get(self.actors[0].info.remote())
        self._identity = info["identity"]
        self.backend = info["backend"]
        #: actors started again after one died
        self.replaced = 0
        self._idle: queue.Queue[int] = queue.Queue()
        for slot in range(n):
            self._idle.put(slot)
        super().__init__(self._identity["model"], self._identity.get("revision"), cache=cache, progress=progress,
                         chunk_size=chunk_size or info["chunk_size"])

    def _start_actor(self) -> Any:
        import ray

        return ray.remote(ModelShard).options(**self._options).remote(self.inner_spec, self.actor_device,
                                                                      self.cpus_per_actor, self._kwargs)

    @property
    def spec(self) -> str:
        """``ray:N:<spec>``."""
        return f"{PREFIX}:{self.n_actors}:{self.inner_spec}"

    def identity(self) -> dict[str, Any]:
        """The wrapped model's identity: its answers and these are interchangeable."""
        return dict(self._identity)

    def describe(self) -> dict[str, Any]:
        """The wrapped model's description (from the first actor) and how it is sharded."""
        import ray

        return {**ray.get(self.actors[0].describe.remote()), "sharded": {"ray_actors": self.n_actors,
                                                                         "device": self.actor_device,
                                                                         "replaced_actors": self.replaced}}

    # ----------------------------------------------------------------- the actors at work
    def _remote(self, hook: str, *args: Any, **kwargs: Any) -> Any:
        """``hook(*args, **kwargs)`` on the next free actor; an actor that died is replaced by a
        fresh one and the call sent again (up to :data:`RETRIES` times)."""
        import ray
        from ray.exceptions import RayActorError

        for attempt in range(RETRIES + 1):
            slot = self._idle.get()
            try:
                return ray.get(self.actors[slot].call.remote(hook, *args, **kwargs))
            except RayActorError:
                if attempt == RETRIES:
                    raise
                self.actors[slot] = self._start_actor()
                self.replaced += 1
            finally:
                self._idle.put(slot)
        raise AssertionError("unreachable")  # pragma: no cover

    def _map_chunks(self, compute: Callable[[list], list], chunks: list[list]) -> Iterator[tuple[int, list]]:
        """The chunks on the actors, longest first, each to the next free one; yielded as they finish."""
        order = sorted(range(len(chunks)), key=lambda i: -chunk_length(chunks[i]))
        with ThreadPoolExecutor(max_workers=self.n_actors, thread_name_prefix="ray-shard") as pool:
            futures = {pool.submit(compute, chunks[i]): i for i in order}
            for future in as_completed(futures):
                yield futures[future], future.result()

    def _generate(self, prompts: list[str], **params: Any) -> list[str]:
        return self._remote("_generate", prompts, **params)

    def _generate_constrained(self, prompts: list[str], constraints: list[PermutationConstraint],
                              **params: Any) -> list[str]:
        return self._remote("_generate_constrained", prompts, constraints, **params)

    def _loglikelihood(self, requests: list[tuple[str, str]]) -> list[LogLikelihood]:
        return self._remote("_loglikelihood", requests)

    def _rank_candidates(self, templates: list[str], candidates: list[str], *, slot: str,
                         reduce: str) -> list[np.ndarray]:
        return self._remote("_rank_candidates", templates, candidates, slot=slot, reduce=reduce)

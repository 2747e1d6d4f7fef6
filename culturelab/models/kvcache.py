"""Key/value caches of 🤗 models, shared between passes without being changed by them.

>>> class Cache:  # the shape of a transformers cache: a list of layers holding tensors
...     def __init__(self): self.layers = [type("Layer", (), {"keys": [1]})()]
>>> original = Cache(); copied = copy_cache(original); copied.layers[0].keys = [2]
>>> original.layers[0].keys, copied.layers[0].keys
([1], [2])
"""

from __future__ import annotations

import copy
from typing import Any


def copy_cache(cache: Any) -> Any:
    """A key/value cache whose layers can be reordered, repeated or extended without touching
    ``cache``: those operations put new tensors on the layer objects, which are copied here (the
    tensors are shared, not copied)."""
    copied = copy.copy(cache)
    copied.layers = [copy.copy(layer) for layer in cache.layers]
    return copied

"""culturelab: executable research on cultural knowledge in multilingual LLMs.

The package is organised as a pipeline of small stages that each hand the next a tidy
pandas table: ``data`` → ``tasks`` → ``models`` → ``parsing`` → ``metrics`` →
``reported`` → ``plots``. Notebooks under ``notebooks/`` only call into it.
Top-level names are imported lazily, so ``import culturelab.models.hf`` pulls in nothing else.

>>> import culturelab as cl
>>> cl.__version__
'0.1.0'
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__version__ = "0.1.0"

_LAZY = {
    "cache_dir": "culturelab.config", "data_dir": "culturelab.config", "figures_dir": "culturelab.config",
    "runs_dir": "culturelab.config", "load_model": "culturelab.models", "start_run": "culturelab.runner",
    "reported": "culturelab.reported", "plots": "culturelab.plots", "stats": "culturelab.stats",
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module = import_module(_LAZY[name])
        return module if module.__name__.endswith(name) else getattr(module, name)
    raise AttributeError(f"module 'culturelab' has no attribute {name!r}")

"""culturelab: executable research on cultural knowledge in multilingual LLMs.

The package is organised as a pipeline of small stages that each hand the next a tidy
pandas table: ``data`` → ``tasks`` → ``models`` → ``parsing`` → ``metrics`` →
``reported`` → ``plots``. Notebooks under ``notebooks/`` only call into it.

>>> import culturelab as cl
>>> cl.__version__
'0.1.0'
"""

from __future__ import annotations

__version__ = "0.1.0"

from culturelab.config import cache_dir, data_dir, figures_dir, runs_dir  # noqa: E402
from culturelab.models import load_model  # noqa: E402
from culturelab.runner import start_run  # noqa: E402


__all__ = ["__version__", "cache_dir", "data_dir", "figures_dir", "load_model", "runs_dir", "start_run"]

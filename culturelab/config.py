"""Where culturelab reads and writes: data, cache, figures and runs.

Every location can be overridden by an environment variable, so tests, CI and users on a
cluster point the same code at other folders:

=====================  ===================================  ==============================
variable               meaning                              default
=====================  ===================================  ==============================
``CULTURELAB_DATA``    root of the real benchmark files     ``<cache>/data`` (downloads)
``CULTURELAB_CACHE``   model conversions + response cache   ``<repo>/.cache`` or ``~/.cache/culturelab``
``CULTURELAB_FIGURES`` a run's rendered figures              ``<runs>/<run>/figures``
``CULTURELAB_RUNS``    executed notebooks + results tables  ``<repo>/runs``
=====================  ===================================  ==============================

>>> from culturelab import config
>>> config.cache_dir().name in {".cache", "culturelab"} or "CULTURELAB_CACHE" in __import__("os").environ
True
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

#: Environment every offline run needs: a stray hub call otherwise blocks for ~50 s.
OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}


@lru_cache(maxsize=1)
def project_root() -> Path | None:
    """The repository checkout this package lives in, or ``None`` for a site-packages install.

    >>> root = project_root()
    >>> root is None or 'name = "culturelab"' in (root / "pyproject.toml").read_text(encoding="utf-8")
    True
    """
    here = Path(__file__).resolve().parent
    for parent in (here, *here.parents):
        pyproject = parent / "pyproject.toml"
        if pyproject.is_file() and 'name = "culturelab"' in pyproject.read_text(encoding="utf-8"):
            return parent
    return None


def _from_env(var: str, default: Path) -> Path:
    value = os.environ.get(var)
    return Path(value).expanduser().resolve() if value else default


def cache_dir() -> Path:
    """Folder for converted models and the on-disk response cache (created on demand).

    >>> import tempfile, unittest.mock
    >>> with unittest.mock.patch.dict(os.environ, {"CULTURELAB_CACHE": tempfile.mkdtemp() + "/c"}):
    ...     (cache_dir().name, cache_dir().is_dir())
    ('c', True)
    """
    root = project_root()
    default = root / ".cache" if root else Path.home() / ".cache" / "culturelab"
    path = _from_env("CULTURELAB_CACHE", default)
    path.mkdir(parents=True, exist_ok=True)
    return path


def data_dir(override: str | os.PathLike | None = None) -> Path:
    """Root of the benchmark data: ``override`` > ``$CULTURELAB_DATA`` > ``<cache>/data``.

    >>> data_dir("/tmp").as_posix()
    '/tmp'
    """
    if override:
        return Path(override).expanduser().resolve()
    return _from_env("CULTURELAB_DATA", cache_dir() / "data")


def figures_dir(run: str = "interactive") -> Path:
    """Folder a run's notebooks render their figures into: under the run's own folder, so that no run
    but ``culturelab reproduce`` writes the checkout's ``figures/`` (:func:`committed_figures_dir`).

    >>> import unittest.mock
    >>> with unittest.mock.patch.dict(os.environ, {"CULTURELAB_FIGURES": "/tmp/figs"}):
    ...     figures_dir().as_posix()
    '/tmp/figs'
    >>> with unittest.mock.patch.dict(os.environ, {"CULTURELAB_RUNS": "/tmp/runs"}):
    ...     os.environ.pop("CULTURELAB_FIGURES", None) and None; figures_dir("smoke").as_posix()
    '/tmp/runs/smoke/figures'
    """
    return _from_env("CULTURELAB_FIGURES", runs_dir() / run / "figures")


def committed_figures_dir() -> Path:
    """The checkout's ``figures/``: the paper renderings of the default run, written by
    ``culturelab reproduce`` (``make reproduce``) only.

    >>> committed_figures_dir().name
    'figures'
    """
    return (project_root() or Path.cwd()) / "figures"


def runs_dir() -> Path:
    """Folder for executed notebooks and tidy results tables.

    >>> import unittest.mock
    >>> with unittest.mock.patch.dict(os.environ, {"CULTURELAB_RUNS": "/tmp/runs"}):
    ...     runs_dir().as_posix()
    '/tmp/runs'
    """
    root = project_root() or Path.cwd()
    return _from_env("CULTURELAB_RUNS", root / "runs")


def notebooks_dir() -> Path:
    """The ``notebooks/`` folder of the checkout.

    >>> notebooks_dir().name, notebooks_dir().parent == project_root()
    ('notebooks', True)
    """
    root = project_root()
    if root is None:
        raise FileNotFoundError("culturelab's notebooks live in its git checkout; clone the repository to run them")
    return root / "notebooks"


def set_offline_env() -> None:
    """Make every Hugging Face library fail at once instead of retrying the hub for ~50 s.

    Values already set are kept:

    >>> import unittest.mock
    >>> with unittest.mock.patch.dict(os.environ, {"HF_HUB_OFFLINE": "0"}):
    ...     set_offline_env()
    ...     os.environ["HF_HUB_OFFLINE"], os.environ["HF_DATASETS_OFFLINE"]
    ('0', '1')
    """
    for key, value in OFFLINE_ENV.items():
        os.environ.setdefault(key, value)

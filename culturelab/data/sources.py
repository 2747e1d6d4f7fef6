"""Where a benchmark file comes from: the data directory, a verified download, or a sample.

Every notebook and loader speaks one vocabulary: ``data_source`` is one of :data:`DATA_SOURCES`
(``auto``, ``local``, ``download``, ``sample``) and ``data_dir = ""`` means ``$CULTURELAB_DATA``.
:func:`resolve_source` turns ``auto`` into the concrete source and explains a missing local copy;
:func:`sample_dir` is where a paper's sample written by us lives.

``locate(relpath, remote=...)`` looks for ``<data_dir>/<relpath>``; if it is absent and a
:class:`Remote` is given it downloads the file once into ``<cache>/downloads`` with
:mod:`pooch` (SHA-256 checked, re-used afterwards). Hugging Face datasets are fetched with
``huggingface_hub.snapshot_download`` (token from ``$HF_TOKEN`` for gated ones).

>>> Remote("https://example.org/a.csv", sha256=None).filename
'a.csv'
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from culturelab import config

#: the data-source vocabulary shared by every notebook and loader
DATA_SOURCES = ("auto", "local", "download", "sample")


@dataclass(frozen=True)
class Remote:
    """A downloadable file: URL and SHA-256 (``None`` when upstream has no pinned release).

    >>> Remote("https://example.org/v1/data.tsv?raw", name="data.tsv").filename
    'data.tsv'
    """

    url: str
    sha256: str | None = None
    name: str | None = None

    @property
    def filename(self) -> str:
        return self.name or self.url.rstrip("/").rsplit("/", 1)[-1]


def download(remote: Remote, subdir: str) -> Path:
    """Download ``remote`` into ``<cache>/downloads/<subdir>`` once; verify its checksum."""
    import pooch

    target = config.cache_dir() / "downloads" / subdir
    known = f"sha256:{remote.sha256}" if remote.sha256 else None
    try:
        path = pooch.retrieve(remote.url, known_hash=known, fname=remote.filename, path=target, progressbar=False)
    except ValueError as err:  # pooch raises ValueError on a checksum mismatch
        raise ValueError(f"download of {remote.url} failed its checksum check: {err}") from None
    except Exception as err:
        raise ConnectionError(f"could not download {remote.url} ({type(err).__name__}: {err}); put the file at "
                              f"<data_dir>/{subdir}/{remote.filename} or set CULTURELAB_DATA") from None
    return Path(path)


def locate(relpath: str, *, data_dir: str | os.PathLike | None = None, remote: Remote | None = None) -> Path:
    """Find ``relpath`` under the data directory, else download it, else explain what to do.

    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "blend").mkdir()
    >>> _ = (root / "blend" / "q.csv").write_text("id,answer")
    >>> locate("blend/q.csv", data_dir=root).read_text()
    'id,answer'
    """
    root = config.data_dir(data_dir)
    local = root / relpath
    if local.exists():
        return local
    if remote is not None:
        subdir = str(Path(relpath).parent)
        return download(remote, subdir)
    raise FileNotFoundError(f"{local} not found: set CULTURELAB_DATA (or the notebook's data_dir) to the folder "
                            f"that contains {relpath}")


def hf_snapshot(repo_id: str, *, local_dir: str | os.PathLike | None = None, revision: str | None = None,
                allow_patterns: list[str] | None = None) -> Path:
    """A local copy of a Hugging Face dataset repository: ``local_dir`` if given and present,
    else a (cached) ``snapshot_download`` with the token from ``$HF_TOKEN`` (gated datasets).

    >>> import tempfile
    >>> local = tempfile.mkdtemp()
    >>> hf_snapshot("org/some-dataset", local_dir=local) == Path(local)
    True
    """
    if local_dir is not None:
        path = Path(local_dir).expanduser()
        if not path.is_dir():
            raise FileNotFoundError(f"{path} is not a folder with a local copy of {repo_id}")
        return path
    from huggingface_hub import snapshot_download

    try:
        return Path(snapshot_download(repo_id=repo_id, repo_type="dataset", revision=revision,
                                      allow_patterns=allow_patterns, token=os.environ.get("HF_TOKEN"),
                                      cache_dir=str(_hf_cache())))
    except Exception as err:
        raise ConnectionError(f"could not fetch the dataset {repo_id} from the Hugging Face hub "
                              f"({type(err).__name__}: {err}). Offline? Pass a local copy as data_dir. "
                              "Gated? Accept its terms on the hub and export HF_TOKEN.") from None


def _hf_cache() -> Path:
    return config.cache_dir() / "hf"


def hf_cached(repo_id: str, *, revision: str | None = None, allow_patterns: list[str] | None = None) -> Path | None:
    """The copy of a Hugging Face dataset that :func:`hf_snapshot` downloaded before, found in the
    cache without any network call; ``None`` when there is none.

    >>> hf_cached("org/a-dataset-never-downloaded") is None
    True
    """
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import LocalEntryNotFoundError

    try:
        return Path(snapshot_download(repo_id=repo_id, repo_type="dataset", revision=revision,
                                      allow_patterns=allow_patterns, cache_dir=str(_hf_cache()),
                                      local_files_only=True))
    except LocalEntryNotFoundError:
        return None


def hub_offline() -> bool:
    """Whether downloads from the Hugging Face hub are switched off (``HF_HUB_OFFLINE`` set, as in
    every offline run of this project).

    >>> import unittest.mock
    >>> with unittest.mock.patch.dict(os.environ, {"HF_HUB_OFFLINE": "1"}):
    ...     hub_offline()
    True
    """
    return os.environ.get("HF_HUB_OFFLINE", "").strip().upper() in {"1", "ON", "YES", "TRUE"}


def sample_dir(paper: str) -> Path:
    """The folder of ``paper``'s sample data, written by us in the release's layout.

    A sample is either a folder ``culturelab/data/samples/<paper>/`` or one packed file
    ``culturelab/data/samples/<paper>_sample.json`` (``{"files": {relpath: text}}``), written out
    once per content version under the cache, so the release loaders read it unchanged and no
    tracked file mirrors a release.

    >>> (sample_dir("captex") / "Procedures.csv").is_file(), (sample_dir("fmlama") / "data" / "Dishes.csv").is_file()
    (True, True)
    """
    samples = resources.files("culturelab.data") / "samples"
    folder = samples / paper
    if folder.is_dir():
        return Path(str(folder))
    packed = samples / f"{paper}_sample.json"
    if not packed.is_file():
        raise FileNotFoundError(f"culturelab has no sample data for {paper!r}")
    blob = packed.read_bytes()
    target = config.cache_dir() / "samples" / f"{paper}-{hashlib.sha256(blob).hexdigest()[:12]}"
    if target.is_dir():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{paper}-"))
    for relpath, text in json.loads(blob)["files"].items():
        (staging / relpath).parent.mkdir(parents=True, exist_ok=True)
        (staging / relpath).write_text(text, encoding="utf-8", newline="")
    try:
        staging.rename(target)
    except OSError:  # another process wrote the same content first
        shutil.rmtree(staging, ignore_errors=True)
    return target


def resolve_source(data_source: str, local: Path | None, *, auto: str = "download", what: str = "the data",
                   data_dir: str | os.PathLike | None = "",
                   alternatives: tuple[str, ...] = ("download", "sample")) -> str:
    """The concrete source (``local``, ``download`` or ``sample``) for ``data_source``.

    ``local`` is the local copy found under the data directory (``None`` when there is none);
    ``auto`` picks it, else falls back to ``auto`` (``download`` for public releases, ``sample``
    where the release is gated or absent). Asking for ``local`` without a local copy raises a
    :class:`FileNotFoundError` that says where it looked and what to do (``alternatives``: the
    other sources this paper offers).

    >>> resolve_source("auto", None, auto="sample"), resolve_source("auto", Path("."))
    ('sample', 'local')
    >>> resolve_source("local", None, what="CAPTEx's Procedures.csv")
    Traceback (most recent call last):
    ...
    FileNotFoundError: no local copy of CAPTEx's Procedures.csv under ... set CULTURELAB_DATA or data_dir, or use data_source 'download' or 'sample'
    """
    if data_source not in DATA_SOURCES:
        raise ValueError(f"data_source must be one of {', '.join(DATA_SOURCES)}, not {data_source!r}")
    if auto not in {"download", "sample"}:
        raise ValueError(f"auto must fall back to 'download' or 'sample', not {auto!r}")
    if data_source == "auto":
        return "local" if local is not None else auto
    if data_source == "local" and local is None:
        raise FileNotFoundError(f"no local copy of {what} under {config.data_dir(data_dir)}: set CULTURELAB_DATA or "
                                f"data_dir, or use data_source {' or '.join(map(repr, alternatives))}")
    return data_source

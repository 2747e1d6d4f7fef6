"""Shared fixtures: offline environment, a private cache per test session, and tiny randomly
initialised models (causal GPT-2 and masked BERT) built offline in seconds.

``make test`` runs the suite in two pytest-xdist workers (``-n 2 --dist loadscope``): a module's
tests run on one worker, so the smoke notebooks run once (one batch, the module fixture of
:mod:`tests.test_notebooks`; ``loadgroup`` marks are ignored by pytest-xdist 3.8 under pytest 9, which ran the
batch on both workers at once). Our scheduler (:func:`pytest_xdist_make_scheduler`) hands the modules out
longest first in the order of :func:`pytest_collection_modifyitems` (xdist's own reordering, by number of
tests, started the 6-minute smoke batch after the doctests and left one core idle at the end), and the
docstring examples one by one last, to fill the gaps. The bundled models are converted in the background
as the session starts (:func:`pytest_configure`), not by the first test that needs one while the others wait."""

from __future__ import annotations

import os

for _k in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"):
    os.environ.setdefault(_k, "1")
os.environ.setdefault("MPLBACKEND", "Agg")

from culturelab.runner import THREAD_VARIABLES  # noqa: E402  (imports no torch)

#: two workers, the smoke batch's two kernels and the background conversions share the machine's
#: cores: one thread each, and threads that sleep rather than spin while they wait for their core
ONE_THREAD = {**dict.fromkeys(THREAD_VARIABLES, "1"), "OMP_WAIT_POLICY": "PASSIVE"}
if os.environ.get("PYTEST_XDIST_WORKER"):
    for _k, _v in ONE_THREAD.items():
        os.environ.setdefault(_k, _v)

import subprocess  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
from functools import partial  # noqa: E402
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

CORPUS = [
    "rice is cooked with saffron and butter", "bread is baked with flour and water",
    "tea is served with sugar", "the soup has lentils and onion", "pilav pirinç ile yapılır",
    "چای با شکر", "饺子 包 肉", "the food has ingredients of rice", "noodles with egg and soy sauce",
] * 4


SMOKE_MODULE = "tests/test_notebooks.py"
DOCTESTS = "tests/test_doctests.py"
_CONVERSIONS: list[tuple[str, subprocess.Popen]] = []


def pytest_configure(config) -> None:
    """In the xdist controller: convert the bundled models now, each in a process of its own with
    one thread (a file lock per model keeps a test that needs one waiting until it is done, and no
    test converts twice), while the workers start and collect."""
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None) or config.option.collectonly:
        return
    from culturelab.models.bundled import BUNDLED

    env = {**os.environ, **ONE_THREAD}
    for name in BUNDLED:
        code = f"from culturelab.models.bundled import bundled_model_dir; bundled_model_dir({name!r})"
        _CONVERSIONS.append((name, subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.DEVNULL,
                                                    stderr=subprocess.PIPE, text=True)))


def pytest_unconfigure(config) -> None:
    """Wait for the background conversions; one that failed is reported (the first test needing
    that model converts it again, and fails with the reason if it fails again)."""
    import warnings

    for name, process in _CONVERSIONS:
        _, err = process.communicate()
        if process.returncode:
            warnings.warn(f"converting the bundled model {name!r} in the background failed: "
                          f"{err.strip().splitlines()[-1] if err.strip() else process.returncode}", stacklevel=1)


def _rank(item) -> int:
    """Where an item's module goes in the queue: the smoke batch, the other tests that execute
    notebooks, those that load a bundled model, the rest, then the docstring examples."""
    path = item.nodeid.split("::")[0]
    if path == SMOKE_MODULE:
        return 0
    if path == DOCTESTS:
        return 4
    return 1 if item.get_closest_marker("notebooks") else 2 if item.get_closest_marker("slow") else 3


@pytest.hookimpl(tryfirst=True)  # before xdist reads the collection order
def pytest_collection_modifyitems(config, items) -> None:
    """Longest first for the xdist workers (:func:`_rank`), file order within a rank. Without xdist
    the order is pytest's own."""
    if not hasattr(config, "workerinput"):  # not an xdist worker
        return
    items.sort(key=_rank)


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist: absent under -p no:xdist
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadscope`` with two changes: the modules go out in collection order (the order of
    :func:`pytest_collection_modifyitems`), and each docstring example is a unit of its own."""
    if config.getoption("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class LongestFirst(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return nodeid if nodeid.startswith(DOCTESTS) else super()._split_scope(nodeid)

    config.option.loadscopereorder = False
    return LongestFirst(config, log)


@pytest.fixture(scope="session")
def converted_models() -> Path:
    """The converted bundled models of the cache this session started with (a conversion costs
    ~80 s, so every test's fresh cache links to them rather than converting again)."""
    from culturelab import config

    shared = config.cache_dir() / "models"
    shared.mkdir(exist_ok=True)
    return shared


@pytest.fixture()
def tmp_cache(tmp_path, monkeypatch, converted_models) -> Path:
    """Point culturelab's cache at a fresh folder for one test: no responses, the converted models linked in."""
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "models").symlink_to(converted_models, target_is_directory=True)
    monkeypatch.setenv("CULTURELAB_CACHE", str(cache))
    return cache


@pytest.fixture()
def notebook_run(tmp_path, monkeypatch, tmp_cache):
    """``make(notebook, spec)``: a :class:`culturelab.runner.Run` of ``notebook`` for the model
    ``spec`` on CPU, writing its runs and figures under ``tmp_path`` (and a fresh cache)."""
    from culturelab.runner import Run

    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path / "runs"))
    monkeypatch.setenv("CULTURELAB_FIGURES", str(tmp_path / "figures"))
    return lambda notebook, spec: Run(notebook, {"model": spec, "seed": 0, "device": "cpu"}, name="t")


@pytest.fixture(scope="session")
def tiny_causal_dir(tmp_path_factory) -> Path:
    """A 2-layer GPT-2 with a byte-level BPE tokenizer, saved as a 🤗 folder (random weights)."""
    from culturelab.models.tiny import build_tiny_gpt2

    return build_tiny_gpt2(CORPUS, tmp_path_factory.mktemp("tiny-gpt2"))


@pytest.fixture(scope="session")
def tiny_masked_dir(tmp_path_factory) -> Path:
    """A 2-layer BERT masked LM with a word-level tokenizer (random weights)."""
    from culturelab.models.tiny import build_tiny_bert

    return build_tiny_bert(CORPUS, tmp_path_factory.mktemp("tiny-bert"))


@pytest.fixture()
def serve_dir(tmp_path):
    """A loopback HTTP server over a fresh folder (stands in for the internet): ``(base_url, folder)``."""
    served = tmp_path / "served"
    served.mkdir()
    handler = partial(SimpleHTTPRequestHandler, directory=str(served))
    handler.log_message = lambda *a: None
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", served
    server.shutdown()

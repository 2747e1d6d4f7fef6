"""Shared fixtures: offline environment, a private cache per test session, and tiny randomly
initialised models (causal GPT-2 and masked BERT) built offline in seconds.

``make test`` runs the suite in two pytest-xdist workers (``-n 2 --dist loadscope``): a module's
tests run on one worker, so the smoke notebooks run once (one batch, the module fixture of
:mod:`tests.test_notebooks`; ``loadgroup`` marks are ignored by pytest-xdist 3.8 under pytest 9, which ran the
batch on both workers at once), and the tests that execute notebooks are handed out first, so their long runs overlap the many short unit tests instead of
ending the run on one busy core (:func:`pytest_collection_modifyitems`)."""

from __future__ import annotations

import os

for _k in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"):
    os.environ.setdefault(_k, "1")
os.environ.setdefault("MPLBACKEND", "Agg")

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


@pytest.hookimpl(tryfirst=True)  # before xdist reads the collection order
def pytest_collection_modifyitems(config, items) -> None:
    """Longest first for the xdist workers: the smoke batch (every test of ``test_notebooks.py``
    shares its module fixture; ``--dist loadscope`` keeps a module on one worker), then every other test that
    executes notebooks, then those that load a real bundled model, then the rest in file order.
    Without xdist the order is pytest's own."""
    if not hasattr(config, "workerinput"):  # not an xdist worker
        return
    items.sort(key=lambda item: (item.get_closest_marker("notebooks") is None,
                                 item.get_closest_marker("slow") is None))


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

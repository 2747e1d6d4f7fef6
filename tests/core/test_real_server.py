"""The ``openai-compatible:`` backend against a real server process serving the bundled SmolLM2 GGUF
(``benchmarks/check_real_server.py``: chat and completions, prompt log-probabilities or their refusal, retries,
concurrency). Skipped unless a server is at hand: ``CULTURELAB_LLAMA_SERVER`` (a ``llama-server`` binary) or
``CULTURELAB_SERVE_PYTHON`` (a Python with ``transformers[serving]``); the recorded runs are in benchmarks/README.md."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from culturelab import config


@pytest.mark.slow
def test_the_backend_passes_every_check_against_a_real_server(tmp_path):
    llama, python = os.environ.get("CULTURELAB_LLAMA_SERVER"), os.environ.get("CULTURELAB_SERVE_PYTHON")
    if not (llama or python):
        pytest.skip("no real server: set CULTURELAB_LLAMA_SERVER or CULTURELAB_SERVE_PYTHON")
    out = tmp_path / "checks.json"
    server = ["--llama-server", llama] if llama else ["--python", python]
    run = subprocess.run([sys.executable, str(config.project_root() / "benchmarks" / "check_real_server.py"), *server,
                          "--json", str(out)], capture_output=True, text=True, timeout=3600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert json.loads(out.read_text())["all_ok"]

"""The response cache: a run killed with SIGKILL resumes with identical results and no lost or
duplicated rows; concurrent writer processes do not corrupt it; keys separate models."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from culturelab.models.cache import ResponseCache, _enable_wal

SCRIPT = textwrap.dedent("""
    import json, sys, time
    from culturelab.models.hf import HFCausalLM
    model_dir, out = sys.argv[1], sys.argv[2]
    model = HFCausalLM(model_dir, device="cpu", progress=False, chunk_size=4)
    slow = model._generate
    def paced(prompts, **kw):           # a slow model, so the test can kill it mid-way
        time.sleep(0.15)
        return slow(prompts, **kw)
    model._generate = paced
    prompts = [f"rice is cooked with {i} cups of" for i in range(48)]
    texts = model.generate(prompts, max_new_tokens=5)
    json.dump({"texts": texts, "computed": model.stats.computed}, open(out, "w"))
""")


def _run(args, env):
    return subprocess.Popen([sys.executable, "-c", SCRIPT, *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


def _rows(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=30) as conn:
            return conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def test_killed_run_resumes_with_identical_results(tiny_causal_dir, tmp_path):
    env = {**os.environ, "CULTURELAB_CACHE": str(tmp_path / "killed")}
    db = tmp_path / "killed" / "responses.sqlite"
    proc = _run([str(tiny_causal_dir), str(tmp_path / "a.json")], env)
    deadline = time.time() + 120
    while _rows(db) < 12 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert proc.poll() is None, "the run finished before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done_before = _rows(db)
    assert 12 <= done_before < 48 and not (tmp_path / "a.json").exists()

    resumed = _run([str(tiny_causal_dir), str(tmp_path / "a.json")], env)
    assert resumed.wait(timeout=300) == 0, resumed.stderr.read().decode()[-2000:]
    result = json.loads((tmp_path / "a.json").read_text())
    assert result["computed"] == 48 - done_before  # nothing computed twice
    assert _rows(db) == 48  # nothing lost, nothing duplicated

    clean_env = {**os.environ, "CULTURELAB_CACHE": str(tmp_path / "clean")}
    clean = _run([str(tiny_causal_dir), str(tmp_path / "b.json")], clean_env)
    assert clean.wait(timeout=300) == 0
    assert json.loads((tmp_path / "b.json").read_text())["texts"] == result["texts"]


WRITER = textwrap.dedent("""
    import sys
    from culturelab.models.cache import ResponseCache, _enable_wal
    cache = ResponseCache(sys.argv[1])
    wid = int(sys.argv[2])
    for batch in range(40):
        # overlapping keys across writers, same value for the same key
        cache.put_many({f"k{(batch * 7 + j) % 150}": {"v": (batch * 7 + j) % 150} for j in range(10)})
        cache.put_many({f"w{wid}-{batch}": {"writer": wid}})
""")


def test_concurrent_writers_do_not_corrupt_the_cache(tmp_path):
    db = tmp_path / "shared.sqlite"
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(db), str(w)], stderr=subprocess.PIPE)
             for w in range(4)]
    for p in procs:
        assert p.wait(timeout=120) == 0, p.stderr.read().decode()[-2000:]
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    cache = ResponseCache(db)
    assert len(cache) == 150 + 4 * 40
    values = cache.get_many([f"k{i}" for i in range(150)])
    assert all(values[f"k{i}"] == {"v": i} for i in range(150))


def test_arrays_round_trip_and_keys_depend_on_every_field(tmp_path):
    import numpy as np

    cache = ResponseCache(tmp_path / "c.sqlite")
    key = cache.key({"model": "m", "revision": "1", "request": "r"})
    assert key != cache.key({"model": "m", "revision": "2", "request": "r"})
    cache.put_many({key: np.array([0.5, -1.25], dtype=np.float32)})
    np.testing.assert_array_equal(cache.get_many([key])[key], [0.5, -1.25])




class _FlakyConnection:
    """Answers a journal-mode change with ``error`` for the first ``failures`` calls."""

    def __init__(self, failures: int, error: str = "database is locked"):
        self.failures, self.error, self.calls = failures, error, 0

    def execute(self, sql: str) -> None:
        self.calls += 1
        if self.calls <= self.failures:
            raise sqlite3.OperationalError(self.error)


def test_switching_to_wal_waits_out_a_busy_database_and_gives_up_after_the_timeout():
    # SQLite answers "locked" to a journal-mode change without calling its busy handler, which is
    # what broke several processes opening one fresh cache at once
    conn = _FlakyConnection(failures=3)
    _enable_wal(conn, timeout_s=5)
    assert conn.calls == 4
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        _enable_wal(_FlakyConnection(failures=10**6), timeout_s=0.2)
    broken = _FlakyConnection(failures=1, error="disk I/O error")
    with pytest.raises(sqlite3.OperationalError, match="disk I/O"):  # other errors are not retried
        _enable_wal(broken, timeout_s=5)
    assert broken.calls == 1

"""On-disk response cache shared by every model backend.

One SQLite file (WAL mode) holds one row per request (or per request group: FMLAMA's millions of
cloze pairs are stored one row per query x candidate chunk, see ``LanguageModel.loglikelihood_groups``).
A request's key is the SHA-256 of the
canonical JSON of everything that determines the answer: backend, model id and revision,
request kind, the request itself and the decoding parameters. Rows are committed batch by
batch, so a run killed mid-way keeps everything it finished and resumes from there; SQLite's
locking keeps concurrent writers (several notebooks, several processes) from corrupting it.

>>> import tempfile, pathlib
>>> c = ResponseCache(pathlib.Path(tempfile.mkdtemp()) / "r.sqlite")
>>> k = c.key({"model": "m", "prompt": "hi"})
>>> c.get_many([k])
{}
>>> c.put_many({k: {"text": "hello"}}); c.get_many([k])[k]
{'text': 'hello'}
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

_SCHEMA = "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, value BLOB NOT NULL)"


def _encode(value: Any) -> bytes:
    if isinstance(value, np.ndarray):
        return b"N" + value.astype(np.float32).tobytes()
    return b"J" + json.dumps(value, ensure_ascii=False).encode("utf-8")


def _decode(blob: bytes) -> Any:
    tag, body = blob[:1], blob[1:]
    if tag == b"N":
        return np.frombuffer(body, dtype=np.float32).copy()
    return json.loads(body.decode("utf-8"))


def _enable_wal(conn: sqlite3.Connection, timeout_s: float) -> None:
    """Switch a new database to WAL mode, waiting out other processes doing the same.

    Changing the journal mode needs an exclusive lock and SQLite does not call the busy handler
    for it, so several processes opening a fresh cache at once would see "database is locked".
    """
    deadline = time.monotonic() + timeout_s
    delay = 0.01
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as err:
            if "locked" not in str(err) or time.monotonic() > deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.5)


class ResponseCache:
    """A process- and thread-safe key → response store in one SQLite file."""

    def __init__(self, path: str | Path, timeout_s: float = 120.0):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._timeout = timeout_s
        self._local = threading.local()
        with self._conn() as conn:
            conn.execute(_SCHEMA)

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=self._timeout, isolation_level=None)
            _enable_wal(conn, self._timeout)
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute(_SCHEMA)
            self._local.conn = conn
        return conn

    @staticmethod
    def key(payload: Mapping[str, Any]) -> str:
        """SHA-256 of the canonical JSON of ``payload``."""
        blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def get_many(self, keys: Iterable[str]) -> dict[str, Any]:
        """The cached values of those keys that are present."""
        keys = list(dict.fromkeys(keys))
        out: dict[str, Any] = {}
        conn = self._conn()
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for k, v in conn.execute(f"SELECT key, value FROM responses WHERE key IN ({marks})", chunk):
                out[k] = _decode(v)
        return out

    def put_many(self, items: Mapping[str, Any]) -> None:
        """Store values atomically (one transaction)."""
        if not items:
            return
        conn = self._conn()
        rows = [(k, _encode(v)) for k, v in items.items()]
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.executemany("INSERT OR REPLACE INTO responses (key, value) VALUES (?, ?)", rows)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def __len__(self) -> int:
        return self._conn().execute("SELECT COUNT(*) FROM responses").fetchone()[0]

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
import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

_SCHEMA = "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, value BLOB NOT NULL)"
#: set by the Ray executor (:mod:`culturelab.distributed.executor`) for each notebook it runs: the
#: SQLite file that notebook's answers go to, its own cache shard (:class:`ShardedCache`)
SHARD_ENV = "CULTURELAB_CACHE_SHARD"


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
    """A process- and thread-safe key → response store in one SQLite file (WAL mode, where readers
    and a writer do not block each other; ``wal=False``: SQLite's rollback journal, every committed
    row in the one file, for a file with one writer that is copied between machines)."""

    def __init__(self, path: str | Path, timeout_s: float = 120.0, *, wal: bool = True):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._timeout = timeout_s
        self._wal = wal
        self._local = threading.local()
        with self._conn() as conn:
            conn.execute(_SCHEMA)

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=self._timeout, isolation_level=None)
            if self._wal:
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


class ShardedCache(ResponseCache):
    """One worker's cache shard: answers are written to its own SQLite file (``path``, one writer)
    and read from there, then from ``base``, the run's cache, which only the driver writes
    (:func:`merge_into`); ``base`` is looked for again on each read until it exists.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp()); ResponseCache(d / "run.sqlite").put_many({"old": 1})
    >>> shard = ShardedCache(d / "shard.sqlite", d / "run.sqlite"); shard.put_many({"new": 2})
    >>> shard.get_many(["old", "new"]), len(ResponseCache(d / "run.sqlite"))
    ({'new': 2, 'old': 1}, 1)
    """

    def __init__(self, path: str | Path, base: str | Path, timeout_s: float = 120.0):
        super().__init__(path, timeout_s, wal=False)
        self.base_path = Path(base)
        self._base: ResponseCache | None = None

    def get_many(self, keys: Iterable[str]) -> dict[str, Any]:
        """The values of those keys in the shard, else in the run's cache."""
        keys = list(dict.fromkeys(keys))
        out = super().get_many(keys)
        if self._base is None and self.base_path.is_file():
            self._base = ResponseCache(self.base_path, self._timeout)
        if self._base is not None and len(out) < len(keys):
            out.update(self._base.get_many([k for k in keys if k not in out]))
        return out


def default_cache() -> ResponseCache:
    """The response cache a model uses unless given one: ``<cache>/responses.sqlite``, or in a
    notebook the Ray executor runs (``$CULTURELAB_CACHE_SHARD`` set) its own shard in front of it.

    >>> import unittest.mock
    >>> with unittest.mock.patch.dict(os.environ, {SHARD_ENV: ""}):
    ...     default_cache().path.name
    'responses.sqlite'
    """
    from culturelab import config

    base = config.cache_dir() / "responses.sqlite"
    shard = os.environ.get(SHARD_ENV)
    return ShardedCache(shard, base) if shard else ResponseCache(base)


def merge_into(base: str | Path, shard: str | Path) -> int:
    """Copy a shard's answers into the cache ``base`` in one transaction (SQLite ``ATTACH`` +
    ``INSERT OR IGNORE``: a key already there keeps its row); the number of rows added.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp()); ResponseCache(d / "a.sqlite").put_many({"k": 1, "j": 2})
    >>> ResponseCache(d / "b.sqlite").put_many({"k": 1})
    >>> merge_into(d / "b.sqlite", d / "a.sqlite"), len(ResponseCache(d / "b.sqlite"))
    (1, 2)
    """
    conn = ResponseCache(base)._conn()
    conn.execute("ATTACH DATABASE ? AS shard", (str(shard),))
    try:
        before = conn.total_changes
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute("INSERT OR IGNORE INTO responses (key, value) SELECT key, value FROM shard.responses")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return conn.total_changes - before
    finally:
        conn.execute("DETACH DATABASE shard")

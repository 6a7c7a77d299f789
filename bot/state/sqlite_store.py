"""SQLite store: one file, safe for several threads and processes: WAL, one statement or one short
transaction per operation, atomic SQL.

SQLite's own busy handler sleeps 1, 2, 5, 10 … 100 ms while another process holds the write lock;
in a burst that lands on the path that acks Slack. Here every operation retries itself instead,
0.2 ms at first, doubling to 5 ms, for up to 10 s.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from bot.state.models import PendingRequest, ThreadRecord
from bot.state.store import EVENT_TTL_SECONDS, PENDING_TTL_SECONDS, THREAD_TTL_SECONDS, Clock

# How long an operation waits for another process's write lock before it fails.
LOCK_WAIT_SECONDS = 10.0

Result = TypeVar("Result")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS seen (key TEXT PRIMARY KEY, expires_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS pending (id TEXT PRIMARY KEY, data TEXT NOT NULL, expires_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS threads (
    channel TEXT NOT NULL, thread_ts TEXT NOT NULL, data TEXT NOT NULL, expires_at REAL NOT NULL,
    PRIMARY KEY (channel, thread_ts)
);
CREATE TABLE IF NOT EXISTS hits (key TEXT NOT NULL, at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS hits_key_at ON hits (key, at);
"""


def _connect(path: str | Path, schema: str) -> sqlite3.Connection:
    # Opening may meet another process creating the same file: SQLite's handler covers that once.
    db = sqlite3.connect(str(path), timeout=LOCK_WAIT_SECONDS, check_same_thread=False, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    # WAL + NORMAL: a commit survives the process dying (what a restart needs) without an fsync per
    # write; FULL would put a disk flush on every claim made on the path that acks Slack.
    db.execute("PRAGMA synchronous=NORMAL")
    db.executescript(schema)
    db.execute("PRAGMA busy_timeout=0")  # from here on, `_Database.run` retries
    return db


def _locked(error: sqlite3.OperationalError) -> bool:
    return "locked" in str(error) or "busy" in str(error)


class _Database:
    """One connection shared by the threads of a process, one operation at a time."""

    def __init__(self, path: str | Path, schema: str) -> None:
        self._lock = threading.Lock()
        self.connection = _connect(path, schema)

    def run(self, operation: Callable[[sqlite3.Connection], Result]) -> Result:
        deadline = time.monotonic() + LOCK_WAIT_SECONDS
        pause = 0.0002
        while True:
            with self._lock:
                try:
                    return operation(self.connection)
                except sqlite3.OperationalError as error:
                    if self.connection.in_transaction:
                        self.connection.execute("ROLLBACK")
                    if not _locked(error) or time.monotonic() >= deadline:
                        raise
            time.sleep(pause)
            pause = min(pause * 2, 0.005)

    def close(self) -> None:
        with self._lock:
            self.connection.close()


class SqliteStore:
    def __init__(self, path: str | Path, *, clock: Clock = time.time) -> None:
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self.clock = clock
        self._state = _Database(path, _SCHEMA)

    def claim(self, key: str, *, ttl_seconds: int = EVENT_TTL_SECONDS) -> bool:
        now = self.clock()
        # Inserted, or taken over from an expired claim: one row changed. Held: none.
        cursor = self._state.run(
            lambda db: db.execute(
                "INSERT INTO seen (key, expires_at) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET expires_at = excluded.expires_at WHERE seen.expires_at <= ?",
                (key, now + ttl_seconds, now),
            )
        )
        return cursor.rowcount == 1

    def put_pending(self, pending: PendingRequest, *, ttl_seconds: int = PENDING_TTL_SECONDS) -> None:
        data, expires_at = pending.model_dump_json(), self.clock() + ttl_seconds
        self._state.run(
            lambda db: db.execute(
                "INSERT OR REPLACE INTO pending (id, data, expires_at) VALUES (?, ?, ?)",
                (pending.id, data, expires_at),
            )
        )

    def replace_pending(self, pending: PendingRequest, *, ttl_seconds: int = PENDING_TTL_SECONDS) -> bool:
        now, data = self.clock(), pending.model_dump_json()
        cursor = self._state.run(
            lambda db: db.execute(
                "UPDATE pending SET data = ?, expires_at = ? WHERE id = ? AND expires_at > ?",
                (data, now + ttl_seconds, pending.id, now),
            )
        )
        return cursor.rowcount == 1

    def get_pending(self, pending_id: str) -> PendingRequest | None:
        now = self.clock()
        row = self._state.run(
            lambda db: db.execute(
                "SELECT data FROM pending WHERE id = ? AND expires_at > ?", (pending_id, now)
            ).fetchone()
        )
        return PendingRequest.model_validate_json(row[0]) if row else None

    def take_pending(self, pending_id: str) -> PendingRequest | None:
        now = self.clock()
        row = self._state.run(
            lambda db: db.execute(
                "DELETE FROM pending WHERE id = ? AND expires_at > ? RETURNING data", (pending_id, now)
            ).fetchone()
        )
        return PendingRequest.model_validate_json(row[0]) if row else None

    def put_thread(self, record: ThreadRecord, *, ttl_seconds: int = THREAD_TTL_SECONDS) -> None:
        thread_ts = record.place.thread_ts or record.place.status_ts
        if thread_ts is None:
            raise ValueError("a thread record needs a thread")
        row = (record.place.channel, thread_ts, record.model_dump_json(), self.clock() + ttl_seconds)
        self._state.run(
            lambda db: db.execute(
                "INSERT OR REPLACE INTO threads (channel, thread_ts, data, expires_at) VALUES (?, ?, ?, ?)",
                row,
            )
        )

    def get_thread(self, channel: str, thread_ts: str) -> ThreadRecord | None:
        now = self.clock()
        row = self._state.run(
            lambda db: db.execute(
                "SELECT data FROM threads WHERE channel = ? AND thread_ts = ? AND expires_at > ?",
                (channel, thread_ts, now),
            ).fetchone()
        )
        return ThreadRecord.model_validate_json(row[0]) if row else None

    def allow(self, key: str, *, limit: int, window_seconds: int) -> bool:
        now = self.clock()

        def count_and_add(db: sqlite3.Connection) -> bool:
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute("DELETE FROM hits WHERE key = ? AND at <= ?", (key, now - window_seconds))
                (count,) = db.execute("SELECT COUNT(*) FROM hits WHERE key = ?", (key,)).fetchone()
                allowed = bool(count < limit)
                if allowed:
                    db.execute("INSERT INTO hits (key, at) VALUES (?, ?)", (key, now))
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
            return allowed

        return self._state.run(count_and_add)

    def purge(self) -> None:
        """Drop expired rows (called now and then; reads already ignore them)."""
        now = self.clock()

        def delete_expired(db: sqlite3.Connection) -> None:
            for table in ("seen", "pending", "threads"):
                db.execute(f"DELETE FROM {table} WHERE expires_at <= ?", (now,))

        self._state.run(delete_expired)

    def ping(self) -> bool:
        try:
            self._state.run(lambda db: db.execute("SELECT 1").fetchone())
        except sqlite3.Error:
            return False
        return True

    def close(self) -> None:
        self._state.close()

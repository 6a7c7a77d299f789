"""SQLite store: one file, safe for several threads and processes (WAL, busy timeout, atomic SQL)."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

from bot.state.models import InflightRequest, PendingRequest, ThreadRecord
from bot.state.store import (
    EVENT_TTL_SECONDS,
    INFLIGHT_TTL_SECONDS,
    PENDING_TTL_SECONDS,
    THREAD_TTL_SECONDS,
    Clock,
)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS seen (key TEXT PRIMARY KEY, expires_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS pending (id TEXT PRIMARY KEY, data TEXT NOT NULL, expires_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS threads (
    channel TEXT NOT NULL, thread_ts TEXT NOT NULL, data TEXT NOT NULL, expires_at REAL NOT NULL,
    PRIMARY KEY (channel, thread_ts)
);
CREATE TABLE IF NOT EXISTS inflight (id TEXT PRIMARY KEY, data TEXT NOT NULL, expires_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS hits (key TEXT NOT NULL, at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS hits_key_at ON hits (key, at);
"""


class SqliteStore:
    def __init__(self, path: str | Path, *, clock: Clock = time.time) -> None:
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self.clock = clock
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(path), timeout=10, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA busy_timeout=10000")
        self._db.executescript(_SCHEMA)

    def claim(self, key: str, *, ttl_seconds: int = EVENT_TTL_SECONDS) -> bool:
        now = self.clock()
        with self._lock:
            # Inserted, or taken over from an expired claim: one row changed. Held: none.
            cursor = self._db.execute(
                "INSERT INTO seen (key, expires_at) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET expires_at = excluded.expires_at WHERE seen.expires_at <= ?",
                (key, now + ttl_seconds, now),
            )
            return cursor.rowcount == 1

    def put_pending(self, pending: PendingRequest, *, ttl_seconds: int = PENDING_TTL_SECONDS) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO pending (id, data, expires_at) VALUES (?, ?, ?)",
                (pending.id, pending.model_dump_json(), self.clock() + ttl_seconds),
            )

    def get_pending(self, pending_id: str) -> PendingRequest | None:
        with self._lock:
            row = self._db.execute(
                "SELECT data FROM pending WHERE id = ? AND expires_at > ?", (pending_id, self.clock())
            ).fetchone()
        return PendingRequest.model_validate_json(row[0]) if row else None

    def take_pending(self, pending_id: str) -> PendingRequest | None:
        with self._lock:
            row = self._db.execute(
                "DELETE FROM pending WHERE id = ? AND expires_at > ? RETURNING data",
                (pending_id, self.clock()),
            ).fetchone()
        return PendingRequest.model_validate_json(row[0]) if row else None

    def put_thread(self, record: ThreadRecord, *, ttl_seconds: int = THREAD_TTL_SECONDS) -> None:
        thread_ts = record.place.thread_ts or record.place.status_ts
        if thread_ts is None:
            raise ValueError("a thread record needs a thread")
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO threads (channel, thread_ts, data, expires_at) VALUES (?, ?, ?, ?)",
                (record.place.channel, thread_ts, record.model_dump_json(), self.clock() + ttl_seconds),
            )

    def get_thread(self, channel: str, thread_ts: str) -> ThreadRecord | None:
        with self._lock:
            row = self._db.execute(
                "SELECT data FROM threads WHERE channel = ? AND thread_ts = ? AND expires_at > ?",
                (channel, thread_ts, self.clock()),
            ).fetchone()
        return ThreadRecord.model_validate_json(row[0]) if row else None

    def put_inflight(self, record: InflightRequest, *, ttl_seconds: int = INFLIGHT_TTL_SECONDS) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO inflight (id, data, expires_at) VALUES (?, ?, ?)",
                (record.id, record.model_dump_json(), self.clock() + ttl_seconds),
            )

    def remove_inflight(self, inflight_id: str) -> None:
        with self._lock:
            self._db.execute("DELETE FROM inflight WHERE id = ?", (inflight_id,))

    def list_inflight(self) -> list[InflightRequest]:
        with self._lock:
            rows = self._db.execute(
                "SELECT data FROM inflight WHERE expires_at > ? ORDER BY expires_at", (self.clock(),)
            ).fetchall()
        return [InflightRequest.model_validate_json(row[0]) for row in rows]

    def allow(self, key: str, *, limit: int, window_seconds: int) -> bool:
        now = self.clock()
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute("DELETE FROM hits WHERE key = ? AND at <= ?", (key, now - window_seconds))
                (count,) = self._db.execute("SELECT COUNT(*) FROM hits WHERE key = ?", (key,)).fetchone()
                allowed = count < limit
                if allowed:
                    self._db.execute("INSERT INTO hits (key, at) VALUES (?, ?)", (key, now))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return bool(allowed)

    def purge(self) -> None:
        """Drop expired rows (called now and then; reads already ignore them)."""
        now = self.clock()
        with self._lock:
            for table in ("seen", "pending", "threads", "inflight"):
                self._db.execute(f"DELETE FROM {table} WHERE expires_at <= ?", (now,))

    def ping(self) -> bool:
        try:
            with self._lock:
                self._db.execute("SELECT 1").fetchone()
        except sqlite3.Error:
            return False
        return True

    def close(self) -> None:
        with self._lock:
            self._db.close()

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
    JOB_LEASE_SECONDS,
    PENDING_TTL_SECONDS,
    THREAD_TTL_SECONDS,
    ClaimedJob,
    Clock,
)

# How often an idle work process looks for a job (SQLite has no blocking read; Redis does).
JOB_POLL_SECONDS = 0.02

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
# The job queue lives in a file of its own beside the state: the web processes' writes (one per
# request, on the ack path) then never wait behind the work processes' conversation writes.
_JOBS_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    id INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT NOT NULL, held_until REAL NOT NULL DEFAULT 0,
    queued_at REAL NOT NULL DEFAULT 0, deliveries INTEGER NOT NULL DEFAULT 0
);
"""


def _connect(path: str | Path, schema: str) -> sqlite3.Connection:
    db = sqlite3.connect(str(path), timeout=10, check_same_thread=False, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA busy_timeout=10000")
    # WAL + NORMAL: a commit survives the process dying (what a restart needs) without an fsync per
    # write; FULL would put a disk flush on every queued job, on the path that acks Slack.
    db.execute("PRAGMA synchronous=NORMAL")
    db.executescript(schema)
    return db


def jobs_path(path: str | Path) -> str:
    """`state.sqlite3` → `state.jobs.sqlite3` (in memory: a second in-memory database)."""
    if str(path) == ":memory:":
        return ":memory:"
    state = Path(path)
    return str(state.with_name(f"{state.stem}.jobs{state.suffix or '.sqlite3'}"))


class SqliteStore:
    def __init__(self, path: str | Path, *, clock: Clock = time.time) -> None:
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self.clock = clock
        self._lock = threading.Lock()
        self._db = _connect(path, _SCHEMA)
        self._jobs_lock = threading.Lock()
        self._jobs = _connect(jobs_path(path), _JOBS_SCHEMA)

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

    def replace_pending(self, pending: PendingRequest, *, ttl_seconds: int = PENDING_TTL_SECONDS) -> bool:
        now = self.clock()
        with self._lock:
            cursor = self._db.execute(
                "UPDATE pending SET data = ?, expires_at = ? WHERE id = ? AND expires_at > ?",
                (pending.model_dump_json(), now + ttl_seconds, pending.id, now),
            )
        return cursor.rowcount == 1

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

    def push_job(self, body: str) -> str:
        with self._jobs_lock:
            cursor = self._jobs.execute(
                "INSERT INTO jobs (body, queued_at) VALUES (?, ?)", (body, self.clock())
            )
        return str(cursor.lastrowid)

    def claim_job(
        self, *, lease_seconds: int = JOB_LEASE_SECONDS, wait_seconds: float = 1.0
    ) -> ClaimedJob | None:
        deadline = time.monotonic() + wait_seconds
        while True:
            now = self.clock()
            with self._jobs_lock:
                # A read first: an idle poll never takes the write lock the web processes need.
                waiting = self._jobs.execute(
                    "SELECT 1 FROM jobs WHERE held_until <= ? LIMIT 1", (now,)
                ).fetchone()
            if waiting is None:
                if time.monotonic() >= deadline:
                    return None
                time.sleep(JOB_POLL_SECONDS)
                continue
            with self._jobs_lock:
                # One statement: two work processes never take the same job.
                row = self._jobs.execute(
                    "UPDATE jobs SET held_until = ?, deliveries = deliveries + 1 WHERE id = "
                    "(SELECT id FROM jobs WHERE held_until <= ? ORDER BY id LIMIT 1) "
                    "RETURNING id, body, deliveries",
                    (now + lease_seconds, now),
                ).fetchone()
            if row is not None:
                return ClaimedJob(id=str(row[0]), body=str(row[1]), deliveries=int(row[2]))
            if time.monotonic() >= deadline:
                return None
            time.sleep(JOB_POLL_SECONDS)

    def finish_job(self, job_id: str) -> None:
        with self._jobs_lock:
            self._jobs.execute("DELETE FROM jobs WHERE id = ?", (int(job_id),))

    def queued_jobs(self) -> int:
        with self._jobs_lock:
            (count,) = self._jobs.execute("SELECT COUNT(*) FROM jobs").fetchone()
        return int(count)

    def oldest_waiting_job_seconds(self) -> float | None:
        now = self.clock()
        with self._jobs_lock:
            (oldest,) = self._jobs.execute(
                "SELECT MIN(queued_at) FROM jobs WHERE held_until <= ?", (now,)
            ).fetchone()
        return None if oldest is None else max(0.0, now - float(oldest))

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
        with self._jobs_lock:
            self._jobs.close()

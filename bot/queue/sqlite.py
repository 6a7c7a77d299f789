"""huey's SQLite storage as the bot's processes share it: WAL with `synchronous=NORMAL`, and a
write lock that is waited for in fractions of a millisecond.

Every queue operation is a write transaction of its own (a task queued, taken, recorded as
running, a checkpoint, the end of a run: about seven per request), and the web side's threads
and the worker's share one connection per queue, one operation at a time. Two SQLite defaults
made that the bot's bottleneck:

- `synchronous=FULL` flushes the disk at every commit (10-15 ms on a shared VM's disk, with
  the write lock held meanwhile): a burst of 200 requests queued behind 2,800 flushes. With WAL,
  `NORMAL` keeps every commit across the death of any process (a kill, an OOM, a restart: what
  the queue must survive) and flushes at checkpoints; an OS crash or power cut can lose the last
  commits, the same bound as Redis's default `appendfsync everysec`. WAL keeps commits in order,
  so what survives is what the processes had done up to a moment, which redelivery handles as it
  handles a worker killed at that moment.
  (https://www.sqlite.org/pragma.html#pragma_synchronous, https://www.sqlite.org/wal.html)
- SQLite's busy handler sleeps 1, 2, 5, 10 … 100 ms while another connection holds the write
  lock, holding this queue's lock (and so every thread of the process) meanwhile. Here `begin`
  is retried instead, 0.2 ms at first, doubling to 5 ms, for up to the storage's timeout, with
  the lock released between tries (as the bot's state store does).
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Iterator

from huey.constants import EmptyData
from huey.storage import SqliteStorage

from bot.queue import taken

FIRST_PAUSE_SECONDS = 0.0002
LONGEST_PAUSE_SECONDS = 0.005


def _locked(error: sqlite3.OperationalError) -> bool:
    return "locked" in str(error) or "busy" in str(error)


class QueueStorage(SqliteStorage):  # type: ignore[misc]
    """`SqliteStorage` with `synchronous=NORMAL` and its own short retries of a locked file; a
    worker's storage (`holder` set) keeps what it takes until it runs (bot.queue.taken)."""

    holder: str | None = None

    def dequeue(self) -> bytes | None:
        if self.holder is None:
            data: bytes | None = super().dequeue()
            return data
        self.forget_taken()  # a task taken and then skipped (revoked, expired) by the consumer
        if not self.sql("select 1 from task where queue = ? limit 1", (self.name,), results=True):
            return None
        with self.db(commit=True) as cursor:
            cursor.execute(
                "select id, data from task where queue = ? order by priority desc, id limit 1", (self.name,)
            )
            row = cursor.fetchone()
            if row is None:
                return None
            task_row, message = row
            cursor.execute("delete from task where id = ?", (task_row,))
            if cursor.rowcount != 1:
                return None
            key = f"{taken.TAKEN}{self.holder}:{task_row}"
            cursor.execute(
                "insert or replace into kv (queue, key, value) values (?, ?, ?)", (self.name, key, message)
            )
        taken.set_pending(key)
        return bytes(message)

    def forget_taken(self) -> None:
        key = taken.pending()
        if isinstance(key, str):
            taken.set_pending(None)
            self.delete_data(key)

    def pop_taken(self, holder: str) -> Iterator[bytes]:
        prefix = f"{taken.TAKEN}{holder}:"
        rows = self.sql(
            "select key from kv where queue = ? and substr(key, 1, ?) = ? order by key",
            (self.name, len(prefix), prefix),
            results=True,
        )
        for (key,) in rows:
            message = self.pop_data(key)
            if message is not EmptyData:
                yield bytes(message)

    def _create_connection(self) -> sqlite3.Connection:
        connection: sqlite3.Connection = super()._create_connection()
        connection.execute("pragma synchronous=NORMAL")
        connection.execute("pragma busy_timeout=0")  # from here on, `db` retries
        return connection

    @contextlib.contextmanager
    def db(self, commit: bool = False, close: bool = False) -> Iterator[sqlite3.Cursor]:
        deadline = time.monotonic() + self._timeout
        pause = FIRST_PAUSE_SECONDS
        while True:
            self.lock.acquire()
            cursor: sqlite3.Cursor | None = None
            try:
                connection: sqlite3.Connection = self.conn
                cursor = connection.cursor()
                if commit:
                    cursor.execute(self.begin_sql)
                break
            except sqlite3.OperationalError as error:
                if cursor is not None:
                    cursor.close()
                self.lock.release()
                if not _locked(error) or time.monotonic() >= deadline:
                    raise
            except BaseException:
                if cursor is not None:
                    cursor.close()
                self.lock.release()
                raise
            time.sleep(pause)
            pause = min(pause * 2, LONGEST_PAUSE_SECONDS)
        try:
            yield cursor
        except BaseException:
            if commit:
                connection.rollback()
            raise
        else:
            if commit:
                connection.commit()
        finally:
            cursor.close()
            if close:
                connection.close()
                self._conn = None
            self.lock.release()

"""A task between the moment a worker takes it off its queue and the moment it is recorded as
running (bot.queue.redelivery) is kept under the worker's name, so that a worker killed in that
moment does not lose it.

huey's storages remove a task from the queue as they hand it to a worker (SQLite: a `delete` in
the dequeue's transaction; Redis: `BRPOP`); the running record is written afterwards, by a
pre-execute hook. A worker killed in between (in a burst, one thread takes a task while another
thread's task takes the process down) would lose the task without trace. The bot's storages
take a task and write where it went in one atomic step (SQLite: the same transaction; Redis:
`BLMOVE` into a list of the worker's own, https://redis.io/docs/latest/commands/blmove/); the
hook forgets it once the running record is written, and the redelivery queues again what a
worker that is gone had taken and not started.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Protocol, runtime_checkable

TAKEN = "taken:"

# The entry this thread took last and has not forgotten yet (a thread runs one task at a time).
_this_thread = threading.local()


@runtime_checkable
class TakingStorage(Protocol):
    """A storage that keeps what a worker took until it is recorded as running."""

    holder: str | None

    def forget_taken(self) -> None:
        """The task this thread took is recorded as running (or refused): its entry goes."""

    def pop_taken(self, holder: str) -> Iterator[bytes]:
        """The tasks `holder` (gone) took and never started, each removed atomically as it is
        handed over: one recoverer gets each."""


def pending() -> object | None:
    """What this thread took and has not forgotten: a storage's own handle, or None."""
    return getattr(_this_thread, "taken", None)


def set_pending(handle: object | None) -> None:
    _this_thread.taken = handle

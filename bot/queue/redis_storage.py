"""huey's Redis storage for a worker that keeps what it takes until it runs (bot.queue.taken): a
task is moved from the queue into a list of the worker's own with `BLMOVE` (one atomic, blocking
command, Redis 6.2+: an idle worker still sends no polling commands), and removed from that list
once it is recorded as running."""

from __future__ import annotations

from collections.abc import Iterator

from huey.storage import RedisStorage
from redis.exceptions import TimeoutError as RedisTimeout

from bot.queue import taken


class RedisQueueStorage(RedisStorage):  # type: ignore[misc]
    holder: str | None = None

    def _taken_list(self, holder: str) -> str:
        return f"huey.taken.{self.name}.{holder}"

    def dequeue(self) -> bytes | None:
        if self.holder is None:
            data: bytes | None = super().dequeue()
            return data
        self.forget_taken()  # a task taken and then skipped (revoked, expired) by the consumer
        into = self._taken_list(self.holder)
        try:
            if self.blocking:
                message = self.conn.blmove(self.queue_key, into, self.read_timeout, "RIGHT", "LEFT")
            else:
                message = self.conn.lmove(self.queue_key, into, "RIGHT", "LEFT")
        except RedisTimeout:  # empty until the timeout; a lost connection propagates for huey's backoff
            return None
        if message is None:
            return None
        taken.set_pending((into, message))
        return bytes(message)

    def forget_taken(self) -> None:
        handle = taken.pending()
        if isinstance(handle, tuple):
            taken.set_pending(None)
            into, message = handle
            self.conn.lrem(into, 1, message)

    def pop_taken(self, holder: str) -> Iterator[bytes]:
        into = self._taken_list(holder)
        while (message := self.conn.rpop(into)) is not None:
            yield bytes(message)

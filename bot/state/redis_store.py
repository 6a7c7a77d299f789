"""Redis store: shared by every replica; `SET NX EX` claims, `GETDEL` takes, a Lua sliding window."""

from __future__ import annotations

import time
import uuid
from typing import Any

import redis

from bot.state.models import PendingRequest, ThreadRecord
from bot.state.store import EVENT_TTL_SECONDS, PENDING_TTL_SECONDS, THREAD_TTL_SECONDS, Clock

# KEYS[1] = the sorted set; ARGV = now, window, limit, member. Atomic on the server.
_SLIDING_WINDOW = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
  redis.call('EXPIRE', KEYS[1], math.ceil(tonumber(ARGV[2])))
  return 1
end
return 0
"""


class RedisStore:
    def __init__(
        self, client: redis.Redis, *, namespace: str = "diagnose-bot", clock: Clock = time.time
    ) -> None:
        self.client = client
        self.namespace = namespace
        self.clock = clock
        self._window: Any = client.register_script(_SLIDING_WINDOW)

    @classmethod
    def from_url(cls, url: str, *, namespace: str = "diagnose-bot") -> RedisStore:
        client = redis.Redis.from_url(
            url, socket_timeout=5, socket_connect_timeout=5, health_check_interval=30
        )
        return cls(client, namespace=namespace)

    def _key(self, *parts: str) -> str:
        return ":".join((self.namespace, *parts))

    def claim(self, key: str, *, ttl_seconds: int = EVENT_TTL_SECONDS) -> bool:
        return bool(self.client.set(self._key("seen", key), "1", nx=True, ex=ttl_seconds))

    def put_pending(self, pending: PendingRequest, *, ttl_seconds: int = PENDING_TTL_SECONDS) -> None:
        self.client.set(self._key("pending", pending.id), pending.model_dump_json(), ex=ttl_seconds)

    def replace_pending(self, pending: PendingRequest, *, ttl_seconds: int = PENDING_TTL_SECONDS) -> bool:
        key = self._key("pending", pending.id)
        return bool(self.client.set(key, pending.model_dump_json(), ex=ttl_seconds, xx=True))

    def get_pending(self, pending_id: str) -> PendingRequest | None:
        raw = self.client.get(self._key("pending", pending_id))
        return PendingRequest.model_validate_json(raw) if raw else None

    def take_pending(self, pending_id: str) -> PendingRequest | None:
        raw = self.client.getdel(self._key("pending", pending_id))
        return PendingRequest.model_validate_json(raw) if raw else None

    def put_thread(self, record: ThreadRecord, *, ttl_seconds: int = THREAD_TTL_SECONDS) -> None:
        thread_ts = record.place.thread_ts or record.place.status_ts
        if thread_ts is None:
            raise ValueError("a thread record needs a thread")
        self.client.set(
            self._key("thread", record.place.channel, thread_ts), record.model_dump_json(), ex=ttl_seconds
        )

    def get_thread(self, channel: str, thread_ts: str) -> ThreadRecord | None:
        raw = self.client.get(self._key("thread", channel, thread_ts))
        return ThreadRecord.model_validate_json(raw) if raw else None

    def allow(self, key: str, *, limit: int, window_seconds: int) -> bool:
        now = self.clock()
        member = f"{now:.6f}:{uuid.uuid4().hex[:8]}"
        return bool(self._window(keys=[self._key("rate", key)], args=[now, window_seconds, limit, member]))

    def ping(self) -> bool:
        try:
            return bool(self.client.ping())
        except redis.RedisError:
            return False

    def close(self) -> None:
        self.client.close()

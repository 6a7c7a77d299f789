"""Redis store: shared by every replica; `SET NX EX` claims, `GETDEL` takes, a Lua sliding window."""

from __future__ import annotations

import time
import uuid
from typing import Any

import redis

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

# KEYS[1] = waiting ids, KEYS[2] = held ids; ARGV[1] = lease key prefix, ARGV[2] = lease seconds,
# ARGV[3] = delivery counter prefix. Returns {id, deliveries} or nil.
_CLAIM_JOB = """
local id = redis.call('LMOVE', KEYS[1], KEYS[2], 'RIGHT', 'LEFT')
if not id then
  return nil
end
redis.call('SET', ARGV[1] .. id, '1', 'EX', tonumber(ARGV[2]))
return {id, redis.call('INCR', ARGV[3] .. id)}
"""
# How often an idle work process looks for a job.
JOB_POLL_SECONDS = 0.02


class RedisStore:
    def __init__(
        self, client: redis.Redis, *, namespace: str = "diagnose-bot", clock: Clock = time.time
    ) -> None:
        self.client = client
        self.namespace = namespace
        self.clock = clock
        self._window: Any = client.register_script(_SLIDING_WINDOW)
        self._claim: Any = client.register_script(_CLAIM_JOB)

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

    def put_inflight(self, record: InflightRequest, *, ttl_seconds: int = INFLIGHT_TTL_SECONDS) -> None:
        self.client.set(self._key("inflight", record.id), record.model_dump_json(), ex=ttl_seconds)

    def remove_inflight(self, inflight_id: str) -> None:
        self.client.delete(self._key("inflight", inflight_id))

    def list_inflight(self) -> list[InflightRequest]:
        found: list[InflightRequest] = []
        for key in self.client.scan_iter(match=self._key("inflight", "*"), count=200):
            raw = self.client.get(key)
            if raw:  # Removed between the scan and the read: answered meanwhile.
                found.append(InflightRequest.model_validate_json(raw))
        return sorted(found, key=lambda record: record.created_at)

    def allow(self, key: str, *, limit: int, window_seconds: int) -> bool:
        now = self.clock()
        member = f"{now:.6f}:{uuid.uuid4().hex[:8]}"
        return bool(self._window(keys=[self._key("rate", key)], args=[now, window_seconds, limit, member]))

    # Jobs: the body under `job:<id>`, the id on the `jobs` list; a claim moves the id to `jobs:held`
    # (BLMOVE, atomic) and sets `job-lease:<id>` with the lease as its expiry. An id still held when
    # its lease key is gone belonged to a process that died: it goes back on the list.

    def push_job(self, body: str) -> str:
        # The id starts with the time it was queued (for the health check's oldest waiting job).
        job_id = f"{self.clock():.6f}-{uuid.uuid4().hex[:12]}"
        pipe = self.client.pipeline(transaction=True)
        pipe.set(self._key("job", job_id), body)
        pipe.lpush(self._key("jobs"), job_id)
        pipe.execute()
        return job_id

    def claim_job(
        self, *, lease_seconds: int = JOB_LEASE_SECONDS, wait_seconds: float = 1.0
    ) -> ClaimedJob | None:
        self._requeue_abandoned()
        deadline = time.monotonic() + wait_seconds
        while True:
            # The move and the lease in one script: no moment where a held id has no lease.
            claimed = self._claim(
                keys=[self._key("jobs"), self._key("jobs", "held")],
                args=[self._key("job-lease", ""), lease_seconds, self._key("job-deliveries", "")],
            )
            if claimed is not None:
                raw_id, deliveries = claimed
                job_id = raw_id.decode() if isinstance(raw_id, bytes) else str(raw_id)
                body = self.client.get(self._key("job", job_id))
                if body is not None:
                    text = body.decode() if isinstance(body, bytes) else str(body)
                    return ClaimedJob(id=job_id, body=text, deliveries=int(deliveries))
                self.finish_job(job_id)  # finished elsewhere meanwhile: nothing to run
                continue
            if time.monotonic() >= deadline:
                return None
            time.sleep(JOB_POLL_SECONDS)

    def _requeue_abandoned(self) -> None:
        held = self._key("jobs", "held")
        for raw_id in self.client.lrange(held, 0, -1):
            job_id = raw_id.decode() if isinstance(raw_id, bytes) else str(raw_id)
            if self.client.exists(self._key("job-lease", job_id)):
                continue
            # Only the process whose LREM removed it puts it back.
            if self.client.lrem(held, 1, job_id):
                self.client.rpush(self._key("jobs"), job_id)

    def finish_job(self, job_id: str) -> None:
        pipe = self.client.pipeline(transaction=True)
        pipe.lrem(self._key("jobs", "held"), 1, job_id)
        pipe.delete(
            self._key("job", job_id), self._key("job-lease", job_id), self._key("job-deliveries", job_id)
        )
        pipe.execute()

    def queued_jobs(self) -> int:
        return int(self.client.llen(self._key("jobs"))) + int(self.client.llen(self._key("jobs", "held")))

    def oldest_waiting_job_seconds(self) -> float | None:
        # Waiting ids run newest (left) to oldest (right); an abandoned one put back is older still.
        oldest = self.client.lindex(self._key("jobs"), -1)
        if oldest is None:
            return None
        queued_at = (oldest.decode() if isinstance(oldest, bytes) else str(oldest)).split("-", 1)[0]
        try:
            return max(0.0, self.clock() - float(queued_at))
        except ValueError:
            return None

    def ping(self) -> bool:
        try:
            return bool(self.client.ping())
        except redis.RedisError:
            return False

    def close(self) -> None:
        self.client.close()

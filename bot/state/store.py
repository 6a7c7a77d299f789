"""The store protocol and how one is chosen from the settings."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from bot.state.models import InflightRequest, PendingRequest, ThreadRecord

Clock = Callable[[], float]

# How long things are kept.
EVENT_TTL_SECONDS = 3600  # Slack retries within ~5 minutes; keep ids well past that.
PENDING_TTL_SECONDS = 7 * 86400
THREAD_TTL_SECONDS = 30 * 86400
INFLIGHT_TTL_SECONDS = 86400  # A diagnosis not answered within a day is not resumed.
# A bot that resumed a diagnosis holds it this long (longer than any run): a bot started meanwhile
# leaves it alone; one started later takes it over if it is still unanswered (that bot died too).
RESUME_LEASE_SECONDS = 900
# A work process holds a claimed job this long; a job it never finished (the process died) is handed
# to another work process after that. Jobs only start things (a diagnosis is then tracked as in-flight),
# so they end in seconds; the lease covers a Slack rate-limit wait or two.
JOB_LEASE_SECONDS = 300


@dataclass(frozen=True)
class ClaimedJob:
    """A queued job taken by one work process: its queue id (to finish it) and its JSON body."""

    id: str
    body: str
    # How many times it has been handed out, this time included (more than 1: a holder died).
    deliveries: int = 1


class StateStore(Protocol):
    def claim(self, key: str, *, ttl_seconds: int = EVENT_TTL_SECONDS) -> bool:
        """True for the first caller with this key within the TTL (all replicas), False afterwards."""
        ...

    def put_pending(self, pending: PendingRequest, *, ttl_seconds: int = PENDING_TTL_SECONDS) -> None: ...

    def replace_pending(self, pending: PendingRequest, *, ttl_seconds: int = PENDING_TTL_SECONDS) -> bool:
        """Overwrite a pending request that is still there; False (nothing written) once it was
        taken: an answer that came first is never undone."""
        ...

    def get_pending(self, pending_id: str) -> PendingRequest | None: ...

    def take_pending(self, pending_id: str) -> PendingRequest | None:
        """Remove and return: one answer resumes a request once, however often it is clicked."""
        ...

    def put_thread(self, record: ThreadRecord, *, ttl_seconds: int = THREAD_TTL_SECONDS) -> None: ...

    def get_thread(self, channel: str, thread_ts: str) -> ThreadRecord | None: ...

    def put_inflight(self, record: InflightRequest, *, ttl_seconds: int = INFLIGHT_TTL_SECONDS) -> None: ...

    def remove_inflight(self, inflight_id: str) -> None: ...

    def list_inflight(self) -> list[InflightRequest]: ...

    def allow(self, key: str, *, limit: int, window_seconds: int) -> bool:
        """Sliding-window rate limit: True (and counted) while fewer than `limit` hits in the window."""
        ...

    def push_job(self, body: str) -> str:
        """Queue a job (JSON) for the work processes, durably; returns its queue id."""
        ...

    def claim_job(
        self, *, lease_seconds: int = JOB_LEASE_SECONDS, wait_seconds: float = 1.0
    ) -> ClaimedJob | None:
        """The oldest job nobody holds (or whose holder's lease ran out), held for `lease_seconds`;
        waits up to `wait_seconds` for one, else None."""
        ...

    def finish_job(self, job_id: str) -> None:
        """The job ran: drop it from the queue."""
        ...

    def queued_jobs(self) -> int:
        """Jobs waiting or held (health and tests)."""
        ...

    def oldest_waiting_job_seconds(self) -> float | None:
        """How long the oldest job nobody holds has waited; None when none waits (health)."""
        ...

    def ping(self) -> bool: ...

    def close(self) -> None: ...

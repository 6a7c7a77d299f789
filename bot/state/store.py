"""The store protocol and how one is chosen from the settings."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from bot.state.models import PendingRequest, ThreadRecord

Clock = Callable[[], float]

# How long things are kept.
EVENT_TTL_SECONDS = 3600  # Slack retries within ~5 minutes; keep ids well past that.
PENDING_TTL_SECONDS = 7 * 86400
THREAD_TTL_SECONDS = 30 * 86400


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

    def allow(self, key: str, *, limit: int, window_seconds: int) -> bool:
        """Sliding-window rate limit: True (and counted) while fewer than `limit` hits in the window."""
        ...

    def ping(self) -> bool: ...

    def close(self) -> None: ...

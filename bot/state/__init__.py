"""Conversation state: pending questions, thread → diagnosis, seen Slack event ids, per-user rate limit.

SQLite (a file) by default; Redis when `REDIS_URL` is set, so several replicas share it. Claims use
`INSERT`-unique / `SET NX` so that exactly one replica (and one thread) wins a retried event.
"""

from __future__ import annotations

from pathlib import Path

from bot.state.models import PendingRequest, ThreadRecord
from bot.state.store import StateStore

__all__ = ["PendingRequest", "StateStore", "ThreadRecord", "open_store"]


def open_store(
    *, redis_url: str | None, sqlite_path: str | Path, namespace: str = "diagnose-bot"
) -> StateStore:
    """Redis when a URL is given (replicas share it), else the SQLite file; Redis is imported only then."""
    if redis_url:
        from bot.state.redis_store import RedisStore

        return RedisStore.from_url(redis_url, namespace=namespace)
    from bot.state.sqlite_store import SqliteStore

    return SqliteStore(sqlite_path)

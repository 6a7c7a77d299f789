"""Conversation state: pending questions, thread → diagnosis, seen Slack event ids, per-user rate limit.

SQLite (a file) by default; Redis when `REDIS_URL` is set, so several replicas share it. Claims use
`INSERT`-unique / `SET NX` so that exactly one replica (and one thread) wins a retried event.
"""

from __future__ import annotations

from bot.state.models import PendingRequest, ThreadRecord
from bot.state.store import StateStore, open_store

__all__ = ["PendingRequest", "StateStore", "ThreadRecord", "open_store"]

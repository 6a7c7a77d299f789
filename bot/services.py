"""What every listener and background task shares, and who/where a request comes from."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol

from bot.backends import DiagnosisBackend
from bot.background import Background
from bot.policy import GroupMembers, Policy
from bot.slack_client import Respond
from bot.state.models import AcceptedRequest
from bot.state.store import StateStore
from diagnosis.timeutil import pinned_now


def wall_clock() -> datetime:
    """The bot's 'now' for live diagnoses (DIAGNOSE_NOW pins it, as for the CLI)."""
    pinned = os.environ.get("DIAGNOSE_NOW")
    return pinned_now(pinned) if pinned else datetime.now(UTC)


class AcceptedQueue(Protocol):
    """Where an accepted diagnosis or scan waits for a worker (bot.tasks.BotTasks)."""

    def accept(self, request: AcceptedRequest) -> bool:
        """Queued; False (nothing queued) when too many already wait."""
        ...

    def waiting(self) -> int: ...

    def still_current(self) -> bool:
        """False when the task running on this thread was taken over by another worker."""
        ...

    def recalled(self, name: str) -> str | None:
        """What an earlier run of this thread's task (one whose worker died) remembered."""
        ...

    def remember(self, name: str, value: str) -> None: ...


@dataclass
class BotServices:
    backend: DiagnosisBackend
    store: StateStore
    policy: Policy
    queue: AcceptedQueue
    background: Background
    progress_interval: float = 2.0
    now: Callable[[], datetime] = wall_clock
    # user group id → member user ids (Slack usergroups.users.list), for policy rules naming groups.
    group_members: GroupMembers | None = None


@dataclass
class Asker:
    """Who asked, where: the channel, the thread to answer in (None = a new channel-level message),
    an explicit language, and the slash command's response_url sender when there is one."""

    user: str
    channel: str
    thread_ts: str | None = None
    lang: str | None = None
    respond: Respond | None = field(default=None, repr=False)

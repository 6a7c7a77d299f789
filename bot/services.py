"""What every listener and background task shares, and who/where a request comes from."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from bot.backends import DiagnosisBackend
from bot.policy import GroupMembers, Policy
from bot.slack_client import Respond
from bot.state.store import StateStore
from bot.worker import Worker
from diagnosis.timeutil import pinned_now


def wall_clock() -> datetime:
    """The bot's 'now' for live diagnoses (DIAGNOSE_NOW pins it, as for the CLI)."""
    pinned = os.environ.get("DIAGNOSE_NOW")
    return pinned_now(pinned) if pinned else datetime.now(UTC)


@dataclass
class BotServices:
    backend: DiagnosisBackend
    store: StateStore
    policy: Policy
    worker: Worker
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

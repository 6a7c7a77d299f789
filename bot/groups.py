"""User-group membership for policy rules that name groups (usergroups.users.list, cached)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from slack_sdk import WebClient
from slack_sdk.errors import SlackClientError

from bot.slack_client import slack_error

log = logging.getLogger("diagnose.bot")


class GroupMembers:
    def __init__(
        self, client: WebClient, *, ttl_seconds: float = 300, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.client = client
        self.ttl_seconds = ttl_seconds
        self.clock = clock
        self._cache: dict[str, tuple[float, set[str]]] = {}
        self._lock = threading.Lock()

    def __call__(self, group_id: str) -> set[str]:
        now = self.clock()
        with self._lock:
            cached = self._cache.get(group_id)
            if cached and now - cached[0] < self.ttl_seconds:
                return cached[1]
        try:
            response = self.client.usergroups_users_list(usergroup=group_id)
            members = {str(user) for user in response.get("users") or []}
        except SlackClientError as exc:
            # Unknown membership admits nobody through this group.
            log.warning("usergroups.users.list %s failed: %s", group_id, slack_error(exc))
            return set()
        with self._lock:
            self._cache[group_id] = (now, members)
        return members

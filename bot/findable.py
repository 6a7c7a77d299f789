"""Messages a task run again can find instead of posting them twice.

chat.postMessage has no idempotency key: a worker killed while Slack creates the message (or
before the task could remember its ts) leaves a message the next run knows nothing of, and that
run would post a second one. So before posting, the task remembers an intent (a key unique to
this message and the time), and posts the message with Slack message metadata carrying the key
(https://api.slack.com/metadata/using). A run that finds the intent but no ts looks for its own
message first, in the channel's recent history (conversations.history) or, in a thread, the
thread's replies (conversations.replies), both read with `include_all_metadata` from a little
before the intent, a page or two: found, that message is used; not found (or the lookup failed:
a missing scope, an error), the message is posted, since a request is never lost for a
duplicate it might avoid.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable
from typing import Any, Protocol

from slack_sdk import WebClient
from slack_sdk.errors import SlackClientError

from blocks.kit import SlackMessage
from bot.messaging import PostFailed, post, update
from bot.slack_client import slack_error

log = logging.getLogger("diagnose.bot")

# The metadata event type of the bot's messages (https://api.slack.com/metadata/using: an app's
# own event name); the payload holds only the random key.
EVENT_TYPE = "diagnose_message_posted"
# The lookup starts this long before the intent was written: the worker's clock and Slack's may
# differ by this much.
CLOCK_MARGIN_SECONDS = 60.0
PAGE_SIZE = 100
PAGES = 2


class Checkpoints(Protocol):
    """What the running task keeps for a run of it after this one dies (bot.queue.redelivery)."""

    def recalled(self, name: str) -> str | None: ...

    def remember(self, name: str, value: str) -> None: ...


def post_findable(
    client: WebClient,
    checkpoints: Checkpoints,
    name: str,
    *,
    channel: str,
    message: SlackMessage,
    thread_ts: str | None = None,
    clock: Callable[[], float] = time.time,
) -> str:
    """The ts of the task's message `name`: the one an earlier run posted (remembered, or found by
    its key), else a new one. Raises PostFailed as `post` does."""
    posted = checkpoints.recalled(name)
    if posted is not None:
        return posted
    intent = _intent(checkpoints.recalled(_intent_name(name)))
    if intent is None:
        key, since = uuid.uuid4().hex, clock()
        checkpoints.remember(_intent_name(name), f"{key}@{since:.6f}")
    else:
        key, since = intent
        found = find_posted(client, channel=channel, thread_ts=thread_ts, key=key, since=since)
        if found is not None:
            log.info("%s found in %s: posted by an earlier run whose worker stopped", name, channel)
            checkpoints.remember(name, found)
            return found
    ts = post(
        client,
        channel=channel,
        thread_ts=thread_ts,
        message=message,
        metadata={"event_type": EVENT_TYPE, "event_payload": {"key": key}},
    )
    checkpoints.remember(name, ts)
    return ts


def replace_or_post_findable(
    client: WebClient,
    checkpoints: Checkpoints,
    name: str,
    *,
    channel: str,
    ts: str | None,
    thread_ts: str | None,
    message: SlackMessage,
) -> str | None:
    """`messaging.replace_or_post` for a task's message `name`: the message an earlier run showed
    is not shown again, and one it posted anew (the update failed) is found instead of posted twice.
    Replacing `ts` again is the same message, so only the post needs the intent."""
    shown = checkpoints.recalled(name)
    if shown is not None:
        return shown
    if ts and update(client, channel=channel, ts=ts, message=message):
        checkpoints.remember(name, ts)
        return ts
    try:
        return post_findable(client, checkpoints, name, channel=channel, thread_ts=thread_ts, message=message)
    except PostFailed as exc:
        log.warning("chat.postMessage to %s failed: %s", channel, exc.error)
        return None


def find_posted(
    client: WebClient, *, channel: str, thread_ts: str | None, key: str, since: float
) -> str | None:
    """The ts of the bot's message carrying `key`, posted after `since` (less the clock margin) at
    the top of `channel` or in the thread `thread_ts`; None when not found or the lookup failed."""
    oldest = f"{max(0.0, since - CLOCK_MARGIN_SECONDS):.6f}"
    method = "conversations.replies" if thread_ts else "conversations.history"
    cursor: str | None = None
    try:
        for _page in range(PAGES):
            arguments: dict[str, Any] = {
                "channel": channel,
                "oldest": oldest,
                "include_all_metadata": True,
                "limit": PAGE_SIZE,
            }
            if cursor:
                arguments["cursor"] = cursor
            if thread_ts:
                response = client.conversations_replies(ts=thread_ts, **arguments)
            else:
                response = client.conversations_history(**arguments)
            messages = response.get("messages")
            for item in messages if isinstance(messages, list) else []:
                if isinstance(item, dict) and _carries(item, key) and item.get("ts"):
                    return str(item["ts"])
            following = response.get("response_metadata")
            cursor = following.get("next_cursor") if isinstance(following, dict) else None
            if not response.get("has_more") or not cursor:
                return None
    except SlackClientError as exc:
        log.warning(
            "%s in %s failed (%s): the message is posted again, perhaps twice",
            method,
            channel,
            slack_error(exc),
        )
    return None


def _carries(message: dict[str, Any], key: str) -> bool:
    metadata = message.get("metadata")
    if not message.get("bot_id") or not isinstance(metadata, dict):
        return False
    payload = metadata.get("event_payload")
    return (
        metadata.get("event_type") == EVENT_TYPE and isinstance(payload, dict) and payload.get("key") == key
    )


def _intent_name(name: str) -> str:
    return f"{name}.intent"


def _intent(value: str | None) -> tuple[str, float] | None:
    """(key, since) of a remembered intent; None if there is none (or it is unreadable)."""
    if not value:
        return None
    key, _, since = value.partition("@")
    try:
        return key, float(since)
    except ValueError:
        return None

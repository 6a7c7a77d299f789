"""Plain replies in a report's thread (`evidence`, `rerun`, a new question …).

A mention in a channel where the bot reads messages arrives twice: as `app_mention` and as
`message` (different event ids, same channel and ts). Mentions are answered by the mention
listener; both claim `(channel, ts)` so that only one ever answers.
"""

from __future__ import annotations

from typing import Any

from slack_bolt import BoltContext
from slack_sdk import WebClient

from bot.mentions import mentions_user
from bot.runtime import Runtime, runtime_of
from bot.tasks import AskerRef, tasks_of

# Subtypes that are people writing; edits, joins, bot posts and the like are ignored.
HUMAN_SUBTYPES = (None, "thread_broadcast", "file_share")


def claim_message(runtime: Runtime, channel: str, ts: str) -> bool:
    return runtime.services.store.claim(f"message:{channel}:{ts}")


def thread_message(event: dict[str, Any], client: WebClient, context: BoltContext) -> None:
    if event.get("subtype") not in HUMAN_SUBTYPES or event.get("bot_id"):
        return
    thread_ts = event.get("thread_ts")
    ts = event.get("ts")
    channel = event.get("channel")
    if not thread_ts or not ts or not channel or thread_ts == ts:
        return
    text = str(event.get("text") or "")
    bot_user_id = context.bot_user_id
    if bot_user_id and mentions_user(text, bot_user_id):
        return
    runtime = runtime_of(context)
    record = runtime.services.store.get_thread(str(channel), str(thread_ts))
    if record is None or not claim_message(runtime, str(channel), str(ts)):
        return
    asker = AskerRef(user=str(event.get("user") or ""), channel=str(channel), thread_ts=str(thread_ts))
    tasks_of(context).text(text, asker, record=record, mentioned=False)

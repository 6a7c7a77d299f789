"""`@diagnose-bot …` in a channel or a thread: a request, a follow-up, or the usage."""

from __future__ import annotations

from typing import Any

from slack_bolt import BoltContext
from slack_sdk import WebClient

from bot.listeners.events.message import claim_message
from bot.mentions import strip_mentions
from bot.runtime import runtime_of
from bot.tasks import AskerRef, tasks_of


def app_mention(event: dict[str, Any], client: WebClient, context: BoltContext) -> None:
    runtime = runtime_of(context)
    channel = str(event.get("channel") or "")
    ts = str(event.get("ts") or "")
    if not channel or not ts or event.get("bot_id") or not claim_message(runtime, channel, ts):
        return
    thread_ts = event.get("thread_ts")
    store = runtime.services.store
    record = store.get_thread(channel, str(thread_ts)) if thread_ts else None
    text = strip_mentions(str(event.get("text") or ""), context.bot_user_id)
    # A mention at channel level is answered in its own thread.
    asker = AskerRef(user=str(event.get("user") or ""), channel=channel, thread_ts=str(thread_ts or ts))
    tasks_of(context).text(text, asker, record=record, mentioned=True)

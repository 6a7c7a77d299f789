from __future__ import annotations

from typing import Any

from slack_bolt import Ack, BoltContext
from slack_sdk import WebClient

from bot.jobs import CancelJob
from bot.listeners.actions.common import clicked_message_ts, clicker
from bot.runtime import runtime_of, submit


def answer_cancel(
    ack: Ack, body: dict[str, Any], action: dict[str, Any], client: WebClient, context: BoltContext
) -> None:
    ack()
    user, channel = clicker(body)
    runtime = runtime_of(context)
    pending_id = str(action.get("value") or "")
    job = CancelJob(pending_id=pending_id, user=user, channel=channel, prompt_ts=clicked_message_ts(body))
    submit(runtime, client, job)

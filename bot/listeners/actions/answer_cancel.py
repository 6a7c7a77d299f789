from __future__ import annotations

from typing import Any

from slack_bolt import Ack, BoltContext
from slack_sdk import WebClient

from bot.listeners.actions.common import clicked_message_ts, clicker
from bot.tasks import tasks_of


def answer_cancel(
    ack: Ack, body: dict[str, Any], action: dict[str, Any], client: WebClient, context: BoltContext
) -> None:
    ack()
    user, channel = clicker(body)
    pending_id = str(action.get("value") or "")
    tasks_of(context).cancel(pending_id, user=user, channel=channel, prompt_ts=clicked_message_ts(body))

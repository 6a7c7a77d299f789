"""A choice button or a select option answered a pending question."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, BoltContext
from slack_sdk import WebClient

from blocks.prompts import pending_id_from_block
from bot.listeners.actions.common import clicked_message_ts, clicker
from bot.tasks import tasks_of


def answer_choice(
    ack: Ack, body: dict[str, Any], action: dict[str, Any], client: WebClient, context: BoltContext
) -> None:
    ack()
    pending_id = pending_id_from_block(str(action.get("block_id") or ""))
    value = action.get("value") or (action.get("selected_option") or {}).get("value")
    if not pending_id or not value:
        return
    user, channel = clicker(body)
    tasks_of(context).answer(
        pending_id, str(value), user=user, channel=channel, prompt_ts=clicked_message_ts(body)
    )

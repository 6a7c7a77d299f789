"""Retry after a permission denial (the pending request names what to run again)."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, BoltContext
from slack_sdk import WebClient

from bot.listeners.actions.common import clicker
from bot.tasks import tasks_of


def retry(
    ack: Ack, body: dict[str, Any], action: dict[str, Any], client: WebClient, context: BoltContext
) -> None:
    ack()
    user, channel = clicker(body)
    tasks_of(context).retry(str(action.get("value") or ""), user=user, channel=channel)

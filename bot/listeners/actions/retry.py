"""Retry after a permission denial (the pending request names what to run again)."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, BoltContext
from slack_sdk import WebClient

from bot.listeners.actions.common import clicker
from bot.runtime import runtime_of


def retry(
    ack: Ack, body: dict[str, Any], action: dict[str, Any], client: WebClient, context: BoltContext
) -> None:
    ack()
    user, channel = clicker(body)
    runtime = runtime_of(context)
    runtime.services.worker.chat(
        runtime.answers.retry, client, str(action.get("value") or ""), user=user, channel=channel
    )

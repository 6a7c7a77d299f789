"""A typed answer (modal): checked in the ack, so a bad value keeps the modal open with the reason."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, BoltContext
from slack_sdk import WebClient

from blocks.labels import label
from blocks.prompts import ANSWER_INPUT_BLOCK
from bot.jobs import AnswerJob
from bot.listeners.views.common import is_identifier, metadata, submitted_value
from bot.runtime import runtime_of, submit


def answer_form(
    ack: Ack, body: dict[str, Any], view: dict[str, Any], client: WebClient, context: BoltContext
) -> None:
    value = submitted_value(view)
    if not is_identifier(value):
        ack(
            response_action="errors",
            errors={ANSWER_INPUT_BLOCK: label("modal_invalid", str(metadata(view).get("lang") or "en"))},
        )
        return
    ack()
    pending_id = str(metadata(view).get("pending") or "")
    user = str((body.get("user") or {}).get("id") or "")
    runtime = runtime_of(context)
    submit(runtime, client, AnswerJob(pending_id=pending_id, value=value, user=user, channel=None))

"""The task for the full-log link: the link goes to the submitter only: it is
a short-lived credential to the whole log."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, BoltContext
from slack_sdk import WebClient

from blocks.labels import label
from blocks.prompts import ANSWER_INPUT_BLOCK
from bot.listeners.views.common import is_identifier, metadata, submitted_value
from bot.runtime import runtime_of
from bot.tasks import tasks_of


def log_link_form(
    ack: Ack, body: dict[str, Any], view: dict[str, Any], client: WebClient, context: BoltContext
) -> None:
    task = submitted_value(view)
    if not is_identifier(task):
        ack(
            response_action="errors",
            errors={ANSWER_INPUT_BLOCK: label("modal_invalid", str(metadata(view).get("lang") or "en"))},
        )
        return
    ack()
    channel, _, thread_ts = str(metadata(view).get("thread") or "").partition("|")
    user = str((body.get("user") or {}).get("id") or "")
    runtime = runtime_of(context)
    record = runtime.services.store.get_thread(channel, thread_ts)
    if record is None:
        return
    tasks_of(context).log_link(record, task, user=user, channel=channel)

"""A typed answer (modal): checked in the ack, so a refused sender or a bad value keeps the modal
open with the reason. The sender and the channel the modal was opened from are checked against the
question's again (as the choice buttons are), whatever the modal's metadata says."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, BoltContext
from slack_sdk import WebClient

from blocks.labels import label
from blocks.prompts import ANSWER_INPUT_BLOCK
from bot import access
from bot.audit import audit
from bot.listeners.views.common import is_identifier, metadata, submitted_value
from bot.runtime import runtime_of
from bot.tasks import tasks_of


def answer_form(
    ack: Ack, body: dict[str, Any], view: dict[str, Any], client: WebClient, context: BoltContext
) -> None:
    value = submitted_value(view)
    meta = metadata(view)
    lang = str(meta.get("lang") or "en")
    pending_id = str(meta.get("pending") or "")
    channel = str(meta.get("channel") or "") or None
    user = str((body.get("user") or {}).get("id") or "")
    runtime = runtime_of(context)
    pending = runtime.services.store.get_pending(pending_id)
    refusal = (
        access.answer_refusal(pending, user=user, channel=channel)
        if pending is not None and pending.question is not None
        else None
    )
    if pending is not None and refusal is not None:
        ack(response_action="errors", errors={ANSWER_INPUT_BLOCK: label(refusal, lang)})
        audit(
            "answer",
            user=user,
            channel=channel or "",
            what=pending.draft.describe(),
            outcome="refused",
            reason=refusal,
        )
        return
    if not is_identifier(value):
        ack(response_action="errors", errors={ANSWER_INPUT_BLOCK: label("modal_invalid", lang)})
        return
    ack()
    tasks_of(context).answer(pending_id, value, user=user, channel=channel)

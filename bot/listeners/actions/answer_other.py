"""'Type another value…': open a modal at once (the trigger id lives 3 seconds), only for the
question's asker in the question's channel (as the choice buttons answer)."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, BoltContext
from slack_sdk import WebClient
from slack_sdk.errors import SlackClientError

from blocks.labels import label
from blocks.messages import notice
from blocks.prompts import answer_modal
from bot import access
from bot.answers import refused_answer
from bot.audit import audit
from bot.conversation import channel_lang, ui_lang
from bot.listeners.actions.common import clicker
from bot.runtime import runtime_of
from bot.slack_client import Notifier, modal_client, slack_error


def answer_other(
    ack: Ack, body: dict[str, Any], action: dict[str, Any], client: WebClient, context: BoltContext
) -> None:
    ack()
    runtime = runtime_of(context)
    user, channel = clicker(body)
    tell = Notifier(client, channel=channel, user=user).tell
    pending = runtime.services.store.get_pending(str(action.get("value") or ""))
    if pending is None or pending.question is None:
        runtime.services.background.run(
            tell, notice(label("already_answered", channel_lang(runtime.services, channel)))
        )
        return
    refusal = access.answer_refusal(pending, user=user, channel=channel)
    if refusal is not None:
        audit(
            "answer",
            user=user,
            channel=channel,
            what=pending.draft.describe(),
            outcome="refused",
            reason=refusal,
        )
        runtime.services.background.run(
            tell, refused_answer(refusal, lang=channel_lang(runtime.services, channel))
        )
        return
    lang = ui_lang(
        runtime.services,
        platform=pending.draft.platform,
        channel=pending.place.channel,
        explicit=pending.lang,
    )
    try:
        modal_client(client).views_open(
            trigger_id=str(body.get("trigger_id")),
            view=answer_modal(
                pending_id=pending.id,
                prompt=pending.question.prompt,
                lang=lang,
                channel=pending.place.channel,
            ),
        )
    except (SlackClientError, OSError) as exc:
        runtime.services.background.run(
            tell, notice(label("post_failed", lang, error=slack_error(exc)), emoji=":warning:")
        )

"""`/diagnose …`: ack at once (usage answers go in the ack itself), then hand off to the bot's pool."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, BoltContext, Respond
from slack_sdk import WebClient

from bot.audit import audit
from bot.conversation import channel_lang
from bot.grammar import DiagnoseCommand, ExplainCommand, ScanCommand, UsageProblem, parse_command
from bot.jobs import AskerRef, DiagnoseJob, ExplainJob, Job, ScanJob
from bot.router import usage_reply
from bot.runtime import runtime_of, submit


def diagnose_command(
    ack: Ack, command: dict[str, Any], client: WebClient, context: BoltContext, respond: Respond
) -> None:
    parsed = parse_command(str(command.get("text") or ""))
    if not isinstance(parsed, DiagnoseCommand | ExplainCommand | ScanCommand):
        # The help speaks the channel's language, like every other label.
        lang = channel_lang(runtime_of(context).services, str(command.get("channel_id") or ""))
        message = usage_reply(parsed, lang=lang)
        ack(text=message.text, blocks=message.blocks, response_type="ephemeral")
        audit(
            "command",
            user=str(command.get("user_id")),
            channel=str(command.get("channel_id")),
            what=str(command.get("text") or "")[:200],
            outcome="usage" if isinstance(parsed, UsageProblem) else "help",
        )
        return
    ack()
    asker = AskerRef(
        user=str(command.get("user_id")),
        channel=str(command.get("channel_id")),
        lang=getattr(parsed, "lang", None),
        response_url=getattr(respond, "response_url", None) or command.get("response_url") or None,
    )
    job: Job
    if isinstance(parsed, DiagnoseCommand):
        job = DiagnoseJob(draft=parsed.draft, asker=asker)
    elif isinstance(parsed, ExplainCommand):
        job = ExplainJob(code=parsed.code, asker=asker)
    else:
        job = ScanJob(command=parsed, asker=asker)
    submit(runtime_of(context), client, job)

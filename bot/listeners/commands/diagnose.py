"""`/diagnose …`: ack at once (usage answers go in the ack itself), then queue the request."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, BoltContext, Respond
from slack_sdk import WebClient

from bot.audit import audit
from bot.commands import DiagnoseCommand, ExplainCommand, ScanCommand, UsageProblem
from bot.conversation import channel_lang
from bot.grammar import parse_command
from bot.router import usage_reply
from bot.runtime import runtime_of
from bot.tasks import AskerRef, tasks_of


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
    tasks = tasks_of(context)
    if isinstance(parsed, DiagnoseCommand):
        tasks.diagnose(parsed.draft, asker)
    elif isinstance(parsed, ExplainCommand):
        tasks.explain(parsed.code, asker)
    else:
        tasks.scan(parsed, asker)

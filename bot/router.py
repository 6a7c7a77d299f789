"""Text from a mention or a thread reply → the right conversation step."""

from __future__ import annotations

from slack_sdk import WebClient

from blocks.kit import SlackMessage
from blocks.labels import label
from blocks.messages import notice, usage_message, usage_problem
from bot.audit import audit
from bot.commands import Command, DiagnoseCommand, ExplainCommand, HelpCommand, ScanCommand, UsageProblem
from bot.conversation import channel_lang
from bot.mentions import parse_follow_up, parse_mention
from bot.messaging import try_post
from bot.runtime import Runtime
from bot.services import Asker
from bot.state.models import ThreadRecord


def route_text(
    runtime: Runtime,
    client: WebClient,
    text: str,
    asker: Asker,
    *,
    record: ThreadRecord | None,
    mentioned: bool,
) -> None:
    """Runs on the chat pool. `record` is the diagnosis of the thread the text was posted in, if any.

    A follow-up word needs a report thread; a new question starts a diagnosis (in the thread when
    there is one); anything else is answered with the usage only when the bot was mentioned:
    people talk in threads, and a plain reply that asks nothing is left alone.
    """
    if record is not None:
        follow = parse_follow_up(text)
        if follow is not None:
            runtime.followups.answer(client, follow, record, asker)
            return
    command = parse_mention(text)
    if isinstance(command, DiagnoseCommand):
        runtime.conversation.start(
            client,
            command.draft,
            Asker(
                user=asker.user,
                channel=asker.channel,
                thread_ts=asker.thread_ts,
                lang=command.lang or asker.lang,
            ),
        )
        return
    if isinstance(command, ExplainCommand):
        runtime.followups.explain(client, command.code, asker)
        return
    if isinstance(command, ScanCommand):
        runtime.scans.start(
            client,
            command,
            Asker(
                user=asker.user,
                channel=asker.channel,
                thread_ts=asker.thread_ts,
                lang=command.lang or asker.lang,
            ),
        )
        return
    if not mentioned:
        return
    if record is None and asker.thread_ts and parse_follow_up(text) is not None:
        # A follow-up word in a thread whose diagnosis is no longer (or never was) stored.
        try_post(
            client,
            channel=asker.channel,
            thread_ts=asker.thread_ts,
            message=notice(label("no_thread_record", channel_lang(runtime.services, asker.channel))),
        )
        return
    if command is None or isinstance(command, HelpCommand | UsageProblem):
        audit(
            "mention",
            user=asker.user,
            channel=asker.channel,
            what=text[:200],
            outcome="usage" if isinstance(command, UsageProblem) else "help",
        )
        lang = channel_lang(runtime.services, asker.channel)
        try_post(
            client, channel=asker.channel, thread_ts=asker.thread_ts, message=usage_reply(command, lang=lang)
        )


def usage_reply(command: Command | None, *, lang: str) -> SlackMessage:
    """The help in the channel's language, under what was wrong with the words when something was.
    A text too long to read gets that one line, not the help."""
    if isinstance(command, UsageProblem) and command.code == "too_long":
        return notice(
            usage_problem(command.code, command.values, lang=lang, english=command.problem), emoji=":warning:"
        )
    problem = (
        usage_problem(command.code, command.values, lang=lang, english=command.problem)
        if isinstance(command, UsageProblem)
        else None
    )
    return usage_message(problem=problem, lang=lang)

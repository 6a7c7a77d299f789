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
from bot.slack_client import Notifier
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
    # A reply in a report's thread that does not address the bot is a command only with explicit
    # identifiers: a word of a sentence ("what about the weather?") is never a job's name.
    command = parse_mention(text, guess_subject=mentioned)
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
        if record is not None and asker.thread_ts:
            hint_once(runtime, client, asker)
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


def hint_once(runtime: Runtime, client: WebClient, asker: Asker) -> None:
    """A reply in a report's thread the bot does not understand: one line, to its writer only, once
    per person and thread (people also talk to each other there)."""
    if not runtime.services.store.claim(f"hint:{asker.channel}:{asker.thread_ts}:{asker.user}"):
        return
    lang = channel_lang(runtime.services, asker.channel)
    Notifier(client, channel=asker.channel, user=asker.user, thread_ts=asker.thread_ts).tell(
        notice(label("not_understood", lang), emoji=":information_source:")
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

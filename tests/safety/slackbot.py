"""The bot end to end for the safety suite: the harness of tests/bot (HTTP mode on a loopback port,
the fake Slack Web API, signed requests), with its log lines captured as production writes them.
"""

from __future__ import annotations

import io
import json
import logging
import sys
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from bot.backends import BundlesBackend, DiagnosisBackend
from bot.policy import Policy
from bot.state.sqlite_store import SqliteStore
from cli.bot import configure_logging
from diagnosis.bundle import Bundle
from playground.slack_api import Call, SlackApiStandIn, running_slack_api
from tests.bot.harness import BotUnderTest, running_bot
from tests.safety.outputs import strings_in

FOLLOW_UPS = ("evidence", "logs", "why", "history", "json")
_QUIETED = ("slack_bolt", "slack_bolt.App", "slack_sdk", "httpx")


@contextmanager
def production_logging(level: str = "DEBUG") -> Iterator[io.StringIO]:
    """The bot's logging exactly as `diagnose bot` sets it up (cli.bot.configure_logging: one handler
    with the masking filter), writing into a buffer; everything is put back afterwards."""
    root = logging.getLogger()
    saved_root = (root.handlers[:], root.level)
    saved = {name: (logging.getLogger(name).level, logging.getLogger(name).filters[:]) for name in _QUIETED}
    buffer = io.StringIO()
    stderr, sys.stderr = sys.stderr, buffer
    try:
        configure_logging(level)
    finally:
        sys.stderr = stderr
    try:
        yield buffer
    finally:
        root.handlers[:] = saved_root[0]
        root.setLevel(saved_root[1])
        for name, (logger_level, filters) in saved.items():
            logger = logging.getLogger(name)
            logger.setLevel(logger_level)
            logger.filters[:] = filters


def call_strings(calls: list[Call]) -> list[str]:
    """Every string the bot sent to Slack: message bodies (blocks decoded) and uploaded files."""
    found: list[str] = []
    for call in calls:
        body = dict(call.body)
        for key in ("blocks", "files", "view"):
            if isinstance(body.get(key), str):
                with suppress(ValueError):
                    body[key] = json.loads(body[key])
        body.pop("token", None)
        found.extend(strings_in(body))
        if call.method.startswith("upload/"):
            found.append(call.raw.decode("utf-8", errors="replace"))
    return found


@dataclass
class BotRun:
    api: SlackApiStandIn
    bot: BotUnderTest
    logs: io.StringIO

    def sent(self) -> list[str]:
        return call_strings(list(self.api.calls))

    def thread_of_next_command(self) -> int:
        return len(self.api.calls_to("chat.postMessage"))

    def ask(self, command: str, *, follow_ups: tuple[str, ...] = FOLLOW_UPS) -> str | None:
        """A slash command, then the thread follow-ups once the report is there; the thread ts."""
        before = self.thread_of_next_command()
        self.bot.slack.command(command)
        self.bot.idle(30)
        posts = [c for c in self.api.calls_to("chat.postMessage")[before:] if not c.body.get("thread_ts")]
        if not posts or not posts[0].response.get("ts"):
            return None
        thread = str(posts[0].response["ts"])
        for number, word in enumerate(follow_ups):
            self.bot.slack.thread_reply(word, ts=f"1767229{number:03d}.000{before:03d}", thread_ts=thread)
            self.bot.idle(30)
        return thread


@contextmanager
def bot_running(
    *, backend: DiagnosisBackend, policy: Policy | None = None, log_level: str = "DEBUG"
) -> Iterator[BotRun]:
    with ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="safety-bot-")))
        logs = stack.enter_context(production_logging(log_level))
        api = stack.enter_context(running_slack_api())
        store = SqliteStore(folder / "state.sqlite3")
        stack.callback(store.close)
        bot = stack.enter_context(running_bot(api, backend=backend, store=store, policy=policy))
        yield BotRun(api=api, bot=bot, logs=logs)


def bundles_backend(bundles: list[Bundle], folder: Path) -> BundlesBackend:
    """`diagnose bot --bundles DIR` over these bundles, written as files (unmasked: they are the input)."""
    for number, bundle in enumerate(bundles):
        path = folder / f"planted-{number:03d}.bundle.json"
        path.write_text(json.dumps(bundle.to_json_dict(), ensure_ascii=False), encoding="utf-8")
    return BundlesBackend(folder)


def unique_commands(backend: BundlesBackend) -> list[tuple[Bundle, str]]:
    """(bundle, slash command) for the bundles that exactly one command answers."""
    found: list[tuple[Bundle, str]] = []
    for bundle, draft in zip(backend.bundles, backend.drafts(), strict=True):
        if draft.missing() or len(backend.matches(draft)) != 1:
            continue
        found.append((bundle, draft.as_command()))
    return found

"""Text from Slack is parsed in linear time, and refused past a length cap with one clear line.

Any channel member can send these texts, and a message the parser chews on for seconds delays every
report behind it. Each parser gets 1 MiB of adversarial text under an alarm of many seconds: linear
code takes a fraction of a second; a quadratic pattern takes hours and trips the alarm loudly.
"""

from __future__ import annotations

import json
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

import pytest

from bot.commands import UsageProblem
from bot.grammar import parse_command
from bot.mentions import mentions_user, parse_follow_up, parse_mention, strip_mentions
from bot.policy import Policy, Rule
from bot.state.store import StateStore
from bot.words import MAX_TEXT_CHARS
from playground.slack_api import SlackApiStandIn
from tests.bot.examples import OOM, example_diagnosis
from tests.bot.harness import CHANNEL, ScriptedBackend, running_bot

MIB = 1024 * 1024
# Far above what linear parsing of 1 MiB needs on a loaded 2-core machine (well under a second),
# far below what a quadratic pattern needs (hours).
ALARM_SECONDS = 30


def repeated(unit: str, size: int = MIB) -> str:
    return (unit * (size // len(unit) + 1))[:size]


ADVERSARIAL: dict[str, str] = {
    "ab- runs": repeated("ab-"),
    "= runs": repeated("="),
    "quotes": repeated('"'),
    "unclosed quote then a long word": "job='" + repeated("a", MIB - 5),
    "mention runs": repeated("<@U0ALICE01> "),
    "unclosed bot mentions": repeated("<@U0DIAGBOT|"),
    "unclosed Slack references": repeated("<#C0INC0042|"),
    "key=value runs": repeated("step=1,loss=0.12,task=cls,"),
    "key=value words": repeated("cluster=a "),
    "region-shaped runs": repeated("cn-north-"),
    "keyword runs": repeated("cluster in project job "),
    "digits after last": "last " + repeated("1", MIB - 5),
    "one long word": repeated("a"),
}


class ParseAlarm(Exception):
    """The parser ran past the alarm: something on this path is not linear."""


@contextmanager
def alarm(seconds: float) -> Iterator[None]:
    def ring(signum: int, frame: FrameType | None) -> None:
        raise ParseAlarm(f"parsing 1 MiB took over {seconds} s")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


PARSERS: dict[str, Callable[[str], object]] = {
    "command": lambda text: parse_command(text, max_chars=None),
    "mention": lambda text: parse_mention(text, max_chars=None),
    "follow-up": lambda text: parse_follow_up(text, max_chars=None),
    "strip mentions": lambda text: strip_mentions(text, "U0DIAGBOT", max_chars=None),
    "mentions the bot": lambda text: mentions_user(text, "U0DIAGBOT"),
}


@pytest.mark.parametrize("parser", list(PARSERS))
@pytest.mark.parametrize("kind", list(ADVERSARIAL))
def test_1_mib_of_adversarial_text_is_parsed_in_linear_time_even_past_the_cap(kind: str, parser: str) -> None:
    """With the cap lifted, the parsers still go through 1 MiB: the cap is not the only guard."""
    with alarm(ALARM_SECONDS):
        PARSERS[parser](ADVERSARIAL[kind])


@pytest.mark.parametrize("kind", list(ADVERSARIAL))
def test_1_mib_of_adversarial_text_is_refused_as_too_long(kind: str) -> None:
    text = ADVERSARIAL[kind]
    with alarm(ALARM_SECONDS):
        as_command = parse_command(text)
        as_mention = parse_mention(text)
        as_follow_up = parse_follow_up(text)
    for parsed in (as_command, as_mention):
        assert isinstance(parsed, UsageProblem) and parsed.code == "too_long", parsed
        assert parsed.values == {"length": str(len(text)), "limit": str(MAX_TEXT_CHARS)}
    assert as_follow_up is None
    assert strip_mentions(text, "U0DIAGBOT") is text, "a text over the cap is not even scanned for mentions"


def test_the_cap_leaves_every_real_request_alone() -> None:
    longest_real = (
        "runai cluster=4a9e2c17-5b3d-4f80-9c61-2d7be0f4a315 workload=" + "w" * 199 + " project=" + "p" * 199
    )
    assert len(longest_real) < MAX_TEXT_CHARS
    assert not isinstance(parse_command(longest_real), UsageProblem)
    padded = "why did train-42 fail? " + " " * (MAX_TEXT_CHARS - 40)
    assert not isinstance(parse_mention(padded), UsageProblem)


def test_the_quadratic_case_from_the_report_is_an_ordinary_usage_answer() -> None:
    """`"ab-" * 13333` (40 kB, under Slack's own 40,000-character message limit) took seconds."""
    with alarm(ALARM_SECONDS):
        parsed = parse_mention("ab-" * 13333)
    assert isinstance(parsed, UsageProblem) and parsed.code == "too_long"
    with alarm(ALARM_SECONDS):
        # Past the cap it is nothing anyone asked: no identifier, so no request.
        assert parse_mention("ab-" * 13333, max_chars=None) is None


FRENCH = Policy(demo_only=True, languages={CHANNEL: "fr"}, rules=[Rule()])


def test_a_too_long_command_gets_one_line_in_the_channels_language(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    with running_bot(slack_api, backend=backend, store=sqlite_store, policy=FRENCH) as bot:
        reply = bot.slack.command("runai " + "ab-" * 13333)
        bot.idle()
    assert reply.status == 200
    answer = reply.json()
    assert answer["response_type"] == "ephemeral"
    assert len(answer["blocks"]) == 1, "one line, not the whole help"
    assert "trop long" in answer["text"] and str(MAX_TEXT_CHARS) in answer["text"]
    assert "\n" not in answer["text"]
    assert backend.requests == []


def test_a_too_long_mention_gets_one_line_in_its_thread(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    with running_bot(slack_api, backend=backend, store=sqlite_store, policy=FRENCH) as bot:
        bot.slack.mention("why did " + "ab-" * 13333 + " fail", ts="1767225600.000100")
        told = slack_api.wait_for("chat.postMessage")[0]
        bot.idle()
    assert told.body["thread_ts"] == "1767225600.000100"
    blocks = told.json_arg("blocks")
    assert len(blocks) == 1 and "trop long" in json.dumps(blocks, ensure_ascii=False)
    assert backend.requests == []

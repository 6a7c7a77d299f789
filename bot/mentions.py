"""@mention sentences and thread replies → a command, a follow-up, or nothing (the sentence itself is
read by `bot.sentence`)."""

from __future__ import annotations

import functools
import itertools
import re
from typing import Literal

from pydantic import BaseModel

from bot.commands import (
    Command,
    DiagnoseCommand,
    ExplainCommand,
    HelpCommand,
    ScanCommand,
    UsageProblem,
)
from bot.grammar import PLATFORM_WORDS, parse_command, too_long
from bot.sentence import parse_sentence
from bot.textpatterns import linear
from bot.words import MAX_TEXT_CHARS, unwrap_slack

FollowUpKind = Literal["evidence", "history", "logs", "json", "rerun", "why", "explain"]

FOLLOW_UP_WORDS: dict[str, FollowUpKind] = {
    "evidence": "evidence",
    "history": "history",
    "recurrence": "history",
    "logs": "logs",
    "log": "logs",
    "json": "json",
    "rerun": "rerun",
    "re-run": "rerun",
    "retry": "rerun",
    "again": "rerun",
    "why": "why",
    "explain": "explain",
}
_FOLLOW_UP_WORD = linear(r"[\p{L}\p{N}_:-]+")


class FollowUp(BaseModel):
    kind: FollowUpKind
    # `explain CODE [lang=xx]`: what to explain, in which language.
    code: str | None = None
    lang: str | None = None


@functools.lru_cache(maxsize=16)
def _mention_of(user_id: str) -> re.Pattern[str]:
    # As the Slack references in bot/grammar.py: a label stops at `<` or `>`, possessive, linear.
    return re.compile(rf"<@{re.escape(user_id)}(?:\|[^<>]*+)?>")


def mentions_user(text: str, user_id: str) -> bool:
    """Whether `text` mentions `user_id` (`<@U…>` or `<@U…|name>`)."""
    return _mention_of(user_id).search(text) is not None


def strip_mentions(text: str, bot_user_id: str | None, *, max_chars: int | None = MAX_TEXT_CHARS) -> str:
    """Drop the bot's own mention(s); other mentions become plain names. A text over `max_chars`
    is left as it is: it is answered as too long, unread."""
    if max_chars is not None and len(text) > max_chars:
        return text
    if bot_user_id:
        text = _mention_of(bot_user_id).sub(" ", text)
    return " ".join(unwrap_slack(text).split())


def parse_follow_up(text: str, *, max_chars: int | None = MAX_TEXT_CHARS) -> FollowUp | None:
    """`evidence`, `history`, `logs`, `json`, `rerun`, `why`, `explain 137` (a word or two, not a sentence).
    Text over `max_chars` is no follow-up (None lifts the cap)."""
    if too_long(text, max_chars=max_chars) is not None:
        return None
    # The first five words decide; the rest of the text is never split.
    words = [(word.group(0) or "").lower() for word in itertools.islice(_FOLLOW_UP_WORD.finditer(text), 5)]
    if not words or words[0] not in FOLLOW_UP_WORDS:
        return None
    kind = FOLLOW_UP_WORDS[words[0]]
    if kind == "explain":
        # `explain CODE [lang=xx]` as /diagnose takes it (a code may hold dots: APIGW.0301).
        command = parse_command(text.strip(), max_chars=None)
        if isinstance(command, ExplainCommand):
            return FollowUp(kind="explain", code=command.code, lang=command.lang)
        return None
    if len(words) > 4:
        return None
    return FollowUp(kind=kind)


def parse_mention(
    text: str, *, max_chars: int | None = MAX_TEXT_CHARS, guess_subject: bool = True
) -> Command | None:
    """A mention's text (bot mention already stripped) → a command, or None when nothing was asked.
    Text over `max_chars` gets the `too_long` usage answer unread (None lifts the cap).
    `guess_subject=False` (a thread reply that does not address the bot): the subject of a sentence
    ("what about the weather") is never taken for a job; only explicit identifiers count."""
    refused = too_long(text, max_chars=max_chars)
    if refused is not None:
        return refused
    cleaned = text.strip().rstrip("?!.")
    if not cleaned:
        return HelpCommand()
    first = cleaned.split(maxsplit=1)[0].lower()
    if first in ("help", "explain", "scan") or first in PLATFORM_WORDS or "=" in cleaned:
        parsed = parse_command(cleaned, max_chars=None)
        if not isinstance(parsed, UsageProblem) or "=" in cleaned or first in ("help", "explain", "scan"):
            return parsed
    return parse_sentence(cleaned, guess_subject=guess_subject)


__all__ = [
    "Command",
    "DiagnoseCommand",
    "ExplainCommand",
    "FollowUp",
    "HelpCommand",
    "ScanCommand",
    "mentions_user",
    "parse_follow_up",
    "parse_mention",
    "strip_mentions",
]

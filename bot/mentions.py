"""@mention sentences and thread replies → a command, a follow-up, or nothing.

Only explicit identifiers are taken: `cluster X`, `project X` / `in X`, `job X`, `workload X`,
`region X` or a region-shaped word, a UUID, and the subject of "why did X fail" / "is X
crash-looping". A crash-loop wording asks for the active-symptom path (`intent=active`).
"""

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
    RequestDraft,
    ScanCommand,
    UsageProblem,
)
from bot.grammar import PLATFORM_WORDS, parse_command, too_long
from bot.textpatterns import TextMatch, TextPattern, escape, linear
from bot.words import MAX_TEXT_CHARS, REGION_IN_TEXT, UUID, UUID_IN_TEXT, unwrap_slack
from diagnosis.models import Platform

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

# Every pattern here runs in linear time (RE2, see bot/textpatterns.py) on text anyone can send.
_TOKEN = r"([A-Za-z0-9][\p{L}\p{N}_.:/\-]*[A-Za-z0-9]|[A-Za-z0-9])"
_KEYED = {
    "cluster_id": linear(rf"\bcluster(?:\s+id)?\s*[:=]?\s+{_TOKEN}", ignore_case=True),
    "project": linear(rf"\b(?:project|in)\s+(?:project\s+)?{_TOKEN}", ignore_case=True),
    "job": linear(rf"\bjob(?:\s+id|\s+name)?\s*[:=]?\s+{_TOKEN}", ignore_case=True),
    "workload": linear(rf"\bworkload(?:\s+id|\s+name)?\s*[:=]?\s+{_TOKEN}", ignore_case=True),
    "region": linear(rf"\bregion\s*[:=]?\s+{_TOKEN}", ignore_case=True),
}
_SUBJECT = linear(
    rf"\b(?:did|does|is|was|has|have|happened\s+to|about|diagnose|check|with)\s+(?:the\s+|my\s+|our\s+)?{_TOKEN}",
    ignore_case=True,
)
_LOOKBACK = linear(
    r"\b(?:last|past|lookback)\s+(\d+)\s*(s|m|h|d|w|min\w*|hours?|days?|weeks?)\b", ignore_case=True
)
_ACTIVE = linear(
    r"crash[\s-]?loop|crashloopbackoff|crashing|keeps?\s+(?:crashing|restarting|failing)|restart(?:ing)?\s+loop|"
    r"image\s*pull|pulling|stuck|pending|can'?t\s+start|won'?t\s+start|not\s+starting|mount",
    ignore_case=True,
)
_PLATFORM_MENTIONS: dict[str, TextPattern] = {
    word: linear(rf"\b{escape(word)}\b", ignore_case=True) for word in PLATFORM_WORDS if word != "ma"
}
_FOLLOW_UP_WORD = linear(r"[\p{L}\p{N}_:-]+")
# A question names its identifiers among its first few candidates of each kind ("cluster X",
# "in X", "did X", …, most skipped as stopwords); past this many, the text is no question, and the
# rest is never looked at: work stays bounded by one RE2 pass over the text.
MAX_CANDIDATES = 64
_EXIT_CODE = linear(r"-?\d{1,4}")
# Words that follow "in", "did", "is" … without being identifiers.
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "my",
        "our",
        "your",
        "their",
        "there",
        "here",
        "what",
        "which",
        "who",
        "why",
        "how",
        "when",
        "job",
        "jobs",
        "workload",
        "workloads",
        "training",
        "train",
        "run",
        "runs",
        "cluster",
        "project",
        "region",
        "namespace",
        "fail",
        "failed",
        "failing",
        "crash",
        "crashed",
        "crashing",
        "not",
        "still",
        "again",
        "also",
        "just",
        "really",
        "now",
        "today",
        "yesterday",
        "last",
        "past",
        "since",
        "from",
        "for",
        "on",
        "in",
        "at",
        "to",
        "of",
        "with",
        "and",
        "or",
        "but",
        "be",
        "been",
        "being",
        "do",
        "does",
        "did",
        "is",
        "was",
        "were",
        "are",
        "has",
        "have",
        "had",
        "happened",
        "happen",
        "going",
        "stuck",
        "running",
        "pending",
        "crash-looping",
        "crashlooping",
        "restarting",
    ]
)


class FollowUp(BaseModel):
    kind: FollowUpKind
    code: int | None = None


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
        if len(words) >= 2 and _EXIT_CODE.fullmatch(words[1]):
            return FollowUp(kind="explain", code=int(words[1]))
        return None
    if len(words) > 4:
        return None
    return FollowUp(kind=kind)


def parse_mention(text: str, *, max_chars: int | None = MAX_TEXT_CHARS) -> Command | None:
    """A mention's text (bot mention already stripped) → a command, or None when nothing was asked.
    Text over `max_chars` gets the `too_long` usage answer unread (None lifts the cap)."""
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
    return parse_sentence(cleaned)


def _keyed_value(key: str, match: TextMatch) -> str | None:
    """The value a keyed phrase names, unless it is a stop word, a platform or a region after `in`."""
    value = match.group(1) or ""
    if value.lower() in STOPWORDS or value.lower() in PLATFORM_WORDS:
        return None
    if (
        key == "project"
        and (match.group(0) or "").lower().startswith("in")
        and REGION_IN_TEXT.fullmatch(value)
    ):
        return None
    return value


def _keyed_values(text: str) -> tuple[dict[str, str], set[str]]:
    """The first usable value of each keyed phrase (`cluster X`, `job Y`, …), a region named on its
    own, and the words they consumed."""
    found: dict[str, str] = {}
    consumed: set[str] = set()
    for key, pattern in _KEYED.items():
        for match in itertools.islice(pattern.finditer(text), MAX_CANDIDATES):
            value = _keyed_value(key, match)
            if value is None:
                continue
            found.setdefault(key, value)
            consumed.add(value)
            break
    if found.get("region") is None:
        region_match = REGION_IN_TEXT.search(text)
        if region_match:
            found["region"] = region_match.group(0) or ""
            consumed.add(found["region"])
    return found, consumed


def _platforms(text: str, found: dict[str, str]) -> set[Platform]:
    """The platforms the sentence names, or that its identifiers belong to."""
    platforms: set[Platform] = {
        PLATFORM_WORDS[word] for word, pattern in _PLATFORM_MENTIONS.items() if pattern.search(text)
    }
    if "cluster_id" in found or "project" in found or "workload" in found:
        platforms.add("runai")
    if "job" in found or "region" in found:
        platforms.add("modelarts")
    return platforms


def _draft(
    platform: Platform | None, *, ident: str | None, name: str | None, found: dict[str, str], text: str
) -> RequestDraft:
    data: dict[str, str | None] = {"platform": platform}
    if platform == "modelarts":
        data.update(job_id=ident, job_name=None if ident else name, region=found.get("region"))
    else:
        data.update(
            workload_id=ident,
            workload_name=None if ident else name,
            cluster_id=found.get("cluster_id"),
            project=found.get("project"),
        )
        # Kept while the platform is unknown too: they apply once Run:ai is chosen.
        data["lookback"] = _lookback(text)
        data["intent"] = "active" if _ACTIVE.search(text) else None
    return RequestDraft.model_validate(data)


def parse_sentence(text: str) -> Command | None:
    found, consumed = _keyed_values(text)
    subject = _subject(text, consumed)
    found_uuids = (match.group(0) or "" for match in UUID_IN_TEXT.finditer(text))
    uuids = [u for u in itertools.islice(found_uuids, MAX_CANDIDATES) if u not in consumed]
    platforms = _platforms(text, found)
    if len(platforms) > 1:
        return UsageProblem(
            problem="that mixes Run:ai and ModelArts identifiers: say which platform", code="mixed_platforms"
        )
    platform = next(iter(platforms)) if platforms else None

    name = found.get("workload") or found.get("job") or subject
    ident = uuids[0] if uuids else None
    if name and UUID.fullmatch(name):
        ident, name = name, None
    if not (name or ident or found):
        return None
    return DiagnoseCommand(draft=_draft(platform, ident=ident, name=name, found=found, text=text))


def _subject(text: str, consumed: set[str]) -> str | None:
    for match in itertools.islice(_SUBJECT.finditer(text), MAX_CANDIDATES):
        value = match.group(1) or ""
        if value.lower() in STOPWORDS or value.lower() in PLATFORM_WORDS or value in consumed:
            continue
        return value
    return None


def _lookback(text: str) -> str | None:
    match = _LOOKBACK.search(text)
    if not match:
        return None
    unit = (match.group(2) or "s").lower()[0]
    return f"{match.group(1)}{unit}"


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

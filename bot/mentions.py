"""@mention sentences and thread replies → a command, a follow-up, or nothing.

Only explicit identifiers are taken: `cluster X`, `project X` / `in X`, `job X`, `workload X`,
`region X` or a region-shaped word, a UUID, and the subject of "why did X fail" / "is X
crash-looping". A crash-loop wording asks for the active-symptom path (`intent=active`).
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel

from bot.grammar import (
    _REGION_IN_TEXT,
    _UUID,
    _UUID_IN_TEXT,
    PLATFORM_WORDS,
    Command,
    DiagnoseCommand,
    ExplainCommand,
    HelpCommand,
    RequestDraft,
    ScanCommand,
    UsageProblem,
    parse_command,
    unwrap_slack,
)
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

_TOKEN = r"([A-Za-z0-9][\w.:/\-]*[A-Za-z0-9]|[A-Za-z0-9])"
_KEYED = {
    "cluster_id": re.compile(rf"\bcluster(?:\s+id)?\s*[:=]?\s+{_TOKEN}", re.IGNORECASE),
    "project": re.compile(rf"\b(?:project|in)\s+(?:project\s+)?{_TOKEN}", re.IGNORECASE),
    "job": re.compile(rf"\bjob(?:\s+id|\s+name)?\s*[:=]?\s+{_TOKEN}", re.IGNORECASE),
    "workload": re.compile(rf"\bworkload(?:\s+id|\s+name)?\s*[:=]?\s+{_TOKEN}", re.IGNORECASE),
    "region": re.compile(rf"\bregion\s*[:=]?\s+{_TOKEN}", re.IGNORECASE),
}
_SUBJECT = re.compile(
    rf"\b(?:did|does|is|was|has|have|happened\s+to|about|diagnose|check|with)\s+(?:the\s+|my\s+|our\s+)?{_TOKEN}",
    re.IGNORECASE,
)
_LOOKBACK = re.compile(
    r"\b(?:last|past|lookback)\s+(\d+)\s*(s|m|h|d|w|min\w*|hours?|days?|weeks?)\b", re.IGNORECASE
)
_ACTIVE = re.compile(
    r"crash[\s-]?loop|crashloopbackoff|crashing|keeps?\s+(?:crashing|restarting|failing)|restart(?:ing)?\s+loop|"
    r"image\s*pull|pulling|stuck|pending|can'?t\s+start|won'?t\s+start|not\s+starting|mount",
    re.IGNORECASE,
)
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


def strip_mentions(text: str, bot_user_id: str | None) -> str:
    """Drop the bot's own mention(s); other mentions become plain names."""
    if bot_user_id:
        text = re.sub(rf"<@{re.escape(bot_user_id)}(?:\|[^>]*)?>", " ", text)
    return " ".join(unwrap_slack(text).split())


def parse_follow_up(text: str) -> FollowUp | None:
    """`evidence`, `history`, `logs`, `json`, `rerun`, `why`, `explain 137` (a word or two, not a sentence)."""
    words = re.findall(r"[\w:-]+", text.lower())
    if not words or words[0] not in FOLLOW_UP_WORDS:
        return None
    kind = FOLLOW_UP_WORDS[words[0]]
    if kind == "explain":
        if len(words) >= 2 and re.fullmatch(r"-?\d{1,4}", words[1]):
            return FollowUp(kind="explain", code=int(words[1]))
        return None
    if len(words) > 4:
        return None
    return FollowUp(kind=kind)


def parse_mention(text: str) -> Command | None:
    """A mention's text (bot mention already stripped) → a command, or None when nothing was asked."""
    cleaned = text.strip().rstrip("?!.")
    if not cleaned:
        return HelpCommand()
    first = cleaned.split()[0].lower()
    if first in ("help", "explain", "scan") or first in PLATFORM_WORDS or "=" in cleaned:
        parsed = parse_command(cleaned)
        if not isinstance(parsed, UsageProblem) or "=" in cleaned or first in ("help", "explain", "scan"):
            return parsed
    return parse_sentence(cleaned)


def parse_sentence(text: str) -> Command | None:
    found: dict[str, str] = {}
    consumed: set[str] = set()
    platforms: set[Platform] = {
        platform
        for word, platform in PLATFORM_WORDS.items()
        if word != "ma" and re.search(rf"\b{re.escape(word)}\b", text, re.IGNORECASE)
    }
    if re.search(r"\brun:ai\b|\brun\.ai\b", text, re.IGNORECASE):
        platforms.add("runai")
    for key, pattern in _KEYED.items():
        for match in pattern.finditer(text):
            value = match.group(1)
            if value.lower() in STOPWORDS or value.lower() in PLATFORM_WORDS:
                continue
            if (
                key == "project"
                and match.group(0).lower().startswith("in")
                and _REGION_IN_TEXT.fullmatch(value)
            ):
                continue
            found.setdefault(key, value)
            consumed.add(value)
            break
    region = found.get("region")
    if region is None:
        region_match = _REGION_IN_TEXT.search(text)
        if region_match:
            found["region"] = region_match.group(0)
            consumed.add(region_match.group(0))
    subject = _subject(text, consumed)
    uuids = [u for u in _UUID_IN_TEXT.findall(text) if u not in consumed]
    lookback = _lookback(text)
    active = bool(_ACTIVE.search(text))

    if "cluster_id" in found or "project" in found or "workload" in found:
        platforms.add("runai")
    if "job" in found or "region" in found:
        platforms.add("modelarts")
    if len(platforms) > 1:
        return UsageProblem(
            problem="that mixes Run:ai and ModelArts identifiers: say which platform", code="mixed_platforms"
        )
    platform = next(iter(platforms)) if platforms else None

    name = found.get("workload") or found.get("job") or subject
    ident = uuids[0] if uuids else None
    if name and _UUID.match(name):
        ident, name = name, None
    if not (name or ident or found):
        return None
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
        data["lookback"] = lookback
        data["intent"] = "active" if active else None
    return DiagnoseCommand(draft=RequestDraft.model_validate(data))


def _subject(text: str, consumed: set[str]) -> str | None:
    for match in _SUBJECT.finditer(text):
        value = match.group(1)
        if value.lower() in STOPWORDS or value.lower() in PLATFORM_WORDS or value in consumed:
            continue
        return value
    return None


def _lookback(text: str) -> str | None:
    match = _LOOKBACK.search(text)
    if not match:
        return None
    unit = match.group(2).lower()[0]
    return f"{match.group(1)}{unit}"


__all__ = [
    "Command",
    "DiagnoseCommand",
    "ExplainCommand",
    "FollowUp",
    "HelpCommand",
    "ScanCommand",
    "parse_follow_up",
    "parse_mention",
    "strip_mentions",
]

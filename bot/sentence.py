"""A sentence → the diagnosis it asks for. Only explicit identifiers are taken: `cluster X`,
`project X` / `in X`, `job X`, `workload X`, `region X` or a region-shaped word, a UUID, and the
subject of "why did X fail" / "is X crash-looping". A crash-loop wording asks for the
active-symptom path (`intent=active`). Each pattern reads at most 64 candidates: bounded time."""

from __future__ import annotations

import itertools

from bot.commands import (
    Command,
    DiagnoseCommand,
    RequestDraft,
    UsageProblem,
)
from bot.grammar import PLATFORM_WORDS
from bot.textpatterns import TextMatch, TextPattern, escape, linear
from bot.words import REGION_IN_TEXT, UUID, UUID_IN_TEXT
from diagnosis.models import Platform

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
# A question names its identifiers among its first few candidates of each kind ("cluster X",
# "in X", "did X", …, most skipped as stopwords); past this many, the text is no question, and the
# rest is never looked at: work stays bounded by one RE2 pass over the text.
MAX_CANDIDATES = 64
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


def parse_sentence(text: str, *, guess_subject: bool = True) -> Command | None:
    """`guess_subject=False`: only explicit identifiers (`job X`, `workload X`, a UUID) ask."""
    found, consumed = _keyed_values(text)
    subject = _subject(text, consumed) if guess_subject else None
    found_uuids = (match.group(0) or "" for match in UUID_IN_TEXT.finditer(text))
    uuids = [u for u in itertools.islice(found_uuids, MAX_CANDIDATES) if u not in consumed]
    if not guess_subject and not (found.get("workload") or found.get("job") or uuids):
        # Not addressed to the bot: a project or region alone ("the weather in london") asks nothing.
        return None
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

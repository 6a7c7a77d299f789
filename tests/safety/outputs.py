"""What the product emits for a diagnosis, per output format, and searching it for planted text.

Formats: the Markdown report (every language of the platform), the diagnosis JSON, and the Slack
messages the bot posts for it (the report and the `evidence`/`history`/`logs`/`why` answers).
Searching decodes each format first (JSON strings, Slack's `&amp;`/`&lt;`/`&gt;`, Markdown
backslash escapes, zero-width breaks and control characters, which a reader never sees), so an
escaped secret still counts as a leak; a secret is also searched for in the text with every line
break and blank taken out (a secret wrapped over two lines) and with `%XX` escapes decoded (once
and twice: a URL inside a URL).
"""

from __future__ import annotations

import html
import json
import re
import unicodedata
import urllib.parse
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from blocks.kit import SlackMessage
from blocks.messages import evidence_message, history_message, logs_message, why_message
from blocks.report import report_message
from diagnosis import engine
from diagnosis.models import Diagnosis
from diagnosis.render import render_json, render_markdown
from tests.safety.corpus import fragments

_MARKDOWN_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~])")
# What a reader never sees: format characters (zero-width, soft hyphen, bidi controls) and control
# characters other than blanks (Slack drops them; a terminal draws nothing for them).
_INVISIBLE = re.compile(
    "["
    + "".join(
        re.escape(chr(code))
        for code in range(0x110000)
        if unicodedata.category(chr(code)) in ("Cf", "Cc") and chr(code) not in "\t\n\r"
    )
    + "]"
)
_SPACES = re.compile(r"\s+")
_LINE_CONTINUATION = re.compile(r"\\\s")


def strings_in(value: Any) -> Iterator[str]:
    """Every string (keys too) of parsed JSON."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from strings_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_in(item)


def normalise(text: str) -> str:
    """Undo the escapes a format adds, drop zero-width breaks, collapse whitespace."""
    text = _MARKDOWN_ESCAPE.sub(r"\1", text)
    text = html.unescape(html.unescape(text))
    text = _INVISIBLE.sub("", text)
    return _SPACES.sub(" ", text)


def _joined(text: str) -> str:
    """The text with every blank, line break and `\\` line continuation taken out."""
    return "".join(_LINE_CONTINUATION.sub("", text).split())


def _decoded(text: str) -> str:
    once = urllib.parse.unquote(text)
    return once + "\n" + urllib.parse.unquote(once)


@dataclass
class Haystack:
    """One output, decoded for searching: as shown, with lines joined, and %-decoded."""

    format: str
    text: str
    joined: str = ""
    decoded: str = ""
    # The output as a reader sees it (escapes undone, invisible characters dropped), line by line.
    shown_lines: tuple[str, ...] = ()

    def __contains__(self, needle: str) -> bool:
        wanted = normalise(needle)
        if wanted in self.text or wanted in self.decoded:
            return True
        compact = _joined(wanted)
        return len(compact) >= 8 and compact in self.joined


def haystack(format_name: str, raw: str | Iterable[str]) -> Haystack:
    parts = [raw] if isinstance(raw, str) else list(raw)
    shown = "\n".join(normalise(part) for part in parts)
    visible = normalise_keep_lines("\n".join(_INVISIBLE.sub("", part) for part in parts))
    decoded = _decoded(shown) if "%" in shown else ""
    return Haystack(
        format_name,
        shown,
        joined=_joined(visible),
        decoded=decoded,
        shown_lines=tuple(visible.splitlines()),
    )


def normalise_keep_lines(text: str) -> str:
    """`normalise` without collapsing blanks: lines stay lines (for the joined view)."""
    text = _MARKDOWN_ESCAPE.sub(r"\1", text)
    return html.unescape(html.unescape(text))


def slack_messages(diagnosis: Diagnosis, *, lang: str) -> list[SlackMessage]:
    """The report as the bot posts it, and the thread follow-up answers built from the diagnosis."""
    return [
        report_message(diagnosis, lang=lang),
        evidence_message(diagnosis, lang=lang),
        history_message(diagnosis, lang=lang),
        logs_message(diagnosis, lang=lang),
        why_message(diagnosis, lang=lang),
    ]


def slack_strings(messages: Iterable[SlackMessage]) -> list[str]:
    return [text for message in messages for text in strings_in(message.payload())]


@dataclass
class Rendered:
    """Every format of one diagnosis (the diagnosis in each language of its platform)."""

    diagnoses: dict[str, Diagnosis]
    markdown: dict[str, str]
    json: str
    slack: dict[str, list[SlackMessage]] = field(default_factory=dict)

    def haystacks(self) -> dict[str, Haystack]:
        return {
            "markdown": haystack("markdown", self.markdown.values()),
            "json": haystack("json", strings_in(json.loads(self.json))),
            "slack": haystack(
                "slack", [s for messages in self.slack.values() for s in slack_strings(messages)]
            ),
        }


async def replay_all_languages(bundle: Any) -> dict[str, Diagnosis]:
    languages = engine.backend(bundle.platform).languages
    return {lang: await engine.replay(bundle, lang=lang) for lang in languages}


def render_all(diagnoses: dict[str, Diagnosis]) -> Rendered:
    first = next(iter(diagnoses.values()))
    return Rendered(
        diagnoses=diagnoses,
        markdown={lang: render_markdown(d, lang=lang) for lang, d in diagnoses.items()},
        json=render_json(first),
        slack={lang: slack_messages(d, lang=lang) for lang, d in diagnoses.items()},
    )


def leaked(secret: str, stack: Haystack, *, baseline: Haystack | None = None) -> bool:
    """The secret, or its distinctive middle part, in the output (and not already there unplanted)."""
    return any(part in stack and (baseline is None or part not in baseline) for part in fragments(secret))


def verdict(diagnosis: Diagnosis) -> tuple[str | None, ...]:
    return (diagnosis.outcome, diagnosis.category, diagnosis.route, diagnosis.confidence)

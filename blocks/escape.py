"""mrkdwn escaping for untrusted text (logs, events, names, annotations).

Slack reads `<…>` as a control sequence (`<!channel>`, `<@U…>`, `<https://…|label>`) and `&` as the
start of an entity, so `&` is replaced first, then `<` and `>`. Nothing else is escaped: mrkdwn has
no backslash escape. Text objects carrying untrusted text are also sent with `verbatim: true`, which
stops Slack from auto-linking bare URLs, channel names and `@here`-style words.
"""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# Direction overrides, embeddings, isolates and marks reorder the text after them (Trojan Source):
# untrusted text shows a visible replacement character in their place.
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")
_FENCE = "```"


def escape_mrkdwn(text: str) -> str:
    """`&` → `&amp;` first, then `<` → `&lt;`, `>` → `&gt;`; control characters dropped, direction
    controls shown as U+FFFD."""
    cleaned = _BIDI.sub("\ufffd", _CONTROL.sub("", text))
    return cleaned.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def plain(text: str, *, single_line: bool = False) -> str:
    """Text for a `plain_text` object: never parsed for mentions or links, so only cleaned."""
    cleaned = _BIDI.sub("\ufffd", _CONTROL.sub("", text))
    if single_line:
        cleaned = " ".join(cleaned.split())
    return cleaned


def code_span(text: str) -> str:
    """Untrusted text shown literally: an inline code span, or a code block when it spans lines.

    A code span cannot hold a backtick, so such text goes in a code block; a run of three
    backticks inside a block would close it, so a zero-width space breaks the run.
    """
    escaped = escape_mrkdwn(text)
    if "\n" not in escaped and "`" not in escaped and escaped.strip():
        return f"`{escaped}`"
    return code_block(text)


def code_block(text: str) -> str:
    escaped = escape_mrkdwn(text).replace(_FENCE, "`\u200b``").strip("\n")
    return f"{_FENCE}\n{escaped}\n{_FENCE}"

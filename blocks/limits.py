"""Slack's Block Kit limits (https://docs.slack.dev/reference/block-kit/blocks) and cutting text to fit them."""

from __future__ import annotations

import re

MAX_BLOCKS = 50
MAX_HEADER_TEXT = 150
MAX_SECTION_TEXT = 3000
MAX_FIELDS = 10
MAX_FIELD_TEXT = 2000
MAX_CONTEXT_ELEMENTS = 10
MAX_CONTEXT_TEXT = 3000
MAX_ACTION_ELEMENTS = 25
MAX_BUTTON_TEXT = 75
MAX_BUTTON_VALUE = 2000
MAX_OPTIONS = 100
MAX_OPTION_TEXT = 75
MAX_OPTION_VALUE = 150
MAX_PLACEHOLDER_TEXT = 150
MAX_BLOCK_ID = 255
MAX_FALLBACK_TEXT = 4000
MAX_MODAL_TITLE = 24
MAX_PRIVATE_METADATA = 3000
MAX_INPUT_LABEL = 2000
# Slack answers `msg_blocks_too_long` around 12,000 characters of block text in one message,
# whatever the per-block limits say; stay well below it.
MAX_MESSAGE_BLOCK_TEXT = 11_000

CUT_MARKER = "… ✂"

_ENTITY_TAIL = re.compile(r"&[a-z]{0,4}$")


def cut_plain(text: str, limit: int, *, marker: str = CUT_MARKER) -> str:
    """Plain text cut to `limit` characters, ending with the marker when something was dropped."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - len(marker))].rstrip() + marker


def cut_mrkdwn(text: str, limit: int, *, marker: str = CUT_MARKER) -> str:
    """Escaped mrkdwn cut to `limit` characters without splitting an entity or leaving a code block open."""
    if len(text) <= limit:
        return text
    closing = "\n```"
    budget = max(0, limit - len(marker) - len(closing))
    kept = text[:budget]
    newline = kept.rfind("\n")
    if newline >= budget * 0.8:
        kept = kept[:newline]
    kept = _ENTITY_TAIL.sub("", kept)
    if kept.count("```") % 2 == 1:
        return kept.rstrip() + "\n" + marker + closing
    return kept.rstrip() + marker


def text_length(block: dict[str, object]) -> int:
    """Characters of text a block carries (what Slack counts towards `msg_blocks_too_long`)."""
    total = 0

    def walk(value: object) -> None:
        nonlocal total
        if isinstance(value, dict):
            for key, item in value.items():
                if key == "text" and isinstance(item, str):
                    total += len(item)
                else:
                    walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(block)
    return total

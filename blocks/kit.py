"""Block Kit primitives, each within Slack's per-field limits, and the message model."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from blocks.escape import escape_mrkdwn, plain
from blocks.limits import (
    MAX_BLOCK_ID,
    MAX_BUTTON_TEXT,
    MAX_BUTTON_VALUE,
    MAX_CONTEXT_ELEMENTS,
    MAX_CONTEXT_TEXT,
    MAX_FALLBACK_TEXT,
    MAX_FIELD_TEXT,
    MAX_FIELDS,
    MAX_HEADER_TEXT,
    MAX_OPTION_TEXT,
    MAX_OPTION_VALUE,
    MAX_OPTIONS,
    MAX_PLACEHOLDER_TEXT,
    MAX_SECTION_TEXT,
    cut_mrkdwn,
    cut_plain,
)

Block = dict[str, Any]


class SlackMessage(BaseModel):
    """What chat.postMessage / chat.update / response_url take: blocks plus the `text` fallback."""

    text: str
    blocks: list[Block] = Field(default_factory=list)
    # True when a part was cut to fit Slack's limits (the full report then goes to the thread).
    truncated: bool = False

    def payload(self) -> dict[str, Any]:
        return {"text": self.text, "blocks": self.blocks}


def fallback_text(text: str) -> str:
    """The notification / screen-reader `text`: escaped and within 4,000 characters."""
    return cut_mrkdwn(escape_mrkdwn(" ".join(text.split())), MAX_FALLBACK_TEXT)


def mrkdwn(text: str, *, limit: int = MAX_SECTION_TEXT) -> dict[str, Any]:
    """A mrkdwn text object from already-escaped mrkdwn; `verbatim` stops auto-linking."""
    return {"type": "mrkdwn", "text": cut_mrkdwn(text or " ", limit), "verbatim": True}


def plain_text(text: str, *, limit: int, single_line: bool = True) -> dict[str, Any]:
    return {
        "type": "plain_text",
        "text": cut_plain(plain(text, single_line=single_line) or " ", limit),
        "emoji": True,
    }


def header(text: str) -> Block:
    return {"type": "header", "text": plain_text(text, limit=MAX_HEADER_TEXT)}


def section(text: str, *, block_id: str | None = None, accessory: Block | None = None) -> Block:
    block: Block = {"type": "section", "text": mrkdwn(text)}
    if block_id:
        block["block_id"] = block_id[:MAX_BLOCK_ID]
    if accessory is not None:
        block["accessory"] = accessory
    return block


def fields_section(fields: list[str]) -> Block:
    return {"type": "section", "fields": [mrkdwn(text, limit=MAX_FIELD_TEXT) for text in fields[:MAX_FIELDS]]}


def context(*texts: str) -> Block:
    elements = [mrkdwn(text, limit=MAX_CONTEXT_TEXT) for text in texts if text][:MAX_CONTEXT_ELEMENTS]
    return {"type": "context", "elements": elements or [mrkdwn(" ")]}


def divider() -> Block:
    return {"type": "divider"}


def button(
    text: str,
    *,
    action_id: str,
    value: str,
    style: Literal["primary", "danger"] | None = None,
) -> Block:
    element: Block = {
        "type": "button",
        "action_id": action_id,
        "text": plain_text(text, limit=MAX_BUTTON_TEXT),
        "value": value[:MAX_BUTTON_VALUE],
    }
    if style:
        element["style"] = style
    return element


def option(text: str, value: str) -> Block:
    return {"text": plain_text(text, limit=MAX_OPTION_TEXT), "value": value[:MAX_OPTION_VALUE]}


def static_select(*, action_id: str, placeholder: str, options: list[Block]) -> Block:
    return {
        "type": "static_select",
        "action_id": action_id,
        "placeholder": plain_text(placeholder, limit=MAX_PLACEHOLDER_TEXT),
        "options": options[:MAX_OPTIONS],
    }


def actions(elements: list[Block], *, block_id: str | None = None) -> Block:
    block: Block = {"type": "actions", "elements": elements[:25]}
    if block_id:
        block["block_id"] = block_id[:MAX_BLOCK_ID]
    return block


def pack_lines(
    lines: list[str], *, first: str = "", max_blocks: int, max_chars: int
) -> tuple[list[Block], int]:
    """Lines packed into sections of at most 3,000 characters, at most `max_blocks` sections and
    `max_chars` characters in all; returns the sections and how many lines did not fit."""
    blocks: list[Block] = []
    current = first
    used = 0
    for index, line in enumerate(lines):
        line = cut_mrkdwn(line, MAX_SECTION_TEXT)
        if used + len(current) + len(line) + 1 > max_chars:
            if current:
                blocks.append(section(current))
            return blocks, len(lines) - index
        if current and len(current) + len(line) + 1 > MAX_SECTION_TEXT:
            if len(blocks) + 1 >= max_blocks:
                blocks.append(section(current))
                return blocks, len(lines) - index
            blocks.append(section(current))
            used += len(current)
            current = ""
        current = f"{current}\n{line}" if current else line
    if current:
        blocks.append(section(current))
    return blocks, 0

"""Every message must pass Slack's block models and limits (shared/reference/slack.md 4.1)."""

from __future__ import annotations

from typing import Any

from slack_sdk.models.blocks import Block
from slack_sdk.models.views import View

from blocks.limits import text_length


def assert_message_within_limits(message: dict[str, Any]) -> None:
    """`message` is a chat.postMessage/chat.update body (or a SlackMessage.payload())."""
    text = message.get("text")
    assert isinstance(text, str) and text.strip(), "every message needs a text fallback"
    assert len(text) <= 4000
    blocks = message.get("blocks") or []
    assert len(blocks) <= 50
    block_ids = [b["block_id"] for b in blocks if "block_id" in b]
    assert len(block_ids) == len(set(block_ids)), "block ids must be unique within a message"
    for block in blocks:
        parsed = Block.parse(block)
        assert parsed is not None, f"not a Block Kit block: {block}"
        parsed.validate_json()
        if block["type"] == "header":
            assert len(block["text"]["text"]) <= 150
            assert block["text"]["type"] == "plain_text"
        if block["type"] == "section":
            if "text" in block:
                assert 1 <= len(block["text"]["text"]) <= 3000
            fields = block.get("fields") or []
            assert len(fields) <= 10
            assert all(len(f["text"]) <= 2000 for f in fields)
        if block["type"] == "actions":
            for element in block["elements"]:
                if element["type"] == "button":
                    assert len(element["text"]["text"]) <= 75
                    assert len(element.get("value", "")) <= 2000
    assert sum(text_length(b) for b in blocks) <= 12_000


def assert_view_within_limits(view: dict[str, Any]) -> None:
    View(**view).validate_json()
    assert len(view.get("private_metadata", "")) <= 3000

"""Who clicked, and in which channel (button clicks are checked against the channel they come from)."""

from __future__ import annotations

from typing import Any


def clicker(body: dict[str, Any]) -> tuple[str, str]:
    user = str((body.get("user") or {}).get("id") or "")
    channel = (body.get("channel") or {}).get("id") or (body.get("container") or {}).get("channel_id") or ""
    return user, str(channel)


def clicked_thread(body: dict[str, Any]) -> str | None:
    message = body.get("message") or {}
    thread = message.get("thread_ts") or message.get("ts") or (body.get("container") or {}).get("message_ts")
    return str(thread) if thread else None


def clicked_message_ts(body: dict[str, Any]) -> str | None:
    """The ts of the message whose button was clicked (a question's prompt)."""
    clicked = (body.get("message") or {}).get("ts") or (body.get("container") or {}).get("message_ts")
    return str(clicked) if clicked else None

"""The channel as one person sees it, as JSON for the page: each message rendered from its Block
Kit by the preview renderer (live controls), threads grouped, ephemeral messages marked."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from blocks.preview.html import render_blocks
from playground.directory import PEOPLE
from playground.workspace import BOT_USER_ID, Message, OpenView, Workspace

BOT_NAME = "diagnose-bot"
_MENTION = re.compile(r"<@(U[A-Z0-9]+)>")
NAMES = {**{item.user_id: item.name for item in PEOPLE}, BOT_USER_ID: "diagnose"}


def _named_mentions(value: Any) -> Any:
    """`<@U…>` → `<@U…|name>` in every string (Slack's clients show the person's name)."""
    if isinstance(value, str):
        return _MENTION.sub(
            lambda m: f"<@{m.group(1)}|{NAMES[m.group(1)]}>" if m.group(1) in NAMES else m.group(0), value
        )
    if isinstance(value, list):
        return [_named_mentions(item) for item in value]
    if isinstance(value, Mapping):
        return {key: _named_mentions(item) for key, item in value.items()}
    return value


def message_json(message: Message, workspace: Workspace) -> dict[str, Any]:
    body = render_blocks(_named_mentions({"text": message.text, "blocks": message.blocks}), live=True)
    files = []
    for file_id in message.files:
        stored = workspace.files.get(file_id)
        if stored is None:
            continue
        files.append(
            {
                "id": stored.file_id,
                "title": stored.title,
                "filename": stored.filename,
                "mimetype": stored.mimetype,
                "alt": stored.alt_text or stored.title,
                "url": f"/files/{stored.file_id}",
            }
        )
    return {
        "ts": message.ts,
        "thread_ts": message.thread_ts,
        "user": message.user,
        "name": BOT_NAME if message.bot else NAMES.get(message.user, message.user),
        "bot": message.bot,
        "ephemeral": message.ephemeral_to is not None,
        "edited": message.edited,
        "html": body if (message.text or message.blocks) else "",
        "files": files,
        "reactions": list(message.reactions),
    }


def view_json(opened: OpenView) -> dict[str, Any]:
    view = opened.view

    def text_of(key: str) -> str | None:
        found = view.get(key)
        return str(found.get("text") or "") if isinstance(found, Mapping) else None

    return {
        "id": opened.view_id,
        "title": text_of("title") or "",
        "submit": text_of("submit"),
        "close": text_of("close"),
        "html": render_blocks({"blocks": view.get("blocks") or []}, live=True),
    }


def channel_json(workspace: Workspace, *, channel: str, user: str) -> dict[str, Any]:
    """Top-level messages with their reply counts, every thread's replies, and this person's modals."""
    version = workspace.version
    seen = workspace.visible(channel=channel, user=user)
    top: list[dict[str, Any]] = []
    threads: dict[str, list[dict[str, Any]]] = {}
    for message in seen:
        rendered = message_json(message, workspace)
        if message.thread_ts and message.thread_ts != message.ts:
            threads.setdefault(message.thread_ts, []).append(rendered)
        else:
            top.append(rendered)
    for rendered in top:
        rendered["reply_count"] = len(threads.get(rendered["ts"], []))
    return {
        "version": version,
        "messages": top,
        "threads": threads,
        "views": [view_json(item) for item in workspace.views_of(user)],
    }

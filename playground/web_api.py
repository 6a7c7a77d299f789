"""The Slack Web API methods the bot calls, each applied to the stand-in's workspace and answered as
Slack answers it (https://docs.slack.dev/reference/methods)."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable
from typing import Any, Protocol

from playground.workspace import BOT_ID, BOT_USER_ID, TEAM_ID, SlackError, Workspace

# conversations.history and conversations.replies: `limit` defaults to 100, at most 999.
DEFAULT_PAGE = 100
MAX_PAGE = 999


class StandIn(Protocol):
    """What a method's answer reads of the stand-in."""

    workspace: Workspace
    url: str
    port: int
    usergroups: dict[str, list[str]]
    thread_messages: dict[tuple[str, str], list[dict[str, Any]]]
    socket_mode_url: str | None

    def known(self, apply: Callable[[], Any]) -> Any: ...


class Called(Protocol):
    """The call being answered."""

    @property
    def body(self) -> dict[str, Any]: ...


def json_value(value: Any) -> Any:
    """A list or object argument: already parsed (JSON body) or a JSON string (form body)."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return None
    return value


def _auth_test(api: StandIn, call: Called, channel: str) -> dict[str, Any]:
    return {
        "ok": True,
        "user_id": BOT_USER_ID,
        "bot_id": BOT_ID,
        "team_id": TEAM_ID,
        "url": "https://acme.slack.com/",
    }


def _post_message(api: StandIn, call: Called, channel: str) -> dict[str, Any]:
    body = call.body
    posted = api.workspace.post(
        channel=channel,
        user=BOT_USER_ID,
        text=str(body.get("text") or ""),
        blocks=json_value(body.get("blocks")) or [],
        thread_ts=body.get("thread_ts") or None,
        bot=True,
        metadata=_metadata(body.get("metadata")),
    )
    message: dict[str, Any] = {"type": "message", "ts": posted.ts, "text": body.get("text"), "bot_id": BOT_ID}
    if body.get("thread_ts"):
        message["thread_ts"] = body["thread_ts"]
    return {"ok": True, "channel": channel, "ts": posted.ts, "message": message}


def _update(api: StandIn, call: Called, channel: str) -> dict[str, Any]:
    body = call.body
    ts = str(body.get("ts") or "")
    blocks = json_value(body.get("blocks"))
    api.known(lambda: api.workspace.update(channel=channel, ts=ts, text=body.get("text"), blocks=blocks))
    return {"ok": True, "channel": channel, "ts": ts, "text": body.get("text")}


def _delete(api: StandIn, call: Called, channel: str) -> dict[str, Any]:
    ts = str(call.body.get("ts") or "")
    api.known(lambda: api.workspace.delete(channel=channel, ts=ts))
    return {"ok": True, "channel": channel, "ts": ts}


def _post_ephemeral(api: StandIn, call: Called, channel: str) -> dict[str, Any]:
    body = call.body
    posted = api.workspace.post(
        channel=channel,
        user=BOT_USER_ID,
        text=str(body.get("text") or ""),
        blocks=json_value(body.get("blocks")) or [],
        thread_ts=body.get("thread_ts") or None,
        ephemeral_to=str(body.get("user") or ""),
        bot=True,
    )
    return {"ok": True, "message_ts": posted.ts}


def _react(api: StandIn, call: Called, channel: str) -> dict[str, Any]:
    body = call.body
    ts = str(body.get("timestamp") or "")
    api.known(lambda: api.workspace.react(channel=channel, ts=ts, name=str(body.get("name") or "")))
    return {"ok": True}


def _open_view(api: StandIn, call: Called, channel: str) -> dict[str, Any]:
    view = json_value(call.body.get("view")) or {}
    trigger = str(call.body.get("trigger_id") or "")
    opened = api.known(lambda: api.workspace.open_view(trigger_id=trigger, view=view))
    return {"ok": True, "view": {"id": opened.view_id if opened else "V0MODAL01", **view}}


def _update_view(api: StandIn, call: Called, channel: str) -> dict[str, Any]:
    view = json_value(call.body.get("view")) or {}
    view_id = str(call.body.get("view_id") or "")
    opened = api.known(lambda: api.workspace.update_view(view_id=view_id, view=view))
    return {"ok": True, "view": {"id": opened.view_id if opened else "V0MODAL01", **view}}


def _upload_url(api: StandIn, call: Called, channel: str) -> dict[str, Any]:
    body = call.body
    stored = api.workspace.reserve_file(
        filename=str(body.get("filename") or "file"), alt_text=body.get("alt_txt")
    )
    return {"ok": True, "upload_url": f"{api.url}upload/{stored.file_id}", "file_id": stored.file_id}


def _complete_upload(api: StandIn, call: Called, channel: str) -> dict[str, Any]:
    body = call.body
    files = json_value(body.get("files")) or []
    api.known(
        lambda: api.workspace.share_files(
            files,
            channel=body.get("channel_id") or None,
            thread_ts=body.get("thread_ts") or None,
            comment=body.get("initial_comment") or None,
        )
    )
    return {"ok": True, "files": [{"id": f.get("id"), "title": f.get("title")} for f in files]}


def _metadata(value: Any) -> dict[str, Any] | None:
    """chat.postMessage's `metadata` (an object, or its JSON in a form body): kept when it has the
    `event_type` and `event_payload` Slack requires (https://api.slack.com/metadata/using)."""
    metadata = json_value(value)
    if not isinstance(metadata, dict) or not isinstance(metadata.get("event_type"), str):
        return None
    payload = metadata.get("event_payload")
    return (
        {"event_type": metadata["event_type"], "event_payload": payload}
        if isinstance(payload, dict)
        else None
    )


def _flag(value: Any) -> bool:
    """A boolean argument as slack_sdk sends it in a query string (`1`/`0`) or a JSON body."""
    return value is True or str(value).lower() in {"1", "true"}


def _timestamp(value: Any, default: float) -> float:
    try:
        return float(value) if value not in (None, "") else default
    except (TypeError, ValueError):
        return default


def _cursor(ts: str) -> str:
    return base64.b64encode(f"next_ts:{ts}".encode()).decode()


def _page(messages: list[dict[str, Any]], body: dict[str, Any]) -> dict[str, Any]:
    """One page of `messages` (already in Slack's order) within `oldest`/`latest` (exclusive
    unless `inclusive`), `limit` long, from `cursor`; `has_more` and `response_metadata.next_cursor`
    as Slack gives them (https://docs.slack.dev/apis/web-api/pagination)."""
    oldest = _timestamp(body.get("oldest"), 0.0)
    latest = _timestamp(body.get("latest"), float("inf"))
    inclusive = _flag(body.get("inclusive"))

    def inside(message: dict[str, Any]) -> bool:
        ts = float(message["ts"])
        if inclusive:
            return oldest <= ts <= latest
        return oldest < ts < latest

    selected = [message for message in messages if inside(message)]
    start = 0
    if body.get("cursor"):
        try:
            next_ts = base64.b64decode(str(body["cursor"]), validate=True).decode().removeprefix("next_ts:")
        except (binascii.Error, UnicodeDecodeError):
            raise SlackError("invalid_cursor") from None
        start = next((index for index, item in enumerate(selected) if item["ts"] == next_ts), -1)
        if start < 0:
            raise SlackError("invalid_cursor")
    try:
        limit = int(body.get("limit") or DEFAULT_PAGE)
    except (TypeError, ValueError):
        limit = DEFAULT_PAGE
    limit = min(max(limit, 1), MAX_PAGE)
    page = selected[start : start + limit]
    more = len(selected) > start + limit
    answer: dict[str, Any] = {"ok": True, "messages": page, "has_more": more}
    answer["response_metadata"] = {"next_cursor": _cursor(selected[start + limit]["ts"]) if more else ""}
    return answer


def _history(api: StandIn, call: Called, channel: str) -> dict[str, Any]:
    """conversations.history: the channel's top-level messages, newest first."""
    messages = api.workspace.history(
        channel=channel, with_metadata=_flag(call.body.get("include_all_metadata"))
    )
    answer = _page(messages, call.body)
    answer["pin_count"] = 0
    return answer


def _replies(api: StandIn, call: Called, channel: str) -> dict[str, Any]:
    """conversations.replies: the thread's parent first (whatever the window), then its replies
    oldest first."""
    key = (str(call.body.get("channel")), str(call.body.get("ts")))
    messages = api.thread_messages.get(key)
    if messages is None:
        messages = api.workspace.replies(
            channel=key[0], ts=key[1], with_metadata=_flag(call.body.get("include_all_metadata"))
        )
    parent = [message for message in messages if message.get("ts") == key[1]]
    if not parent:
        api.known(_no_thread)
    answer = _page([message for message in messages if message.get("ts") != key[1]], call.body)
    if not call.body.get("cursor"):
        answer["messages"] = parent + answer["messages"]
    return answer


def _no_thread() -> None:
    raise SlackError("thread_not_found")


def _usergroup_users(api: StandIn, call: Called, channel: str) -> dict[str, Any]:
    return {"ok": True, "users": api.usergroups.get(str(call.body.get("usergroup")), [])}


def _connections_open(api: StandIn, call: Called, channel: str) -> dict[str, Any]:
    return {"ok": True, "url": api.socket_mode_url or f"ws://127.0.0.1:{api.port}/link"}


# Web API method -> its answer; any other method answers a plain `ok`.
METHOD_ANSWERS: dict[str, Callable[[StandIn, Called, str], dict[str, Any]]] = {
    "auth.test": _auth_test,
    "chat.postMessage": _post_message,
    "chat.update": _update,
    "chat.delete": _delete,
    "chat.postEphemeral": _post_ephemeral,
    "reactions.add": _react,
    "views.open": _open_view,
    "views.update": _update_view,
    "views.push": _update_view,
    "files.getUploadURLExternal": _upload_url,
    "files.completeUploadExternal": _complete_upload,
    "conversations.history": _history,
    "conversations.replies": _replies,
    "usergroups.users.list": _usergroup_users,
    "apps.connections.open": _connections_open,
}

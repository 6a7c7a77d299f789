"""The Slack Web API methods the bot calls, each applied to the stand-in's workspace and answered as
Slack answers it (https://docs.slack.dev/reference/methods)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Protocol

from playground.workspace import BOT_ID, BOT_USER_ID, TEAM_ID, Workspace


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


def _replies(api: StandIn, call: Called, channel: str) -> dict[str, Any]:
    key = (str(call.body.get("channel")), str(call.body.get("ts")))
    messages = api.thread_messages.get(key)
    if messages is None:
        messages = api.workspace.replies(channel=key[0], ts=key[1])
    return {"ok": True, "messages": messages, "has_more": False}


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
    "conversations.replies": _replies,
    "usergroups.users.list": _usergroup_users,
    "apps.connections.open": _connections_open,
}

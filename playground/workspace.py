"""What the local Slack holds: channels' messages and threads, files, modals, and who sees what.

The Web API stand-in (`playground.slack_api`) changes it as Slack would on the bot's calls; the
page's server (`playground.page`) adds what people type and click, and shows each person the
channel as Slack would show it to them: ephemeral messages only to their addressee, modals only to
whoever opened them. Every change bumps `version`, which the page waits on to update live.

Slack's semantics kept here (https://docs.slack.dev/reference/methods/chat.postEphemeral,
https://docs.slack.dev/interactivity/handling-user-interaction#message_responses):
- an ephemeral message is seen by one user, is not stored in the channel's history, and cannot be
  changed with `chat.update`, only through the `response_url` of an interaction on it;
- a `response_url` message is ephemeral unless `response_type` is `in_channel`; `replace_original`
  and `delete_original` act on the message that carried the clicked element;
- a `trigger_id` opens one modal, once, within 3 seconds.
"""

from __future__ import annotations

import itertools
import threading
import time
from dataclasses import dataclass, field
from typing import Any

BOT_USER_ID = "U0DIAGBOT"
BOT_ID = "B0DIAGBOT"
TEAM_ID = "T0ACME001"
TRIGGER_LIFETIME_SECONDS = 3.0
# Slack allows up to 5 uses of a response_url within 30 minutes.
RESPONSE_URL_USES = 5
RESPONSE_URL_LIFETIME_SECONDS = 30 * 60


@dataclass
class StoredFile:
    file_id: str
    filename: str
    title: str
    data: bytes = b""
    alt_text: str | None = None
    shared: bool = False

    @property
    def mimetype(self) -> str:
        name = self.filename.lower()
        if name.endswith(".png"):
            return "image/png"
        if name.endswith(".json"):
            return "application/json"
        if name.endswith((".md", ".markdown")):
            return "text/markdown"
        return "text/plain"


@dataclass
class Message:
    channel: str
    ts: str
    seq: int
    user: str
    text: str = ""
    blocks: list[dict[str, Any]] = field(default_factory=list)
    thread_ts: str | None = None
    # The one user who sees it (chat.postEphemeral, or a response_url answer), else None.
    ephemeral_to: str | None = None
    files: list[str] = field(default_factory=list)
    reactions: list[str] = field(default_factory=list)
    edited: bool = False
    bot: bool = False
    # Slack message metadata (`event_type`, `event_payload`): returned only to a reader that asks
    # for it (`include_all_metadata`).
    metadata: dict[str, Any] | None = None

    def seen_by(self, user: str) -> bool:
        return self.ephemeral_to is None or self.ephemeral_to == user

    def as_slack(self, *, with_metadata: bool = False) -> dict[str, Any]:
        """The message as conversations.history and conversations.replies return it."""
        found: dict[str, Any] = {"type": "message", "ts": self.ts, "text": self.text, "user": self.user}
        if self.blocks:
            found["blocks"] = self.blocks
        if self.thread_ts:
            found["thread_ts"] = self.thread_ts
        if self.bot:
            found["bot_id"] = BOT_ID
        if with_metadata and self.metadata:
            found["metadata"] = self.metadata
        return found


@dataclass
class OpenView:
    view_id: str
    user: str
    view: dict[str, Any]
    # Where the interaction that opened it happened (shown beside the modal).
    channel: str | None = None


@dataclass
class ResponseTarget:
    """What one response_url acts on: the person, the place, and (for a click) the clicked message."""

    user: str
    channel: str
    thread_ts: str | None = None
    message_ts: str | None = None
    created: float = field(default_factory=time.monotonic)
    uses: int = 0


@dataclass
class Trigger:
    user: str
    channel: str | None
    created: float = field(default_factory=time.monotonic)
    used: bool = False


class SlackError(Exception):
    """A Web API error code (`{"ok": false, "error": code}`)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


class Workspace:
    def __init__(self, *, clock: Any = time.time) -> None:
        self._lock = threading.Condition()
        self._clock = clock
        self._seq = itertools.count(1)
        self._ids = itertools.count(1)
        self.messages: dict[tuple[str, str], Message] = {}
        self.files: dict[str, StoredFile] = {}
        self.views: dict[str, OpenView] = {}
        self.responses: dict[str, ResponseTarget] = {}
        self.triggers: dict[str, Trigger] = {}
        self.version = 0

    # ---- change notification -------------------------------------------------------------------

    def _changed(self) -> None:
        self.version += 1
        self._lock.notify_all()

    def wait_for_change(self, version: int, *, timeout: float) -> int:
        """Block until the workspace moved past `version` (or `timeout`); the current version."""
        with self._lock:
            self._lock.wait_for(lambda: self.version != version, timeout=timeout)
            return self.version

    # ---- messages ------------------------------------------------------------------------------

    def next_ts(self) -> tuple[str, int]:
        seq = next(self._seq)
        return f"{int(self._clock())}.{seq:06d}", seq

    def post(
        self,
        *,
        channel: str,
        user: str,
        text: str = "",
        blocks: list[dict[str, Any]] | None = None,
        thread_ts: str | None = None,
        ephemeral_to: str | None = None,
        files: list[str] | None = None,
        bot: bool = False,
        metadata: dict[str, Any] | None = None,
    ) -> Message:
        with self._lock:
            if thread_ts is not None:
                parent = self.messages.get((channel, thread_ts))
                # A reply to a reply goes to the thread's parent, as in Slack.
                if parent is not None and parent.thread_ts and parent.thread_ts != parent.ts:
                    thread_ts = parent.thread_ts
            ts, seq = self.next_ts()
            message = Message(
                channel=channel,
                ts=ts,
                seq=seq,
                user=user,
                text=text,
                blocks=list(blocks or []),
                thread_ts=thread_ts,
                ephemeral_to=ephemeral_to,
                files=list(files or []),
                bot=bot,
                metadata=metadata,
            )
            self.messages[(channel, ts)] = message
            self._changed()
            return message

    def update(
        self, *, channel: str, ts: str, text: str | None, blocks: list[dict[str, Any]] | None
    ) -> Message:
        """chat.update: ephemeral messages cannot be updated this way (Slack: message_not_found)."""
        with self._lock:
            message = self.messages.get((channel, ts))
            if message is None or message.ephemeral_to is not None:
                raise SlackError("message_not_found")
            self._replace(message, text=text, blocks=blocks)
            return message

    def _replace(self, message: Message, *, text: str | None, blocks: list[dict[str, Any]] | None) -> None:
        if text is not None:
            message.text = text
        # Omitting `blocks` keeps the old ones; a new list replaces them.
        if blocks is not None:
            message.blocks = list(blocks)
        message.edited = True
        self._changed()

    def delete(self, *, channel: str, ts: str) -> None:
        with self._lock:
            if self.messages.pop((channel, ts), None) is None:
                raise SlackError("message_not_found")
            # Deleting a thread's parent in Slack leaves its replies under a tombstone; here they go too.
            for key in [
                key for key, item in self.messages.items() if item.thread_ts == ts and key[0] == channel
            ]:
                self.messages.pop(key)
            self._changed()

    def react(self, *, channel: str, ts: str, name: str) -> None:
        with self._lock:
            message = self.messages.get((channel, ts))
            if message is None:
                raise SlackError("message_not_found")
            if name in message.reactions:
                raise SlackError("already_reacted")
            message.reactions.append(name)
            self._changed()

    def replies(self, *, channel: str, ts: str, with_metadata: bool = False) -> list[dict[str, Any]]:
        """conversations.replies: the parent and its replies (never ephemeral ones), oldest first."""
        with self._lock:
            found = [
                item
                for item in self.messages.values()
                if item.channel == channel
                and (item.ts == ts or item.thread_ts == ts)
                and not item.ephemeral_to
            ]
            return [
                item.as_slack(with_metadata=with_metadata)
                for item in sorted(found, key=lambda item: item.seq)
            ]

    def history(self, *, channel: str, with_metadata: bool = False) -> list[dict[str, Any]]:
        """conversations.history: the channel's messages, thread replies and ephemeral ones left
        out (a thread's parent stands for its thread), newest first."""
        with self._lock:
            found = [
                item
                for item in self.messages.values()
                if item.channel == channel
                and (item.thread_ts is None or item.thread_ts == item.ts)
                and not item.ephemeral_to
            ]
            return [
                item.as_slack(with_metadata=with_metadata)
                for item in sorted(found, key=lambda item: item.seq, reverse=True)
            ]

    def visible(self, *, channel: str, user: str) -> list[Message]:
        """The channel and its threads as `user` sees them, oldest first."""
        with self._lock:
            found = [
                item for item in self.messages.values() if item.channel == channel and item.seen_by(user)
            ]
            return sorted(found, key=lambda item: item.seq)

    def get(self, channel: str, ts: str) -> Message | None:
        with self._lock:
            return self.messages.get((channel, ts))

    # ---- files ---------------------------------------------------------------------------------

    def reserve_file(self, *, filename: str, alt_text: str | None = None) -> StoredFile:
        with self._lock:
            stored = StoredFile(file_id=f"F0PLAY{next(self._ids):05d}", filename=filename, title=filename)
            stored.alt_text = alt_text
            self.files[stored.file_id] = stored
            return stored

    def store_upload(self, file_id: str, data: bytes) -> None:
        with self._lock:
            stored = self.files.get(file_id)
            if stored is None:
                raise SlackError("file_not_found")
            stored.data = data

    def share_files(
        self,
        items: list[dict[str, Any]],
        *,
        channel: str | None,
        thread_ts: str | None,
        comment: str | None,
    ) -> list[StoredFile]:
        """files.completeUploadExternal: the files become one message (as the bot) in the thread."""
        with self._lock:
            shared: list[StoredFile] = []
            for item in items:
                stored = self.files.get(str(item.get("id")))
                if stored is None:
                    raise SlackError("file_not_found")
                if item.get("title"):
                    stored.title = str(item["title"])
                stored.shared = True
                shared.append(stored)
            if channel:
                self.post(
                    channel=channel,
                    user=BOT_USER_ID,
                    text=comment or "",
                    thread_ts=thread_ts,
                    files=[stored.file_id for stored in shared],
                    bot=True,
                )
            return shared

    # ---- interactions: triggers, response URLs, modals -----------------------------------------

    def new_trigger(self, *, user: str, channel: str | None) -> str:
        with self._lock:
            trigger_id = f"{int(self._clock())}.{next(self._ids)}.playground"
            self.triggers[trigger_id] = Trigger(user=user, channel=channel)
            return trigger_id

    def new_response_url(
        self, *, kind: str, user: str, channel: str, thread_ts: str | None, message_ts: str | None
    ) -> str:
        """The path of a fresh response_url (`commands/…` or `actions/…`) on the stand-in."""
        with self._lock:
            path = f"{kind}/{TEAM_ID}/{next(self._ids)}/playground"
            self.responses[path] = ResponseTarget(
                user=user, channel=channel, thread_ts=thread_ts, message_ts=message_ts
            )
            return path

    def respond(self, path: str, body: dict[str, Any]) -> None:
        """A POST to a response_url: replace or delete the clicked message, or post a new one."""
        with self._lock:
            target = self.responses.get(path)
            if target is None:
                raise SlackError("no_such_response_url")
            if target.uses >= RESPONSE_URL_USES or (
                time.monotonic() - target.created > RESPONSE_URL_LIFETIME_SECONDS
            ):
                raise SlackError("expired_url")
            target.uses += 1
            clicked = self.messages.get((target.channel, target.message_ts)) if target.message_ts else None
            if body.get("delete_original"):
                if clicked is not None:
                    self.messages.pop((clicked.channel, clicked.ts), None)
                    self._changed()
                return
            text = body.get("text")
            blocks = body.get("blocks")
            if body.get("replace_original") and clicked is not None:
                self._replace(clicked, text=str(text or ""), blocks=list(blocks or []))
                return
            in_channel = body.get("response_type") == "in_channel"
            self.post(
                channel=target.channel,
                user=BOT_USER_ID,
                text=str(text or ""),
                blocks=list(blocks or []),
                thread_ts=body.get("thread_ts") or target.thread_ts,
                ephemeral_to=None if in_channel else target.user,
                bot=True,
            )

    def open_view(self, *, trigger_id: str, view: dict[str, Any]) -> OpenView:
        with self._lock:
            trigger = self.triggers.get(trigger_id)
            if trigger is None:
                raise SlackError("invalid_trigger_id")
            if trigger.used:
                raise SlackError("exchanged_trigger_id")
            if time.monotonic() - trigger.created > TRIGGER_LIFETIME_SECONDS:
                raise SlackError("expired_trigger_id")
            trigger.used = True
            opened = OpenView(
                view_id=f"V0PLAY{next(self._ids):05d}", user=trigger.user, view=view, channel=trigger.channel
            )
            self.views[opened.view_id] = opened
            self._changed()
            return opened

    def update_view(self, *, view_id: str, view: dict[str, Any]) -> OpenView:
        with self._lock:
            opened = self.views.get(view_id)
            if opened is None:
                raise SlackError("not_found")
            opened.view = view
            self._changed()
            return opened

    def close_view(self, view_id: str) -> None:
        with self._lock:
            if self.views.pop(view_id, None) is not None:
                self._changed()

    def views_of(self, user: str) -> list[OpenView]:
        with self._lock:
            return [item for item in self.views.values() if item.user == user]

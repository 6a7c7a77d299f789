"""Posting, updating and uploading, with the fallbacks a lost report would otherwise need.

Every function returns instead of raising: a Slack error is logged (masked) and reported as
None/False so the caller can tell the user another way.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackClientError

from blocks.kit import SlackMessage
from bot.slack_client import slack_error
from diagnosis.masking import mask

log = logging.getLogger("diagnose.bot")

# Reports are never unfurled and never parse names into mentions.
_MESSAGE_OPTIONS: dict[str, Any] = {
    "unfurl_links": False,
    "unfurl_media": False,
    "link_names": False,
    "parse": "none",
}


class PostFailed(Exception):
    def __init__(self, error: str) -> None:
        super().__init__(error)
        self.error = error


def post(
    client: WebClient,
    *,
    channel: str,
    message: SlackMessage,
    thread_ts: str | None = None,
    metadata: dict[str, Any] | None = None,
) -> str:
    """chat.postMessage; returns the new message ts, raises PostFailed with Slack's error code.
    `metadata`: Slack message metadata (`event_type`, `event_payload`), which the bot can read back
    (https://api.slack.com/metadata/using)."""
    kwargs: dict[str, Any] = {"channel": channel, **message.payload(), **_MESSAGE_OPTIONS}
    if thread_ts:
        kwargs["thread_ts"] = thread_ts
    if metadata:
        kwargs["metadata"] = metadata
    try:
        response = client.chat_postMessage(**kwargs)
    except SlackClientError as exc:
        raise PostFailed(slack_error(exc)) from None
    return str(response["ts"])


def try_post(
    client: WebClient, *, channel: str, message: SlackMessage, thread_ts: str | None = None
) -> str | None:
    try:
        return post(client, channel=channel, message=message, thread_ts=thread_ts)
    except PostFailed as exc:
        log.warning("chat.postMessage to %s failed: %s", channel, exc.error)
        return None


def update(client: WebClient, *, channel: str, ts: str, message: SlackMessage) -> bool:
    try:
        client.chat_update(channel=channel, ts=ts, **message.payload(), link_names=False, parse="none")
    except SlackClientError as exc:
        log.warning("chat.update of %s failed: %s", ts, slack_error(exc))
        return False
    return True


def replace_or_post(
    client: WebClient, *, channel: str, ts: str | None, thread_ts: str | None, message: SlackMessage
) -> str | None:
    """Update the status message; if that fails (deleted, too old), post the message in the thread."""
    if ts and update(client, channel=channel, ts=ts, message=message):
        return ts
    return try_post(client, channel=channel, thread_ts=thread_ts, message=message)


def upload(
    client: WebClient,
    *,
    channel: str,
    thread_ts: str | None,
    content: str,
    filename: str,
    title: str,
    comment: str | None = None,
) -> bool:
    """files_upload_v2 into the thread (getUploadURLExternal → upload → completeUploadExternal)."""
    kwargs: dict[str, Any] = {
        "channel": channel,
        "content": mask(content),
        "filename": filename,
        "title": title,
    }
    if thread_ts:
        kwargs["thread_ts"] = thread_ts
    if comment:
        kwargs["initial_comment"] = comment
    try:
        client.files_upload_v2(**kwargs)
    except SlackClientError as exc:
        log.warning("file upload to %s failed: %s", channel, slack_error(exc))
        return False
    return True


def upload_file(
    client: WebClient,
    *,
    channel: str,
    thread_ts: str | None,
    data: bytes,
    filename: str,
    title: str,
    alt_text: str | None = None,
) -> bool:
    """files_upload_v2 of binary content (a PNG) into the thread; the title and alt text are masked."""
    kwargs: dict[str, Any] = {
        "channel": channel,
        "file": data,
        "filename": filename,
        "title": mask(title),
    }
    if alt_text:
        kwargs["alt_txt"] = mask(alt_text)
    if thread_ts:
        kwargs["thread_ts"] = thread_ts
    try:
        client.files_upload_v2(**kwargs)
    except SlackClientError as exc:
        log.warning("file upload to %s failed: %s", channel, slack_error(exc))
        return False
    return True

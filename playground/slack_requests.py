"""The requests Slack sends the bot, built from what a person did on the page and signed as Slack
signs them: `v0=` HMAC-SHA256 over `v0:<timestamp>:<raw body>` with the app's signing secret
(slack_sdk's SignatureVerifier; https://docs.slack.dev/authentication/verifying-requests-from-slack).

- a slash command: a form body, with a `response_url` and a `trigger_id` the workspace issued;
- a message: the person's message is stored first (it has a `ts`), then the Events API delivers
  `app_mention` when it mentions the bot and `message` for the channel (both, as Slack does when
  the bot is a member: two events, same channel and ts);
- a click: `block_actions` in a `payload=` form field, with the clicked message as Slack holds it;
- a modal's submit: `view_submission`, whose answer may hold `response_action: errors`.
"""

from __future__ import annotations

import itertools
import json
import re
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import httpx
from slack_sdk.signature import SignatureVerifier

from playground.slack_api import SlackApiStandIn
from playground.workspace import BOT_USER_ID, TEAM_ID, Message, OpenView

APP_ID = "A0DIAGBOT"
COMMAND = "/diagnose"
# What a person types for the bot's mention on the page, and Slack's wire form of it.
TYPED_MENTION = re.compile(r"(?<![\w<])@diagnose(?:-bot)?\b", re.IGNORECASE)
WIRE_MENTION = f"<@{BOT_USER_ID}>"
REQUEST_TIMEOUT_SECONDS = 10.0


@dataclass(frozen=True)
class Person:
    user_id: str
    name: str


@dataclass(frozen=True)
class Channel:
    channel_id: str
    name: str


@dataclass
class BotAnswer:
    """The bot's HTTP answer to one request."""

    status: int
    body: str
    seconds: float

    def json(self) -> Any:
        try:
            return json.loads(self.body) if self.body else None
        except ValueError:
            return None


class SlackToBot:
    """Sends the bot what Slack would, for the people and channels of the playground."""

    def __init__(self, *, bot_url: str, signing_secret: str, api: SlackApiStandIn) -> None:
        self.events_url = bot_url.rstrip("/") + "/slack/events"
        self.api = api
        self.workspace = api.workspace
        self._verifier = SignatureVerifier(signing_secret)
        self._http = httpx.Client(timeout=REQUEST_TIMEOUT_SECONDS)
        self._ids = itertools.count(1)

    def close(self) -> None:
        self._http.close()

    def signed_post(self, body: str, content_type: str) -> BotAnswer:
        timestamp = str(int(time.time()))
        headers = {
            "Content-Type": content_type,
            "X-Slack-Request-Timestamp": timestamp,
            "X-Slack-Signature": str(self._verifier.generate_signature(timestamp=timestamp, body=body)),
        }
        started = time.monotonic()
        response = self._http.post(self.events_url, content=body.encode("utf-8"), headers=headers)
        return BotAnswer(response.status_code, response.text, time.monotonic() - started)

    # ---- what a person does ----------------------------------------------------------------------

    def slash_command(self, text: str, *, person: Person, channel: Channel) -> BotAnswer:
        """`/diagnose <text>` in a channel (slash commands cannot be used in threads)."""
        response_path = self.workspace.new_response_url(
            kind="commands", user=person.user_id, channel=channel.channel_id, thread_ts=None, message_ts=None
        )
        form = {
            "token": "playground-legacy-token",
            "team_id": TEAM_ID,
            "team_domain": "playground",
            "channel_id": channel.channel_id,
            "channel_name": channel.name,
            "user_id": person.user_id,
            "user_name": person.name,
            "command": COMMAND,
            "text": text,
            "api_app_id": APP_ID,
            "is_enterprise_install": "false",
            "response_url": self.api.url + response_path,
            "trigger_id": self.workspace.new_trigger(user=person.user_id, channel=channel.channel_id),
        }
        answer = self.signed_post(urlencode(form), "application/x-www-form-urlencoded")
        self._show_ack(answer, person=person, channel=channel)
        return answer

    def _show_ack(self, answer: BotAnswer, *, person: Person, channel: Channel) -> None:
        """A command's ack with a body is the immediate reply Slack shows (ephemeral unless
        `response_type` is `in_channel`)."""
        if answer.status != 200 or not answer.body:
            return
        reply = answer.json()
        if not isinstance(reply, dict):
            reply = {"text": answer.body}
        if not reply.get("text") and not reply.get("blocks"):
            return
        in_channel = reply.get("response_type") == "in_channel"
        self.workspace.post(
            channel=channel.channel_id,
            user=BOT_USER_ID,
            text=str(reply.get("text") or ""),
            blocks=list(reply.get("blocks") or []),
            ephemeral_to=None if in_channel else person.user_id,
            bot=True,
        )

    def message(
        self, text: str, *, person: Person, channel: Channel, thread_ts: str | None = None
    ) -> tuple[Message, list[BotAnswer]]:
        """A person's message (in a thread when `thread_ts`); `@diagnose` becomes the bot's mention."""
        wire_text = TYPED_MENTION.sub(WIRE_MENTION, text)
        posted = self.workspace.post(
            channel=channel.channel_id, user=person.user_id, text=wire_text, thread_ts=thread_ts
        )
        event: dict[str, Any] = {
            "user": person.user_id,
            "text": wire_text,
            "ts": posted.ts,
            "channel": channel.channel_id,
            "event_ts": posted.ts,
            "team": TEAM_ID,
            "client_msg_id": f"playground-{next(self._ids)}",
        }
        if posted.thread_ts:
            event["thread_ts"] = posted.thread_ts
            parent = self.workspace.get(channel.channel_id, posted.thread_ts)
            if parent is not None:
                event["parent_user_id"] = parent.user
        answers: list[BotAnswer] = []
        if WIRE_MENTION in wire_text:
            answers.append(self._event({**event, "type": "app_mention"}))
        answers.append(self._event({**event, "type": "message", "channel_type": "channel"}))
        return posted, answers

    def _event(self, event: dict[str, Any]) -> BotAnswer:
        envelope = {
            "token": "playground-legacy-token",
            "team_id": TEAM_ID,
            "api_app_id": APP_ID,
            "type": "event_callback",
            "event_id": f"Ev0PLAY{next(self._ids):06d}",
            "event_time": int(time.time()),
            "authorizations": [
                {"team_id": TEAM_ID, "user_id": BOT_USER_ID, "is_bot": True, "is_enterprise_install": False}
            ],
            "is_ext_shared_channel": False,
            "event": event,
        }
        return self.signed_post(json.dumps(envelope), "application/json")

    def block_action(
        self,
        *,
        person: Person,
        channel: Channel,
        message: Message,
        action: dict[str, Any],
        state: dict[str, Any] | None = None,
    ) -> BotAnswer:
        """A click on a button or a choice in a select of `message` (`action` as the page sends it:
        type, action_id, block_id, and value or selected_option)."""
        response_path = self.workspace.new_response_url(
            kind="actions",
            user=person.user_id,
            channel=channel.channel_id,
            thread_ts=message.thread_ts,
            message_ts=message.ts,
        )
        slack_message = message.as_slack()
        payload = {
            "type": "block_actions",
            "api_app_id": APP_ID,
            "token": "playground-legacy-token",
            "user": {"id": person.user_id, "username": person.name, "name": person.name, "team_id": TEAM_ID},
            "team": {"id": TEAM_ID, "domain": "playground"},
            "enterprise": None,
            "is_enterprise_install": False,
            "channel": {"id": channel.channel_id, "name": channel.name},
            "container": {
                "type": "message",
                "message_ts": message.ts,
                "channel_id": channel.channel_id,
                "is_ephemeral": message.ephemeral_to is not None,
                **({"thread_ts": message.thread_ts} if message.thread_ts else {}),
            },
            "message": slack_message,
            "trigger_id": self.workspace.new_trigger(user=person.user_id, channel=channel.channel_id),
            "response_url": self.api.url + response_path,
            "state": {"values": state or {}},
            "actions": [{**action, "action_ts": f"{time.time():.6f}"}],
        }
        return self.signed_post(
            urlencode({"payload": json.dumps(payload)}), "application/x-www-form-urlencoded"
        )

    def view_submission(self, *, person: Person, opened: OpenView, values: dict[str, Any]) -> BotAnswer:
        """The modal's submit; `values` is `state.values` ({block_id: {action_id: {type, value}}})."""
        view = opened.view
        payload = {
            "type": "view_submission",
            "team": {"id": TEAM_ID, "domain": "playground"},
            "user": {"id": person.user_id, "username": person.name, "name": person.name, "team_id": TEAM_ID},
            "api_app_id": APP_ID,
            "token": "playground-legacy-token",
            "trigger_id": self.workspace.new_trigger(user=person.user_id, channel=opened.channel),
            "view": {
                **view,
                "id": opened.view_id,
                "team_id": TEAM_ID,
                "state": {"values": values},
                "hash": f"{int(time.time())}.playground",
                "root_view_id": opened.view_id,
                "previous_view_id": None,
                "app_id": APP_ID,
                "bot_id": "B0DIAGBOT",
            },
            "response_urls": [],
            "is_enterprise_install": False,
            "enterprise": None,
        }
        return self.signed_post(
            urlencode({"payload": json.dumps(payload)}), "application/x-www-form-urlencoded"
        )

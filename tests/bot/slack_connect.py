"""Requests from a person of another organisation in a Slack Connect channel, as Slack sends them.

Slack names the person's workspace where each payload kind puts it: `team_id` (and `enterprise_id`)
of a slash command, `user_team` / `source_team` / `team` of an event (the envelope names the
workspace the event is delivered to: the app's), `user.team_id` of a click or a modal submission
(their `team` is the app's own workspace: https://github.com/slackapi/java-slack-sdk/issues/1041).
"""

from __future__ import annotations

import itertools
import json
import time
from typing import Any
from urllib.parse import urlencode

from playground.slack_api import BOT_USER_ID, TEAM_ID, Call, SlackApiStandIn
from tests.bot.harness import CHANNEL, BotUnderTest, Reply, click_payload

PARTNER_TEAM = "T0PARTNER"
PARTNER_USER = "U0PARTNER"
# The sentence a refused person of another organisation gets.
REFUSAL = "only answers people of the organisation"
FORM = "application/x-www-form-urlencoded"

_ids = itertools.count(1)


def command_form(
    api: SlackApiStandIn,
    text: str,
    *,
    team: str = PARTNER_TEAM,
    enterprise: str | None = None,
    user: str = PARTNER_USER,
    channel: str = CHANNEL,
) -> str:
    number = next(_ids)
    form = {
        "token": "legacy",
        "team_id": team,
        "team_domain": "partner",
        "channel_id": channel,
        "channel_name": "inc-42",
        "user_id": user,
        "user_name": "pat",
        "command": "/diagnose",
        "text": text,
        "api_app_id": "A0DIAGBOT",
        "is_enterprise_install": "false",
        "response_url": f"{api.url}commands/{team}/{number}/resp",
        "trigger_id": f"trigger.partner.{number}",
    }
    if enterprise:
        form["enterprise_id"] = enterprise
    return urlencode(form)


def shared_channel_event(
    event: dict[str, Any], *, user_team: str = PARTNER_TEAM, user: str = PARTNER_USER, channel: str = CHANNEL
) -> str:
    """An event of a Slack Connect channel as the app's workspace receives it."""
    return json.dumps(
        {
            "token": "legacy",
            "team_id": TEAM_ID,
            "api_app_id": "A0DIAGBOT",
            "type": "event_callback",
            "event_id": f"EvPartner{next(_ids):06d}",
            "event_time": int(time.time()),
            "is_ext_shared_channel": True,
            "authorizations": [
                {"team_id": TEAM_ID, "user_id": BOT_USER_ID, "is_bot": True, "is_enterprise_install": False}
            ],
            "event": {
                "user": user,
                "channel": channel,
                "event_ts": event["ts"],
                "team": user_team,
                "user_team": user_team,
                "source_team": user_team,
                **event,
            },
        }
    )


def partner_command(bot: BotUnderTest, text: str, **options: Any) -> Reply:
    return bot.slack.post(command_form(bot.api, text, **options), FORM)


def partner_mention(bot: BotUnderTest, text: str, *, ts: str, thread_ts: str | None = None) -> Reply:
    event: dict[str, Any] = {"type": "app_mention", "text": f"<@{BOT_USER_ID}> {text}", "ts": ts}
    if thread_ts:
        event["thread_ts"] = thread_ts
    return bot.slack.post(shared_channel_event(event), "application/json")


def partner_reply(bot: BotUnderTest, text: str, *, ts: str, thread_ts: str) -> Reply:
    event = {"type": "message", "text": text, "ts": ts, "thread_ts": thread_ts, "channel_type": "channel"}
    return bot.slack.post(shared_channel_event(event), "application/json")


def partner_click(bot: BotUnderTest, message: Call, action_id: str, *, value: str | None = None) -> Reply:
    payload = click_payload(message, action_id, value=value, user=PARTNER_USER)
    payload["user"]["team_id"] = PARTNER_TEAM
    return bot.slack.interaction(payload)


def view_submission(
    view: dict[str, Any],
    value: str,
    *,
    user: str,
    team: str = TEAM_ID,
    private_metadata: str | None = None,
) -> dict[str, Any]:
    """The `view_submission` of the bot's answer modal `view` (as views.open sent it)."""
    return {
        "type": "view_submission",
        "team": {"id": TEAM_ID, "domain": "acme"},
        "user": {"id": user, "username": "someone", "team_id": team},
        "api_app_id": "A0DIAGBOT",
        "trigger_id": f"trigger.view.{next(_ids)}",
        "view": {
            "id": "V0MODAL01",
            "type": "modal",
            "callback_id": view["callback_id"],
            "private_metadata": view.get("private_metadata", "")
            if private_metadata is None
            else private_metadata,
            "state": {"values": {"answer": {"value": {"type": "plain_text_input", "value": value}}}},
            "hash": "1.a",
        },
        "response_urls": [],
    }


def refusals_to(api: SlackApiStandIn, user: str, *, since: int = 0) -> list[Call]:
    return [
        call
        for call in api.calls[since:]
        if call.method == "chat.postEphemeral" and call.body.get("user") == user
    ]

"""'Full-log link (only you)': ask which task in a modal; the link is then sent ephemerally."""

from __future__ import annotations

import json
import re
from typing import Any

from slack_bolt import Ack, BoltContext
from slack_sdk import WebClient
from slack_sdk.errors import SlackClientError

from blocks.labels import label
from blocks.messages import notice
from blocks.prompts import log_link_modal
from bot.conversation import channel_lang, ui_lang
from bot.listeners.actions.common import clicker
from bot.runtime import runtime_of
from bot.slack_client import Notifier, modal_client, slack_error

# ModelArts task names as the diagnosis quotes them (`worker-0`, `worker-1`, …).
_TASK = re.compile(r"\bworker-\d+\b")


def log_link(
    ack: Ack, body: dict[str, Any], action: dict[str, Any], client: WebClient, context: BoltContext
) -> None:
    ack()
    user, channel = clicker(body)
    runtime = runtime_of(context)
    thread_ts = str(action.get("value") or "")
    record = runtime.services.store.get_thread(channel, thread_ts)
    if record is None:
        runtime.services.background.run(
            Notifier(client, channel=channel, user=user).tell,
            notice(label("no_thread_record", channel_lang(runtime.services, channel))),
        )
        return
    found = _TASK.search(json.dumps(record.diagnosis, ensure_ascii=False))
    lang = ui_lang(runtime.services, platform=record.draft.platform, channel=channel, explicit=record.lang)
    try:
        modal_client(client).views_open(
            trigger_id=str(body.get("trigger_id")),
            view=log_link_modal(
                ref=f"{channel}|{thread_ts}", lang=lang, initial_task=found.group(0) if found else None
            ),
        )
    except (SlackClientError, OSError) as exc:
        runtime.services.background.run(
            Notifier(client, channel=channel, user=user).tell,
            notice(label("post_failed", lang, error=slack_error(exc)), emoji=":warning:"),
        )

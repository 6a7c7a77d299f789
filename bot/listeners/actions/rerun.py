"""Re-run the thread's diagnosis (access is checked again for the clicking user and channel)."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, BoltContext
from slack_sdk import WebClient

from blocks.labels import label
from blocks.messages import notice
from bot.conversation import channel_lang
from bot.listeners.actions.common import clicker
from bot.runtime import runtime_of
from bot.slack_client import Notifier
from bot.tasks import AskerRef, tasks_of


def rerun(
    ack: Ack, body: dict[str, Any], action: dict[str, Any], client: WebClient, context: BoltContext
) -> None:
    ack()
    user, channel = clicker(body)
    runtime = runtime_of(context)
    record = runtime.services.store.get_thread(channel, str(action.get("value") or ""))
    if record is None:
        runtime.services.background.run(
            Notifier(client, channel=channel, user=user).tell,
            notice(label("no_thread_record", channel_lang(runtime.services, channel))),
        )
        return
    tasks_of(context).rerun(record, AskerRef(user=user, channel=channel))

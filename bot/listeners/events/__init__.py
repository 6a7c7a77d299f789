from __future__ import annotations

from slack_bolt import App

from bot.listeners.events.app_mention import app_mention
from bot.listeners.events.message import thread_message


def register(app: App) -> None:
    app.event("app_mention")(app_mention)
    # Every message subtype arrives here; only human thread replies are used.
    app.event("message")(thread_message)

from __future__ import annotations

from slack_bolt import App

from bot.listeners.commands.diagnose import diagnose_command

COMMAND = "/diagnose"


def register(app: App) -> None:
    app.command(COMMAND)(diagnose_command)

"""Bolt listeners, one handler per file, grouped by kind (as in the Bolt samples)."""

from __future__ import annotations

from slack_bolt import App

from bot.listeners import actions, commands, events, views


def register(app: App) -> None:
    commands.register(app)
    events.register(app)
    actions.register(app)
    views.register(app)

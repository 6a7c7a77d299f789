from __future__ import annotations

from slack_bolt import App

from blocks.prompts import ANSWER_VIEW, LOG_LINK_VIEW
from bot.listeners.views.answer_form import answer_form
from bot.listeners.views.log_link_form import log_link_form


def register(app: App) -> None:
    app.view(ANSWER_VIEW)(answer_form)
    app.view(LOG_LINK_VIEW)(log_link_form)

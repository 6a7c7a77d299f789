from __future__ import annotations

import re

from slack_bolt import App

from blocks.prompts import (
    ACTION_CANCEL,
    ACTION_CHOICE,
    ACTION_LOG_LINK,
    ACTION_OTHER,
    ACTION_RERUN,
    ACTION_RETRY,
    ACTION_SELECT,
)
from bot.listeners.actions.answer_cancel import answer_cancel
from bot.listeners.actions.answer_choice import answer_choice
from bot.listeners.actions.answer_other import answer_other
from bot.listeners.actions.log_link import log_link
from bot.listeners.actions.rerun import rerun
from bot.listeners.actions.retry import retry


def register(app: App) -> None:
    app.action(re.compile(rf"^{ACTION_CHOICE}_\d+$"))(answer_choice)
    app.action(ACTION_SELECT)(answer_choice)
    app.action(ACTION_OTHER)(answer_other)
    app.action(ACTION_CANCEL)(answer_cancel)
    app.action(ACTION_RETRY)(retry)
    app.action(ACTION_RERUN)(rerun)
    app.action(ACTION_LOG_LINK)(log_link)

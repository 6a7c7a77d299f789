"""The bot's running parts, handed to every listener through Bolt's context (`context["runtime"]`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bot.answers import Answers
from bot.conversation import Conversation
from bot.followups import FollowUps
from bot.scans import Scans
from bot.services import BotServices


@dataclass
class Runtime:
    services: BotServices
    conversation: Conversation = field(init=False)
    followups: FollowUps = field(init=False)
    scans: Scans = field(init=False)
    answers: Answers = field(init=False)

    def __post_init__(self) -> None:
        self.conversation = Conversation(self.services)
        self.followups = FollowUps(self.services, self.conversation)
        self.scans = Scans(self.services, self.conversation)
        self.answers = Answers(self.services, self.conversation, self.scans)


def runtime_of(context: Any) -> Runtime:
    found: Runtime = context["runtime"]
    return found

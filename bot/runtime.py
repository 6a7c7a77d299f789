"""The bot's running parts, handed to every listener through Bolt's context (`context["runtime"]`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from slack_sdk import WebClient

from bot.answers import Answers
from bot.conversation import Conversation
from bot.followups import FollowUps
from bot.handoff import JobSink, LocalJobs
from bot.jobs import Job
from bot.scans import Scans
from bot.services import BotServices


@dataclass
class Runtime:
    services: BotServices
    conversation: Conversation = field(init=False)
    followups: FollowUps = field(init=False)
    scans: Scans = field(init=False)
    answers: Answers = field(init=False)
    # Where listeners hand their work: this process's pool, or the store's queue (HTTP mode).
    jobs: JobSink | None = None

    def __post_init__(self) -> None:
        if self.jobs is None:
            self.jobs = LocalJobs(self.services.worker)
        self.conversation = Conversation(self.services)
        self.followups = FollowUps(self.services, self.conversation)
        self.scans = Scans(self.services, self.conversation)
        self.answers = Answers(self.services, self.conversation, self.scans)


def runtime_of(context: Any) -> Runtime:
    found: Runtime = context["runtime"]
    return found


def submit(runtime: Runtime, client: WebClient, job: Job) -> None:
    """Hand a listener's work off after its ack."""
    assert runtime.jobs is not None
    runtime.jobs.submit(runtime, client, job)

"""What the bot remembers between Slack requests (JSON in the store)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from bot.commands import RequestDraft
from diagnosis.models import Question


class Place(BaseModel):
    """Where a conversation lives: the channel, the thread (parent ts) and the bot's status message."""

    channel: str
    thread_ts: str | None = None
    # The bot's message that shows progress and then the report (chat.update target).
    status_ts: str | None = None


class PendingRequest(BaseModel):
    """A request waiting for a person: an unanswered question, or a Retry after permissions change."""

    id: str
    kind: Literal["question", "retry"]
    draft: RequestDraft
    question: Question | None = None
    place: Place
    prompt_ts: str | None = None
    user: str
    lang: str | None = None
    created_at: datetime
    # What the answer resumes: a diagnosis, or a scan (`/diagnose scan runai` asks for its cluster).
    purpose: Literal["diagnose", "scan"] = "diagnose"


class ThreadRecord(BaseModel):
    """The diagnosis a thread is about, for follow-ups (`evidence`, `json`, `rerun`, …)."""

    place: Place
    draft: RequestDraft
    diagnosis: dict[str, Any] = Field(default_factory=dict)
    lang: str | None = None
    user: str
    created_at: datetime


class AcceptedRequest(BaseModel):
    """A diagnosis (or scan) accepted and queued, not yet answered: what the user asked and where
    its placeholder is. The diagnoses queue's task carries it; a worker that dies running it leaves
    it to the next one, which answers in the same placeholder."""

    model_config = ConfigDict(extra="forbid")

    id: str
    purpose: Literal["diagnose", "scan"] = "diagnose"
    draft: RequestDraft
    place: Place
    user: str
    lang: str | None = None
    created_at: datetime

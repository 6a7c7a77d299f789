"""What a listener hands off after its ack: one small job per kind of work, plain data only.

A job is the whole request (who asked, where, what), so it can run on this process's pool or be
queued in the state store for a separate work process (HTTP mode): the process that acks Slack
then does nothing else, and a burst of commands is acked while reports are being built elsewhere.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import BaseModel, Field
from slack_sdk import WebClient

from bot.grammar import RequestDraft, ScanCommand
from bot.services import Asker
from bot.state.models import ThreadRecord

if TYPE_CHECKING:
    from bot.runtime import Runtime


class AskerRef(BaseModel):
    """An `Asker` as data: the slash command's response_url instead of Bolt's `respond` object."""

    user: str
    channel: str
    thread_ts: str | None = None
    lang: str | None = None
    # Lets the bot answer the command ephemerally for 30 minutes: kept in the store only until the
    # job runs, never logged.
    response_url: str | None = Field(default=None, repr=False)

    def asker(self) -> Asker:
        respond = None
        if self.response_url:
            from slack_bolt.context.respond import Respond

            respond = Respond(response_url=self.response_url)
        return Asker(
            user=self.user, channel=self.channel, thread_ts=self.thread_ts, lang=self.lang, respond=respond
        )


class DiagnoseJob(BaseModel):
    """`/diagnose <job>` or a re-run: placeholder, questions, then the diagnosis."""

    kind: Literal["diagnose"] = "diagnose"
    draft: RequestDraft
    asker: AskerRef

    def run(self, runtime: Runtime, client: WebClient) -> None:
        runtime.conversation.start(client, self.draft, self.asker.asker())


class ExplainJob(BaseModel):
    kind: Literal["explain"] = "explain"
    code: int
    asker: AskerRef

    def run(self, runtime: Runtime, client: WebClient) -> None:
        runtime.followups.explain(client, self.code, self.asker.asker())


class ScanJob(BaseModel):
    kind: Literal["scan"] = "scan"
    command: ScanCommand
    asker: AskerRef

    def run(self, runtime: Runtime, client: WebClient) -> None:
        runtime.scans.start(client, self.command, self.asker.asker())


class TextJob(BaseModel):
    """A mention or a thread reply: a follow-up, a new question, or the usage."""

    kind: Literal["text"] = "text"
    text: str
    asker: AskerRef
    record: ThreadRecord | None = None
    mentioned: bool

    def run(self, runtime: Runtime, client: WebClient) -> None:
        from bot.router import route_text

        route_text(
            runtime, client, self.text, self.asker.asker(), record=self.record, mentioned=self.mentioned
        )


class AnswerJob(BaseModel):
    """A choice clicked or a value typed for a pending question."""

    kind: Literal["answer"] = "answer"
    pending_id: str
    value: str
    user: str
    channel: str | None = None
    # The clicked question's message ts (a typed answer in a modal has none).
    prompt_ts: str | None = None

    def run(self, runtime: Runtime, client: WebClient) -> None:
        runtime.answers.answer(
            client,
            self.pending_id,
            self.value,
            user=self.user,
            channel=self.channel,
            prompt_ts=self.prompt_ts,
        )


class CancelJob(BaseModel):
    kind: Literal["cancel"] = "cancel"
    pending_id: str
    user: str
    channel: str | None = None
    prompt_ts: str | None = None  # the clicked question's message ts

    def run(self, runtime: Runtime, client: WebClient) -> None:
        runtime.answers.cancel(
            client, self.pending_id, user=self.user, channel=self.channel, prompt_ts=self.prompt_ts
        )


class RetryJob(BaseModel):
    """Retry after a permission denial."""

    kind: Literal["retry"] = "retry"
    pending_id: str
    user: str
    channel: str

    def run(self, runtime: Runtime, client: WebClient) -> None:
        runtime.answers.retry(client, self.pending_id, user=self.user, channel=self.channel)


class RerunJob(BaseModel):
    kind: Literal["rerun"] = "rerun"
    record: ThreadRecord
    asker: AskerRef

    def run(self, runtime: Runtime, client: WebClient) -> None:
        runtime.conversation.rerun(client, self.record, self.asker.asker())


class LogLinkJob(BaseModel):
    """The full-log link for one task, to the submitter only (the link itself is never queued)."""

    kind: Literal["log_link"] = "log_link"
    record: ThreadRecord
    task: str
    user: str
    channel: str

    def run(self, runtime: Runtime, client: WebClient) -> None:
        runtime.followups.log_link(client, self.record, self.task, user=self.user, channel=self.channel)


Job = Annotated[
    DiagnoseJob | ExplainJob | ScanJob | TextJob | AnswerJob | CancelJob | RetryJob | RerunJob | LogLinkJob,
    Field(discriminator="kind"),
]


class QueuedJob(BaseModel):
    """The store's copy of a job."""

    schema_: Literal["bot-job/v1"] = Field(default="bot-job/v1", alias="schema")
    id: str = Field(default_factory=lambda: uuid.uuid4().hex[:20])
    job: Job

    model_config = {"populate_by_name": True}

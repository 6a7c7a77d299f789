"""What a listener hands to the worker side after its ack: one huey task per kind of work.

The web side (or the Socket Mode connection) only enqueues: over HTTP the listener runs before
Slack gets its response, so a request Slack saw answered is already in the queue, whatever restarts
next. The worker side runs the tasks with the bot's runtime (`bind`). Task arguments are plain
data, the JSON form of the bot's own models, validated again when the task runs.

`chat` tasks are the short exchanges a request starts with; `diagnoses` tasks run one accepted
diagnosis or scan each, into the placeholder the chat task posted (a worker that dies meanwhile
leaves it to the next one, see bot.queue.redelivery).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from huey.api import TaskWrapper
from pydantic import BaseModel, ConfigDict, Field
from slack_sdk import WebClient

from bot.commands import RequestDraft, ScanCommand
from bot.queue import Queues
from bot.queue.redelivery import once, recalled, remember, still_held
from bot.runtime import Runtime
from bot.services import Asker
from bot.state.models import AcceptedRequest, ThreadRecord
from diagnosis.masking import mask

log = logging.getLogger("diagnose.bot")

# A failed accepted diagnosis (the state store or Slack unreachable for a moment) runs again later;
# its answer goes to the same placeholder.
RUN_RETRIES = 2
RUN_RETRY_SECONDS = 10


class AskerRef(BaseModel):
    """An `Asker` as data: the slash command's response_url instead of Bolt's `respond` object."""

    model_config = ConfigDict(extra="forbid")

    user: str
    channel: str
    thread_ts: str | None = None
    lang: str | None = None
    # Lets the bot answer the command ephemerally for 30 minutes: kept in the queue only until the
    # task runs, never logged.
    response_url: str | None = Field(default=None, repr=False)

    def asker(self) -> Asker:
        respond = None
        if self.response_url:
            from slack_bolt.context.respond import Respond

            respond = Respond(response_url=self.response_url)
        return Asker(
            user=self.user, channel=self.channel, thread_ts=self.thread_ts, lang=self.lang, respond=respond
        )


def _data(model: BaseModel | None) -> dict[str, Any] | None:
    return None if model is None else model.model_dump(mode="json")


class BotTasks:
    """The bot's tasks on both queues. `max_waiting`: accepted diagnoses allowed to wait for a
    worker; beyond that the asker is told the bot is busy."""

    def __init__(self, queues: Queues, *, max_waiting: int = 50) -> None:
        self.queues = queues
        self.max_waiting = max_waiting
        self._runtime: Runtime | None = None
        self._client: WebClient | None = None
        chat = queues.chat.task
        self._diagnose = chat(name="diagnose")(self._run_diagnose)
        self._explain = chat(name="explain")(self._run_explain)
        self._scan = chat(name="scan")(self._run_scan)
        self._text = chat(name="text")(self._run_text)
        self._answer = chat(name="answer")(self._run_answer)
        self._cancel = chat(name="cancel")(self._run_cancel)
        self._retry = chat(name="retry")(self._run_retry)
        self._rerun = chat(name="rerun")(self._run_rerun)
        self._log_link = chat(name="log_link")(self._run_log_link)
        self._accepted = queues.diagnoses.task(
            name="accepted", retries=RUN_RETRIES, retry_delay=RUN_RETRY_SECONDS
        )(self._run_accepted)

    def bind(self, runtime: Runtime, client: WebClient) -> None:
        """Tasks run with this runtime and Web API client (the worker side); the web side's tell the
        asker when a request could not be queued."""
        self._runtime = runtime
        self._client = client

    # ---- the web side: enqueue -----------------------------------------------------------------

    def diagnose(self, draft: RequestDraft, asker: AskerRef) -> None:
        self._enqueue(self._diagnose, asker, draft=_data(draft), asker=_data(asker))

    def explain(self, code: str, asker: AskerRef) -> None:
        self._enqueue(self._explain, asker, code=code, asker=_data(asker))

    def scan(self, command: ScanCommand, asker: AskerRef) -> None:
        self._enqueue(self._scan, asker, command=_data(command), asker=_data(asker))

    def text(self, text: str, asker: AskerRef, *, record: ThreadRecord | None, mentioned: bool) -> None:
        """A mention or a thread reply: a follow-up, a new question, or the usage."""
        self._enqueue(
            self._text, asker, text=text, asker=_data(asker), record=_data(record), mentioned=mentioned
        )

    def answer(
        self, pending_id: str, value: str, *, user: str, channel: str | None, prompt_ts: str | None = None
    ) -> None:
        """A choice clicked (`channel`, `prompt_ts`: where) or a value typed in a modal (neither)."""
        asker = AskerRef(user=user, channel=channel or "")
        self._enqueue(
            self._answer,
            asker,
            pending_id=pending_id,
            value=value,
            user=user,
            channel=channel,
            prompt_ts=prompt_ts,
        )

    def cancel(self, pending_id: str, *, user: str, channel: str | None, prompt_ts: str | None) -> None:
        asker = AskerRef(user=user, channel=channel or "")
        self._enqueue(
            self._cancel, asker, pending_id=pending_id, user=user, channel=channel, prompt_ts=prompt_ts
        )

    def retry(self, pending_id: str, *, user: str, channel: str) -> None:
        """Retry after a permission denial."""
        self._enqueue(
            self._retry,
            AskerRef(user=user, channel=channel),
            pending_id=pending_id,
            user=user,
            channel=channel,
        )

    def rerun(self, record: ThreadRecord, asker: AskerRef) -> None:
        self._enqueue(self._rerun, asker, record=_data(record), asker=_data(asker))

    def log_link(self, record: ThreadRecord, task_name: str, *, user: str, channel: str) -> None:
        """The full-log link for one task, to the submitter only (the link itself is never queued)."""
        self._enqueue(
            self._log_link,
            AskerRef(user=user, channel=channel),
            record=_data(record),
            task_name=task_name,
            user=user,
            channel=channel,
        )

    # ---- the diagnoses queue (called on the worker side by the conversation) -------------------

    def waiting(self) -> int:
        """Accepted diagnoses and scans not yet taken by a worker."""
        return int(self.queues.diagnoses.pending_count())

    def accept(self, request: AcceptedRequest) -> bool:
        """Queue an accepted diagnosis or scan; False (nothing queued) when too many already wait.
        Queued again under the same `request.id` (by a chat task whose worker died after queueing
        it), it still runs once."""
        if self.waiting() >= self.max_waiting:
            return False
        self.queues.diagnoses.enqueue(once(self._accepted.s(request=_data(request)), request.id))
        return True

    def still_current(self) -> bool:
        return still_held()

    def recalled(self, name: str) -> str | None:
        return recalled(name)

    def remember(self, name: str, value: str) -> None:
        remember(name, value)

    def _enqueue(self, task: TaskWrapper, reply_to: AskerRef, /, **arguments: Any) -> None:
        """Queue it; if the queue cannot take it, `reply_to` is told at once, privately."""
        try:
            task(**arguments)
        except Exception as exc:
            error = type(exc).__name__
            log.error("could not queue a %s task: %s", task.name, mask(f"{error}: {exc}"))
            runtime, _client = self._bound()
            runtime.services.background.run(self._tell_not_queued, reply_to, error=error)

    def _tell_not_queued(self, asker: AskerRef, *, error: str) -> None:
        """Ephemerally to the asker (the command's response_url, else chat.postEphemeral)."""
        from blocks.labels import label
        from blocks.messages import notice
        from bot.conversation import channel_lang
        from bot.slack_client import Notifier

        runtime, client = self._bound()
        if not asker.channel and not asker.response_url:
            return  # a modal submitted with no channel: the log line is all there is
        lang = asker.lang or channel_lang(runtime.services, asker.channel or None)
        Notifier(
            client,
            channel=asker.channel,
            user=asker.user,
            thread_ts=asker.thread_ts,
            respond=asker.asker().respond,
        ).tell(notice(label("not_queued", lang, error=error), emoji=":warning:"))

    # ---- the worker side: run ------------------------------------------------------------------

    def _bound(self) -> tuple[Runtime, WebClient]:
        if self._runtime is None or self._client is None:
            raise RuntimeError("the bot's tasks need its runtime (BotTasks.bind)")
        return self._runtime, self._client

    def _run_diagnose(self, *, draft: dict[str, Any], asker: dict[str, Any]) -> None:
        runtime, client = self._bound()
        runtime.conversation.start(
            client, RequestDraft.model_validate(draft), AskerRef.model_validate(asker).asker()
        )

    def _run_explain(self, *, code: str, asker: dict[str, Any]) -> None:
        runtime, client = self._bound()
        # A task queued by an older release holds an int.
        runtime.followups.explain(client, str(code), AskerRef.model_validate(asker).asker())

    def _run_scan(self, *, command: dict[str, Any], asker: dict[str, Any]) -> None:
        runtime, client = self._bound()
        runtime.scans.start(
            client, ScanCommand.model_validate(command), AskerRef.model_validate(asker).asker()
        )

    def _run_text(
        self, *, text: str, asker: dict[str, Any], record: dict[str, Any] | None, mentioned: bool
    ) -> None:
        from bot.router import route_text

        runtime, client = self._bound()
        route_text(
            runtime,
            client,
            text,
            AskerRef.model_validate(asker).asker(),
            record=None if record is None else ThreadRecord.model_validate(record),
            mentioned=mentioned,
        )

    def _run_answer(
        self, *, pending_id: str, value: str, user: str, channel: str | None, prompt_ts: str | None
    ) -> None:
        runtime, client = self._bound()
        runtime.answers.answer(client, pending_id, value, user=user, channel=channel, prompt_ts=prompt_ts)

    def _run_cancel(self, *, pending_id: str, user: str, channel: str | None, prompt_ts: str | None) -> None:
        runtime, client = self._bound()
        runtime.answers.cancel(client, pending_id, user=user, channel=channel, prompt_ts=prompt_ts)

    def _run_retry(self, *, pending_id: str, user: str, channel: str) -> None:
        runtime, client = self._bound()
        runtime.answers.retry(client, pending_id, user=user, channel=channel)

    def _run_rerun(self, *, record: dict[str, Any], asker: dict[str, Any]) -> None:
        runtime, client = self._bound()
        runtime.conversation.rerun(
            client, ThreadRecord.model_validate(record), AskerRef.model_validate(asker).asker()
        )

    def _run_log_link(self, *, record: dict[str, Any], task_name: str, user: str, channel: str) -> None:
        runtime, client = self._bound()
        runtime.followups.log_link(
            client, ThreadRecord.model_validate(record), task_name, user=user, channel=channel
        )

    def _run_accepted(self, *, request: dict[str, Any]) -> None:
        runtime, client = self._bound()
        accepted = AcceptedRequest.model_validate(request)
        run: Callable[[WebClient, AcceptedRequest], None] = (
            runtime.scans.run if accepted.purpose == "scan" else runtime.conversation.run
        )
        run(client, accepted)


def tasks_of(context: Any) -> BotTasks:
    """The tasks in a listener's Bolt context (bot.app puts them there)."""
    found: BotTasks = context["tasks"]
    return found

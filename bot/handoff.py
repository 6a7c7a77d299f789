"""Where a listener's job goes after the ack: this process's pool, or the store's queue for the
work processes (HTTP mode), and what the asker is told when the queue cannot take it."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Protocol

from slack_sdk import WebClient

from bot.jobs import Job, QueuedJob
from bot.state.store import StateStore
from bot.worker import Worker
from diagnosis.masking import mask

if TYPE_CHECKING:
    from bot.runtime import Runtime

log = logging.getLogger("diagnose.bot")


class JobSink(Protocol):
    def submit(self, runtime: Runtime, client: WebClient, job: Job) -> None: ...


class LocalJobs:
    """Run jobs on this process's chat pool (Socket Mode, the threaded server, a work process)."""

    def __init__(self, worker: Worker) -> None:
        self.worker = worker

    def submit(self, runtime: Runtime, client: WebClient, job: Job) -> None:
        self.worker.chat(job.run, runtime, client)


class QueuedJobs:
    """Queue jobs in the state store for the work processes (HTTP mode). Over HTTP the listener runs
    before Slack gets its response, so a request Slack saw answered is already stored: never lost
    between the ack and the work process, even across restarts.
    When the store cannot take it, the asker is told so at once (nothing is silently dropped)."""

    def __init__(self, store: StateStore) -> None:
        self.store = store

    def submit(self, runtime: Runtime, client: WebClient, job: Job) -> None:
        try:
            self.store.push_job(QueuedJob(job=job).model_dump_json(by_alias=True))
        except Exception as exc:
            log.error("could not queue a %s job: %s", job.kind, mask(f"{type(exc).__name__}: {exc}"))
            runtime.services.worker.chat(tell_not_queued, runtime, client, job, error=type(exc).__name__)


def tell_not_queued(runtime: Runtime, client: WebClient, job: Job, *, error: str) -> None:
    """Ephemerally to the asker (the command's response_url, else chat.postEphemeral)."""
    from blocks.labels import label
    from blocks.messages import notice
    from bot.conversation import channel_lang
    from bot.slack_client import Notifier

    asker = job.asker.asker() if hasattr(job, "asker") else None
    user = asker.user if asker else str(getattr(job, "user", ""))
    channel = asker.channel if asker else getattr(job, "channel", None)
    respond = asker.respond if asker else None
    if not channel and respond is None:
        return  # a modal submitted with no channel: the log line is all there is
    lang = (asker.lang if asker else None) or channel_lang(runtime.services, channel)
    message = notice(label("not_queued", lang, error=error), emoji=":warning:")
    Notifier(
        client,
        channel=channel or "",
        user=user,
        thread_ts=asker.thread_ts if asker else None,
        respond=respond,
    ).tell(message)

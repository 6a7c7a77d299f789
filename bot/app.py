"""The Bolt app factory: listeners, the runtime in the context, and Slack-retry deduplication."""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from slack_bolt import App, BoltContext, BoltResponse
from slack_sdk import WebClient

from bot.backends import DiagnosisBackend
from bot.groups import GroupMembers
from bot.handoff import JobSink, QueuedJobs
from bot.listeners import register
from bot.organisations import refuse_other_organisations
from bot.policy import Policy
from bot.runtime import Runtime
from bot.services import BotServices
from bot.state.store import StateStore
from bot.worker import Worker
from diagnosis.masking import mask

log = logging.getLogger("diagnose.bot")


def create_runtime(
    *,
    backend: DiagnosisBackend,
    store: StateStore,
    policy: Policy,
    client: WebClient,
    diagnosis_slots: int = 4,
    max_waiting: int = 50,
    progress_interval: float = 2.0,
    now: Callable[[], Any] | None = None,
    jobs: JobSink | None = None,
) -> Runtime:
    """`jobs`: where listeners hand work off (default: this process's pool). With a queue, this
    process only acks; the work processes run the jobs and resume interrupted diagnoses."""
    services = BotServices(
        backend=backend,
        store=store,
        policy=policy,
        worker=Worker(diagnosis_slots=diagnosis_slots, max_waiting=max_waiting),
        progress_interval=progress_interval,
        group_members=GroupMembers(client) if any(rule.usergroups for rule in policy.rules) else None,
    )
    if now is not None:
        services.now = now
    runtime = Runtime(services, jobs=jobs)
    if isinstance(jobs, QueuedJobs):
        return runtime
    # A restart loses nothing the user typed: diagnoses a stopped bot never answered run again here.
    resumed = runtime.conversation.resume_interrupted(client)
    if resumed:
        log.info("resumed %d interrupted diagnoses", resumed)
    return runtime


def build_app(
    runtime: Runtime,
    *,
    client: WebClient,
    signing_secret: str | None,
    socket_mode: bool = False,
    listener_threads: int = 8,
) -> App:
    """A sync Bolt App. Listeners only ack and hand off a job, so over HTTP each runs on the request's
    own thread and the response goes out once the job is stored (never before: a web process that
    dies after answering Slack has lost nothing). In Socket Mode acks go over the socket and the
    listeners run on a small pool."""
    app = App(
        client=client,
        signing_secret=signing_secret or "",
        process_before_response=not socket_mode,
        request_verification_enabled=not socket_mode,
        raise_error_for_unhandled_request=False,
        listener_executor=ThreadPoolExecutor(
            max_workers=listener_threads, thread_name_prefix="bolt-listener"
        ),
    )

    def inject_runtime(context: BoltContext, next: Callable[[], None]) -> None:
        context["runtime"] = runtime
        next()

    def drop_retried_events(body: dict[str, Any], next: Callable[[], None]) -> BoltResponse | None:
        # Slack retries an event it thinks was lost (same event_id, X-Slack-Retry-Num): the first
        # claim wins on every replica; the others answer 200 so Slack stops retrying.
        event_id = body.get("event_id") if body.get("type") == "event_callback" else None
        if event_id and not runtime.services.store.claim(f"event:{event_id}"):
            return BoltResponse(status=200, body="")
        next()
        return None

    app.use(inject_runtime)
    app.use(drop_retried_events)
    # People of organisations the policy does not admit (Slack Connect) get one sentence, nothing else.
    app.use(refuse_other_organisations)
    register(app)

    @app.error
    def on_error(error: Exception) -> None:
        log.error("listener failed: %s", mask(f"{type(error).__name__}: {error}"))

    return app

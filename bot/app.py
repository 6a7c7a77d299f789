"""The bot's parts and the Bolt app: listeners, the runtime and tasks in the context, and
Slack-retry deduplication."""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from slack_bolt import App, BoltContext, BoltResponse
from slack_sdk import WebClient

from bot.backends import DiagnosisBackend
from bot.background import Background
from bot.groups import GroupMembers
from bot.listeners import register
from bot.organisations import refuse_other_organisations
from bot.policy import Policy
from bot.queue import Queues
from bot.runtime import Runtime
from bot.services import BotServices
from bot.state.store import StateStore
from bot.tasks import BotTasks
from diagnosis.masking import mask

log = logging.getLogger("diagnose.bot")


@dataclass
class Bot:
    """The bot's parts in one process: its runtime, its tasks (enqueued here; run here too on the
    worker side) and its Web API client."""

    runtime: Runtime
    tasks: BotTasks
    client: WebClient


def create_bot(
    *,
    backend: DiagnosisBackend,
    store: StateStore,
    policy: Policy,
    client: WebClient,
    queues: Queues,
    max_waiting: int = 50,
    progress_interval: float = 2.0,
    now: Callable[[], Any] | None = None,
) -> Bot:
    tasks = BotTasks(queues, max_waiting=max_waiting)
    services = BotServices(
        backend=backend,
        store=store,
        policy=policy,
        queue=tasks,
        background=Background(),
        progress_interval=progress_interval,
        group_members=GroupMembers(client) if any(rule.usergroups for rule in policy.rules) else None,
    )
    if now is not None:
        services.now = now
    runtime = Runtime(services)
    tasks.bind(runtime, client)
    return Bot(runtime=runtime, tasks=tasks, client=client)


def build_app(bot: Bot, *, socket_mode: bool = False, listener_threads: int = 8) -> App:
    """A sync Bolt App. Listeners only ack and enqueue a task, so over HTTP each runs on the
    request's own thread and the response goes out once the task is queued (never before: a web
    process that dies after answering Slack has lost nothing). In Socket Mode acks go over the
    socket and the listeners run on a small pool.

    Bolt's own signature check is off: over HTTP the app is served only behind bot.ingress
    (bot.server.wsgi_app), which checks the signature, the timestamp and replays before Bolt reads
    a byte, so Bolt's second HMAC of the same body would only repeat it on every ack; Socket Mode
    requests come over the app's authenticated socket and carry no signature."""
    runtime = bot.runtime
    app = App(
        client=bot.client,
        process_before_response=not socket_mode,
        request_verification_enabled=False,
        raise_error_for_unhandled_request=False,
        listener_executor=ThreadPoolExecutor(
            max_workers=listener_threads, thread_name_prefix="bolt-listener"
        ),
    )

    def runtime_and_retries(
        context: BoltContext, body: dict[str, Any], next: Callable[[], None]
    ) -> BoltResponse | None:
        # One middleware for both (Bolt resolves each middleware's arguments on every request).
        context["runtime"] = runtime
        context["tasks"] = bot.tasks
        # Slack retries an event it thinks was lost (same event_id, X-Slack-Retry-Num): the first
        # claim wins on every replica; the others answer 200 so Slack stops retrying.
        event_id = body.get("event_id") if body.get("type") == "event_callback" else None
        if event_id and not runtime.services.store.claim(f"event:{event_id}"):
            return BoltResponse(status=200, body="")
        next()
        return None

    app.use(runtime_and_retries)
    # People of organisations the policy does not admit (Slack Connect) get one sentence, nothing else.
    app.use(refuse_other_organisations)
    register(app)

    @app.error
    def on_error(error: Exception) -> None:
        log.error("listener failed: %s", mask(f"{type(error).__name__}: {error}"))

    return app

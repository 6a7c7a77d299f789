"""How the bot's processes run: the front (the HTTP server, or the Socket Mode connection) that
acks and queues, the worker that runs the queue, and on one machine both from one command.

In Kubernetes each runs in its own container and the platform restarts it. On one machine
`diagnose bot` starts the worker as a child at a slightly lower CPU priority (nice +5), whose
diagnosis threads run lower still (nice +10, bot.queue.workers: an ack has 3 seconds; a placeholder
or a report 100 ms later is not noticed), and serves the front itself; when either stops, both stop
with the worker's exit code, so that the machine's service manager (systemd's Restart=, Docker's
--restart) restarts the bot. Nothing queued is lost meanwhile: the queue is on disk.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from bot.app import Bot, build_app, create_bot
from bot.backends import DiagnosisBackend
from bot.policy import Policy
from bot.queue import Queues, open_queues
from bot.queue.workers import Workers
from bot.server import HttpServer, health, wsgi_app
from bot.settings import BotSettings
from bot.slack_client import make_client
from bot.state import open_store
from bot.state.store import StateStore

log = logging.getLogger("diagnose.bot")

BackendFactory = Callable[[], tuple[DiagnosisBackend, Policy]]
# Set for the worker that `diagnose bot` starts: it stops when that process is gone.
PARENT_ENV = "DIAGNOSE_BOT_PARENT_PID"
# The niceness of the worker `diagnose bot` starts: a few steps below the front (at 0), still above
# the diagnosis threads (bot.queue.workers). Not lower: a worker thread descheduled while it holds a
# SQLite write lock makes the front's next write wait for it (at nice +10, acks waited 2 s at load 8).
WORKER_NICE = 5
# A stopping worker gives running tasks this long, then queues them again (the chart's
# terminationGracePeriodSeconds leaves room for it).
STOP_GRACE_SECONDS = 25.0


@dataclass
class Parts:
    settings: BotSettings
    bot_token: str
    backend_factory: BackendFactory

    def open(self) -> tuple[Bot, StateStore, Queues]:
        settings = self.settings
        backend, policy = self.backend_factory()
        client = make_client(token=self.bot_token, base_url=settings.api_url)
        store = open_store(
            redis_url=settings.redis_url, sqlite_path=settings.state_path, namespace=settings.redis_namespace
        )
        queues = open_queues(
            redis_url=settings.redis_url, state_path=settings.state_path, namespace=settings.redis_namespace
        )
        bot = create_bot(
            backend=backend,
            store=store,
            policy=policy,
            client=client,
            queues=queues,
            max_waiting=settings.max_waiting,
            progress_interval=settings.progress_interval_seconds,
        )
        log.info(
            "bot ready: backend=%s state=%s queue=%s",
            backend.name,
            "redis" if settings.redis_url else settings.state_path,
            queues.where,
        )
        return bot, store, queues


class Front(Protocol):
    def start(self) -> None: ...

    def stop(self) -> None: ...


class HttpFront:
    def __init__(self, parts: Parts, *, signing_secret: str, host: str, port: int, threads: int) -> None:
        self.parts = parts
        self.signing_secret = signing_secret
        self.host, self.port, self.threads = host, port, threads
        self.server: HttpServer | None = None

    def start(self) -> None:
        bot, store, queues = self.parts.open()
        app = build_app(bot)
        application = wsgi_app(
            app,
            signing_secret=self.signing_secret,
            store=store,
            ready=lambda: {"state": store.ping(), "queue": queues.ping()},
        )
        self.server = HttpServer(application, host=self.host, port=self.port, threads=self.threads).start()
        print(f"listening on {self.server.url}", flush=True)

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()


class SocketModeFront:
    def __init__(self, parts: Parts, *, app_token: str) -> None:
        self.parts = parts
        self.app_token = app_token
        self.handler: object | None = None

    def start(self) -> None:
        from slack_bolt.adapter.socket_mode import SocketModeHandler

        bot, _store, _queues = self.parts.open()
        handler = SocketModeHandler(build_app(bot, socket_mode=True), self.app_token)
        handler.connect()
        self.handler = handler

    def stop(self) -> None:
        from slack_bolt.adapter.socket_mode import SocketModeHandler

        if isinstance(self.handler, SocketModeHandler):
            self.handler.close()


def _stop_on_signals() -> threading.Event:
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda number, frame: stop.set())
    return stop


def run_front(front: Front) -> int:
    """Only the side that talks to Slack (`--role web`), until SIGTERM or SIGINT."""
    stop = _stop_on_signals()
    front.start()
    stop.wait()
    front.stop()
    return 0


def run_with_worker(front: Front, *, worker_command: list[str]) -> int:
    """The front here and the worker as a child (`diagnose bot` on one machine)."""
    stop = _stop_on_signals()
    # The worker lowers its own priority a little (WORKER_NICE), its diagnosis threads further.
    worker = subprocess.Popen(worker_command, env={**os.environ, PARENT_ENV: str(os.getpid())})
    exit_code = 0

    def watch() -> None:
        nonlocal exit_code
        code = worker.wait()
        if not stop.is_set():
            log.error("the worker process stopped (exit code %s): the bot stops; restart it", code)
            exit_code = code or 1
            stop.set()

    threading.Thread(target=watch, name="watch-worker", daemon=True).start()
    try:
        front.start()
        stop.wait()
    finally:
        stop.set()
        front.stop()
        if worker.poll() is None:
            worker.terminate()
            try:
                worker.wait(timeout=STOP_GRACE_SECONDS + 5)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait()
    return exit_code


def _yield_to_the_front() -> None:
    """On one machine (the worker `diagnose bot` starts), the worker's threads run at nice
    WORKER_NICE: when both want the CPU, the front's acks (3 s) come first. Linux gives each thread
    its own niceness and a new thread inherits its creator's, so this runs before the worker starts
    any; its diagnosis threads then lower themselves further (bot.queue.workers)."""
    try:
        os.nice(WORKER_NICE)
    except OSError:  # not allowed here (some sandboxes): the normal priority
        log.info("could not lower the worker's CPU priority")


def run_worker(parts: Parts, *, health_port: int | None = None) -> int:
    """A worker (`--role worker`): both queues' consumers, until SIGTERM or SIGINT (or, started by
    `diagnose bot`, until that process is gone)."""
    from bot.server import prepare_worker_process

    if os.environ.get(PARENT_ENV):
        _yield_to_the_front()
    stop = _stop_on_signals()
    bot, store, queues = parts.open()
    if bot.runtime.services.backend.name == "live":
        # The live clients' imports now, not within the first diagnosis' deadline.
        from diagnosis import engine

        engine.warm_up()
    prepare_worker_process()
    workers = Workers(
        queues, chat_threads=parts.settings.chat_threads, diagnosis_threads=parts.settings.diagnosis_slots
    )
    workers.start()
    probe: HttpServer | None = None
    if health_port is not None:

        def application(environ: dict[str, object], start_response: Callable[..., object]) -> list[bytes]:
            checks = {"state": store.ping(), "queue": queues.ping(), "worker": workers.redelivery.alive()}
            return health(start_response, checks)

        probe = HttpServer(application, host="0.0.0.0", port=health_port, threads=1).start()
    log.info("worker %d ready: queue=%s", os.getpid(), queues.where)
    parent = os.environ.get(PARENT_ENV)
    while not stop.wait(1.0):
        workers.check()
        if parent and str(os.getppid()) != parent:
            log.warning("the bot's main process is gone: the worker stops")
            break
    workers.stop(timeout=STOP_GRACE_SECONDS)
    background = bot.runtime.services.background
    background.wait_idle(timeout=5)
    background.shutdown(wait=False)
    if probe is not None:
        probe.stop()
    store.close()
    queues.close()
    return 0

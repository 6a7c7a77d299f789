"""`diagnose bot`: the Slack bot. Socket Mode by default; `--http` serves `POST /slack/events`.

    diagnose bot                         # Socket Mode (SLACK_BOT_TOKEN, SLACK_APP_TOKEN)
    diagnose bot --http --port 3000      # HTTP mode (SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET), gunicorn
    diagnose bot --bundles DIR           # answer from recorded bundles only (demo, no cloud)

HTTP mode under gunicorn runs a small process tree: web processes that only verify, ack and queue
each request (`--workers`), and work processes at a lower CPU priority that run what was queued
(`--work-processes`), sharing the state store. `--role web|work` runs one side alone (two
Deployments, say); both sides then need the same state store (REDIS_URL across machines).

Without DIAGNOSE_POLICY a new install answers from the built-in demo bundles only.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path
from typing import Any

import diagnosis
from cli.main import UsageError
from diagnosis.masking import MaskingFilter

# The demo bundles shipped with the engine (package data of `diagnosis`).
BUILTIN_BUNDLES = Path(diagnosis.__file__).resolve().parent / "examples"
log = logging.getLogger("diagnose.bot")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("bot", help="run the Slack bot (Socket Mode, or --http)")
    parser.add_argument(
        "--http", action="store_true", help="HTTP mode: serve POST /slack/events and GET /healthz"
    )
    parser.add_argument("--host", default="0.0.0.0", help="HTTP mode: address to bind (default 0.0.0.0)")
    parser.add_argument(
        "--port",
        type=int,
        default=int(os.environ.get("PORT", "3000")),
        help="HTTP mode: port (default 3000, 0 = any free port)",
    )
    parser.add_argument(
        "--threads", type=int, default=32, help="HTTP mode: request threads per worker (default 32)"
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=int(os.environ.get("DIAGNOSE_BOT_WEB_PROCESSES", "2")),
        help="HTTP mode: gunicorn processes that ack and queue requests (default 2)",
    )
    parser.add_argument(
        "--work-processes",
        type=int,
        default=int(os.environ.get("DIAGNOSE_BOT_WORK_PROCESSES", "1")),
        help="HTTP mode: processes that run the queued requests (default 1; 0 = inside the web processes)",
    )
    parser.add_argument(
        "--role",
        choices=("all", "web", "work"),
        default="all",
        help="HTTP mode: run everything (default), only the web side, or only a work process",
    )
    parser.add_argument(
        "--server",
        choices=("gunicorn", "threaded"),
        default="gunicorn",
        help="HTTP mode: gunicorn (default) or a single-process threading server",
    )
    parser.add_argument(
        "--bundles", metavar="DIR", help="answer from the evidence bundles in DIR (demo mode)"
    )
    parser.add_argument(
        "--log-level", default=os.environ.get("LOG_LEVEL", "INFO"), help="log level (default INFO)"
    )
    parser.set_defaults(handler=handle)


def configure_logging(level: str) -> None:
    """Every line through the masking filter; Bolt's verification logger (it logs request bodies) quiet."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    handler.addFilter(MaskingFilter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    logging.getLogger("slack_bolt").setLevel(logging.WARNING)
    # Bolt also reads SLACK_BOT_TOKEN itself and warns that the client's token wins: it is the same one.
    logging.getLogger("slack_bolt.App").addFilter(
        lambda record: "`token` will be unused" not in record.getMessage()
    )
    logging.getLogger("slack_sdk").setLevel(logging.WARNING)
    logging.getLogger("httpx").setLevel(logging.WARNING)


def handle(args: argparse.Namespace) -> int:
    from bot.settings import BotSettings

    configure_logging(args.log_level)
    settings = BotSettings()
    bot_token = _secret(settings.bot_token)
    if os.environ.get("SLACK_CLIENT_ID") and os.environ.get("SLACK_CLIENT_SECRET"):
        # Bolt would switch to OAuth and ignore the bot token (shared/reference/slack.md 5.3).
        raise UsageError("unset SLACK_CLIENT_ID / SLACK_CLIENT_SECRET: this bot runs with a single bot token")
    if args.http:
        secret = _secret(settings.signing_secret)
        _require_tokens(
            "HTTP mode",
            {
                "SLACK_BOT_TOKEN": (bot_token, "the xoxb- bot token of the Slack app"),
                "SLACK_SIGNING_SECRET": (secret, "Basic Information → Signing Secret"),
            },
        )
        backend_factory = _backend_factory(args, settings)
        backend_factory()  # fail early (bad directory, bad policy) before serving
        assert bot_token is not None and secret is not None
        return _serve_http(args, settings, bot_token, secret, backend_factory)
    app_token = _secret(settings.app_token)
    _require_tokens(
        "Socket Mode",
        {
            "SLACK_BOT_TOKEN": (bot_token, "the xoxb- bot token of the Slack app"),
            "SLACK_APP_TOKEN": (app_token, "an xapp- app-level token with connections:write"),
        },
        alternative="or run with --http and SLACK_SIGNING_SECRET",
    )
    backend_factory = _backend_factory(args, settings)
    backend_factory()
    assert bot_token is not None and app_token is not None
    return _serve_socket_mode(settings, bot_token, app_token, backend_factory)


def _secret(value: Any) -> str | None:
    if value is None:
        return None
    return str(value.get_secret_value()) or None


def _require_tokens(
    mode: str, tokens: dict[str, tuple[str | None, str]], *, alternative: str | None = None
) -> None:
    """One line naming every missing variable (and what it is), never a traceback."""
    missing = [f"{name} ({what})" for name, (value, what) in tokens.items() if not value]
    if missing:
        tail = f"; {alternative}" if alternative else ""
        them = "them" if len(missing) > 1 else "it"
        raise UsageError(f"{mode} needs {' and '.join(missing)}: set {them} in the environment{tail}")


def _backend_factory(args: argparse.Namespace, settings: Any) -> Any:
    from bot.backends import BundlesBackend, LiveBackend
    from bot.policy import PolicyError, load_policy

    try:
        policy = load_policy(settings.policy_path)
    except PolicyError as exc:
        raise UsageError(str(exc)) from None
    directory: Path | None = None
    if args.bundles:
        directory = Path(args.bundles)
    elif policy.demo_only:
        directory = BUILTIN_BUNDLES
        log.warning("no access policy (DIAGNOSE_POLICY): answering from the demo bundles only")
    if directory is not None and not directory.is_dir():
        raise UsageError(f"--bundles {directory}: not a directory")

    def make() -> tuple[Any, Any]:
        if directory is not None:
            from diagnosis.evidence.bundles import BundleError

            try:
                backend = BundlesBackend(directory)
            except BundleError as exc:
                raise UsageError(str(exc)) from None
            if not backend.bundles and not backend.scan_bundles:
                raise UsageError(f"no evidence bundle in {directory}")
            return backend, policy
        return LiveBackend(), policy

    return make


def _runtime(settings: Any, bot_token: str, backend_factory: Any, *, queue_jobs: bool) -> Any:
    """The bot's runtime and Web API client. `queue_jobs`: listeners queue their work for the work
    processes (which resume interrupted diagnoses on start) instead of running it here."""
    from bot.app import create_runtime
    from bot.handoff import QueuedJobs
    from bot.slack_client import make_client
    from bot.state import open_store

    backend, policy = backend_factory()
    client = make_client(token=bot_token, base_url=settings.api_url)
    store = open_store(
        redis_url=settings.redis_url, sqlite_path=settings.state_path, namespace=settings.redis_namespace
    )
    runtime = create_runtime(
        backend=backend,
        store=store,
        policy=policy,
        client=client,
        diagnosis_slots=settings.diagnosis_slots,
        max_waiting=settings.max_waiting,
        progress_interval=settings.progress_interval_seconds,
        jobs=QueuedJobs(store) if queue_jobs else None,
    )
    return runtime, client, store, backend


def _build(
    settings: Any,
    bot_token: str,
    secret: str | None,
    backend_factory: Any,
    *,
    socket_mode: bool,
    queue_jobs: bool = False,
) -> Any:
    from bot.app import build_app

    runtime, client, store, backend = _runtime(settings, bot_token, backend_factory, queue_jobs=queue_jobs)
    app = build_app(runtime, client=client, signing_secret=secret, socket_mode=socket_mode)
    log.info(
        "bot ready: backend=%s state=%s",
        backend.name,
        "redis" if settings.redis_url else settings.state_path,
    )
    return app, store


def _serve_http(
    args: argparse.Namespace, settings: Any, bot_token: str, secret: str, backend_factory: Any
) -> int:
    from bot.server import ThreadedServer, run_gunicorn, wsgi_app

    separate_work = args.server == "gunicorn" and (args.role != "all" or args.work_processes > 0)
    if args.role == "work":
        return _serve_work(settings, bot_token, backend_factory)
    if args.role == "all" and separate_work:
        return _supervise(args)

    def load() -> Any:
        app, store = _build(
            settings, bot_token, secret, backend_factory, socket_mode=False, queue_jobs=separate_work
        )
        if not separate_work:
            return wsgi_app(app, ready=lambda: {"state": store.ping()})
        from bot.work import work_keeps_up

        # `work`: queued jobs are being taken (a stalled queue fails the probes: the pod restarts).
        return wsgi_app(app, ready=lambda: {"state": store.ping(), "work": work_keeps_up(store)})

    def announce(address: str) -> None:
        print(f"listening on {address}", flush=True)

    if args.server == "threaded":
        server = ThreadedServer(load(), host=args.host, port=args.port)
        announce(server.url)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            server.stop()
        return 0
    run_gunicorn(
        load, host=args.host, port=args.port, threads=args.threads, workers=args.workers, on_ready=announce
    )
    return 0


def _supervise(args: argparse.Namespace) -> int:
    """The web side and `--work-processes` work processes as children of this one (bot.supervisor)."""
    from bot.supervisor import Child, Supervisor

    entry = [sys.executable, "-c", "import sys; from cli.main import main; sys.exit(main())"]
    argv = [arg for arg in sys.argv[1:] if not arg.startswith("--role")]
    children = [Child(name="web", command=[*entry, *argv, "--role", "web"])]
    children += [
        Child(name=f"work-{number}", command=[*entry, *argv, "--role", "work"])
        for number in range(1, args.work_processes + 1)
    ]
    return Supervisor(children).run()


def _serve_work(settings: Any, bot_token: str, backend_factory: Any) -> int:
    """A work process: run the jobs the web processes queued, at a lower CPU priority."""
    import signal

    from bot.work import JobRunner, lower_priority

    lower_priority()
    parent = os.getppid()
    runtime, client, store, backend = _runtime(settings, bot_token, backend_factory, queue_jobs=False)
    runner = JobRunner(runtime, client, slots=runtime.services.worker.chat_slots)
    signal.signal(signal.SIGTERM, lambda signum, frame: runner.stop.set())
    signal.signal(signal.SIGINT, lambda signum, frame: runner.stop.set())
    log.info("work process %d ready: backend=%s", os.getpid(), backend.name)
    runner.serve(parent_pid=parent)
    # Running diagnoses finish if they can; any cut short is resumed by the next work process.
    runtime.services.worker.wait_idle(timeout=25)
    runtime.services.worker.shutdown(wait=False)
    store.close()
    return 0


def _serve_socket_mode(settings: Any, bot_token: str, app_token: str, backend_factory: Any) -> int:
    from slack_bolt.adapter.socket_mode import SocketModeHandler

    app, _store = _build(settings, bot_token, None, backend_factory, socket_mode=True)
    SocketModeHandler(app, app_token).start()
    return 0

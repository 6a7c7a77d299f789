"""`diagnose bot`: the Slack bot. Socket Mode by default; `--http` serves `POST /slack/events`.

    diagnose bot                         # Socket Mode (SLACK_BOT_TOKEN, SLACK_APP_TOKEN)
    diagnose bot --http --port 3000      # HTTP mode (SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET)
    diagnose bot --bundles DIR           # answer from recorded bundles only (demo, no cloud)

The side that talks to Slack (the HTTP server, or the Socket Mode connection) only verifies, acks
and queues each request; a worker process runs what was queued (bot.tasks, on huey). On one
machine `diagnose bot` runs both, sharing a SQLite file beside the state; if either stops, both
stop and the queue keeps what was not answered for the next start. `--role web` and `--role worker`
run one side each (Kubernetes: two Deployments of one image, sharing a Redis via REDIS_URL).

Without DIAGNOSE_POLICY a new install answers from the built-in demo bundles only.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import diagnosis
from cli.main import UsageError
from cli.messages import say

if TYPE_CHECKING:
    from bot.backends import DiagnosisBackend
    from bot.launch import BackendFactory
    from bot.policy import Policy
    from bot.settings import BotSettings

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
        "--threads",
        type=int,
        default=8,
        help="HTTP mode: request threads (default 8; they only ack and queue)",
    )
    parser.add_argument(
        "--role",
        choices=("all", "web", "worker"),
        default="all",
        help=(
            "all (default): the side that talks to Slack and a worker process, on one machine; web: "
            "only the side that talks to Slack (the HTTP server, or the Socket Mode connection); "
            "worker: only a worker, running what the web side queued"
        ),
    )
    parser.add_argument(
        "--health-port",
        type=int,
        default=None,
        help="worker: serve GET /healthz on this port (for Kubernetes probes)",
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
    from diagnosis.masking import MaskingFilter

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
    # waitress warns "Task queue depth is N" for every request that waits for one of its threads:
    # each request of a burst, each line masked and written while the acks are being answered.
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)


def handle(args: argparse.Namespace) -> int:
    from bot import launch
    from bot.settings import BotSettings

    configure_logging(args.log_level)
    settings = BotSettings()
    bot_token = _secret(settings.bot_token)
    if os.environ.get("SLACK_CLIENT_ID") and os.environ.get("SLACK_CLIENT_SECRET"):
        # Bolt would switch to OAuth (an installation store) and ignore the single bot token.
        raise UsageError(say("error.bot_oauth"))
    tokens = {"SLACK_BOT_TOKEN": (bot_token, say("bot.token.bot"))}
    secret = _secret(settings.signing_secret)
    app_token = _secret(settings.app_token)
    if args.role == "worker":
        _require_tokens(say("bot.mode.worker"), tokens)
    elif args.http:
        tokens["SLACK_SIGNING_SECRET"] = (secret, say("bot.token.signing_secret"))
        _require_tokens(say("bot.mode.http"), tokens)
    else:
        tokens["SLACK_APP_TOKEN"] = (app_token, say("bot.token.app"))
        _require_tokens(say("bot.mode.socket"), tokens, alternative=say("bot.alternative_http"))
    backend_factory = _backend_factory(args, settings)
    backend_factory()  # fail early (bad directory, bad policy) before serving
    assert bot_token is not None
    parts = launch.Parts(settings=settings, bot_token=bot_token, backend_factory=backend_factory)
    if args.role == "worker":
        return launch.run_worker(parts, health_port=args.health_port)
    front: launch.Front
    if args.http:
        assert secret is not None
        front = launch.HttpFront(
            parts, signing_secret=secret, host=args.host, port=args.port, threads=args.threads
        )
    else:
        assert app_token is not None
        front = launch.SocketModeFront(parts, app_token=app_token)
    if args.role == "web":
        return launch.run_front(front)
    return launch.run_with_worker(front, worker_command=_worker_command())


def _worker_command() -> list[str]:
    """This very command as a worker (`--role worker`): same settings, same environment."""
    argv: list[str] = []
    arguments = iter(sys.argv[1:])
    for arg in arguments:
        if arg == "--role":
            next(arguments, None)
        elif not arg.startswith("--role="):
            argv.append(arg)
    entry = [sys.executable, "-c", "import sys; from cli.main import main; sys.exit(main())"]
    return [*entry, *argv, "--role", "worker"]


def _secret(value: Any) -> str | None:
    if value is None:
        return None
    return str(value.get_secret_value()) or None


def _require_tokens(
    mode: str, tokens: dict[str, tuple[str | None, str]], *, alternative: str | None = None
) -> None:
    """One line naming every missing variable (and what it is), never a traceback."""
    missing = [
        say("bot.missing_item", name=name, what=what) for name, (value, what) in tokens.items() if not value
    ]
    if missing:
        sentence = say(
            "bot.missing.many" if len(missing) > 1 else "bot.missing.one",
            mode=mode,
            missing=say("bot.missing_and").join(missing),
        )
        if alternative:
            sentence = say("bot.missing.alternative", sentence=sentence, alternative=alternative)
        raise UsageError(sentence)


def _backend_factory(args: argparse.Namespace, settings: BotSettings) -> BackendFactory:
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
        raise UsageError(say("error.bundles_not_directory", folder=directory))

    def make() -> tuple[DiagnosisBackend, Policy]:
        if directory is not None:
            from diagnosis.evidence.bundles import BundleError

            try:
                backend = BundlesBackend(directory)
            except BundleError as exc:
                raise UsageError(str(exc)) from None
            if not backend.bundles and not backend.scan_bundles:
                raise UsageError(say("error.no_bundle_in", folder=directory))
            return backend, policy
        return LiveBackend(), policy

    return make

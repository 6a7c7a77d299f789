"""The real entry point in subprocesses: `diagnose bot --http` answering from bundles, with the Web
API pointed at the local stand-in (SLACK_API_URL). Several can start at once."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playground.slack_api import SlackApiStandIn
from tests.bot.harness import SIGNING_SECRET
from tests.conftest import EXAMPLES, ROOT

# The `diagnose` console script, run with this interpreter.
DIAGNOSE = [sys.executable, "-c", "import sys; from cli.main import main; sys.exit(main())"]
START_SECONDS = 45


@dataclass
class BotProcess:
    process: subprocess.Popen[str]
    url: str = ""


def _environment(api: SlackApiStandIn, state_dir: Path, extra_env: dict[str, str]) -> dict[str, str]:
    env = {
        **os.environ,
        "SLACK_BOT_TOKEN": "xoxb-test-token",
        "SLACK_SIGNING_SECRET": SIGNING_SECRET,
        "SLACK_API_URL": api.url,
        "DIAGNOSE_STATE_PATH": str(state_dir / "state.sqlite3"),
        "HOME": str(state_dir),
        **extra_env,
    }
    for name in ("REDIS_URL", "DIAGNOSE_POLICY", "SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET", "DIAGNOSE_NOW"):
        if name not in extra_env:
            env.pop(name, None)
    return env


def _start(
    api: SlackApiStandIn,
    state_dir: Path,
    extra_env: dict[str, str],
    bundles: Path,
    *,
    arguments: Sequence[str] = (),
    stderr: Any = subprocess.PIPE,
) -> BotProcess:
    command = [
        *DIAGNOSE,
        "bot",
        "--http",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--threads",
        "8",
        "--bundles",
        str(bundles),
        *arguments,
    ]
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        env=_environment(api, state_dir, extra_env),
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
    )
    return BotProcess(process)


def _wait_listening(bot: BotProcess, deadline: float) -> None:
    stdout = bot.process.stdout
    assert stdout is not None
    while not bot.url:
        line = stdout.readline()
        if line.startswith("listening on "):
            bot.url = line.split()[-1]
        elif not line and bot.process.poll() is not None:
            stderr = bot.process.stderr.read() if bot.process.stderr else "(see the bot's log file)"
            raise AssertionError(f"the bot exited: {stderr}")
        assert time.monotonic() < deadline, "the bot did not start in time"


def _stop(bot: BotProcess, *, timeout: float = 15) -> None:
    bot.process.terminate()
    try:
        bot.process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        bot.process.kill()
        bot.process.wait()


@contextmanager
def bot_processes(
    api: SlackApiStandIn,
    state_dir: Path,
    *,
    count: int = 1,
    extra_env: dict[str, str] | None = None,
    bundles: Path = EXAMPLES,
) -> Iterator[Sequence[str]]:
    """`count` bot processes started together (same environment); yields their base URLs."""
    started: list[BotProcess] = []
    try:
        for _ in range(count):
            started.append(_start(api, state_dir, extra_env or {}, bundles))
        deadline = time.monotonic() + START_SECONDS
        for bot in started:
            _wait_listening(bot, deadline)
        yield [bot.url for bot in started]
    finally:
        for bot in started:
            _stop(bot)


@contextmanager
def bot_process(api: SlackApiStandIn, state_dir: Path, *, extra_env: dict[str, str]) -> Iterator[str]:
    with bot_processes(api, state_dir, extra_env=extra_env) as urls:
        yield urls[0]


@contextmanager
def logged_bot_process(
    api: SlackApiStandIn, state_dir: Path, *arguments: str, log_name: str = "bot.log"
) -> Iterator[BotProcess]:
    """One `diagnose bot --http … <arguments>` whose log goes to `<state_dir>/<log_name>`; stopped
    with room for a graceful stop of its worker too."""
    with (state_dir / log_name).open("w", encoding="utf-8") as log:
        bot = _start(api, state_dir, {}, EXAMPLES, arguments=arguments, stderr=log)
        try:
            _wait_listening(bot, time.monotonic() + START_SECONDS)
            yield bot
        finally:
            _stop(bot, timeout=40)


@contextmanager
def worker_process(
    api: SlackApiStandIn, state_dir: Path, *, log_name: str = "worker.log"
) -> Iterator[subprocess.Popen[str]]:
    """`diagnose bot --role worker` (no Slack connection of its own), ready once it says so."""
    path = state_dir / log_name
    with path.open("w", encoding="utf-8") as log:
        process = subprocess.Popen(
            [*DIAGNOSE, "bot", "--role", "worker", "--bundles", str(EXAMPLES)],
            cwd=ROOT,
            env=_environment(api, state_dir, {}),
            stdout=subprocess.DEVNULL,
            stderr=log,
            text=True,
        )
        try:
            deadline = time.monotonic() + START_SECONDS
            while f"worker {process.pid} ready" not in path.read_text():
                assert process.poll() is None, f"the worker exited: {path.read_text()}"
                assert time.monotonic() < deadline, "the worker did not start in time"
                time.sleep(0.1)
            yield process
        finally:
            _stop(BotProcess(process), timeout=40)


@contextmanager
def socket_mode_process(
    api: SlackApiStandIn, state_dir: Path, *, app_token: str, arguments: Sequence[str]
) -> Iterator[subprocess.Popen[str]]:
    """`diagnose bot <arguments>` in Socket Mode: the Web API (and so apps.connections.open) is the
    stand-in; readiness shows as the stand-in WebSocket's first ack."""
    env = _environment(api, state_dir, {"SLACK_APP_TOKEN": app_token})
    env.pop("SLACK_SIGNING_SECRET", None)
    # Its log goes to a file (a pipe nobody reads could fill up and stall it): `<state_dir>/bot.log`.
    with (state_dir / "bot.log").open("w", encoding="utf-8") as log:
        process = subprocess.Popen(
            [*DIAGNOSE, "bot", *arguments],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=log,
            text=True,
        )
        try:
            yield process
        finally:
            _stop(BotProcess(process))

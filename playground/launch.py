"""Start the playground: the Web API stand-in, the simulator, the real bot, the page.

The bot is `diagnose bot --http` as a child process, exactly as a deployment starts it, with the
local app's signing secret (random per run), a local bot token, `SLACK_API_URL` at the stand-in,
its state in the embedded default store (a SQLite file in a temporary folder), the playground's
access policy, and the example scenarios as its evidence (`--bundles`: each replayed at the moment
it was recorded). The simulator serves the same scenarios at the platforms' real paths, for the
live CLI (the page shows the environment to paste, as `diagnose sim` prints it). Everything
listens on 127.0.0.1 only.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import httpx

from playground import directory
from playground.page import PageContext, PageServer
from playground.slack_api import SlackApiStandIn
from playground.slack_requests import SlackToBot
from simulator.environment import DEMO_ACCESS_KEY, DEMO_SECRET_KEY, modelarts_regions, simulator_environment
from simulator.server import SimServer, load_bundle_dir

BOT_START_SECONDS = 90
BOT_TOKEN = "xoxb-playground-local-token"
# The bot is started the way a deployment starts it: the console script's entry point.
DIAGNOSE = [sys.executable, "-c", "import sys; from cli.main import main; sys.exit(main())"]
# Variables of the person's own environment that would point the bot elsewhere.
UNSET = ("REDIS_URL", "SLACK_APP_TOKEN", "SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET", "DIAGNOSE_NOW", "PORT")


class PlaygroundError(RuntimeError):
    """The playground could not start (the bot exited, or did not answer in time): one line."""


@dataclass
class Playground:
    page: PageServer
    api: SlackApiStandIn
    sim: SimServer
    bot_url: str
    bot_log: Path
    signing_secret: str


def bot_environment(api_url: str, folder: Path, signing_secret: str) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if name not in UNSET}
    env.update(
        {
            "SLACK_BOT_TOKEN": BOT_TOKEN,
            "SLACK_SIGNING_SECRET": signing_secret,
            "SLACK_API_URL": api_url,
            "DIAGNOSE_STATE_DIR": str(folder),
            "DIAGNOSE_STATE_PATH": str(folder / "state.sqlite3"),
            "DIAGNOSE_POLICY": str(directory.write_policy(folder)),
        }
    )
    return env


def _read_address(process: subprocess.Popen[str], deadline: float) -> str:
    """The bot prints `listening on URL` once it serves; anything else on stdout is passed on."""
    stdout = process.stdout
    assert stdout is not None
    found: list[str] = []

    def read() -> None:
        for line in stdout:
            if not found and line.startswith("listening on "):
                found.append(line.split()[-1])

    reader = threading.Thread(target=read, name="bot-stdout", daemon=True)
    reader.start()
    while not found:
        if process.poll() is not None:
            raise PlaygroundError(f"the bot exited with status {process.returncode}")
        if time.monotonic() > deadline:
            raise PlaygroundError(f"the bot did not start within {BOT_START_SECONDS} s")
        time.sleep(0.05)
    return found[0]


def _wait_healthy(url: str, deadline: float) -> None:
    while True:
        try:
            if httpx.get(url + "/healthz", timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise PlaygroundError(f"the bot at {url} did not become healthy within {BOT_START_SECONDS} s")
        time.sleep(0.2)


@contextmanager
def bot_process(env: dict[str, str], bundles: Path, log: TextIO) -> Iterator[str]:
    command = [*DIAGNOSE, "bot", "--http", "--host", "127.0.0.1", "--port", "0", "--bundles", str(bundles)]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=log, text=True)
    try:
        deadline = time.monotonic() + BOT_START_SECONDS
        url = _read_address(process, deadline)
        _wait_healthy(url, deadline)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def running_playground(
    *, bundles: Path, port: int = 0, state_dir: Path | None = None
) -> Iterator[Playground]:
    with ExitStack() as stack:
        folder = state_dir or Path(
            stack.enter_context(tempfile.TemporaryDirectory(prefix="diagnose-playground-"))
        )
        folder.mkdir(parents=True, exist_ok=True)
        api = SlackApiStandIn(strict=True).start()
        stack.callback(api.stop)
        scenarios = load_bundle_dir(bundles)
        sim = SimServer(scenarios, modelarts_keys=(DEMO_ACCESS_KEY, DEMO_SECRET_KEY), listings=True)
        stack.enter_context(sim)
        signing_secret = secrets.token_hex(16)
        bot_log = folder / "bot.log"
        log = stack.enter_context(bot_log.open("w", encoding="utf-8"))
        try:
            bot_url = stack.enter_context(
                bot_process(bot_environment(api.url, folder, signing_secret), bundles, log)
            )
        except PlaygroundError as exc:
            log.flush()
            tail = bot_log.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-1:]
            raise PlaygroundError(f"{exc}: {tail[0] if tail else 'no log'} (log: {bot_log})") from None
        slack = SlackToBot(bot_url=bot_url, signing_secret=signing_secret, api=api)
        stack.callback(slack.close)
        # The page shows the environment that points the live CLI at this simulator.
        cli_folder = folder / "cli"
        cli_folder.mkdir(exist_ok=True)
        cli_environment = simulator_environment(
            sim.base_url, cli_folder, regions=modelarts_regions(scenarios)
        )
        page = PageServer(PageContext(slack=slack, cli_environment=cli_environment), port=port).start()
        stack.callback(page.stop)
        yield Playground(
            page=page, api=api, sim=sim, bot_url=bot_url, bot_log=bot_log, signing_secret=signing_secret
        )

"""The real entry point: `diagnose bot --http` (and its worker) in a subprocess, answering from bundles,
with the Web API pointed at the local stand-in (SLACK_API_URL)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import httpx
import pytest

from playground.slack_api import SlackApiStandIn
from tests.bot.harness import SlackSender
from tests.bot.processes import DIAGNOSE, bot_process
from tests.conftest import EXAMPLES, ROOT

PREEMPTED = "runai id=2e6b8f31-d4a0-4c97-95e2-a13f7b0c8d46 cluster=91c0d5e8-2f47-4a3b-b6e1-7c8a0f2d4e59"


@pytest.mark.parametrize("state", ["sqlite", "redis"])
def test_the_cli_serves_http_mode(
    slack_api: SlackApiStandIn, tmp_path: Path, state: str, request: pytest.FixtureRequest
) -> None:
    extra = {"REDIS_URL": request.getfixturevalue("redis_url")} if state == "redis" else {}
    with bot_process(slack_api, tmp_path, extra_env=extra) as url:
        health = httpx.get(url + "/healthz", timeout=5)
        assert health.status_code == 200 and health.json()["ok"] is True
        slack = SlackSender(url, slack_api)
        assert (
            slack.post("x=1", "application/x-www-form-urlencoded", signature="v0=" + "0" * 64).status == 401
        )
        reply = slack.command(PREEMPTED)
        assert reply.status == 200 and reply.seconds < 3
        report = slack_api.wait_for(
            "chat.update", where=lambda c: "Routed: preempted" in c.body.get("text", ""), timeout=30
        )[0]
        assert "bert-distill-nightly" in str(report.body["blocks"])
        slack_api.wait_for("files.completeUploadExternal", timeout=30)
        slack.close()
    if state == "sqlite":
        assert (tmp_path / "state.sqlite3").exists()


def test_the_cli_refuses_to_start_without_tokens(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLACK_")}
    # Exactly what `make bot` runs (Socket Mode, the demo bundles), with no token set.
    done = subprocess.run(
        [*DIAGNOSE, "bot", "--bundles", "diagnosis/examples"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1, f"one line, not a traceback: {done.stderr}"
    assert "SLACK_BOT_TOKEN" in done.stderr and "SLACK_APP_TOKEN" in done.stderr
    env["SLACK_BOT_TOKEN"] = "xoxb-x"
    done = subprocess.run(
        [*DIAGNOSE, "bot", "--http", "--bundles", str(EXAMPLES)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "SLACK_SIGNING_SECRET" in done.stderr
    done = subprocess.run(
        [*DIAGNOSE, "bot", "--bundles", str(tmp_path / "nope")],
        cwd=ROOT,
        env={**env, "SLACK_APP_TOKEN": "xapp-1"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "not a directory" in done.stderr

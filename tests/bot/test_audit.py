"""Every request leaves one masked audit line: who, where, what, outcome."""

from __future__ import annotations

import logging

import pytest

from bot.state.store import StateStore
from tests.bot.examples import OOM, example_diagnosis
from tests.bot.harness import CHANNEL, USER, ScriptedBackend, running_bot
from tests.fakes.slack_api import FakeSlackApi


def audit_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "diagnose.audit"]


def test_requests_are_audited_and_masked(
    slack_api: FakeSlackApi, sqlite_store: StateStore, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="diagnose.audit")
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    with running_bot(slack_api, backend=backend, store=sqlite_store) as bot:
        bot.slack.command(
            "runai cluster=4a9e2c17-5b3d-4f80-9c61-2d7be0f4a315 workload=segformer-finetune project=vision-lab"
        )
        slack_api.wait_for("files.completeUploadExternal")
        bot.idle()
        bot.slack.command("runai password=hunter2 HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz123456")
        bot.idle()
    lines = audit_lines(caplog)
    diagnosed = next(line for line in lines if "event=diagnose" in line)
    for part in (
        f"user={USER}",
        f"channel={CHANNEL}",
        "segformer-finetune",
        "outcome=diagnosed",
        "category=OOM_KILLED",
    ):
        assert part in diagnosed
    usage = next(line for line in lines if "outcome=usage" in line)
    assert "hunter2" not in usage and "hf_abcdefghijklmnopqrstuvwxyz123456" not in usage
    assert "[MASKED:password]" in usage

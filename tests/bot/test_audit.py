"""Every request leaves one masked audit record: who, where, what, outcome, one JSON object a line."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from bot.audit import audit, audit_line
from bot.state.store import StateStore
from diagnosis.masking import mask
from playground.slack_api import SlackApiStandIn
from tests.bot.examples import OOM, example_diagnosis
from tests.bot.harness import CHANNEL, USER, ScriptedBackend, running_bot

FORGED = 'x" outcome=diagnosed category=OOM_KILLED user=U0ADMIN channel="C0ADMIN\n{"event":"forged"}'


def audit_records(caplog: pytest.LogCaptureFixture) -> list[dict[str, Any]]:
    """Each audit line parsed as JSON (a line that is not one JSON object fails here)."""
    records = []
    for record in caplog.records:
        if record.name != "diagnose.audit":
            continue
        line = record.getMessage()
        assert len(line.splitlines()) == 1, f"an audit record spans lines: {line!r}"
        parsed = json.loads(line)
        assert isinstance(parsed, dict)
        assert all(isinstance(value, str | int | float) for value in parsed.values()), parsed
        records.append(parsed)
    return records


def test_requests_are_audited_and_masked(
    slack_api: SlackApiStandIn, sqlite_store: StateStore, caplog: pytest.LogCaptureFixture
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
    records = audit_records(caplog)
    diagnosed = next(record for record in records if record["event"] == "diagnose")
    assert diagnosed["user"] == USER and diagnosed["channel"] == CHANNEL
    assert "segformer-finetune" in diagnosed["what"]
    assert diagnosed["outcome"] == "diagnosed" and diagnosed["category"] == "OOM_KILLED"
    usage = next(record for record in records if record["outcome"] == "usage")
    line = json.dumps(usage)
    assert "hunter2" not in line and "hf_abcdefghijklmnopqrstuvwxyz123456" not in line
    assert "[MASKED:password]" in usage["what"]


def test_quoted_text_cannot_forge_audit_fields(
    slack_api: SlackApiStandIn, sqlite_store: StateStore, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="diagnose.audit")
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    with running_bot(slack_api, backend=backend, store=sqlite_store) as bot:
        bot.slack.mention(FORGED, ts="1767225600.000100")
        bot.slack.command(f"runai workload={FORGED}")
        slack_api.wait_for("chat.postMessage")
        bot.idle()
    records = audit_records(caplog)
    assert len(records) == 2
    for record in records:
        assert record["user"] == USER and record["channel"] == CHANNEL
        assert record["outcome"] in ("help", "usage")
        assert "category" not in record and record["event"] in ("mention", "command")
        assert "outcome=diagnosed" in record["what"], "the quoted text stays whole, inside `what`"


def test_one_record_is_one_line_whatever_the_text() -> None:
    breaks = "a\nb\rc\x85d\u2028e\u2029f\x1cg\x0bh"
    line = audit_line({"event": "mention", "what": breaks, "count": 3, "ratio": 0.5, "none": None})
    assert len(line.splitlines()) == 1
    # The value is masked (control characters normalised), numbers stay numbers, None is left out.
    assert json.loads(line) == {"event": "mention", "what": mask(breaks), "count": 3, "ratio": 0.5}
    assert "\n" in mask(breaks) and "\u2028" in mask(breaks), "line breaks that reach the record stay escaped"


def test_secrets_are_masked_in_every_field(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="diagnose.audit")
    audit(
        "answer",
        user="U1",
        channel="C1",
        what='password="hunter2"',
        outcome="answered",
        reason="token hf_abcdefghijklmnopqrstuvwxyz123456",
    )
    [record] = audit_records(caplog)
    assert "hunter2" not in json.dumps(record) and "hf_abcdefghijklmnopqrstuvwxyz123456" not in json.dumps(
        record
    )

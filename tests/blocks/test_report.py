from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blocks.prompts import rerun_button, retry_button
from blocks.report import report_message
from diagnosis.models import Diagnosis, Evidence, Recommendation
from tests.blocks.checks import assert_message_within_limits
from tests.conftest import EXAMPLES, load_json

EXAMPLE_NAMES = sorted(
    path.name.removesuffix(".diagnosis.json") for path in EXAMPLES.glob("*.diagnosis.json")
)


def example(name: str) -> Diagnosis:
    return Diagnosis.model_validate(load_json(EXAMPLES / f"{name}.diagnosis.json"))


def all_text(message: Any) -> str:
    return json.dumps(message.payload(), ensure_ascii=False)


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_every_example_renders_within_limits(name: str) -> None:
    diagnosis = example(name)
    message = report_message(
        diagnosis, lang="en", requested_by="U0ALICE01", buttons=[rerun_button("r", lang="en")]
    )
    assert_message_within_limits(message.payload())
    assert not message.truncated
    header = message.blocks[0]["text"]["text"]
    if diagnosis.category:
        assert diagnosis.category in header
    if diagnosis.target.phase:
        assert diagnosis.target.phase in header
    for item in diagnosis.evidence:
        assert item.source in all_text(message)


def test_oom_report_shows_fields_recurrence_recommendations_and_calls() -> None:
    message = report_message(example("runai-optb-oom-recurring"), lang="en", requested_by="U0ALICE01")
    text = all_text(message)
    assert message.blocks[0]["text"]["text"] == ":red_circle: OOM_KILLED · Failed"
    fields = message.blocks[1]["fields"]
    assert any("segformer-finetune" in f["text"] for f in fields)
    assert any("vision-lab" in f["text"] for f in fields)
    assert any("HIGH" in f["text"] for f in fields)
    assert "2 failure(s) of this category in 7d (recurring)" in text
    assert "needs_confirmation" not in text and "a person confirms and applies it" in text
    assert "`get_workload_history` → `get_workload_metrics`" in text
    assert "<@U0ALICE01>" in text
    assert "OOM_KILLED" in message.text


def test_modelarts_report_has_fault_level_and_region() -> None:
    message = report_message(example("modelarts-insufficient-info"), lang="zh")
    fields = " ".join(f["text"] for f in message.blocks[1]["fields"])
    assert "cn-east-3" in fields and "Suspected" in fields and "LOW" in fields
    assert "区域" in fields


def test_permission_denied_lists_permissions_and_carries_retry_button() -> None:
    message = report_message(
        example("modelarts-permission-denied"), lang="en", buttons=[retry_button("p1", lang="en")]
    )
    text = all_text(message)
    assert "`modelarts:trainJob:get`" in text and "`modelarts:trainJob:list`" in text
    buttons = next(b for b in message.blocks if b["type"] == "actions")["elements"]
    assert buttons[0]["action_id"] == "retry_diagnosis" and buttons[0]["value"] == "p1"
    assert message.blocks[0]["text"]["text"].startswith(":lock: Permission denied")


def test_log_line_with_channel_ping_is_rendered_inert() -> None:
    diagnosis = example("runai-optb-oom-recurring")
    diagnosis.evidence.append(
        Evidence(
            source="k8s.read_pod_log",
            field="log",
            text="ERROR <!channel> wake up <@U0BOSS> <https://x.io|click>",
        )
    )
    diagnosis.root_cause = "log said <!here> & more"
    diagnosis.signature = "<!everyone>"
    message = report_message(diagnosis, lang="en")
    text = all_text(message)
    for raw in ("<!channel>", "<@U0BOSS>", "<https://x.io|click>", "<!here>", "<!everyone>"):
        assert raw not in text
    assert "&lt;!channel&gt;" in text and "&amp; more" in text
    for block in message.blocks:
        for obj in [block.get("text"), *(block.get("fields") or []), *(block.get("elements") or [])]:
            if isinstance(obj, dict) and obj.get("type") == "mrkdwn":
                assert obj["verbatim"] is True


def huge(count: int, size: int) -> Diagnosis:
    diagnosis = example("runai-optb-oom-recurring")
    diagnosis.evidence = [
        Evidence(source="k8s.read_pod_log", field=f"log[{i}]", text=("Traceback line " * size)[:size])
        for i in range(count)
    ]
    diagnosis.limitations = [f"limitation {i} " + "x" * size for i in range(count)]
    diagnosis.recommendations = [Recommendation(text="raise " * (size // 6), changes_resources=True)] * 5
    diagnosis.root_cause = "cause " * 1000
    return diagnosis


def test_huge_diagnosis_is_cut_with_a_marker_and_flagged() -> None:
    message = report_message(huge(200, 5000), lang="en", buttons=[rerun_button("r", lang="en")])
    assert_message_within_limits(message.payload())
    assert message.truncated
    text = all_text(message)
    assert "full report is attached in this thread" in text
    assert "more in the full report" in text
    assert any(b["type"] == "actions" for b in message.blocks), "the buttons survive the cut"
    assert message.blocks[-1]["type"] == "context"


@settings(max_examples=30, deadline=None)
@given(
    count=st.integers(min_value=0, max_value=120),
    size=st.integers(min_value=1, max_value=4000),
    name=st.text(min_size=0, max_size=400),
)
def test_any_size_stays_within_limits(count: int, size: int, name: str) -> None:
    diagnosis = huge(count, size)
    diagnosis.target.name = name or None
    diagnosis.target.phase = name[:300] or None
    message = report_message(diagnosis, lang="en", requested_by="U1")
    assert_message_within_limits(message.payload())

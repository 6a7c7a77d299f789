"""The five-phase workflow replayed through the real client code: families of one branch built from a
bundle, and the invariants every ModelArts bundle keeps (each bundle carries its own verdict)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from diagnosis.evidence.bundles import load_bundle
from diagnosis.models import Diagnosis
from tests.modelarts.conftest import (
    BUNDLES,
    DEMO_BUNDLES,
    EXAMPLES,
    load,
    replay,
    variant,
    without_user_diagnosis,
)

D, E, S, T, P = (
    "ShowTrainingJobDetails",
    "ListTrainingJobEvents",
    "ListTrainingJobStages",
    "ListTrainingJobs",
    "ShowTrainingJobLogsPreview",
)


MODELARTS_CORPUS = sorted(
    [*DEMO_BUNDLES.glob("modelarts-*.bundle.json"), *BUNDLES.glob("*.bundle.json")],
    key=lambda path: path.name,
)


@pytest.mark.parametrize("path", MODELARTS_CORPUS, ids=lambda path: path.name.removesuffix(".bundle.json"))
def test_every_modelarts_bundle_keeps_the_report_invariants(
    path: Path, check_schema: Callable[[Diagnosis], dict[str, Any]], bundle_schema: dict[str, Any]
) -> None:
    """The verdicts are each bundle's own (`expected`, tests/evidence/test_corpus.py); these hold for all."""
    jsonschema.validate(json.loads(path.read_text(encoding="utf-8")), bundle_schema)
    data = check_schema(replay(load_bundle(path)))
    assert "ShowObsUrlOfTrainingJobLogs" not in data["calls"]
    # Every piece of evidence cites a call this diagnosis made.
    assert {item["source"] for item in data["evidence"]} <= set(data["calls"])
    # LOW never offers a cause or a fix: it says what to read next.
    if data["confidence"] == "LOW" and data["outcome"] == "diagnosed":
        assert data["category"] == "UNKNOWN" and data["recommendations"] == []
        assert data["next_steps"] and data["next_steps"][-1].startswith("建议排查方向")
    if data["outcome"] == "diagnosed" and data["confidence"] in ("HIGH", "MEDIUM"):
        assert data["recommendations"] or data["next_steps"]


EXAMPLE_NAMES = [
    "modelarts-early-exit-traceback",
    "modelarts-insufficient-info",
    "modelarts-permission-denied",
]
EXACT_KEYS = [
    "outcome",
    "category",
    "confidence",
    "fault_level",
    "signature",
    "measurements",
    "permissions",
    "calls",
]


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_worked_examples_replay_exactly(
    name: str, check_schema: Callable[[Diagnosis], dict[str, Any]]
) -> None:
    from diagnosis.evidence.bundles import load_bundle

    diagnosis = replay(load_bundle(EXAMPLES / f"{name}.bundle.json"))
    data = check_schema(diagnosis)
    want = json.loads((EXAMPLES / f"{name}.diagnosis.json").read_text(encoding="utf-8"))
    data["calls"] = without_user_diagnosis(data["calls"])
    for key in EXACT_KEYS:
        assert data[key] == want[key], key
    for key, value in want["target"].items():
        assert data["target"][key] == value, key


def test_early_exit_calls_only_the_details() -> None:
    from diagnosis.evidence.bundles import load_bundle

    diagnosis = replay(load_bundle(EXAMPLES / "modelarts-early-exit-traceback.bundle.json"))
    assert diagnosis.calls == [D]
    assert diagnosis.evidence[1].text.endswith("ModuleNotFoundError: No module named 'timm'")
    assert "`timm`" in diagnosis.root_cause and "`models/factory.py`" in diagnosis.root_cause


TRACEBACK_FAMILIES = [
    ("ValueError: num_classes must be positive, got 0", "CRASH_APP_ERROR", "参数或数据"),
    ("RuntimeError: Expected all tensors to be on the same device", "CRASH_APP_ERROR", "运行时错误"),
    ("IndexError: list index out of range", "CRASH_APP_ERROR", "索引越界"),
    ("KeyError: 'label'", "CRASH_APP_ERROR", "缺少所需的键"),
    ("TypeError: forward() missing 1 required positional argument: 'mask'", "CRASH_APP_ERROR", "类型不匹配"),
    (
        "ImportError: cannot import name 'packaging' from 'pkg_resources'",
        "CRASH_APP_ERROR",
        "`pkg_resources`",
    ),
    ("RuntimeError: CUDA error: device-side assert triggered", "CRASH_APP_ERROR", "CUDA 错误"),
    ("OSError: [Errno 28] No space left on device", "CRASH_APP_ERROR", "磁盘空间不足"),
    (
        "RuntimeError: NCCL error: unhandled system error, NCCL version 2.18.1",
        "COMMUNICATION_FAILURE",
        "NCCL",
    ),
    ("my_pkg.errors.DatasetSchemaError: column 'text' missing", "CRASH_APP_ERROR", "DatasetSchemaError"),
]


@pytest.mark.parametrize(("final_line", "category", "meaning"), TRACEBACK_FAMILIES)
def test_early_exit_for_each_traceback_family(final_line: str, category: str, meaning: str) -> None:
    def change(data: dict[str, Any]) -> None:
        status = data["exchanges"][0]["body"]["status"]["task_statuses"][0]
        status["message"] = (
            "Traceback (most recent call last):\n"
            '  File "/home/ma-user/modelarts/user-job-dir/code/train.py", line 9, in <module>\n'
            "    main()\n" + final_line
        )

    diagnosis = replay(variant("early-exit-file-not-found", change))
    assert diagnosis.calls == [D]
    assert (diagnosis.category, diagnosis.confidence, diagnosis.signature) == (category, "HIGH", final_line)
    assert meaning in diagnosis.root_cause


def test_explicit_device_memory_line_exits_early_without_a_traceback() -> None:
    def change(data: dict[str, Any]) -> None:
        status = data["exchanges"][0]["body"]["status"]["task_statuses"][0]
        status["message"] = (
            "EL0004: Failed to allocate memory. Possible Cause: Available memory is insufficient."
        )

    diagnosis = replay(variant("early-exit-file-not-found", change))
    assert diagnosis.calls == [D]
    assert (diagnosis.category, diagnosis.confidence) == ("CRASH_APP_ERROR", "HIGH")


def test_a_consequence_traceback_does_not_exit_early() -> None:
    """A launcher wrapper (ChildFailedError) names no cause: the main and extended paths run."""

    def change(data: dict[str, Any]) -> None:
        status = data["exchanges"][0]["body"]["status"]["task_statuses"][0]
        status["message"] = (
            "Traceback (most recent call last):\n"
            '  File "/usr/local/bin/torchrun", line 8, in <module>\n'
            "    sys.exit(main())\n"
            "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: train.py FAILED"
        )

    diagnosis = replay(variant("early-exit-file-not-found", change))
    assert diagnosis.calls[0] == D and len(diagnosis.calls) > 1
    # Nothing else was recorded: the consequence is all there is, so it is only most likely.
    assert diagnosis.confidence == "MEDIUM"
    assert diagnosis.limitations


def test_multi_task_consequence_is_cited_as_such() -> None:
    diagnosis = replay(load("multi-task-logs"))
    assert diagnosis.target.phase == "Failed"
    assert "worker-1" in diagnosis.root_cause and "Watchdog" in diagnosis.root_cause
    cited = [item.text for item in diagnosis.evidence]
    assert any("Watchdog caught collective operation timeout" in text for text in cited)
    assert any("CUDA out of memory" in text for text in cited)


def _forbidden(data: dict[str, Any]) -> None:
    data["exchanges"][0]["status"] = 403
    data["exchanges"][0]["body"] = {"error_code": "APIGW.0306", "error_msg": "API access denied"}


def test_permission_denied_lists_the_documented_actions() -> None:
    diagnosis = replay(variant("unauthorized-401", _forbidden))
    assert diagnosis.outcome == "permission_denied"
    assert diagnosis.permissions == ["modelarts:trainJob:get", "modelarts:trainJob:list"]
    assert not any("trainingJobs" in action or "logExport" in action for action in diagnosis.permissions)


@pytest.mark.parametrize("code", ["APIGW.0301", "APIGW.0303", "APIGW.0305", "APIGW.0307"])
def test_a_401_is_rejected_credentials_with_a_keys_and_clock_checklist(code: str) -> None:
    """A 401 from the gateway (bad signature, clock skew, app auth, an expired token) is not a
    missing grant: no IAM advice, the keys, the token and the clock to check."""

    def change(data: dict[str, Any]) -> None:
        data["exchanges"][0]["body"]["error_code"] = code

    diagnosis = replay(variant("unauthorized-401", change))
    assert (diagnosis.outcome, diagnosis.confidence, diagnosis.fault_level) == ("auth_failed", None, None)
    assert diagnosis.permissions == [] and diagnosis.recommendations == []
    assert code in diagnosis.root_cause
    steps = " ".join(diagnosis.next_steps)
    assert "HUAWEICLOUD_SDK_AK" in steps and "SECURITY_TOKEN" in steps and "15 分钟" in steps


def test_a_denied_later_call_stops_with_permissions() -> None:
    def change(data: dict[str, Any]) -> None:
        for exchange in data["exchanges"]:
            if exchange["op"] == "ListTrainingJobEvents":
                exchange["status"] = 403
                exchange["body"] = {"error_code": "APIGW.0306", "error_msg": "API access denied"}

    diagnosis = replay(variant("exit-code-139", change))
    assert diagnosis.outcome == "permission_denied"
    assert diagnosis.target.phase == "Failed"
    assert diagnosis.permissions == ["modelarts:trainJob:get", "modelarts:trainJob:list"]


def test_5xx_and_timeouts_on_details_are_low_with_the_runbook_advice() -> None:
    diagnosis = replay(load("details-503"))
    assert diagnosis.next_steps[-1].startswith("建议排查方向")
    assert "c1d4f2e6a8b05d3f97e1c3a5b7d9f124" in diagnosis.next_steps[-1]  # the request id for the ticket

    def drop(data: dict[str, Any]) -> None:
        data["exchanges"] = []

    unanswered = replay(variant("details-503", drop))
    assert (unanswered.outcome, unanswered.category, unanswered.confidence) == ("diagnosed", "UNKNOWN", "LOW")
    assert unanswered.calls == [D]
    assert any("not recorded" in item.text for item in unanswered.evidence)


def test_several_matches_ask_which_job() -> None:
    diagnosis = replay(load("name-several-matches"))
    question = diagnosis.questions[0]
    assert question.key == "job_id" and question.choices is not None
    assert [choice.value for choice in question.choices] == [
        "6d8f0a2c-4e7b-4951-9def-57a9b1d3f580",
        "7e9a1b3d-5f8c-4a62-8ef0-68b0c2e4a691",
    ]
    assert "Failed" in question.choices[0].label and "2026-06-09T22:00:00Z" in question.choices[0].label


def test_name_without_any_match_is_not_found() -> None:
    def change(data: dict[str, Any]) -> None:
        data["request"]["job_name"] = "no-such-job"
        for exchange in data["exchanges"]:
            if exchange["op"] == "ListTrainingJobs" and "name" in exchange["args"]:
                exchange["args"]["name"] = "no-such-job"

    diagnosis = replay(variant("name-substring-match", change))
    assert diagnosis.outcome == "not_found"
    assert diagnosis.calls == [T, T]
    assert "no-such-job" in diagnosis.root_cause and "cn-north-4" in diagnosis.root_cause


def test_stalled_reports_the_stage_and_both_durations() -> None:
    diagnosis = replay(load("running-stalled"))
    # stage open since 01:02:10Z, now 06:00Z; newest log line 10:12:31 China time = 02:12:31Z
    assert "`running`" in diagnosis.root_cause
    assert "4 小时 57 分钟" in diagnosis.root_cause and "3 小时 47 分钟" in diagnosis.root_cause


def test_stall_needs_both_clocks_old() -> None:
    """A fresh log line keeps a long stage from being called stalled."""

    def change(data: dict[str, Any]) -> None:
        for exchange in data["exchanges"]:
            if exchange["op"] == "ShowTrainingJobLogsPreview" and exchange["args"]["task_id"] == "worker-1":
                exchange["body"]["content"] += "2026-06-10 13:55:00 INFO epoch 1 step 911 loss=1.00\n"

    diagnosis = replay(variant("running-stalled", change))
    assert diagnosis.outcome == "not_a_failure"


def test_zone_doubt_is_not_a_stall() -> None:
    """A naive time that is over 1 hour old as China time but not as UTC stays a doubt."""

    def change(data: dict[str, Any]) -> None:
        data["captured_at"] = "2026-06-10T10:40:00Z"
        for exchange in data["exchanges"]:
            if exchange["op"] == "ShowTrainingJobLogsPreview":
                exchange["body"]["content"] = "2026-06-10 10:05:00 INFO epoch 1 step 900 loss=1.02\n"

    diagnosis = replay(variant("running-stalled", change))
    assert diagnosis.outcome == "not_a_failure"
    assert any("UTC+8" in text for text in diagnosis.limitations)


def test_running_without_readable_timestamps_is_normal_with_a_limitation() -> None:
    def change(data: dict[str, Any]) -> None:
        for exchange in data["exchanges"]:
            if exchange["op"] == "ShowTrainingJobLogsPreview":
                exchange["body"]["content"] = "epoch 1 step 900 loss=1.02\n"

    diagnosis = replay(variant("running-stalled", change))
    assert diagnosis.outcome == "not_a_failure"
    assert any("时间戳" in text for text in diagnosis.limitations)


def test_pending_with_only_scheduling_wording_is_medium() -> None:
    def change(data: dict[str, Any]) -> None:
        events = data["exchanges"][1]["body"]["events"]
        events[1]["message"] = "FailedScheduling: the job could not be scheduled yet"

    diagnosis = replay(variant("pending-resources", change))
    assert (diagnosis.category, diagnosis.confidence) == ("RESOURCE_INSUFFICIENT", "MEDIUM")


def test_pending_long_without_any_reason_is_observe() -> None:
    def change(data: dict[str, Any]) -> None:
        data["exchanges"][1]["body"]["events"] = data["exchanges"][1]["body"]["events"][:1]

    diagnosis = replay(variant("pending-resources", change))
    assert diagnosis.outcome == "observe"


def test_preview_truncation_and_runbook_vocabulary_are_read() -> None:
    def change(data: dict[str, Any]) -> None:
        for exchange in data["exchanges"]:
            if exchange["op"] == "ShowTrainingJobLogsPreview":
                body = exchange["body"]
                exchange["body"] = {"log": body["content"], "next_marker": "m-2"}

    diagnosis = replay(variant("exit-137-killed", change))
    assert diagnosis.category == "OOM_KILLED"
    assert any("worker-0" in text for text in diagnosis.limitations)


def test_malformed_answers_give_a_partial_diagnosis_not_a_traceback() -> None:
    def change(data: dict[str, Any]) -> None:
        for exchange in data["exchanges"]:
            if exchange["op"] == "ListTrainingJobEvents":
                exchange["body"] = {"events": "not a list", "total": None}
            if exchange["op"] == "ListTrainingJobStages":
                exchange["body"] = ["unexpected"]
            if exchange["op"] == "ShowTrainingJobLogsPreview":
                exchange["body"] = {"content": None}

    diagnosis = replay(variant("exit-code-139", change))
    assert (diagnosis.category, diagnosis.confidence) == ("CRASH_APP_ERROR", "MEDIUM")
    assert diagnosis.limitations


def test_details_that_are_not_a_job_are_low() -> None:
    def change(data: dict[str, Any]) -> None:
        data["exchanges"][0]["body"] = {"unexpected": True}

    diagnosis = replay(variant("completed", change))
    assert (diagnosis.outcome, diagnosis.confidence) == ("diagnosed", "LOW")


def test_the_same_bundle_gives_the_same_answer_whatever_the_wall_clock() -> None:
    first = replay(load("running-stalled")).to_json_dict()
    second = replay(load("running-stalled")).to_json_dict()
    assert first == second


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_free_text_follows_the_language(lang: str) -> None:
    diagnosis = replay(load("early-exit-file-not-found"), lang=lang)
    marker = {"en": "The complete traceback", "ja": "完全なトレースバック"}[lang]
    assert marker in diagnosis.root_cause
    # The signature and evidence stay verbatim, whatever the language.
    assert diagnosis.signature is not None and diagnosis.signature.startswith("FileNotFoundError")


def _paged_events(data: dict[str, Any], *, total: int, pages: int, cause_on: int) -> None:
    """Error events over `pages` recorded pages of 100 (`offset` = page index), the cause on one."""
    events = next(item for item in data["exchanges"] if item["op"] == E)
    cause = events["body"]["events"][0]
    data["exchanges"].remove(events)
    for page in range(pages):
        body_events = [
            {
                "time": f"2026-06-10T01:{page:02d}:{i % 60:02d}Z",
                "level": "Error",
                "message": f"retrying step {page}-{i}",
                "source": "Job",
            }
            for i in range(min(100, total - page * 100))
        ]
        if page == cause_on:
            body_events[-1] = cause
        exchange = json.loads(json.dumps(events))
        if page:
            exchange["args"]["offset"] = page
        exchange["body"] = {"total": total, "limit": 100, "offset": page, "events": body_events}
        data["exchanges"].append(exchange)


def test_error_events_are_read_page_by_page_index() -> None:
    """`offset` is a page index (0 = first page): a cause on the third page is found."""
    diagnosis = replay(
        variant("error-event-image-pull", lambda data: _paged_events(data, total=250, pages=3, cause_on=2))
    )
    assert diagnosis.calls == [D, E, S, P, "ShowTrainingJobUserDiagnosis", E, E]
    assert (diagnosis.category, diagnosis.confidence) == ("IMAGE_PULL_FAILED", "HIGH")
    assert not any("事件" in item and "读取" in item for item in diagnosis.limitations)


def test_events_past_the_page_cap_are_named_in_the_limitations() -> None:
    diagnosis = replay(
        variant("error-event-image-pull", lambda data: _paged_events(data, total=1234, pages=10, cause_on=0))
    )
    assert diagnosis.calls.count(E) == 10
    assert "事件共 1234 条，只读取了前 10 页（1000 条）" in diagnosis.limitations


def test_an_unreadable_events_page_is_a_limitation() -> None:
    def change(data: dict[str, Any]) -> None:
        _paged_events(data, total=150, pages=2, cause_on=0)
        data["exchanges"][-1]["status"] = 500
        data["exchanges"][-1]["body"] = {"error_code": "ModelArts.0010", "error_msg": "internal error"}

    diagnosis = replay(variant("error-event-image-pull", change))
    assert (diagnosis.category, diagnosis.confidence) == ("IMAGE_PULL_FAILED", "HIGH")
    assert "事件共 150 条，只读取到 100 条" in diagnosis.limitations


def test_a_time_limit_end_reason_is_a_job_timeout_and_the_143_its_consequence() -> None:
    """The run record's `end_reason` states the time limit: HIGH, whatever the events say."""

    def change(data: dict[str, Any]) -> None:
        status = data["exchanges"][0]["body"]["status"]
        status["running_records"] = [
            {
                "start_at": 1781053260,
                "end_at": 1781056860,
                "start_type": "init_or_rescheduled",
                "end_reason": "JobTimeout: the job ran past its maximum running duration",
                "end_related_task": "worker-0",
            }
        ]
        for exchange in data["exchanges"]:
            if exchange["op"] == E:
                exchange["body"] = {"total": 0, "limit": 100, "offset": 0, "events": []}

    diagnosis = replay(variant("job-timeout", change))
    assert (diagnosis.category, diagnosis.confidence, diagnosis.fault_level) == (
        "JOB_TIMEOUT",
        "HIGH",
        "Fault",
    )
    assert diagnosis.measurements.exit_code == 143
    assert any(item.field == "status.running_records[0].end_reason" for item in diagnosis.evidence)
    assert "worker-0" in diagnosis.root_cause


def test_the_platform_diagnosis_names_the_cause() -> None:
    def change(data: dict[str, Any]) -> None:
        for exchange in data["exchanges"]:
            if exchange["op"] == "ShowTrainingJobUserDiagnosis":
                exchange["body"] = {
                    "status": "Completed",
                    "level": "Fatal",
                    "conclusions": [
                        {
                            "conclusion": {
                                "code": "ModelArts.TR.0042",
                                "class": "DataError",
                                "description": "MoxFileNotExistsException: obs://ml-data/train/ file or directory or bucket not found",
                            },
                            "sources": [{"task": "worker-0"}],
                        }
                    ],
                }

    diagnosis = replay(variant("vague-message", change))
    assert (diagnosis.category, diagnosis.confidence) == ("DATA_ACCESS_FAILED", "HIGH")
    assert any(item.source == "ShowTrainingJobUserDiagnosis" for item in diagnosis.evidence)


def test_a_warning_level_platform_diagnosis_only_points_at_the_cause() -> None:
    def change(data: dict[str, Any]) -> None:
        for exchange in data["exchanges"]:
            if exchange["op"] == "ShowTrainingJobUserDiagnosis":
                exchange["body"] = {
                    "status": "Completed",
                    "level": "Warning",
                    "conclusions": [
                        {
                            "conclusion": {
                                "code": "X",
                                "class": "Disk",
                                "description": "No space left on device",
                            }
                        }
                    ],
                }

    diagnosis = replay(variant("vague-message", change))
    assert (diagnosis.category, diagnosis.confidence) == ("CRASH_APP_ERROR", "MEDIUM")


def test_the_platform_analysis_in_the_details_spares_the_diagnosis_call() -> None:
    assert "ShowTrainingJobUserDiagnosis" not in replay(load("platform-analysis")).calls


def test_no_platform_diagnosis_for_the_job_is_a_limitation_only() -> None:
    def change(data: dict[str, Any]) -> None:
        for exchange in data["exchanges"]:
            if exchange["op"] == "ShowTrainingJobUserDiagnosis":
                exchange["status"] = 404
                exchange["body"] = {"error_code": "ModelArts.0102", "error_msg": "not found"}

    before = replay(load("exit-code-139"))
    after = replay(variant("exit-code-139", change))
    assert (after.category, after.confidence) == (before.category, before.confidence)
    assert after.limitations == [
        *before.limitations,
        "平台没有给出该作业的诊断结果（`ShowTrainingJobUserDiagnosis` 返回 404）",
    ]


@pytest.mark.parametrize(
    ("phase", "outcome", "category"),
    [
        ("Initializing", "observe", None),
        ("Success", "not_a_failure", None),
        ("Stopped", "out_of_scope", None),
        ("Terminating", "out_of_scope", None),
        # The runbook's word, no v2 phase: it only points at the time limit (events and end
        # reasons state it), so alone it is the most likely cause.
        ("Timeout", "diagnosed", "JOB_TIMEOUT"),
        ("Unknown", "out_of_scope", None),
    ],
)
def test_the_runbook_phase_names_are_understood(phase: str, outcome: str, category: str | None) -> None:
    def change(data: dict[str, Any]) -> None:
        status = data["exchanges"][0]["body"]["status"]
        status["phase"] = phase
        status.pop("secondary_phase", None)
        status["task_statuses"] = []

    diagnosis = replay(variant("completed", change))
    assert (diagnosis.outcome, diagnosis.category) == (outcome, category)
    assert diagnosis.target.phase == phase
    if outcome in ("observe", "out_of_scope"):
        assert diagnosis.calls == [D]


def test_create_failed_secondary_phase_is_a_fault() -> None:
    def change(data: dict[str, Any]) -> None:
        data["exchanges"][0]["body"]["status"].update(
            {"phase": "Terminated", "secondary_phase": "CreateFailed"}
        )

    diagnosis = replay(variant("terminated", change))
    assert diagnosis.outcome == "diagnosed"


@pytest.mark.parametrize(("name", "op"), [("running-healthy", S), ("pending-resources", E)])
def test_a_denied_call_on_the_running_and_pending_paths_is_permission_denied(name: str, op: str) -> None:
    def change(data: dict[str, Any]) -> None:
        for exchange in data["exchanges"]:
            if exchange["op"] == op:
                exchange["status"] = 403
                exchange["body"] = {"error_code": "APIGW.0306", "error_msg": "API access denied"}

    diagnosis = replay(variant(name, change))
    assert (diagnosis.outcome, diagnosis.confidence) == ("permission_denied", "LOW")
    assert diagnosis.permissions == ["modelarts:trainJob:get", "modelarts:trainJob:list"]


def test_the_timeout_phase_alone_is_the_most_likely_cause() -> None:
    def change(data: dict[str, Any]) -> None:
        data["exchanges"][0]["body"]["status"]["phase"] = "Timeout"
        for exchange in data["exchanges"]:
            if exchange["op"] == E:
                exchange["body"] = {"total": 0, "limit": 100, "offset": 0, "events": []}

    alone = replay(variant("job-timeout", change))
    assert (alone.category, alone.confidence) == ("JOB_TIMEOUT", "MEDIUM")
    stated = replay(
        variant("job-timeout", lambda data: data["exchanges"][0]["body"]["status"].update(phase="Timeout"))
    )
    assert (stated.category, stated.confidence) == ("JOB_TIMEOUT", "HIGH")

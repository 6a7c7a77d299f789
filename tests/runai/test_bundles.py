"""Every Run:ai bundle replayed: the shared worked examples exactly, and one expectation per scenario
(category and routing branch, plus the edge cases). Bundles and diagnoses validate against the
contracts' schemas; every evidence source is a call the diagnosis made."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from diagnosis.models import Diagnosis
from tests.runai.helpers import DEMO_BUNDLES, SHARED_RUNAI, TEST_BUNDLES, replay_file

EXACT_FIELDS = (
    "outcome",
    "route",
    "category",
    "confidence",
    "signature",
    "measurements",
    "recurrence",
    "calls",
)
ALL_BUNDLES = sorted(DEMO_BUNDLES.glob("*.bundle.json")) + sorted(TEST_BUNDLES.glob("*.bundle.json"))
BY_NAME = {path.name.removesuffix(".bundle.json"): path for path in ALL_BUNDLES}


def _json(diagnosis: Diagnosis) -> dict[str, Any]:
    return diagnosis.to_json_dict()


@pytest.mark.parametrize("bundle", SHARED_RUNAI, ids=lambda path: path.name)
def test_shared_examples_replay_exactly(bundle: Path, diagnosis_schema: dict[str, Any]) -> None:
    expected = json.loads(bundle.with_name(bundle.name.replace(".bundle.", ".diagnosis.")).read_text())
    got = _json(replay_file(bundle))
    jsonschema.validate(got, diagnosis_schema)
    assert {key: got[key] for key in EXACT_FIELDS} == {key: expected[key] for key in EXACT_FIELDS}
    assert got["target"] == {**got["target"], **expected["target"]}


def test_there_is_a_bundle_per_category_and_branch() -> None:
    demo = {path.name for path in DEMO_BUNDLES.glob("*.bundle.json")}
    assert len(demo) >= 20 and len(list(TEST_BUNDLES.glob("*.bundle.json"))) >= 20
    seen = {(d["outcome"], d["category"] or d["route"]) for d in (_json(replay_file(p)) for p in ALL_BUNDLES)}
    for category in (
        "OOM_KILLED",
        "IMAGE_PULL_FAILED",
        "INIT_FAILED",
        "DATASOURCE_MOUNT_FAILED",
        "CRASH_APP_ERROR",
        "NODE_FAILURE",
        "SCHEDULING_POLICY_TERMINATED",
        "UNKNOWN",
    ):
        assert ("diagnosed", category) in seen
    for outcome in (
        "not_a_failure",
        "out_of_scope",
        "needs_input",
        "wrong_cluster",
        "not_found",
        "permission_denied",
    ):
        assert (outcome, None) in seen
    assert ("routed", "preempted") in seen and ("routed", "pending_scheduling") in seen


@pytest.mark.parametrize("bundle", ALL_BUNDLES + SHARED_RUNAI, ids=lambda path: path.name)
def test_bundles_and_diagnoses_follow_the_contracts(
    bundle: Path, bundle_schema: dict[str, Any], diagnosis_schema: dict[str, Any]
) -> None:
    jsonschema.validate(json.loads(bundle.read_text()), bundle_schema)
    got = _json(replay_file(bundle))
    jsonschema.validate(got, diagnosis_schema)
    assert {item["source"] for item in got["evidence"]} <= set(got["calls"])
    # Confidence by outcome (rulings G6, R16).
    if got["outcome"] in ("needs_input", "not_found", "wrong_cluster", "not_a_failure", "out_of_scope"):
        assert got["confidence"] is None and got["category"] is None and got["recurrence"] is None
    if got["outcome"] == "permission_denied":
        assert got["confidence"] == "LOW" and got["permissions"]
    if got["category"] == "UNKNOWN":
        assert got["confidence"] == "LOW" and got["recurrence"] is None
    if got["outcome"] != "diagnosed":
        assert got["measurements"] == {} and got["recommendations"] == []
    # A request or limit is never a peak (G7): a peak only with a metrics call.
    if "memory_peak_bytes" in got["measurements"]:
        assert "get_workload_metrics" in got["calls"]
    for recommendation in got["recommendations"]:
        assert "delete" not in recommendation["text"].lower()


# name -> (outcome, route or category, confidence, recurrence count or None, calls or None)
EXPECTED: dict[str, tuple[str, str | None, str | None, int | None, list[str] | None]] = {
    "runai-oom-killed": (
        "diagnosed",
        "OOM_KILLED",
        "HIGH",
        1,
        [
            "get_workload_status",
            "get_workload_events",
            "get_workload_spec",
            "get_workload_pods",
            "get_workload_history",
            "get_workload_metrics",
        ],
    ),
    "runai-image-pull-manifest-missing": ("diagnosed", "IMAGE_PULL_FAILED", "HIGH", 1, None),
    "runai-image-pull-unauthorized": ("diagnosed", "IMAGE_PULL_FAILED", "HIGH", 1, None),
    "runai-image-pull-registry-dns": ("diagnosed", "IMAGE_PULL_FAILED", "HIGH", 1, None),
    "runai-init-failed": ("diagnosed", "INIT_FAILED", "HIGH", 1, None),
    "runai-datasource-mount-failed": ("diagnosed", "DATASOURCE_MOUNT_FAILED", "HIGH", 1, None),
    "runai-crash-app-error": (
        "diagnosed",
        "CRASH_APP_ERROR",
        "HIGH",
        1,
        [
            "get_workload_status",
            "get_workload_events",
            "get_workload_spec",
            "get_workload_pods",
            "get_workload_history",
            "k8s.read_pod",
            "k8s.read_pod_log",
            "k8s.list_events",
        ],
    ),
    "runai-node-failure": (
        "diagnosed",
        "NODE_FAILURE",
        "HIGH",
        1,
        [
            "get_workload_status",
            "get_workload_events",
            "get_workload_spec",
            "get_workload_pods",
            "get_workload_history",
            "k8s.read_node",
        ],
    ),
    "runai-scheduling-policy-idle-timeout": ("diagnosed", "SCHEDULING_POLICY_TERMINATED", "HIGH", 1, None),
    "runai-stopped-no-explanation": ("diagnosed", "SCHEDULING_POLICY_TERMINATED", "MEDIUM", 1, None),
    "runai-unknown-no-tier2": ("diagnosed", "UNKNOWN", "LOW", None, None),
    "runai-unexplained-137": ("diagnosed", "UNKNOWN", "LOW", None, None),
    "runai-crash-exit-code-tier2-denied": ("diagnosed", "CRASH_APP_ERROR", "MEDIUM", 1, None),
    "runai-crashloop-active-option-b": (
        "diagnosed",
        "CRASH_APP_ERROR",
        "HIGH",
        1,
        [
            "list_workloads",
            "get_workload_status",
            "get_workload_events",
            "get_workload_status",
            "get_workload_events",
            "get_workload_spec",
            "get_workload_pods",
            "get_workload_history",
            "k8s.read_pod",
            "k8s.read_pod_log",
            "k8s.list_events",
        ],
    ),
    "runai-preempted-reclaim": (
        "routed",
        "preempted",
        "HIGH",
        None,
        ["list_workloads", "get_workload_status", "get_workload_events"],
    ),
    "runai-pending-scheduling": (
        "routed",
        "pending_scheduling",
        "HIGH",
        None,
        ["get_workload_status", "get_workload_events"],
    ),
    "runai-completed": ("not_a_failure", None, None, None, ["get_workload_status", "get_workload_events"]),
    "runai-suspended": ("out_of_scope", None, None, None, ["get_workload_status", "get_workload_events"]),
    "runai-running-no-symptom": (
        "needs_input",
        None,
        None,
        None,
        ["get_workload_status", "get_workload_events"],
    ),
    "runai-wrong-cluster": ("wrong_cluster", None, None, None, ["get_workload_status"]),
    "runai-not-found": ("not_found", None, None, None, ["get_workload_status"]),
    "runai-permission-denied": ("permission_denied", None, "LOW", None, ["get_workload_status"]),
    "runai-option-b-no-match": ("needs_input", None, None, None, ["list_workloads"]),
    "pagination": (
        "diagnosed",
        "OOM_KILLED",
        "HIGH",
        3,
        [
            "list_workloads",
            "list_workloads",
            "get_workload_status",
            "get_workload_events",
            "get_workload_spec",
            "get_workload_pods",
            "get_workload_history",
            "get_workload_history",
            "get_workload_history",
            "get_workload_metrics",
        ],
    ),
    "lookback-cutoff": ("diagnosed", "OOM_KILLED", "HIGH", 1, None),
    "duplicate-event-and-phase-update": ("diagnosed", "OOM_KILLED", "HIGH", 2, None),
    "history-unsorted": ("diagnosed", "OOM_KILLED", "HIGH", 3, None),
    "empty-metrics": ("diagnosed", "OOM_KILLED", "HIGH", 1, None),
    "missing-pods": ("diagnosed", "OOM_KILLED", "HIGH", 1, None),
    # The plain pod list is empty: the replaced pod is read with deleted=true (runai-api.md §8).
    "replaced-pods-deleted": (
        "diagnosed",
        "OOM_KILLED",
        "HIGH",
        1,
        [
            "get_workload_status",
            "get_workload_events",
            "get_workload_spec",
            "get_workload_pods",
            "get_workload_pods",
            "get_workload_history",
            "get_workload_metrics",
        ],
    ),
    "metrics-207-partial": ("diagnosed", "OOM_KILLED", "HIGH", 1, None),
    "spec-type-unknown": (
        "diagnosed",
        "OOM_KILLED",
        "HIGH",
        1,
        [
            "get_workload_status",
            "get_workload_events",
            "get_workload_pods",
            "get_workload_history",
            "get_workload_metrics",
        ],
    ),
    "id-and-name-differ": ("diagnosed", "OOM_KILLED", "HIGH", 1, None),
    "events-null-stopped-history-preemption": (
        "routed",
        "preempted",
        "HIGH",
        None,
        ["get_workload_status", "get_workload_events", "get_workload_history"],
    ),
    "events-null-stopped-max-duration": (
        "diagnosed",
        "SCHEDULING_POLICY_TERMINATED",
        "HIGH",
        1,
        [
            "get_workload_status",
            "get_workload_events",
            "get_workload_history",
            "get_workload_spec",
            "get_workload_pods",
        ],
    ),
    "status-500": ("diagnosed", "UNKNOWN", "LOW", None, ["get_workload_status"]),
    "tier2-derived-namespace-missing": ("diagnosed", "UNKNOWN", "LOW", None, None),
    "log-injection": ("diagnosed", "CRASH_APP_ERROR", "HIGH", 1, None),
    "previous-log-400": ("diagnosed", "CRASH_APP_ERROR", "MEDIUM", 1, None),
    "crashed-runbook-phase": ("diagnosed", "CRASH_APP_ERROR", "MEDIUM", 1, None),
    "succeeded-runbook-phase": ("not_a_failure", None, None, None, None),
    "option-b-all-active": ("needs_input", None, None, None, ["list_workloads"]),
    "option-b-active-none-confirmed": (
        "needs_input",
        None,
        None,
        None,
        [
            "list_workloads",
            "get_workload_status",
            "get_workload_events",
            "get_workload_status",
            "get_workload_events",
        ],
    ),
    "pending-with-image-pull": ("diagnosed", "IMAGE_PULL_FAILED", "HIGH", 1, None),
    "initializing-no-signal": ("out_of_scope", None, None, None, None),
    "multi-worker-earliest-failure": ("diagnosed", "CRASH_APP_ERROR", "HIGH", 1, None),
    "gpu-xid-node-failure": ("diagnosed", "NODE_FAILURE", "HIGH", 1, None),
}


def test_every_bundle_has_an_expectation() -> None:
    assert set(BY_NAME) == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_scenario_outcome(name: str) -> None:
    outcome, kind, confidence, count, calls = EXPECTED[name]
    got = _json(replay_file(BY_NAME[name]))
    assert got["outcome"] == outcome
    assert (got["route"] if outcome == "routed" else got["category"]) == kind
    assert got["confidence"] == confidence
    assert (got["recurrence"] or {}).get("count") == count
    if count is not None:
        assert got["recurrence"]["recurring"] is (count >= 2) and got["recurrence"]["window"] == "7d"
    if calls is not None:
        assert got["calls"] == calls

"""Every Run:ai bundle replayed: the worked examples exactly, a bundle per category and routing
branch, and the invariants every diagnosis keeps (bundles and diagnoses validate against the
contracts' schemas; every evidence source is a call the diagnosis made). Each bundle's own verdict
is in the bundle (`expected`, checked by tests/evidence/test_corpus.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from diagnosis.models import Diagnosis
from tests.runai.helpers import DEMO_BUNDLES, TEST_BUNDLES, WORKED_RUNAI, replay_file

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


@pytest.mark.parametrize("bundle", WORKED_RUNAI, ids=lambda path: path.name)
def test_worked_examples_replay_exactly(bundle: Path, diagnosis_schema: dict[str, Any]) -> None:
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


@pytest.mark.parametrize("bundle", ALL_BUNDLES + WORKED_RUNAI, ids=lambda path: path.name)
def test_bundles_and_diagnoses_follow_the_contracts(
    bundle: Path, bundle_schema: dict[str, Any], diagnosis_schema: dict[str, Any]
) -> None:
    jsonschema.validate(json.loads(bundle.read_text()), bundle_schema)
    got = _json(replay_file(bundle))
    jsonschema.validate(got, diagnosis_schema)
    assert {item["source"] for item in got["evidence"]} <= set(got["calls"])
    # Confidence by outcome: only a diagnosis (and a denied call, LOW) carries one.
    if got["outcome"] in ("needs_input", "not_found", "wrong_cluster", "not_a_failure", "out_of_scope"):
        assert got["confidence"] is None and got["category"] is None and got["recurrence"] is None
    if got["outcome"] == "permission_denied":
        assert got["confidence"] == "LOW" and got["permissions"]
    if got["category"] == "UNKNOWN":
        assert got["confidence"] == "LOW" and got["recurrence"] is None
    if got["outcome"] != "diagnosed":
        assert got["measurements"] == {} and got["recommendations"] == []
    # A request or limit is never a peak: a peak only with a metrics call.
    if "memory_peak_bytes" in got["measurements"]:
        assert "get_workload_metrics" in got["calls"]
    for recommendation in got["recommendations"]:
        assert "delete" not in recommendation["text"].lower()

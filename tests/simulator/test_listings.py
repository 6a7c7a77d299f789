"""The listings the simulator builds from the jobs its bundles hold (no bundle records a region's job
list): what the platforms' official models accept, filtered and paged as the platforms do, and
what the live clients get over a real socket."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from diagnosis.bundle import Bundle
from diagnosis.models import Exchange
from simulator.environment import BUILTIN_SCENARIOS
from simulator.listings import SIMULATOR_PROJECT_ID, modelarts_listing, runai_listing
from simulator.server import SimServer, load_bundle_dir, load_bundles_reporting
from tests.modelarts.official_sdk import differences
from tests.runai.official import body_problems

BUNDLES = load_bundle_dir(BUILTIN_SCENARIOS)
MODELARTS = [
    exchange for bundle in BUNDLES if bundle.platform == "modelarts" for exchange in bundle.exchanges
]
RUNAI = [exchange for bundle in BUNDLES if bundle.platform == "runai" for exchange in bundle.exchanges]


def _details(exchanges: list[Exchange]) -> dict[str, dict[str, Any]]:
    """Job id → details answer, read straight from the bundles (the expected listing's source)."""
    return {
        str(item.body["metadata"]["id"]): item.body
        for item in exchanges
        if item.op == "ShowTrainingJobDetails" and item.status == 200 and isinstance(item.body, dict)
    }


def _statuses(exchanges: list[Exchange]) -> dict[str, dict[str, Any]]:
    return {
        str(item.body["id"]): item.body
        for item in exchanges
        if item.op == "get_workload_status" and item.status == 200 and isinstance(item.body, dict)
    }


def test_the_job_search_lists_every_job_of_the_one_project_newest_first_as_the_sdk_models_it() -> None:
    answer = modelarts_listing(MODELARTS, {"project_id": SIMULATOR_PROJECT_ID, "limit": 50})
    jobs = _details(MODELARTS)
    assert answer["total"] == len(jobs) > 20
    listed = [item["metadata"]["id"] for item in answer["items"]]
    assert sorted(listed) == sorted(jobs)
    times = [item["metadata"]["create_time"] for item in answer["items"]]
    assert times == sorted(times, reverse=True)
    # Huawei's SDK reads every field of the answer as what it is (nothing it does not model).
    assert differences("ListTrainingJobs", answer) == {}


def test_the_job_search_pages_by_index_and_filters_by_a_case_sensitive_substring() -> None:
    first = modelarts_listing(MODELARTS, {"project_id": SIMULATOR_PROJECT_ID, "limit": 10})
    second = modelarts_listing(MODELARTS, {"project_id": SIMULATOR_PROJECT_ID, "limit": 10, "offset": 1})
    assert first["count"] == 10 and second["offset"] == 1
    assert not {item["metadata"]["id"] for item in first["items"]} & {
        item["metadata"]["id"] for item in second["items"]
    }
    named = modelarts_listing(MODELARTS, {"project_id": SIMULATOR_PROJECT_ID, "name": "resnet50-imagenet"})
    assert [item["metadata"]["name"] for item in named["items"]] == ["resnet50-imagenet"] * 2
    # As the recorded search shows: "Food101" finds no "resnet50-food101-v2".
    assert modelarts_listing(MODELARTS, {"project_id": SIMULATOR_PROJECT_ID, "name": "Food101"})["total"] == 0


def test_a_project_of_its_own_lists_only_its_jobs() -> None:
    job_id = "3e8a1f5c-2d47-4b0e-9c63-a5f1e2d4b790"
    project = next(
        str(item.args["project_id"]) for item in MODELARTS if item.args.get("training_job_id") == job_id
    )
    answer = modelarts_listing(MODELARTS, {"project_id": project})
    assert [item["metadata"]["id"] for item in answer["items"]] == [job_id]


def test_the_workload_list_filters_sorts_and_pages_as_the_run_ai_api() -> None:
    statuses = _statuses(RUNAI)
    failed = {
        key for key, body in statuses.items() if body.get("phase") == "Failed" and not body.get("deletedAt")
    }
    answer = runai_listing(
        RUNAI, {"filterBy": "phase==Failed", "sortBy": "phaseUpdatedAt", "sortOrder": "desc"}
    )
    listed = [item["id"] for item in answer["workloads"]]
    assert set(listed) == failed and len(failed) >= 5 and "next" not in answer
    moments = [item["phaseUpdatedAt"] for item in answer["workloads"]]
    assert moments == sorted(moments, reverse=True)
    assert body_problems("list_workloads", answer) == []

    cluster = "42c09db8-1493-5855-a4ce-5b14ecc2dab0"
    scan_filter = f"clusterId=={cluster},phase==Failed,phaseUpdatedAt>=2026-04-29T09:00:00Z"
    assert [item["name"] for item in runai_listing(RUNAI, {"filterBy": scan_filter})["workloads"]] == [
        "llama-sft-7b"
    ]
    later = f"clusterId=={cluster},phase==Failed,phaseUpdatedAt>=2026-05-06T07:00:00Z"
    assert runai_listing(RUNAI, {"filterBy": later})["workloads"] == []

    page = runai_listing(RUNAI, {"filterBy": "phase==Failed", "limit": 2})
    assert len(page["workloads"]) == 2 and page["next"] == 2
    assert runai_listing(RUNAI, {"filterBy": "phase==Failed", "deleted": "true"})["workloads"] == []


async def test_the_live_clients_get_the_listings_over_the_wire() -> None:
    with SimServer(BUNDLES, listings=True) as sim:
        async with httpx.AsyncClient(base_url=sim.base_url) as client:
            workloads = await client.get(
                "/api/v1/workloads", params={"filterBy": "clusterId==42c09db8-1493-5855-a4ce-5b14ecc2dab0"}
            )
            assert workloads.status_code == 200
            assert [item["name"] for item in workloads.json()["workloads"]] == ["llama-sft-7b"]
            like = {"key": "name", "operator": "like", "value": ["food101"]}
            search = await client.post(
                f"/v2/{SIMULATOR_PROJECT_ID}/training-job-searches",
                json={"offset": 0, "limit": 50, "filters": [like]},
            )
            names = sorted(item["metadata"]["name"] for item in search.json()["items"])
            assert names == ["resnet50-food101", "resnet50-food101-v2"]
            # A job asked in the one project is answered from the project it was recorded in.
            job = "3e8a1f5c-2d47-4b0e-9c63-a5f1e2d4b790"
            details = await client.get(f"/v2/{SIMULATOR_PROJECT_ID}/training-jobs/{job}")
            assert details.status_code == 200 and details.json()["metadata"]["name"] == "vit-l16-pretrain"


async def test_without_listings_the_simulator_answers_only_what_was_recorded() -> None:
    with SimServer(BUNDLES) as sim:
        async with httpx.AsyncClient(base_url=sim.base_url) as client:
            answer = await client.get("/api/v1/workloads", params={"filterBy": "phase==Failed"})
            assert answer.status_code == 404


@pytest.mark.parametrize("content", ["not json", '{"schema": "diagnosis/v1"}'])
def test_every_file_skipped_is_reported_with_its_reason(tmp_path: Any, content: str) -> None:
    bundle = Bundle(platform="runai", captured_at="2026-05-06T09:00:00Z", request={}, exchanges=[])
    (tmp_path / "a.bundle.json").write_text(json.dumps(bundle.to_json_dict()), encoding="utf-8")
    (tmp_path / "other.json").write_text(content, encoding="utf-8")
    pairs, skipped = load_bundles_reporting(tmp_path)
    assert [path.name for path, _bundle in pairs] == ["a.bundle.json"]
    assert [item.path.name for item in skipped] == ["other.json"] and skipped[0].reason

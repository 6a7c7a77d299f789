"""End to end: the live signed client against the simulator over a real loopback socket."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest

from cli.main import main
from diagnosis import engine
from diagnosis.bundle import Bundle
from diagnosis.evidence.bundles import load_bundle
from diagnosis.evidence.http.retrying import RetryPolicy
from diagnosis.evidence.http.throttle import Throttle
from diagnosis.modelarts import client as modelarts_client
from diagnosis.modelarts.scan import run_scan
from diagnosis.models import Diagnosis, Exchange
from simulator.server import Fault, SimServer
from tests.modelarts.conftest import (
    BUNDLES,
    EXAMPLES,
    bundle_path,
    load,
    project_of,
    replay,
    without_user_diagnosis,
)

AK = "SIMACCESSKEY00000000"
SK = "sim-secret-key-for-tests"
PROJECT = "4f1d2c9e8b7a46d3a5c0e9f812b3d467"
FAST_RETRY = RetryPolicy(attempts=3, base_delay=0.01, max_delay=0.05, deadline=10.0)


@pytest.fixture
def environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[pytest.MonkeyPatch]:
    """Keys and project id from the SDK variables; no real credentials file or KooCLI profile."""
    for name in ("HUAWEICLOUD_SDK_SECURITY_TOKEN", "HUAWEICLOUD_SDK_REGIONS_FILE", "HCLOUD_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("HUAWEICLOUD_SDK_AK", AK)
    monkeypatch.setenv("HUAWEICLOUD_SDK_SK", SK)
    monkeypatch.setenv("HUAWEICLOUD_SDK_PROJECT_ID", PROJECT)
    monkeypatch.setenv("HUAWEICLOUD_SDK_CREDENTIALS_FILE", str(tmp_path / "none"))
    yield monkeypatch


def point_at(monkeypatch: pytest.MonkeyPatch, sim: SimServer, region: str = "cn-north-4") -> None:
    monkeypatch.setenv("HUAWEICLOUD_SDK_REGION_MODELARTS_" + region.upper().replace("-", "_"), sim.base_url)


def recorded(environment: pytest.MonkeyPatch, name: str) -> Bundle:
    """A bundle, with the live client's project id set to the one its calls were recorded with."""
    bundle = load(name)
    environment.setenv("HUAWEICLOUD_SDK_PROJECT_ID", project_of(bundle))
    return bundle


async def live(bundle: Bundle, **options: Any) -> Diagnosis:
    request = engine.request_from_bundle(bundle)
    options.setdefault("retry_policy", FAST_RETRY)
    async with engine.live(request, **options) as (source, _recorder):
        return await engine.diagnose_with(request, source, now=bundle.captured_at)


@pytest.mark.parametrize(
    "name",
    ["early-exit-cuda-oom", "multi-task-logs", "running-stalled", "name-substring-match", "exit-137-killed"],
)
async def test_live_client_matches_replay(environment: pytest.MonkeyPatch, name: str) -> None:
    bundle = recorded(environment, name)
    with SimServer([bundle], modelarts_keys=(AK, SK)) as sim:
        point_at(environment, sim)
        diagnosis = await live(bundle)
    offline = await engine.replay(bundle, lang="zh")
    assert diagnosis.to_json_dict() == offline.to_json_dict()
    # Read-only: GETs, and POST only to the job search.
    assert {method for method, _path in sim.requests} <= {"GET", "POST"}
    assert all(path.endswith("/training-job-searches") for method, path in sim.requests if method == "POST")
    assert not any(path.endswith("/logs/url") for _method, path in sim.requests)


async def test_shared_example_over_the_wire(environment: pytest.MonkeyPatch) -> None:
    bundle = load_bundle(EXAMPLES / "modelarts-insufficient-info.bundle.json")
    environment.setenv("HUAWEICLOUD_SDK_PROJECT_ID", "3c7f0e9a1b4d4f2e8a6c5d0b9e1f7a23")
    with SimServer([bundle], modelarts_keys=(AK, SK)) as sim:
        point_at(environment, sim, "cn-east-3")
        diagnosis = await live(bundle, retry_policy=RetryPolicy(attempts=1))
    want = json.loads((EXAMPLES / "modelarts-insufficient-info.diagnosis.json").read_text(encoding="utf-8"))
    assert without_user_diagnosis(diagnosis.calls) == want["calls"]
    assert (diagnosis.category, diagnosis.confidence, diagnosis.fault_level) == (
        "UNKNOWN",
        "LOW",
        "Suspected",
    )


async def test_wrong_secret_key_is_refused_by_the_gateway(environment: pytest.MonkeyPatch) -> None:
    bundle = recorded(environment, "early-exit-file-not-found")
    environment.setenv("HUAWEICLOUD_SDK_SK", "not-the-right-secret")
    with SimServer([bundle], modelarts_keys=(AK, SK)) as sim:
        point_at(environment, sim)
        diagnosis = await live(bundle)
    # A bad signature is rejected credentials, not a missing grant: the keys and clock to check.
    assert diagnosis.outcome == "auth_failed"
    assert "APIGW.0301" in diagnosis.root_cause
    assert diagnosis.permissions == []
    assert any("X-Sdk-Date" in step for step in diagnosis.next_steps)
    assert "not-the-right-secret" not in json.dumps(diagnosis.to_json_dict())


async def test_throttling_and_5xx_are_retried(environment: pytest.MonkeyPatch) -> None:
    bundle = recorded(environment, "error-event-image-pull")
    faults = {
        "ShowTrainingJobDetails": [Fault(status=429, retry_after=0.05)],
        "ListTrainingJobEvents": [Fault(status=503, times=2)],
    }
    with SimServer([bundle], modelarts_keys=(AK, SK), faults=faults) as sim:
        point_at(environment, sim)
        diagnosis = await live(bundle, throttle=Throttle(50.0))
        assert sim.op_count("ShowTrainingJobDetails") == 2 and sim.op_count("ListTrainingJobEvents") == 3
    assert (diagnosis.category, diagnosis.confidence) == ("IMAGE_PULL_FAILED", "HIGH")
    # Retries are not repeated in `calls`: it lists the calls a diagnosis made, once each.
    # Events, stages, previews and the platform's diagnosis are asked in one round.
    assert diagnosis.calls == [
        "ShowTrainingJobDetails",
        "ListTrainingJobEvents",
        "ListTrainingJobStages",
        "ShowTrainingJobLogsPreview",
        "ShowTrainingJobUserDiagnosis",
    ]


async def test_persistent_5xx_is_low_and_a_timeout_unreachable(environment: pytest.MonkeyPatch) -> None:
    bundle = recorded(environment, "early-exit-file-not-found")
    faults = {"ShowTrainingJobDetails": [Fault(status=502, times=-1)]}
    with SimServer([bundle], modelarts_keys=(AK, SK), faults=faults) as sim:
        point_at(environment, sim)
        failed = await live(bundle)
    assert (failed.outcome, failed.category, failed.confidence) == ("diagnosed", "UNKNOWN", "LOW")
    assert failed.next_steps[-1].startswith("建议排查方向")

    with SimServer(
        [bundle],
        modelarts_keys=(AK, SK),
        faults={"ShowTrainingJobDetails": [Fault(timeout=True)]},
        timeout_hold_seconds=5.0,
    ) as sim:
        point_at(environment, sim)
        timed_out = await live(bundle, timeout=httpx.Timeout(0.3), retry_policy=RetryPolicy(attempts=1))
    # No answer at all is no diagnosis: the endpoint and the network to check.
    assert (timed_out.outcome, timed_out.category, timed_out.confidence) == ("unreachable", None, None)
    assert timed_out.evidence[0].text == "timeout"
    assert sim.base_url in timed_out.next_steps[0] and "网络" in timed_out.next_steps[1]


async def test_a_refused_connection_is_unreachable(environment: pytest.MonkeyPatch) -> None:
    bundle = recorded(environment, "early-exit-file-not-found")
    environment.setenv("HUAWEICLOUD_SDK_REGION_MODELARTS_CN_NORTH_4", "http://127.0.0.1:9")
    diagnosis = await live(bundle, retry_policy=RetryPolicy(attempts=1))
    assert diagnosis.outcome == "unreachable" and diagnosis.fault_level is None
    assert "http://127.0.0.1:9" in diagnosis.next_steps[0]


async def test_scan_pages_through_the_list_under_a_rate_limit(environment: pytest.MonkeyPatch) -> None:
    bundle = recorded(environment, "scan-pages")
    with SimServer([bundle], modelarts_keys=(AK, SK)) as sim:
        point_at(environment, sim)
        seen: list[int] = []
        async with modelarts_client.live_sources(
            region="cn-north-4", throttle=Throttle(200.0), retry_policy=FAST_RETRY
        ) as make:
            result = await run_scan(
                make,
                region=None,
                now=bundle.captured_at,
                concurrency=3,
                progress=lambda p: seen.append(p.done),
            )
        searches = [path for method, path in sim.requests if method == "POST"]
    assert len(searches) == 2  # page 0 (50 items) then page 1 (2 items)
    data = result.to_json_dict()
    assert (data["schema"], data["platform"], data["region"], data["scanned"]) == (
        "scan/v1",
        "modelarts",
        "cn-north-4",
        52,
    )
    assert data["by_category"] == {"CRASH_APP_ERROR": 3, "permission_denied": 1}
    assert sorted(item["target"]["name"] for item in data["results"]) == [
        "scan-denied",
        "scan-module",
        "scan-oom-a",
        "scan-oom-b",
    ]
    assert seen[0] == 0 and seen[-1] == 4
    signatures = [cause.value for cause in result.recurring_causes() if cause.kind == "signature"]
    assert signatures and signatures[0].startswith("torch.OutOfMemoryError")


def test_cli_against_the_simulator_with_capture(
    environment: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    bundle_schema: dict[str, Any],
) -> None:
    bundle = recorded(environment, "exit-137-killed")
    job_id = bundle.request["job_id"]
    captured = tmp_path / "captured.bundle.json"
    with SimServer([bundle], modelarts_keys=(AK, SK)) as sim:
        point_at(environment, sim)
        code = main(
            [
                "modelarts",
                "--job-id",
                job_id,
                "--format",
                "json",
                "--capture",
                str(captured),
                "--as-of",
                "2026-06-10T02:00:00Z",
            ]
        )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["category"], out["confidence"]) == ("OOM_KILLED", "MEDIUM")
    data = json.loads(captured.read_text(encoding="utf-8"))
    jsonschema.validate(data, bundle_schema)
    assert [exchange["op"] for exchange in data["exchanges"]] == out["calls"]
    assert all("limit" not in exchange["args"] for exchange in data["exchanges"])
    assert SK not in captured.read_text(encoding="utf-8")
    # The capture replays to the same diagnosis.
    again = replay(load_bundle(captured))
    assert (again.category, again.calls) == ("OOM_KILLED", out["calls"])


def test_cli_log_url_prints_only_to_stdout(
    environment: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    job_id = "0b6f4d2a-7c1e-4a93-8e55-2f90c1d7a3b1"
    link = "https://obs.cn-north-4.myhuaweicloud.com/logs/modelarts-job-x-worker-0.log?AWSAccessKeyId=AK1&Signature=s1&Expires=1"
    bundle = Bundle(
        platform="modelarts",
        captured_at=load("early-exit-file-not-found").captured_at,
        request={"job_id": job_id, "region": "cn-north-4"},
        exchanges=[
            Exchange(
                op="ShowObsUrlOfTrainingJobLogs",
                args={"project_id": PROJECT, "training_job_id": job_id, "task_id": "worker-0"},
                status=200,
                body={"obs_url": link},
            )
        ],
    )
    with SimServer([bundle], modelarts_keys=(AK, SK)) as sim:
        point_at(environment, sim)
        assert main(["modelarts", "log-url", "--job-id", job_id, "--task", "worker-0"]) == 0
        output = capsys.readouterr()
        assert output.out.strip() == link and link not in output.err
        assert main(["modelarts", "log-url", "--job-id", job_id, "--task", "worker-9"]) == 3, (
            "no link: the documented 3"
        )
        refused = capsys.readouterr()
        assert refused.out == "" and "HTTP 404" in refused.err


def test_cli_missing_project_id_is_a_usage_error(
    environment: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    environment.delenv("HUAWEICLOUD_SDK_PROJECT_ID")
    assert main(["modelarts", "--job-id", "x", "--region", "cn-east-3"]) == 2
    err = capsys.readouterr().err
    assert "cn-east-3" in err and "HUAWEICLOUD_SDK_PROJECT_ID" in err and SK not in err


def test_cli_scan_offline_and_replay(capsys: pytest.CaptureFixture[str]) -> None:
    bundle = str(BUNDLES / "scan-pages.bundle.json")
    assert (
        main(["modelarts", "scan", "--bundle", bundle, "--as-of", "2026-06-10T02:00:00Z", "--format", "json"])
        == 0
    )
    captured = capsys.readouterr()
    assert json.loads(captured.out)["by_category"] == {"CRASH_APP_ERROR": 3, "permission_denied": 1}
    assert "scan: 4/4 diagnosed" in captured.err
    assert (
        main(["modelarts", "scan", "--bundle", bundle, "--query", "results[].target.name", "--lang", "en"])
        == 0
    )
    assert "scan-oom-a" in capsys.readouterr().out
    assert main(["modelarts", "scan", "--bundle", bundle, "--lang", "en"]) == 0
    text = capsys.readouterr().out
    assert "### CRASH_APP_ERROR (3)" in text and "### Recurring errors" in text
    assert main(["replay", str(bundle_path("terminated")), "--lang", "ja"]) == 0
    assert capsys.readouterr().out.startswith("Out of scope: Terminated")


async def test_the_client_refuses_anything_but_reads() -> None:
    from diagnosis.evidence.http.readonly import MutatingRequestRefused
    from diagnosis.modelarts.client import build_client
    from diagnosis.modelarts.signer import AkSkAuth

    sent: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(f"{request.method} {request.url.path}")
        return httpx.Response(200, json={"items": []})

    auth = AkSkAuth(AK, SK, project_id=PROJECT)
    async with build_client(auth=auth, transport=httpx.MockTransport(handler)) as client:
        base = f"https://modelarts.cn-north-4.myhuaweicloud.com/v2/{PROJECT}"
        assert (await client.get(f"{base}/training-jobs/j1")).status_code == 200
        assert (await client.post(f"{base}/training-job-searches", json={})).status_code == 200
        for method, path in [
            ("POST", "/training-jobs"),
            ("DELETE", "/training-jobs/j1"),
            ("PUT", "/training-jobs/j1"),
            ("POST", "/training-jobs/j1/actions"),
            ("POST", "/training-jobs/j1/diagnosis-tasks"),
        ]:
            with pytest.raises(MutatingRequestRefused):
                await client.request(method, base + path)
    assert sent == [f"GET /v2/{PROJECT}/training-jobs/j1", f"POST /v2/{PROJECT}/training-job-searches"]


async def test_keys_never_reach_the_logs(
    environment: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import logging

    bundle = recorded(environment, "multi-task-logs")
    caplog.set_level(logging.DEBUG)
    with SimServer([bundle], modelarts_keys=(AK, SK)) as sim:
        point_at(environment, sim)
        diagnosis = await live(bundle)
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert SK not in logged
    assert SK not in json.dumps(diagnosis.to_json_dict()) and AK not in json.dumps(diagnosis.to_json_dict())


async def test_the_simulator_pages_events_by_page_index(environment: pytest.MonkeyPatch) -> None:
    """250 Error events recorded as one list: the stand-in serves them 100 a page (`offset` =
    page index), the live client reads all three pages and finds the cause on the last one."""
    bundle = recorded(environment, "error-event-image-pull")
    events = next(item for item in bundle.exchanges if item.op == "ListTrainingJobEvents")
    assert isinstance(events.body, dict)
    cause = events.body["events"][0]
    filler = [
        {
            "time": f"2026-06-10T01:{i // 60:02d}:{i % 60:02d}Z",
            "level": "Error",
            "message": f"retry {i}",
            "source": "Job",
        }
        for i in range(249)
    ]
    events.body = {"total": 250, "limit": 100, "offset": 0, "events": [*filler, cause]}
    with SimServer([bundle], modelarts_keys=(AK, SK)) as sim:
        point_at(environment, sim)
        diagnosis = await live(bundle)
        pages = [path for method, path in sim.requests if path.endswith("/events")]
    assert len(pages) == 3
    assert (diagnosis.category, diagnosis.confidence) == ("IMAGE_PULL_FAILED", "HIGH")
    assert diagnosis.calls.count("ShowTrainingJobUserDiagnosis") == 1

"""`diagnose runai scan`: the live clients against the simulator (paging, the client-side filter, a
429 mid-scan), the recurring causes, the JSON contract, offline scans of bad answers, the CLI."""

from __future__ import annotations

import asyncio
import io
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from cli.main import main
from cli.runai import ProgressBar
from diagnosis.bundle import Bundle
from diagnosis.evidence.bundles import parse_bundle
from diagnosis.evidence.http.retrying import RetryPolicy
from diagnosis.render.charts.figure import png_size
from diagnosis.runai import client as runai_client
from diagnosis.runai.scan import run as scan_module
from diagnosis.runai.scan.listing import list_filter
from diagnosis.runai.scan.markdown import render_scan_markdown
from diagnosis.runai.scan.result import ScanResult
from diagnosis.runai.scan.run import live_scan_sources, scan_with
from diagnosis.runai.scan.throttle import ScanThrottle
from simulator.server import Fault, SimServer
from tests.runai.factory import runai_error
from tests.runai.scan_world import (
    CLUSTER,
    EXPECTED,
    NODE_A,
    NODE_B,
    OTHER_IMAGE,
    SHARED_IMAGE,
    scan_bundle,
)
from tests.runai.scenarios import T

FAST_RETRY = RetryPolicy(attempts=4, base_delay=0.01, max_delay=0.05)
AS_OF = T.strftime("%Y-%m-%dT%H:%M:%SZ")


class TimedRequests(list[tuple[str, str]]):
    """The simulator's request log, with the moment each request arrived."""

    def __init__(self) -> None:
        super().__init__()
        self.arrived: list[float] = []

    def append(self, item: tuple[str, str]) -> None:
        self.arrived.append(time.monotonic())
        super().append(item)


@pytest.fixture(scope="module")
def world() -> Bundle:
    return parse_bundle(scan_bundle())


@pytest.fixture(scope="module")
def shared_sim(world: Bundle) -> Iterator[SimServer]:
    with SimServer([world], timeout_hold_seconds=3) as sim:
        yield sim


@pytest.fixture
def sim(shared_sim: SimServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> SimServer:
    """The Run:ai environment pointing at the simulator; no Kubernetes access (Tier 1 only)."""
    shared_sim.faults.clear()
    shared_sim.requests = TimedRequests()
    shared_sim.ops.clear()
    shared_sim.tokens_issued = 0
    shared_sim.default_latency = 0.0
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    monkeypatch.delenv("DIAGNOSE_NOW", raising=False)
    monkeypatch.setenv("RUNAI_URL", shared_sim.base_url)
    monkeypatch.setenv("RUNAI_CLIENT_ID", "scan-client")
    monkeypatch.setenv("RUNAI_CLIENT_SECRET", "scan-secret-value-456")
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "no-kubeconfig"))
    return shared_sim


async def live_scan(
    *, rate: float = 200.0, concurrency: int = 4, **options: Any
) -> tuple[ScanResult, ScanThrottle]:
    async with live_scan_sources(rate_per_second=rate, retry_policy=FAST_RETRY) as (make_source, throttle):
        result = await scan_with(
            make_source, cluster_id=CLUSTER, now=T, concurrency=concurrency, throttle=throttle, **options
        )
    return result, throttle


def by_name(result: ScanResult) -> dict[str, str | None]:
    return {str(item.target.name): item.category for item in result.results}


def causes(data: dict[str, Any]) -> dict[tuple[str, str], list[str]]:
    return {(cause["kind"], cause["value"]): sorted(cause["workloads"]) for cause in data["recurring_causes"]}


async def test_scan_pages_filters_and_diagnoses_every_failed_workload(
    sim: SimServer, diagnosis_schema: dict[str, Any]
) -> None:
    seen: list[tuple[int, int]] = []
    result, throttle = await live_scan(progress=lambda done, total: seen.append((done, total)))
    # Eight items over three pages; the Running one, the one that failed before the lookback and
    # the one on another cluster are dropped although the server sent them.
    assert sim.op_count("list_workloads") == 3 and result.scanned == 8
    assert by_name(result) == {name: category for name, (category, _image, _node) in EXPECTED.items()}
    # Newest failure first, as listed (sortBy=phaseUpdatedAt desc).
    assert [item.target.name for item in result.results] == [
        "llama-sft-a",
        "legacy-crash",
        "llama-sft-b",
        "detr-pull",
        "t5-base-c",
    ]
    assert (
        seen[0] == (0, 5)
        and seen[-1] == (5, 5)
        and [done for done, _ in seen] == sorted(done for done, _ in seen)
    )
    # One token for the whole scan; every diagnosis has its own calls.
    assert sim.tokens_issued == 1 and throttle.pauses == 0
    assert all(
        item.calls[0] == "get_workload_status" and "list_workloads" not in item.calls
        for item in result.results
    )
    data = json.loads(json.dumps(result.to_json_dict()))
    assert (data["schema"], data["platform"], data["cluster_id"], data["scanned"]) == (
        "scan/v1",
        "runai",
        CLUSTER,
        8,
    )
    assert data["by_category"] == {"OOM_KILLED": 3, "CRASH_APP_ERROR": 1, "IMAGE_PULL_FAILED": 1}
    for item in data["results"]:
        jsonschema.validate(item, diagnosis_schema)
    assert causes(data) == {
        ("signature", "OOMKilled"): ["llama-sft-a", "llama-sft-b", "t5-base-c"],
        ("image", SHARED_IMAGE): ["llama-sft-a", "llama-sft-b"],
        ("image", OTHER_IMAGE): ["legacy-crash", "t5-base-c"],
        ("node", NODE_A): ["llama-sft-a", "t5-base-c"],
        ("node", NODE_B): ["detr-pull", "llama-sft-b"],
    }
    assert [cause["count"] for cause in data["recurring_causes"]] == [3, 2, 2, 2, 2]


async def test_a_429_mid_scan_pauses_every_request_and_slows_the_scan(sim: SimServer) -> None:
    unthrottled, _ = await live_scan(concurrency=2)
    sim.requests = TimedRequests()
    # Each answer takes 20 ms, so without a shared pause the other workloads would carry on.
    sim.default_latency = 0.02
    retry_after = 0.6
    sim.faults["get_workload_history"] = [Fault(status=429, retry_after=retry_after)]
    started = time.monotonic()
    result, throttle = await live_scan(concurrency=2)
    elapsed = time.monotonic() - started
    # Every workload still gets its result, the same as without the 429.
    assert by_name(result) == by_name(unthrottled)
    assert [item.calls for item in result.results] == [item.calls for item in unthrottled.results]
    assert throttle.pauses == 1 and result.throttled == 1
    assert throttle.rate_per_second == pytest.approx(throttle.initial_rate_per_second / 2)
    assert elapsed >= retry_after
    assert any("429" in text and "100 requests per second" in text for text in result.limitations)
    # Nothing reached the platform while the scan was paused (requests already on the wire aside).
    history = [i for i, (_method, path) in enumerate(sim.requests) if path.endswith("/history")]
    refused_at = sim.requests.arrived[history[0]]
    quiet = [t for t in sim.requests.arrived if refused_at + 0.15 < t < refused_at + retry_after - 0.1]
    assert quiet == []


def test_a_burst_of_429s_halves_the_rate_once_and_never_below_the_floor() -> None:
    clock = [100.0]
    throttle = ScanThrottle(8.0, min_rate_per_second=1.5, clock=lambda: clock[0])
    for _ in range(4):  # the requests in flight when the platform started refusing
        throttle.pause(1.0)
    assert throttle.rate_per_second == 4.0 and throttle.pauses == 4
    for _ in range(3):
        clock[0] += 2.0
        throttle.pause(1.0)
    assert throttle.rate_per_second == 1.5


async def test_a_pause_holds_back_every_waiting_request() -> None:
    throttle = ScanThrottle(1000.0)
    throttle.pause(0.2)
    started = time.monotonic()
    await asyncio.gather(*(throttle.acquire() for _ in range(3)))
    assert time.monotonic() - started >= 0.19


def test_the_list_filter_names_cluster_project_phase_and_lookback() -> None:
    assert (
        list_filter(cluster_id="c-1", project="nlp", since=T)
        == f"clusterId==c-1,projectName==nlp,phase==Failed,phaseUpdatedAt>={AS_OF}"
    )
    assert list_filter(cluster_id="c-1", project=None, since=None) == "clusterId==c-1,phase==Failed"
    with pytest.raises(ValueError, match="comma"):
        list_filter(cluster_id="c-1", project="a,b", since=T)


async def offline(bundle: dict[str, Any], **options: Any) -> ScanResult:
    parsed = parse_bundle(bundle)
    async with runai_client.replay_sources(parsed) as make_source:
        return await scan_with(make_source, cluster_id=CLUSTER, now=parsed.captured_at, **options)


def _replace_list(bundle: dict[str, Any], *exchanges: dict[str, Any]) -> dict[str, Any]:
    bundle["exchanges"] = [e for e in bundle["exchanges"] if e["op"] != "list_workloads"] + list(exchanges)
    return bundle


async def test_a_refused_list_is_permission_denied_naming_the_access() -> None:
    bundle = _replace_list(
        scan_bundle(),
        {
            "op": "list_workloads",
            "args": {},
            "status": 403,
            "body": runai_error(403, "You do not have sufficient permissions."),
        },
    )
    result = await offline(bundle)
    data = result.to_json_dict()
    assert data["results"] == [] and data["error"]["outcome"] == "permission_denied"
    assert CLUSTER in data["error"]["permissions"][0] and data["error"]["calls"] == ["list_workloads"]
    text = render_scan_markdown(result, lang="en")
    assert "could not be listed" in text and "Permission denied: list_workloads" in text


async def test_an_older_control_plane_refusing_the_time_filter_gets_the_lookback_applied_here() -> None:
    original = scan_bundle()
    pages = [e for e in original["exchanges"] if e["op"] == "list_workloads"]
    everything = [item for page in pages for item in page["body"]["workloads"]]
    bundle = _replace_list(
        original,
        {
            "op": "list_workloads",
            "args": pages[0]["args"],
            "status": 400,
            "body": runai_error(400, "filterBy: phaseUpdatedAt is not a valid field"),
        },
        {
            "op": "list_workloads",
            "args": {"filterBy": f"clusterId=={CLUSTER},phase==Failed", "offset": 0},
            "status": 200,
            "body": {"workloads": everything},
        },
    )
    result = await offline(bundle)
    assert set(by_name(result)) == set(EXPECTED)  # the one that failed 9 days ago is not among them
    assert any("phaseUpdatedAt" in text and "HTTP 400" in text for text in result.limitations)


async def test_a_list_that_fails_mid_way_keeps_what_it_read_and_says_so() -> None:
    original = scan_bundle()
    pages = [e for e in original["exchanges"] if e["op"] == "list_workloads"]
    failing = dict(pages[1], status=503, body=runai_error(503, "Please try again in few minutes."))
    result = await offline(_replace_list(original, pages[0], failing))
    assert {item.target.name for item in result.results} == {"llama-sft-a", "llama-sft-b"}
    assert any("stopped early" in text and "HTTP 503" in text for text in result.limitations)


async def test_a_workload_whose_status_fails_is_still_named_and_reported(
    diagnosis_schema: dict[str, Any],
) -> None:
    bundle = scan_bundle()
    victim = next(
        e
        for e in bundle["exchanges"]
        if e["op"] == "get_workload_status" and e["body"]["name"] == "detr-pull"
    )
    victim.update(status=500, body=runai_error(500, "Something went wrong."))
    result = await offline(bundle)
    failed = next(item for item in result.results if item.target.name == "detr-pull")
    assert (failed.category, failed.confidence) == ("UNKNOWN", "LOW")
    assert failed.target.phase == "Failed" and failed.target.project == "vision"
    jsonschema.validate(failed.to_json_dict(), diagnosis_schema)


async def test_one_diagnosis_that_breaks_does_not_cost_the_others(monkeypatch: pytest.MonkeyPatch) -> None:
    real = scan_module.engine.diagnose_with

    async def sometimes_broken(request: Any, source: Any, **options: Any) -> Any:
        if request.workload_id == "37f1177e-a4ee-5a73-9d06-c48f6865038a":  # llama-sft-a
            raise RuntimeError("boom")
        return await real(request, source, **options)

    monkeypatch.setattr(scan_module.engine, "diagnose_with", sometimes_broken)
    result = await offline(scan_bundle())
    assert len(result.results) == 5
    broken = next(item for item in result.results if item.target.name == "llama-sft-a")
    assert broken.category == "UNKNOWN" and any("RuntimeError" in text for text in broken.limitations)
    assert "boom" not in json.dumps(result.to_json_dict())


async def test_no_failed_workload_and_french_markdown() -> None:
    empty = _replace_list(
        scan_bundle(), {"op": "list_workloads", "args": {}, "status": 200, "body": {"workloads": []}}
    )
    result = await offline(empty, lang="fr")
    assert result.results == [] and result.scanned == 0
    assert "Aucune workload en échec sur la période de 7d." in render_scan_markdown(result, lang="fr")
    text = render_scan_markdown(await offline(scan_bundle(), lang="fr"), lang="fr")
    assert "### Causes récurrentes" in text and f"| nœud | `{NODE_A}` | 2 |" in text


def test_progress_bar_draws_in_place_or_prints_one_final_line() -> None:
    stream = io.StringIO()
    bar = ProgressBar(stream, live=True)
    bar.listing()
    for done in range(4):
        bar(done, 3)
    bar.finish(ScanResult(cluster_id="c", results=[]))
    drawn = stream.getvalue()
    assert "\r" in drawn and "[" + "#" * 30 + "] 3/3 workloads diagnosed" in drawn and drawn.endswith("\n")
    quiet = io.StringIO()
    bar = ProgressBar(quiet, live=False)
    bar.listing()
    bar(0, 3)
    bar(3, 3)
    bar.finish(ScanResult(cluster_id="c", throttled=2))
    assert quiet.getvalue() == "scan: 0/0 workloads diagnosed (the platform throttled the scan 2 time(s))\n"


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_scan_against_the_simulator(
    sim: SimServer, capsys: pytest.CaptureFixture[str], tmp_path: Path, diagnosis_schema: dict[str, Any]
) -> None:
    base = ["runai", "scan", "--cluster-id", CLUSTER, "--as-of", AS_OF, "--rate", "200"]
    code, out, err = run_cli([*base, "--format", "json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["by_category"] == {
        "OOM_KILLED": 3,
        "CRASH_APP_ERROR": 1,
        "IMAGE_PULL_FAILED": 1,
    }
    for item in data["results"]:
        jsonschema.validate(item, diagnosis_schema)
    # Not a terminal: no bar, one final line.
    assert err.strip() == "scan: 5/5 workloads diagnosed" and "\r" not in err
    assert sorted(cause["value"] for cause in data["recurring_causes"] if cause["kind"] == "node") == [
        NODE_A,
        NODE_B,
    ]

    chart = tmp_path / "scan.png"
    code, out, err = run_cli([*base, "--progress", "--chart", str(chart)], capsys)
    assert code == 0 and out.startswith("## Scan of failed Run:ai workloads")
    assert (
        "\r" in err and "5/5 workloads diagnosed" in err and f"chart: scan summary written to {chart}" in err
    )
    assert png_size(chart.read_bytes())[0] > 0


def test_cli_scan_offline_and_usage_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "scan.bundle.json"
    path.write_text(json.dumps(scan_bundle()), encoding="utf-8")
    code, out, _ = run_cli(
        ["runai", "scan", "--cluster-id", CLUSTER, "--bundle", str(path), "--lang", "fr"], capsys
    )
    assert code == 0 and "### OOM_KILLED (3)" in out and "llama-sft-a" in out
    for argv, needle in (
        (["runai", "scan"], "--cluster-id is required"),
        (["runai", "scan", "--cluster-id", "c", "--rate", "0"], "--rate"),
        (["runai", "scan", "--cluster-id", "c", "--project", "a,b"], "comma"),
        (["runai", "scan", "--cluster-id", "c", "--lookback", "soon"], "--lookback"),
        (["runai", "scan", "--cluster-id", "c", "--query", "[[["], "--query"),
        (["runai", "scan", "--cluster-id", "c", "--bundle", str(tmp_path / "absent.json")], "absent.json"),
    ):
        code, _out, err = run_cli(argv, capsys)
        # The reason on the last line; a command typed wrong under `diagnose runai scan`'s usage.
        *usage, reason = err.strip().splitlines()
        assert code == 2 and needle in reason
        assert not usage or (usage[0].startswith("usage: diagnose runai scan ") and "scan: error:" in reason)

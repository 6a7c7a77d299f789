"""Every benchmark runs end to end at a tiny size and reports its figures and target checks.

No timing is asserted here (that is what `make bench` measures); only that the scripts still run
against the product and print what they are meant to print.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bench import ack, logscan, masking, mcp_calls, one_diagnosis, parsing, run_all, scan, startup
from bench.harness import BenchResult
from diagnosis.logs.scan import scan_stream


def assert_reported(result: BenchResult, output: str, *, figures: list[str]) -> None:
    assert result.checks, "no target was checked"
    for check in result.checks:
        assert check.line() in output
    for key in figures:
        assert result.figures.get(key), f"figure {key!r} missing"
    assert f"Targets ({result.title})" in output


def test_startup(capsys: pytest.CaptureFixture[str]) -> None:
    result = startup.run(repeat=1, warm_up=0)
    output = capsys.readouterr().out
    labels = [command.label for command in startup.commands()[1:]]
    assert_reported(result, output, figures=[*labels, "reference"])
    # --help and both replays are checked against the reference measured in the same run.
    assert [check.limit for check in result.checks] == [1.5, 2.5, 2.5]
    assert "import httpx, pydantic" in output and "load average" in output


def test_one_diagnosis(capsys: pytest.CaptureFixture[str]) -> None:
    result = one_diagnosis.run(latency=0.005, repeat=1)
    output = capsys.readouterr().out
    labels = [scenario.label for scenario in one_diagnosis.scenarios()]
    assert_reported(result, output, figures=labels)
    # One check per scenario: the wall time against the dependency model's rounds x L.
    assert len(result.checks) == len(labels)
    assert "token request" in output


def test_the_dependency_model_rounds_the_runbook_calls() -> None:
    """The model by hand: token; status + events; spec + pods + history; Tier 2; the node."""
    from bench.rounds_model import Call, minimum_rounds

    workload = {"workloadId": "w"}
    pod = {"namespace": "ns", "name": "p"}
    calls = [
        Call("token"),
        Call("get_workload_status", workload),
        Call("get_workload_events", {**workload, "offset": "0"}),
        Call("get_workload_spec", workload),
        Call("get_workload_pods", {**workload, "offset": "0"}),
        Call("get_workload_history", {**workload, "offset": "0"}),
        Call("get_workload_history", {**workload, "offset": "50"}),
        Call("k8s.read_pod", pod),
        Call("k8s.read_pod_log", {**pod, "previous": "true"}),
        Call("k8s.read_pod_log", pod),
        Call("k8s.list_events", {"namespace": "ns"}),
        Call("k8s.read_node", {"name": "n"}),
    ]
    assert minimum_rounds("runai", calls) == [1, 2, 2, 3, 3, 3, 4, 5, 5, 6, 5, 7]
    # ModelArts: the search, the details, then events (two pages), stages and previews.
    job = {"training_job_id": "j"}
    modelarts = [
        Call("ListTrainingJobs", {"name": "x"}),
        Call("ListTrainingJobs", {}),
        Call("ShowTrainingJobDetails", job),
        Call("ListTrainingJobEvents", job),
        Call("ListTrainingJobEvents", {**job, "offset": "1"}),
        Call("ListTrainingJobStages", job),
        Call("ShowTrainingJobLogsPreview", {**job, "task_id": "worker-0"}),
    ]
    assert minimum_rounds("modelarts", modelarts) == [1, 2, 3, 4, 5, 4, 4]


def test_scan(capsys: pytest.CaptureFixture[str]) -> None:
    result = scan.run(jobs=60, latency=0.002, rate=400.0, retry_after=0.05)
    output = capsys.readouterr().out
    assert_reported(result, output, figures=["jobs", "calls", "wall", "bound", "ratio", "with 429s"])
    assert "60 ModelArts jobs (2 search pages x 50)" in output
    assert "4 x 429" in output


def test_logscan(capsys: pytest.CaptureFixture[str]) -> None:
    result = logscan.run(sizes_mb=(2,), repeat=1)
    output = capsys.readouterr().out
    assert_reported(result, output, figures=["2 MB", "masking", "re2 engine"])
    assert "grep -E" in output and "peak RSS" in output


def test_parsing(capsys: pytest.CaptureFixture[str]) -> None:
    result = parsing.run(sizes=(4096, 16384), repeat=1, min_seconds=0)
    output = capsys.readouterr().out
    assert_reported(result, output, figures=["worst s per MiB", "worst growth", "capped entry"])
    assert len(result.checks) == 2 * len(parsing.SHAPES)
    assert '"ab-" runs' in output and "refused in" in output


def test_masking(capsys: pytest.CaptureFixture[str]) -> None:
    result = masking.run(sizes_mb=(1,), repeat=1, adversarial_sizes=(4 * masking.KIB, 16 * masking.KIB))
    output = capsys.readouterr().out
    assert_reported(result, output, figures=["1 MB log", "adversarial"])
    assert "planted secrets or addresses left" in output and "[PASS] 1 MB log: planted" in output
    for name in masking.ADVERSARIAL:
        assert name in output


def test_generated_log_holds_what_the_scanner_looks_for(tmp_path: Path) -> None:
    path = tmp_path / "train.log"
    log = logscan.generate_log(path, 12_000_000)
    with path.open("rb") as stream:
        found = scan_stream(stream)
    kinds = {finding.kind for finding in found.findings}
    assert {"cuda_oom", "traceback", "nccl_timeout", "rendezvous", "child_failed", "error"} <= kinds
    assert found.lines_scanned == log.lines


def test_ack(capsys: pytest.CaptureFixture[str]) -> None:
    result = ack.run(commands=4, report_timeout=60, restart_commands=3)
    output = capsys.readouterr().out
    assert_reported(result, output, figures=["p50", "p99", "max", "reports", "memory", "restart"])
    assert "4/4 placeholders replaced by a report" in output
    assert "answered once, in their placeholder" in output and "3 commands, the bot killed" in output


def test_mcp_calls(capsys: pytest.CaptureFixture[str]) -> None:
    result = mcp_calls.run(repeat=1, latency=0.005)
    output = capsys.readouterr().out
    assert_reported(
        result, output, figures=[*mcp_calls.SCENARIOS, "session start-up", "median CLI / MCP call"]
    )
    assert result.passed, output  # the same diagnosis/v1 JSON from both faces


def test_run_all_names_the_machine() -> None:
    assert run_all.machine().startswith(f"{os.cpu_count()} cores")
    assert set(run_all.BENCHES) == {
        "startup",
        "one_diagnosis",
        "scan",
        "logscan",
        "masking",
        "ack",
        "parsing",
        "mcp_calls",
    }

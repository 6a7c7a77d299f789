"""The simulator for the CLI, as a new user meets it: `diagnose sim` prints the environment to paste
(and names each file it skipped), `diagnose try SCENARIO` runs the live CLI against it with
everything set, and the scans and name searches work on it."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli.main import main
from diagnosis import engine
from diagnosis.evidence.bundles import load_bundle
from simulator.environment import BUILTIN_SCENARIOS

DIAGNOSE = [sys.executable, "-c", "import sys; from cli.main import main; sys.exit(main())"]
OOM = BUILTIN_SCENARIOS / "runai" / "runai-oom-killed.bundle.json"
KILLED = BUILTIN_SCENARIOS / "modelarts" / "modelarts-exit-137-killed.bundle.json"
READY_SECONDS = 120


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("path", [OOM, KILLED], ids=lambda path: path.name)
def test_try_runs_the_live_client_and_gets_what_the_bundle_replays(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = path.name.removesuffix(".bundle.json")
    code, out, err = run(["try", scenario, "--format", "json"], capsys)
    live = json.loads(out)
    offline = asyncio.run(engine.replay(load_bundle(path))).to_json_dict()
    assert code == 0 and live == offline
    # The command it ran is shown first, with the scenario's moment.
    assert err.startswith("# diagnose ") and "--as-of" in err


def test_try_lists_the_scenarios_and_names_the_closest_one_to_a_typo(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(["try", "--list"], capsys)
    names = [line.split()[0] for line in out.splitlines()]
    bundles = sorted(
        path.name.removesuffix(".bundle.json") for path in BUILTIN_SCENARIOS.rglob("*.bundle.json")
    )
    assert code == 0 and sorted(names) == bundles
    code, _, err = run(["try", "runai-oom-kiled"], capsys)
    assert code == 2 and "did you mean runai-oom-killed?" in err
    assert err.splitlines()[0].startswith("usage: diagnose try")


def test_the_scans_work_on_the_simulator_and_their_captures_replay_the_same(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runai_capture, modelarts_capture = tmp_path / "runai-scan.json", tmp_path / "modelarts-scan.json"
    code, out, _ = run(
        ["try", "runai-oom-killed", "--scan", "--format", "json", "--capture", str(runai_capture)], capsys
    )
    runai_scan = json.loads(out)
    assert code == 0 and [item["category"] for item in runai_scan["results"]] == ["OOM_KILLED"]
    cluster = "42c09db8-1493-5855-a4ce-5b14ecc2dab0"
    replayed = ["runai", "scan", "--cluster-id", cluster, "--bundle", str(runai_capture), "--format", "json"]
    code, out, _ = run(replayed, capsys)
    assert code == 0 and json.loads(out) == runai_scan

    code, out, _ = run(
        [
            "try",
            "modelarts-exit-137-killed",
            "--scan",
            "--format",
            "json",
            "--capture",
            str(modelarts_capture),
        ],
        capsys,
    )
    modelarts_scan = json.loads(out)
    # Every ModelArts scenario whose details say Failed, Timeout or Abnormal, diagnosed one by one.
    abnormal = set()
    for path in BUILTIN_SCENARIOS.glob("modelarts/*.bundle.json"):
        for exchange in load_bundle(path).exchanges:
            details = exchange.op == "ShowTrainingJobDetails" and exchange.status == 200
            if details and exchange.body["status"]["phase"] in ("Failed", "Timeout", "Abnormal"):
                abnormal.add(exchange.body["metadata"]["id"])
    assert code == 0 and {item["target"]["job_id"] for item in modelarts_scan["results"]} == abnormal
    code, out, _ = run(["modelarts", "scan", "--bundle", str(modelarts_capture), "--format", "json"], capsys)
    assert code == 0 and json.loads(out) == modelarts_scan


def test_a_name_search_works_on_the_simulator(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["try", "modelarts-name-several-matches", "--format", "json"], capsys)
    asked = json.loads(out)
    assert code == 0 and asked["outcome"] == "needs_input" and len(asked["questions"][0]["choices"]) == 2
    code, out, _ = run(["try", "modelarts-name-substring-match", "--query", "target.name"], capsys)
    assert code == 0 and json.loads(out) == "resnet50-food101-v2"


@pytest.fixture
def sim_output(tmp_path: Path) -> Iterator[tuple[list[str], list[str]]]:
    """`diagnose sim` as a child process over a folder with one stray file: its stdout up to the
    line that says how to ask, and its stderr so far."""
    folder = tmp_path / "bundles"
    folder.mkdir()
    for path in (OOM, KILLED, BUILTIN_SCENARIOS / "modelarts" / "modelarts-early-exit-cuda-oom.bundle.json"):
        (folder / path.name).write_bytes(path.read_bytes())
    (folder / "notes.json").write_text('{"not": "a bundle"}', encoding="utf-8")
    process = subprocess.Popen(
        [*DIAGNOSE, "sim", "--bundles", str(folder)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    out: list[str] = []
    err: list[str] = []
    ready = threading.Event()

    def read_out() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            out.append(line.rstrip("\n"))
            if line.startswith("# Every scenario"):
                ready.set()

    def read_err() -> None:
        assert process.stderr is not None
        err.extend(line.rstrip("\n") for line in process.stderr)

    threading.Thread(target=read_out, daemon=True).start()
    threading.Thread(target=read_err, daemon=True).start()
    try:
        assert ready.wait(READY_SECONDS), f"diagnose sim printed no environment: {out} {err}"
        yield out, err
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_diagnose_sim_prints_an_environment_the_live_cli_works_with(
    sim_output: tuple[list[str], list[str]],
) -> None:
    lines, _ = sim_output
    exports = [line for line in lines if line.startswith("export ")]
    environment = dict(os.environ)
    for line in exports:
        name, _, value = line.removeprefix("export ").partition("=")
        environment[name] = shlex.split(value)[0]
    assert {"RUNAI_URL", "KUBECONFIG", "HUAWEICLOUD_SDK_AK", "HUAWEICLOUD_SDK_PROJECT_ID"} <= set(environment)
    assert all(line.startswith(("export ", "#")) for line in lines if line), "the output can be sourced"
    commands = [shlex.split(line.removeprefix("#   ")) for line in lines if line.startswith("#   diagnose ")]
    assert any(command[1:3] == ["modelarts", "scan"] for command in commands)
    for command in commands:
        answered = subprocess.run(
            [*DIAGNOSE, *command[1:], "--format", "json"],
            env=environment,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        assert answered.returncode == 0, (command, answered.stderr)
        data = json.loads(answered.stdout)
        assert data.get("outcome", "diagnosed") == "diagnosed" or "results" in data, command


def test_diagnose_sim_names_each_file_it_skipped_and_why(sim_output: tuple[list[str], list[str]]) -> None:
    out, err = sim_output
    assert out[0].startswith("# diagnose sim: 3 bundles at http://127.0.0.1:")
    assert [line for line in err if "notes.json" in line] == [
        next(
            line for line in err if line.startswith("diagnose: skipped ") and "not an evidence bundle" in line
        )
    ]


def test_the_skipped_file_is_named_on_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "broken.json").write_text("{", encoding="utf-8")
    code, _, err = run(["try", "--list", "--bundles", str(tmp_path)], capsys)
    assert code == 2
    skipped, reason = err.strip().splitlines()
    assert skipped.startswith(f"diagnose: skipped {tmp_path / 'broken.json'}: ") and "not JSON" in skipped
    assert "no evidence bundle to serve" in reason

"""The official SDK's client against `diagnose mcp` over stdio (a real subprocess), on the
simulated platforms: every tool answers exactly as the engine offline and the CLI do."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import anyio

from diagnosis import engine
from diagnosis.render import render_markdown
from simulator.server import Fault, SimServer
from tests.mcp_face.conftest import modelarts_bundle, runai_bundle
from tests.mcp_face.helpers import (
    CLI,
    MODELARTS_NOW,
    ROOT,
    RUNAI_NOW,
    audit_lines,
    bundle_json,
    modelarts_env,
    names,
    runai_env,
    stdio_session,
    structured,
    text,
    wait_for,
)
from tests.mcp_face.schema import check_tool_output
from tests.runai.scan_world import CLUSTER as SCAN_CLUSTER


def cli_json(env: dict[str, str], *argv: str) -> Any:
    """What `diagnose … --format json` prints with the same configuration."""
    completed = subprocess.run(
        [*CLI, *argv], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120, check=True
    )
    return json.loads(completed.stdout)


def read_only(sim: SimServer, *, allowed_post: str) -> bool:
    return all(method == "GET" or path.endswith(allowed_post) for method, path in sim.requests)


async def test_runai_tools_answer_as_the_engine_and_the_cli(
    runai: SimServer, tmp_path: Path, scan_world: Any
) -> None:
    env = runai_env(runai, tmp_path)
    audit = tmp_path / "audit.jsonl"
    oom, preempted, pull = (
        runai_bundle(name)
        for name in ("runai-oom-killed", "runai-preempted-reclaim", "runai-image-pull-manifest-missing")
    )
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, note: str | None) -> None:
        progress.append((done, total, note))

    async with stdio_session(env, "--audit", str(audit)) as client:
        tools = (await client.list_tools()).tools
        by_id = await client.call_tool("diagnose_runai", dict(oom.request))
        by_name = await client.call_tool("diagnose_runai", dict(preempted.request))
        in_french = await client.call_tool("diagnose_runai", {**pull.request, "lang": "fr"})
        scan = await client.call_tool(
            "scan_runai", {"cluster_id": SCAN_CLUSTER}, progress_callback=on_progress
        )

    # A diagnosis over MCP is the engine's diagnosis of the same answers, JSON and Markdown alike.
    for result, bundle, lang in ((by_id, oom, "en"), (by_name, preempted, "en"), (in_french, pull, "fr")):
        offline = await engine.replay(bundle, lang=lang)
        assert structured(result) == offline.to_json_dict()
        assert text(result) == render_markdown(offline, lang=lang)
        check_tool_output(tools, "diagnose_runai", structured(result))
    assert structured(by_id)["category"] == "OOM_KILLED"
    assert structured(by_name)["route"] == "preempted"
    assert "Cause" in text(in_french) or "cause" in text(in_french)

    # A scan is the one `diagnose runai scan` prints, progress reported workload by workload.
    cli = cli_json(
        env, "runai", "scan", "--cluster-id", SCAN_CLUSTER, "--as-of", RUNAI_NOW, "--format", "json"
    )
    assert structured(scan) == cli
    check_tool_output(tools, "scan_runai", structured(scan))
    assert sorted(names(structured(scan)["results"])) == [
        "detr-pull",
        "legacy-crash",
        "llama-sft-a",
        "llama-sft-b",
        "t5-base-c",
    ]
    assert text(scan).startswith("## Scan of failed Run:ai workloads")
    assert [done for done, _total, _note in progress] == [0, 1, 2, 3, 4, 5]
    assert {total for _done, total, _note in progress} == {5}
    assert progress[-1][2] == "5/5 diagnosed"

    # Read-only on the wire: GETs and the token request only.
    assert read_only(runai, allowed_post="/api/v1/token")
    # One audit line per call, each a JSON object naming the local caller and how the call ended.
    lines = audit_lines(audit)
    assert [(line["tool"], line["outcome"]) for line in lines] == [
        ("diagnose_runai", "diagnosed"),
        ("diagnose_runai", "routed"),
        ("diagnose_runai", "diagnosed"),
        ("scan_runai", "scanned"),
    ]
    assert {line["transport"] for line in lines} == {"stdio"}
    assert lines[0]["target"]["workload_id"] == oom.request["workload_id"] and lines[0]["calls"] == 6


async def test_modelarts_tools_answer_as_the_engine_and_the_cli(modelarts: SimServer, tmp_path: Path) -> None:
    env = modelarts_env(modelarts, tmp_path)
    oom, killed, ambiguous = (
        modelarts_bundle(name) for name in ("early-exit-cuda-oom", "exit-137-killed", "name-several-matches")
    )
    progress: list[float] = []

    async def on_progress(done: float, _total: float | None, _note: str | None) -> None:
        progress.append(done)

    async with stdio_session(env) as client:
        tools = (await client.list_tools()).tools
        chinese = await client.call_tool("diagnose_modelarts", {"job_id": oom.request["job_id"]})
        english = await client.call_tool(
            "diagnose_modelarts", {"job_id": killed.request["job_id"], "lang": "en"}
        )
        which = await client.call_tool("diagnose_modelarts", {"job_name": ambiguous.request["job_name"]})
        scan = await client.call_tool("scan_modelarts", {"lang": "en"}, progress_callback=on_progress)

    for result, bundle, lang in ((chinese, oom, "zh"), (english, killed, "en"), (which, ambiguous, "zh")):
        offline = await engine.replay(bundle, lang=lang)
        assert structured(result) == offline.to_json_dict()
        assert text(result) == render_markdown(offline, lang=lang)
        check_tool_output(tools, "diagnose_modelarts", structured(result))
    # Several jobs answer to the name: the engine asks which one, with one choice per job.
    question = structured(which)["questions"][0]
    assert structured(which)["outcome"] == "needs_input" and question["key"] == "job_id"
    assert len(question["choices"]) >= 2

    cli = cli_json(env, "modelarts", "scan", "--as-of", MODELARTS_NOW, "--format", "json", "--lang", "en")
    assert structured(scan) == cli
    check_tool_output(tools, "scan_modelarts", structured(scan))
    assert structured(scan)["by_category"] == {"CRASH_APP_ERROR": 3, "permission_denied": 1}
    assert progress == [0, 1, 2, 3, 4]
    # Every request signed and read-only: GETs and the job search (a read-only POST).
    assert read_only(modelarts, allowed_post="/training-job-searches")


async def test_missing_identifiers_come_back_as_the_engines_questions(
    runai: SimServer, tmp_path: Path
) -> None:
    """Nothing is guessed and nothing is read: the engine's needs_input questions, no call made,
    no credentials needed (ModelArts is not even configured here)."""
    env = runai_env(runai, tmp_path)
    async with stdio_session(env) as client:
        nothing = await client.call_tool("diagnose_runai", {})
        no_cluster = await client.call_tool(
            "diagnose_runai", {"workload_id": "9247ce9d-9a2a-5cad-a312-b248ff9a642a"}
        )
        name_only = await client.call_tool(
            "diagnose_runai",
            {"cluster_id": "42c09db8-1493-5855-a4ce-5b14ecc2dab0", "workload_name": "llama-sft-7b"},
        )
        no_job = await client.call_tool("diagnose_modelarts", {"lang": "en"})

    for result, key in (
        (nothing, "cluster_id"),
        (no_cluster, "cluster_id"),
        (name_only, "workload"),
        (no_job, "job_id"),
    ):
        data = structured(result)
        assert data["outcome"] == "needs_input" and data["calls"] == []
        assert [question["key"] for question in data["questions"]] == [key]
        assert data["category"] is None and data["evidence"] == []
    assert "Needs input" in text(no_cluster)
    # The ModelArts answer names the region asked about and no project it could not know.
    assert structured(no_job)["target"]["region"] == "cn-north-4"
    assert structured(no_job)["target"]["project_id"] is None
    assert runai.requests == []


async def test_explain_and_replay_need_no_platform(tmp_path: Path) -> None:
    oom = runai_bundle("runai-oom-killed")
    killed = modelarts_bundle("exit-137-killed")
    async with stdio_session({"HOME": str(tmp_path)}) as client:
        tools = (await client.list_tools()).tools
        exit_code = await client.call_tool("explain_code", {"code": "137"})
        in_chinese = await client.call_tool("explain_code", {"code": "oomkilled", "lang": "zh"})
        unknown = await client.call_tool("explain_code", {"code": "1.015"})
        pasted = await client.call_tool("explain_code", {"code": "password=hunter2-Secret-9f8e"})
        runai_replay = await client.call_tool("replay_bundle", {"bundle": bundle_json(oom)})
        modelarts_replay = await client.call_tool(
            "replay_bundle", {"bundle": bundle_json(killed), "lang": "en"}
        )
        not_a_bundle = await client.call_tool("replay_bundle", {"bundle": {"schema": "diagnosis/v1"}})
        # Arguments outside the input schema: a tool error the assistant can correct, whose
        # echo of the argument is masked too.
        too_long = await client.call_tool(
            "explain_code", {"code": "token=ghp_" + "A1b2C3d4E5" * 4 + " " * 200}
        )

    assert structured(exit_code)["known"] is True and structured(exit_code)["family"] == "exit_code"
    assert text(exit_code).startswith("## 137")
    assert structured(in_chinese)["code"] == "OOMKilled" and structured(in_chinese)["lang"] == "zh"
    assert structured(unknown) == {
        "schema": "explain/v1",
        "known": False,
        "code": "1.015",
        "message": text(unknown),
    }
    assert "not guessed" in text(unknown)
    assert "hunter2" not in json.dumps(structured(pasted)) and "hunter2" not in text(pasted)
    for result in (exit_code, in_chinese, unknown, pasted):
        check_tool_output(tools, "explain_code", structured(result))

    for result, bundle, lang in ((runai_replay, oom, "en"), (modelarts_replay, killed, "en")):
        offline = await engine.replay(bundle, lang=lang)
        assert structured(result) == offline.to_json_dict()
        assert text(result) == render_markdown(offline, lang=lang)
        check_tool_output(tools, "replay_bundle", structured(result))
    assert too_long.is_error and "explain_code" in text(too_long)
    assert "A1b2C3d4E5" not in text(too_long)
    assert not_a_bundle.is_error and not_a_bundle.structured_content is None
    assert text(not_a_bundle) == (
        "The bundle cannot be replayed: not an evidence bundle: schema is 'diagnosis/v1', "
        "expected 'evidence-bundle/v1'"
    )


async def test_a_cancelled_call_stops_the_diagnosis_and_makes_no_further_call(
    runai: SimServer, tmp_path: Path
) -> None:
    oom = runai_bundle("runai-oom-killed")
    audit = tmp_path / "audit.jsonl"
    # The first read answers after 2 s; without the cancellation five more reads would follow.
    runai.latency["get_workload_status"] = 2.0
    async with stdio_session(runai_env(runai, tmp_path), "--audit", str(audit)) as client:
        async with anyio.create_task_group() as group:
            group.start_soon(client.call_tool, "diagnose_runai", dict(oom.request))
            await wait_for(lambda: runai.op_count("get_workload_status") == 1)
            group.cancel_scope.cancel()
        await wait_for(lambda: any(line["outcome"] == "cancelled" for line in audit_lines(audit)))
        # Well past the slow answer: still the one read, the engine's task was cancelled.
        await anyio.sleep(3.0)
        # Status and events are requested together (both need only the workload id); nothing after.
        assert sorted(runai.ops) == ["get_workload_events", "get_workload_status"]
        # The session goes on: the next call is answered.
        runai.latency.clear()
        after = await client.call_tool("diagnose_runai", dict(oom.request))
    assert structured(after)["category"] == "OOM_KILLED"
    assert [line["outcome"] for line in audit_lines(audit)] == ["cancelled", "diagnosed"]


async def test_a_call_past_its_deadline_is_a_clear_tool_error(runai: SimServer, tmp_path: Path) -> None:
    oom = runai_bundle("runai-oom-killed")
    audit = tmp_path / "audit.jsonl"
    runai.faults["get_workload_status"] = [Fault(timeout=True)]  # the platform never answers
    async with stdio_session(runai_env(runai, tmp_path), "--timeout", "1", "--audit", str(audit)) as client:
        result = await client.call_tool("diagnose_runai", dict(oom.request))
    assert result.is_error and result.structured_content is None
    assert text(result).startswith("The diagnose_runai call did not finish within 1 s and was stopped")
    # Status and events are requested together (both need only the workload id); nothing after.
    assert sorted(runai.ops) == ["get_workload_events", "get_workload_status"]
    (line,) = audit_lines(audit)
    assert (line["outcome"], line["timeout_seconds"]) == ("timeout", 1.0)

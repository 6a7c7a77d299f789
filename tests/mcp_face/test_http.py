"""`diagnose mcp --http` on a loopback port, the SDK's streamable HTTP client with a bearer token:
what a granted token gets, and every way the access policy refuses a call."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.shared.exceptions import MCPError

from diagnosis import engine
from diagnosis.render import render_markdown
from simulator.server import SimServer
from tests.mcp_face.conftest import modelarts_bundle, runai_bundle
from tests.mcp_face.helpers import (
    MODELARTS_PROJECT,
    HttpServer,
    audit_lines,
    bundle_json,
    http_server,
    http_session,
    modelarts_env,
    names,
    runai_env,
    structured,
    text,
    wait_for,
)
from tests.mcp_face.raw import INITIALIZE, http_post
from tests.runai.scan_world import CLUSTER as SCAN_CLUSTER

ACCESS_DENIED = -32003
ONCALL = "oncall-token-7f3a9c0e5b1d"
VISION = "vision-token-2c8e4a6f0d9b"
MODELARTS_ONLY = "modelarts-only-token-91e2"
OTHER_PROJECT = "other-project-token-5d7c"
OOM_CLUSTER = "42c09db8-1493-5855-a4ce-5b14ecc2dab0"


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


POLICY: dict[str, Any] = {
    "clients": {
        "oncall": {
            "token_sha256": digest(ONCALL),
            "runai": {"clusters": [OOM_CLUSTER, SCAN_CLUSTER], "projects": ["nlp-core"]},
            "modelarts": {"regions": ["cn-north-4"], "projects": [MODELARTS_PROJECT]},
        },
        "vision-team": {"token_sha256": digest(VISION), "runai": {"projects": ["vision"]}},
        "modelarts-only": {"token_sha256": digest(MODELARTS_ONLY), "modelarts": {}},
        "other-project": {
            "token_sha256": digest(OTHER_PROJECT),
            "modelarts": {"projects": ["0000000000000000000000000000abcd"]},
        },
    }
}


@pytest.fixture(scope="module")
def served(
    runai_sim: SimServer, modelarts_sim: SimServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[HttpServer, Path]]:
    folder = tmp_path_factory.mktemp("mcp-http")
    policy = folder / "policy.yaml"
    policy.write_text(json.dumps(POLICY), encoding="utf-8")  # JSON is YAML too
    audit = folder / "audit.jsonl"
    env = {**modelarts_env(modelarts_sim, folder), **runai_env(runai_sim, folder)}
    with http_server(env, "--policy", str(policy), "--audit", str(audit), stderr=folder / "stderr") as server:
        yield server, audit


def refusal(exc: pytest.ExceptionInfo[MCPError]) -> str:
    assert exc.value.code == ACCESS_DENIED
    assert exc.value.data == {"reason": exc.value.message}
    return exc.value.message


async def test_a_granted_token_gets_every_tool(
    served: tuple[HttpServer, Path], runai: SimServer, scan_world: Any
) -> None:
    server, audit = served
    oom = runai_bundle("runai-oom-killed")
    seen: list[float] = []

    async def on_progress(done: float, _total: float | None, _note: str | None) -> None:
        seen.append(done)

    before = len(audit_lines(audit))
    async with http_session(server.url, ONCALL) as client:
        diagnosed = await client.call_tool("diagnose_runai", dict(oom.request))
        scan = await client.call_tool(
            "scan_runai", {"cluster_id": SCAN_CLUSTER, "project": "nlp-core"}, progress_callback=on_progress
        )
        replayed = await client.call_tool(
            "replay_bundle", {"bundle": bundle_json(modelarts_bundle("exit-137-killed"))}
        )
        explained = await client.call_tool("explain_code", {"code": "CrashLoopBackOff"})

    offline = await engine.replay(oom, lang="en")
    assert structured(diagnosed) == offline.to_json_dict()
    assert text(diagnosed) == render_markdown(offline, lang="en")
    # Only the granted project's workloads, each diagnosed, progress workload by workload.
    results = structured(scan)["results"]
    assert sorted(names(results)) == ["legacy-crash", "llama-sft-a", "llama-sft-b", "t5-base-c"]
    assert {item["target"]["project"] for item in results} == {"nlp-core"}
    assert structured(scan)["by_category"] == {"OOM_KILLED": 3, "CRASH_APP_ERROR": 1}
    assert seen == [0, 1, 2, 3, 4]
    assert structured(replayed)["category"] == "OOM_KILLED"
    assert structured(explained)["known"] is True
    lines = audit_lines(audit)[before:]
    assert [(line["client"], line["transport"], line["tool"], line["outcome"]) for line in lines] == [
        ("oncall", "http", "diagnose_runai", "diagnosed"),
        ("oncall", "http", "scan_runai", "scanned"),
        ("oncall", "http", "replay_bundle", "diagnosed"),
        ("oncall", "http", "explain_code", "known"),
    ]


async def test_no_token_or_an_unknown_one_is_refused_before_any_tool(
    served: tuple[HttpServer, Path], runai: SimServer
) -> None:
    server, audit = served
    for token in (None, "not-a-token-anyone-holds"):
        answer = http_post(server.url, INITIALIZE, token=token)
        assert answer.status_code == 401
        assert 'error="invalid_token"' in answer.headers["www-authenticate"]
        assert answer.json()["error"] == "invalid_token"
        # The SDK's client cannot even open a session: its transport fails with an MCP error.
        with pytest.raises(BaseExceptionGroup) as failure:
            async with http_session(server.url, token) as client:
                await client.call_tool("diagnose_runai", dict(runai_bundle("runai-oom-killed").request))
        assert failure.value.subgroup(MCPError) is not None
    refused = [line for line in audit_lines(audit) if line["event"] == "http_refused"]
    assert len(refused) >= 4 and {line["status"] for line in refused} == {401}
    assert runai.requests == []


async def test_a_token_is_refused_what_its_grant_does_not_cover(
    served: tuple[HttpServer, Path], runai: SimServer, modelarts: SimServer
) -> None:
    server, audit = served
    oom = runai_bundle("runai-oom-killed")
    pull = runai_bundle("runai-image-pull-manifest-missing")
    before = len(audit_lines(audit))

    async with http_session(server.url, ONCALL) as client:
        # A cluster not granted: refused before any call, the reason naming what was asked.
        with pytest.raises(MCPError) as other_cluster:
            await client.call_tool("diagnose_runai", dict(pull.request))
        assert refusal(other_cluster) == (
            f"Refused: this token may not diagnose Run:ai cluster '{pull.request['cluster_id']}'."
        )
        with pytest.raises(MCPError) as other_region:
            await client.call_tool("diagnose_modelarts", {"job_id": "x", "region": "cn-east-3"})
        assert refusal(other_region) == "Refused: this token may not diagnose ModelArts region 'cn-east-3'."
    assert runai.requests == [] and modelarts.requests == []

    async with http_session(server.url, VISION) as client:
        # Any cluster, but only project vision: a workload id resolves to project nlp-core only once
        # read, so it is refused after the calls, without naming what it found.
        with pytest.raises(MCPError) as resolved_elsewhere:
            await client.call_tool("diagnose_runai", dict(oom.request))
        message = refusal(resolved_elsewhere)
        assert (
            message.startswith("Refused: what this call resolved to lies outside")
            and "nlp-core" not in message
        )
        # Its own project's workload is diagnosed.
        granted = await client.call_tool("diagnose_runai", dict(pull.request))
        assert structured(granted)["category"] == "IMAGE_PULL_FAILED"
        # A scan of a whole cluster would read other projects: it must name the project.
        with pytest.raises(MCPError) as whole_cluster:
            await client.call_tool("scan_runai", {"cluster_id": SCAN_CLUSTER})
        assert "give the project" in refusal(whole_cluster)
        with pytest.raises(MCPError) as no_modelarts:
            await client.call_tool("scan_modelarts", {})
        assert refusal(no_modelarts) == "Refused: this token may not diagnose ModelArts."

    async with http_session(server.url, MODELARTS_ONLY) as client:
        with pytest.raises(MCPError) as no_runai:
            await client.call_tool("diagnose_runai", {})
        assert refusal(no_runai) == "Refused: this token may not diagnose Run:ai."

    modelarts.requests.clear()
    async with http_session(server.url, OTHER_PROJECT) as client:
        # The credentials' project is not the token's: refused before any ModelArts call.
        with pytest.raises(MCPError) as other_project:
            await client.call_tool(
                "diagnose_modelarts", {"job_id": modelarts_bundle("exit-137-killed").request["job_id"]}
            )
        assert refusal(other_project).startswith("Refused: this token may not diagnose ModelArts")
    assert modelarts.requests == []

    refused = [line for line in audit_lines(audit)[before:] if line["outcome"] == "refused"]
    assert [(line["client"], line["tool"]) for line in refused] == [
        ("oncall", "diagnose_runai"),
        ("oncall", "diagnose_modelarts"),
        ("vision-team", "diagnose_runai"),
        ("vision-team", "scan_runai"),
        ("vision-team", "scan_modelarts"),
        ("modelarts-only", "diagnose_runai"),
        ("other-project", "diagnose_modelarts"),
    ]
    # The audit line keeps the precise reason the client is not told.
    assert refused[2]["reason"] == "project 'nlp-core' not granted"


async def test_a_hostile_body_is_refused_unread(served: tuple[HttpServer, Path]) -> None:
    """A request body past 4 MiB (a bundle bigger than any capture) is answered 413, in bounded
    memory, and the server goes on serving."""
    server, _audit = served
    huge = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"padding": "x" * (5 * 2**20)}}
    assert http_post(server.url, huge, token=ONCALL).status_code == 413
    async with http_session(server.url, ONCALL) as client:
        assert structured(await client.call_tool("explain_code", {"code": "137"}))["known"] is True


async def test_cancelling_over_http_stops_the_diagnosis(
    served: tuple[HttpServer, Path], runai: SimServer
) -> None:
    server, audit = served
    oom = runai_bundle("runai-oom-killed")
    runai.latency["get_workload_status"] = 2.0
    async with http_session(server.url, ONCALL) as client:
        async with anyio.create_task_group() as group:
            group.start_soon(client.call_tool, "diagnose_runai", dict(oom.request))
            # Status and events are requested together (both need only the workload id): the
            # cancel comes once both are in flight.
            await wait_for(
                lambda: (
                    runai.op_count("get_workload_status") == 1 and runai.op_count("get_workload_events") == 1
                )
            )
            group.cancel_scope.cancel()
        await wait_for(
            lambda: (
                [line["outcome"] for line in audit_lines(audit) if line["event"] == "tool_call"][-1:]
                == ["cancelled"]
            )
        )
        await anyio.sleep(3.0)
        # Nothing is requested after the cancel.
        assert sorted(runai.ops) == ["get_workload_events", "get_workload_status"]

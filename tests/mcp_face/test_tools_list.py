"""`tools/list` as the wire carries it, over stdio and over HTTP, against the protocol's
requirements (tests/mcp_face/schema.py says which); what each tool promises a client."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from tests.mcp_face.helpers import home_env, http_server
from tests.mcp_face.raw import http_tools_list, stdio_tools_list
from tests.mcp_face.schema import check_tools_list

TOKEN = "tools-list-token-0123456789"


def test_tools_list_over_stdio_and_http_meets_the_protocol(tmp_path: Path) -> None:
    over_stdio = check_tools_list(stdio_tools_list(home_env(tmp_path)))
    policy = tmp_path / "policy.json"
    digest = hashlib.sha256(TOKEN.encode()).hexdigest()
    policy.write_text(json.dumps({"clients": {"lister": {"token_sha256": digest}}}), encoding="utf-8")
    with http_server(home_env(tmp_path), "--policy", str(policy), stderr=tmp_path / "http.err") as server:
        over_http = check_tools_list(http_tools_list(server.url, token=TOKEN))
    assert over_stdio == over_http

    tools = {tool["name"]: tool for tool in over_stdio}
    for name, tool in tools.items():
        # Every tool says, and marks, that it only reads.
        assert "Read-only" in tool["description"] or "no network call" in tool["description"], name
        hints = tool["annotations"]
        assert (hints["readOnlyHint"], hints["idempotentHint"], hints["destructiveHint"]) == (
            True,
            True,
            False,
        )
        assert hints["openWorldHint"] is (name not in ("replay_bundle", "explain_code")), name
        assert tool["title"]
    # The diagnoses' output schema is diagnosis/v1 (generated from the Diagnosis model).
    for name in ("diagnose_runai", "diagnose_modelarts", "replay_bundle"):
        output = tools[name]["outputSchema"]
        assert output["properties"]["schema"]["const"] == "diagnosis/v1"
        assert {"outcome", "evidence", "questions", "calls"} <= set(output["properties"])
    for name in ("scan_runai", "scan_modelarts"):
        assert tools[name]["outputSchema"]["properties"]["schema"]["const"] == "scan/v1"
    assert tools["explain_code"]["outputSchema"]["properties"]["schema"]["const"] == "explain/v1"
    # Identifiers are optional (a missing one is asked for), except the cluster of a scan.
    assert "required" not in tools["diagnose_runai"]["inputSchema"]
    assert tools["scan_runai"]["inputSchema"]["required"] == ["cluster_id"]
    assert tools["replay_bundle"]["inputSchema"]["required"] == ["bundle"]
    assert set(tools["diagnose_runai"]["inputSchema"]["properties"]) == {
        "cluster_id",
        "workload_id",
        "workload_name",
        "project",
        "lookback",
        "intent",
        "lang",
    }
    assert tools["diagnose_runai"]["inputSchema"]["properties"]["intent"]["enum"] == ["failure", "active"]

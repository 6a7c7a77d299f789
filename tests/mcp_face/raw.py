"""The wire as it is, without the SDK's client: JSON-RPC lines over a subprocess's stdio, and
JSON-RPC posts to the streamable HTTP endpoint (answered as JSON or as a server-sent event)."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import httpx

from tests.mcp_face.helpers import CLI, ROOT

PROTOCOL_VERSION = "2025-11-25"  # the newest revision the initialize handshake negotiates
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": PROTOCOL_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "raw-test-client", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LIST_TOOLS = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}


def stdio_tools_list(env: dict[str, str]) -> dict[str, Any]:
    """initialize, initialized, tools/list over a fresh `diagnose mcp`; the raw tools/list result."""
    process = subprocess.Popen(
        [*CLI, "mcp"],
        env=env,
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        encoding="utf-8",
    )
    assert process.stdin is not None and process.stdout is not None
    try:

        def ask(message: dict[str, Any]) -> dict[str, Any]:
            process.stdin.write(json.dumps(message) + "\n")  # type: ignore[union-attr]
            process.stdin.flush()  # type: ignore[union-attr]
            while True:
                line = process.stdout.readline()  # type: ignore[union-attr]
                assert line, "the server closed its output"
                answer: dict[str, Any] = json.loads(line)
                if answer.get("id") == message["id"]:
                    return answer

        initialized = ask(INITIALIZE)
        assert initialized["result"]["protocolVersion"] == PROTOCOL_VERSION
        process.stdin.write(json.dumps(INITIALIZED) + "\n")
        process.stdin.flush()
        listed = ask(LIST_TOOLS)
        result: dict[str, Any] = listed["result"]
        return result
    finally:
        process.stdin.close()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _answer(response: httpx.Response) -> dict[str, Any]:
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        for line in response.text.splitlines():
            if line.startswith("data:"):
                data: dict[str, Any] = json.loads(line[len("data:") :])
                if "id" in data:
                    return data
        raise AssertionError(f"no answer in the event stream: {response.text!r}")
    answer: dict[str, Any] = response.json()
    return answer


def http_post(
    url: str, message: dict[str, Any], *, token: str | None, session: str | None = None
) -> httpx.Response:
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    if session is not None:
        headers["Mcp-Session-Id"] = session
        headers["Mcp-Protocol-Version"] = PROTOCOL_VERSION
    return httpx.post(url, json=message, headers=headers, timeout=30)


def http_tools_list(url: str, *, token: str) -> dict[str, Any]:
    initialized = http_post(url, INITIALIZE, token=token)
    assert initialized.status_code == 200, initialized.text
    assert _answer(initialized)["result"]["protocolVersion"] == PROTOCOL_VERSION
    session = initialized.headers.get("mcp-session-id")
    assert http_post(url, INITIALIZED, token=token, session=session).status_code == 202
    listed = http_post(url, LIST_TOOLS, token=token, session=session)
    assert listed.status_code == 200, listed.text
    result: dict[str, Any] = _answer(listed)["result"]
    return result

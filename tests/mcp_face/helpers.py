"""The MCP face under test as a user runs it: `diagnose mcp` as a subprocess, spoken to by the
official SDK's client over stdio or over streamable HTTP on a loopback port, the platforms played
by the simulator (or a bundle passed to `replay_bundle`)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import httpx
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult, TextContent

from diagnosis.bundle import Bundle
from simulator.server import SimServer

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-c", "import sys; from cli.main import main; sys.exit(main())"]

RUNAI_NOW = "2026-05-06T09:00:00Z"
MODELARTS_NOW = "2026-06-10T02:00:00Z"
RUNAI_CLIENT_ID = "mcp-test-client"
RUNAI_CLIENT_SECRET = "mcp-test-client-secret-0001"
MODELARTS_AK = "MCPTESTACCESSKEY0001"
MODELARTS_SK = "mcp-test-secret-key-0001"
MODELARTS_PROJECT = "4f1d2c9e8b7a46d3a5c0e9f812b3d467"

RUNAI_EXAMPLES = ROOT / "diagnosis" / "examples" / "runai"
MODELARTS_EXAMPLES = ROOT / "diagnosis" / "examples" / "modelarts"
MODELARTS_BUNDLES = ROOT / "tests" / "modelarts" / "bundles"


def home_env(home: Path) -> dict[str, str]:
    """No platform configured at all."""
    return {"PATH": os.environ.get("PATH", ""), "HOME": str(home)}


def runai_env(sim: SimServer, home: Path, **extra: str) -> dict[str, str]:
    """Run:ai at the simulator; no Kubernetes access (the bundles served hold no Tier-2 answers)."""
    return {
        "HOME": str(home),
        "RUNAI_URL": sim.base_url,
        "RUNAI_CLIENT_ID": RUNAI_CLIENT_ID,
        "RUNAI_CLIENT_SECRET": RUNAI_CLIENT_SECRET,
        "KUBECONFIG": str(home / "no-kubeconfig"),
        "DIAGNOSE_NOW": RUNAI_NOW,
        **extra,
    }


def modelarts_env(sim: SimServer, home: Path, **extra: str) -> dict[str, str]:
    """ModelArts cn-north-4 at the simulator, which checks every request's AK/SK signature."""
    return {
        "HOME": str(home),
        "HUAWEICLOUD_SDK_AK": MODELARTS_AK,
        "HUAWEICLOUD_SDK_SK": MODELARTS_SK,
        "HUAWEICLOUD_SDK_PROJECT_ID": MODELARTS_PROJECT,
        "HUAWEICLOUD_SDK_CREDENTIALS_FILE": str(home / "no-credentials"),
        "HUAWEICLOUD_SDK_REGION_MODELARTS_CN_NORTH_4": sim.base_url,
        "DIAGNOSE_NOW": MODELARTS_NOW,
        **extra,
    }


@asynccontextmanager
async def stdio_session(env: dict[str, str], *args: str) -> AsyncIterator[Client]:
    """`diagnose mcp` started by the SDK's stdio client (only `env` and the safe basics inherited)."""
    params = StdioServerParameters(command=CLI[0], args=[*CLI[1:], "mcp", *args], env=env, cwd=str(ROOT))
    async with Client(params, read_timeout_seconds=120) as client:
        yield client


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class HttpServer:
    """`diagnose mcp --http` as a subprocess on a free loopback port."""

    def __init__(self, env: dict[str, str], *args: str, stderr: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        environment = {"PATH": os.environ.get("PATH", ""), **env}
        self._stderr = stderr.open("w", encoding="utf-8")
        self.process = subprocess.Popen(
            [*CLI, "mcp", "--http", "--port", str(self.port), *args],
            env=environment,
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self._stderr,
        )
        self.stderr_path = stderr

    def wait_ready(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"diagnose mcp --http exited: {self.stderr_path.read_text()}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"http://127.0.0.1:{self.port}/healthz", timeout=1).status_code == 200:
                    return
            time.sleep(0.1)
        raise RuntimeError("diagnose mcp --http did not start")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        self._stderr.close()


@contextmanager
def http_server(env: dict[str, str], *args: str, stderr: Path) -> Iterator[HttpServer]:
    server = HttpServer(env, *args, stderr=stderr)
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()


@asynccontextmanager
async def http_session(url: str, token: str | None) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60.0)) as http,
        Client(streamable_http_client(url, http_client=http), read_timeout_seconds=120) as client,
    ):
        yield client


def structured(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, text(result)
    assert isinstance(result.structured_content, dict)
    return result.structured_content


def text(result: CallToolResult) -> str:
    blocks = [block.text for block in result.content if isinstance(block, TextContent)]
    assert len(blocks) == 1, result.content
    return blocks[0]


def audit_lines(path: Path) -> list[dict[str, Any]]:
    """Every audit line; each must be one JSON object."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


async def wait_for(predicate: Any, *, timeout: float = 20.0, interval: float = 0.02) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(interval)


def with_new_id(bundle: Bundle, old: str, new: str) -> Bundle:
    """The same scenario under another job or workload id (every occurrence replaced)."""
    text_form = json.dumps(bundle.to_json_dict()).replace(old, new)
    return Bundle.model_validate(json.loads(text_form))


def with_project(bundle: Bundle, project_id: str) -> Bundle:
    """A ModelArts bundle whose answers were recorded under `project_id`."""
    recorded = {str(e.args["project_id"]) for e in bundle.exchanges if e.args.get("project_id")}
    for old in recorded:
        bundle = with_new_id(bundle, old, project_id)
    return bundle


def bundle_json(bundle: Bundle) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(json.dumps(bundle.to_json_dict()))
    return data


def names(items: Sequence[Any]) -> list[str]:
    return [str(item["target"]["name"]) for item in items]

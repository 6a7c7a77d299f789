"""Benchmark: one diagnosis as an MCP tool call vs the same diagnosis from the CLI.

Both talk to the same `diagnose sim` (Run:ai, Kubernetes for Tier 2, a fixed latency per call)
through the same live clients. The CLI is what a person, or an agent shelling out, runs:
`diagnose runai --cluster-id … --workload-id … --format json`, one process per diagnosis (its
start-up included). The MCP face is `diagnose mcp` over stdio, started once by the official SDK's
client; each `diagnose_runai` call is timed from the request to the result, and the session's
start-up (process, imports, handshake) is shown on its own. Both answers are compared: the
same diagnosis/v1 JSON, or the run misses its one target (the timings would compare different work).

    python -m bench.mcp_calls [--repeat 5] [--latency 0.05]   (also part of `make bench`)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

from bench.harness import BenchResult, Check
from cli.demo import write_kubeconfig
from diagnosis.bundle import Bundle
from diagnosis.evidence.bundles import load_bundle
from simulator.server import SimServer

ROOT = Path(__file__).resolve().parent.parent
CLI = [sys.executable, "-c", "import sys; from cli.main import main; sys.exit(main())"]
DEFAULT_REPEAT = 5
DEFAULT_LATENCY_SECONDS = 0.05
SCENARIOS = ("runai-oom-killed", "runai-crash-app-error", "runai-crashloop-active-option-b")


def bundles() -> list[Bundle]:
    folder = ROOT / "diagnosis" / "examples" / "runai"
    return [load_bundle(folder / f"{name}.bundle.json") for name in SCENARIOS]


def environment(sim: SimServer, folder: Path, now: str) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(folder),
        "RUNAI_URL": sim.base_url,
        "RUNAI_CLIENT_ID": "bench-client",
        "RUNAI_CLIENT_SECRET": "bench-client-secret",
        "KUBECONFIG": str(write_kubeconfig(folder, sim.base_url)),
        "DIAGNOSE_NOW": now,
    }


def cli_argv(request: dict[str, Any]) -> list[str]:
    argv = ["runai", "--cluster-id", str(request["cluster_id"]), "--format", "json"]
    if request.get("workload_id"):
        argv += ["--workload-id", str(request["workload_id"])]
    else:
        argv += ["--name", str(request["workload_name"]), "--project", str(request["project"])]
    if request.get("intent") == "active":
        argv.append("--active")
    return argv


def time_cli(env: dict[str, str], request: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    started = time.perf_counter()
    done = subprocess.run(
        [*CLI, *cli_argv(request)], env=env, cwd=ROOT, capture_output=True, text=True, check=True
    )
    return time.perf_counter() - started, json.loads(done.stdout)


async def time_mcp(
    env: dict[str, str], requests: list[dict[str, Any]], repeat: int, *, audit: Path
) -> tuple[float, list[list[float]], list[dict[str, Any]]]:
    params = StdioServerParameters(
        command=CLI[0], args=[*CLI[1:], "mcp", "--audit", str(audit)], env=env, cwd=str(ROOT)
    )
    started = time.perf_counter()
    async with Client(params, read_timeout_seconds=120) as client:
        await client.list_tools()
        startup = time.perf_counter() - started
        timings: list[list[float]] = [[] for _ in requests]
        answers: list[dict[str, Any]] = []
        for _ in range(repeat):
            answers = []
            for index, request in enumerate(requests):
                began = time.perf_counter()
                result = await client.call_tool("diagnose_runai", dict(request))
                timings[index].append(time.perf_counter() - began)
                assert not result.is_error and isinstance(result.structured_content, dict)
                answers.append(result.structured_content)
    return startup, timings, answers


def run(*, repeat: int = DEFAULT_REPEAT, latency: float = DEFAULT_LATENCY_SECONDS) -> BenchResult:
    """Each scenario `repeat` times as a CLI process and as a tool call of one MCP session."""
    result = BenchResult(title="mcp_calls")
    scenario_bundles = bundles()
    now = scenario_bundles[0].captured_at.strftime("%Y-%m-%dT%H:%M:%SZ")
    requests = [dict(bundle.request) for bundle in scenario_bundles]
    with (
        tempfile.TemporaryDirectory() as folder,
        SimServer(scenario_bundles, default_latency=latency) as sim,
    ):
        sim.token_latency = latency
        env = environment(sim, Path(folder), now)
        cli_runs = [[time_cli(env, request) for _ in range(repeat)] for request in requests]
        audit = Path(folder) / "audit.jsonl"
        startup, mcp_runs, answers = asyncio.run(time_mcp(env, requests, repeat, audit=audit))

    print(f"One diagnosis: MCP tool call vs CLI process (simulator latency {latency * 1000:.0f} ms per call)")
    print(f"MCP session start-up (process, imports, handshake): {startup:.2f} s, once per session")
    print(f"{'scenario':<36} {'CLI median':>11} {'MCP median':>11} {'ratio':>7}")
    ratios = []
    differing = 0
    for name, cli, mcp, answer in zip(SCENARIOS, cli_runs, mcp_runs, answers, strict=True):
        same = cli[-1][1] == answer
        differing += not same
        cli_median = statistics.median(seconds for seconds, _ in cli)
        mcp_median = statistics.median(mcp)
        ratios.append(cli_median / mcp_median)
        verdict = "" if same else "  the MCP answer differs from the CLI's"
        print(
            f"{name:<36} {cli_median:>10.3f}s {mcp_median:>10.3f}s {cli_median / mcp_median:>6.1f}x{verdict}"
        )
        result.figures[name] = f"CLI {cli_median:.3f} s, MCP call {mcp_median:.3f} s"
    median_ratio = statistics.median(ratios)
    print(f"median ratio CLI / MCP call: {median_ratio:.1f}x")
    result.figures["session start-up"] = f"{startup:.2f} s"
    result.figures["median CLI / MCP call"] = f"{median_ratio:.1f} x"
    # The two faces must give the same diagnosis/v1 JSON, or the timings compare different work.
    result.checks.append(Check("MCP answers that differ from the CLI's diagnosis/v1 JSON", differing, 0))
    result.print_checks()
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=DEFAULT_REPEAT)
    parser.add_argument(
        "--latency",
        type=float,
        default=DEFAULT_LATENCY_SECONDS,
        help="seconds the simulator adds to every call",
    )
    args = parser.parse_args(argv)
    run(repeat=args.repeat, latency=args.latency)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Benchmark: one diagnosis against the dependency limit of its calls.

The live clients (Run:ai token auth, Kubernetes via kubeconfig, signed ModelArts requests, the
read-only guard and retries) talk over loopback sockets to the simulator, in a process of its own,
which adds a fixed latency L to every call (the Run:ai token request included: a new live source has no cached
token). The sim records every request it received and what it answered; from those calls alone
the dependency model (bench/rounds_model.py) gives the minimum number of latency rounds any
schedule of the same calls needs. The target: the diagnosis' API wall time (the diagnosis run on
the opened clients) stays within 1.2 x (model rounds x L) on every scenario.

A recorded 5xx answer is retried by the client; each retry is one more call and one more round
in the model. The backoff between attempts is a policy wait, not latency: it is set to zero here
(RetryPolicy(base_delay=0)).

    python -m bench.one_diagnosis [--latency 0.1] [--repeat 3] [--only TEXT]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path

import httpx

from bench.harness import BenchResult, Check, project_root, worked_examples_dir
from bench.rounds_model import Call, minimum_rounds
from cli.demo import DEMO_ACCESS_KEY, DEMO_SECRET_KEY, write_kubeconfig
from diagnosis import engine
from diagnosis.bundle import Bundle
from diagnosis.evidence.bundles import load_bundle
from diagnosis.evidence.http.retrying import RetryPolicy
from simulator.server import Received, SimServer

DEFAULT_LATENCY_SECONDS = 0.1
WALL_FACTOR = 1.2  # API wall <= 1.2 x (model rounds x L)
NO_BACKOFF = RetryPolicy(base_delay=0.0)


@dataclass(frozen=True)
class Scenario:
    label: str
    path: Path


def scenarios() -> list[Scenario]:
    runai = project_root() / "diagnosis" / "examples" / "runai"
    runai_edge = project_root() / "tests" / "runai" / "bundles"
    modelarts = project_root() / "diagnosis" / "examples" / "modelarts"
    worked = worked_examples_dir()
    return [
        Scenario("Run:ai A, OOM + metrics", runai / "runai-oom-killed.bundle.json"),
        Scenario("Run:ai A, crash, Tier 2", runai / "runai-crash-app-error.bundle.json"),
        Scenario("Run:ai A, init failed, Tier 2", runai / "runai-init-failed.bundle.json"),
        Scenario("Run:ai A, exit 137 only in Tier 2", runai / "runai-unexplained-137.bundle.json"),
        Scenario("Run:ai A, node failure, Tier 2 node", runai / "runai-node-failure.bundle.json"),
        Scenario(
            "Run:ai A, stopped, events null", runai_edge / "events-null-stopped-max-duration.bundle.json"
        ),
        Scenario("Run:ai B, OOM, paged history", runai_edge / "pagination.bundle.json"),
        Scenario("Run:ai B, OOM recurring (worked example)", worked / "runai-optb-oom-recurring.bundle.json"),
        Scenario("Run:ai B, preempted", runai / "runai-preempted-reclaim.bundle.json"),
        Scenario(
            "Run:ai B, active crash loop, Tier 2", runai / "runai-crashloop-active-option-b.bundle.json"
        ),
        Scenario("Run:ai B, no match", runai / "runai-option-b-no-match.bundle.json"),
        Scenario("ModelArts early exit", modelarts / "modelarts-early-exit-cuda-oom.bundle.json"),
        Scenario("ModelArts exit 139", modelarts / "modelarts-exit-code-139.bundle.json"),
        Scenario("ModelArts multi-task previews", modelarts / "modelarts-multi-task-logs.bundle.json"),
        Scenario("ModelArts name lookup", modelarts / "modelarts-name-substring-match.bundle.json"),
        Scenario(
            "ModelArts insufficient info (worked example)", worked / "modelarts-insufficient-info.bundle.json"
        ),
    ]


@dataclass
class ScenarioFigures:
    label: str
    outcome: str
    platform: str
    calls: int = 0
    rounds: int = 0  # the model's minimum for the calls made
    walls: list[float] = field(default_factory=list)

    @property
    def wall(self) -> float:
        return statistics.median(self.walls)


def _modelarts_project_id(bundle: Bundle) -> str | None:
    for exchange in bundle.exchanges:
        project_id = exchange.args.get("project_id")
        if project_id:
            return str(project_id)
    return None


def _serve(paths: list[str], latency: float, connection: Connection) -> None:
    """The simulator's process: serves until told to stop; hands out what it received."""
    sim = SimServer(
        [load_bundle(Path(path)) for path in paths],
        default_latency=latency,
        token_latency=latency,
        modelarts_keys=(DEMO_ACCESS_KEY, DEMO_SECRET_KEY),
    )
    with sim:
        connection.send(sim.base_url)
        while connection.recv() == "received":
            connection.send([dataclasses.asdict(item) for item in sim.received])


class SimProcess:
    """The simulator in a process of its own, so that its threads never compete with the client
    for the interpreter lock."""

    def __init__(self, paths: list[Path], *, latency: float) -> None:
        self._connection, child = multiprocessing.Pipe()
        self._process = multiprocessing.get_context("fork").Process(
            target=_serve, args=([str(path) for path in paths], latency, child), daemon=True
        )
        self._process.start()
        self.base_url: str = self._connection.recv()

    def received(self) -> list[Received]:
        self._connection.send("received")
        return [Received(**item) for item in self._connection.recv()]

    def close(self) -> None:
        self._connection.send("stop")
        self._process.join(timeout=10)


@contextmanager
def scenario_environment(bundle: Bundle, *, base_url: str, folder: Path) -> Iterator[None]:
    """Live clients aimed at the sim; Tier 2 (kubeconfig) exactly when the bundle recorded it."""
    saved = dict(os.environ)
    has_k8s = any(exchange.op.startswith("k8s.") for exchange in bundle.exchanges)
    os.environ.update(
        {
            "RUNAI_URL": base_url,
            "RUNAI_CLIENT_ID": "demo-client",
            "RUNAI_CLIENT_SECRET": "demo-client-secret",
            "KUBECONFIG": str(write_kubeconfig(folder, base_url) if has_k8s else folder / "no-kubeconfig"),
            "HUAWEICLOUD_SDK_AK": DEMO_ACCESS_KEY,
            "HUAWEICLOUD_SDK_SK": DEMO_SECRET_KEY,
            "HUAWEICLOUD_SDK_CREDENTIALS_FILE": str(folder / "no-credentials-file"),
        }
    )
    os.environ.pop("KUBERNETES_SERVICE_HOST", None)
    if bundle.platform == "modelarts":
        region = str(bundle.request.get("region") or "cn-north-4")
        os.environ[f"HUAWEICLOUD_SDK_REGION_MODELARTS_{region.upper().replace('-', '_')}"] = base_url
        project_id = _modelarts_project_id(bundle)
        if project_id:
            os.environ["HUAWEICLOUD_SDK_PROJECT_ID"] = project_id
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


async def diagnose_once(bundle: Bundle) -> tuple[float, str]:
    """One live diagnosis: its API wall time (on the opened clients) and the result."""
    request = engine.request_from_bundle(bundle)
    async with engine.live(request, retry_policy=NO_BACKOFF) as (source, _recorder):
        started = time.perf_counter()
        diagnosis = await engine.diagnose_with(request, source, now=bundle.captured_at)
        wall = time.perf_counter() - started
    return wall, diagnosis.category or diagnosis.outcome


async def bare_call_seconds(base_url: str, *, count: int = 10) -> float:
    """The median time of one plain GET against the same sim (a workload the sim does not know: answered after L
    like any other call): the floor any round has on this machine, whatever the workflow does."""
    times: list[float] = []
    async with httpx.AsyncClient(timeout=10.0) as client:
        for _ in range(count):
            started = time.perf_counter()
            await client.get(base_url + "/api/v1/workloads/00000000-0000-0000-0000-000000000000")
            times.append(time.perf_counter() - started)
    return statistics.median(times)


def measure(chosen: list[Scenario], *, latency: float, repeat: int) -> tuple[list[ScenarioFigures], float]:
    bundles = [(scenario, load_bundle(scenario.path)) for scenario in chosen]
    figures: list[ScenarioFigures] = []
    sim = SimProcess([scenario.path for scenario in chosen], latency=latency)
    bare = 0.0
    try:
        bare = asyncio.run(bare_call_seconds(sim.base_url))
        with tempfile.TemporaryDirectory(prefix="bench-one-") as folder:
            for scenario, bundle in bundles:
                with scenario_environment(bundle, base_url=sim.base_url, folder=Path(folder)):
                    asyncio.run(diagnose_once(bundle))  # warm-up: imports, first connections
                    result: ScenarioFigures | None = None
                    for _ in range(repeat):
                        first = len(sim.received())
                        wall, outcome = asyncio.run(diagnose_once(bundle))
                        received = sim.received()[first:]
                        if result is None:
                            calls = [Call(r.op, r.args, status=r.status, answer=r.answer) for r in received]
                            rounds = max(minimum_rounds(bundle.platform, calls), default=0)
                            result = ScenarioFigures(
                                scenario.label, outcome, bundle.platform, calls=len(calls), rounds=rounds
                            )
                        result.walls.append(wall)
                    if result is not None:
                        figures.append(result)
    finally:
        sim.close()
    return figures, bare


def run(*, latency: float = DEFAULT_LATENCY_SECONDS, repeat: int = 3, only: str | None = None) -> BenchResult:
    chosen = [scenario for scenario in scenarios() if only is None or only.lower() in scenario.label.lower()]
    print(f"One diagnosis at L = {latency * 1000:.0f} ms per call (live clients -> diagnose sim, loopback)")
    print(
        f"median of {repeat} run(s); rounds: the dependency model's minimum for the calls the sim"
        " received (the Run:ai token request included)\n"
    )
    figures, bare = measure(chosen, latency=latency, repeat=repeat)
    print(
        f"one bare call against the same sim: {bare * 1000:.0f} ms (the floor of a round on this machine)\n"
    )
    result = BenchResult(title="one diagnosis")
    header = (
        f"{'scenario':<40} {'result':<28} {'calls':>5} {'rounds':>6} {'wall':>8} {'wall/(rounds x L)':>18}"
    )
    print(header)
    print("-" * len(header))
    for item in figures:
        bound = item.rounds * latency
        ratio = item.wall / bound if bound else 0.0
        print(
            f"{item.label:<40} {item.outcome[:28]:<28} {item.calls:>5} {item.rounds:>6} "
            f"{item.wall:>7.3f}s {ratio:>18.2f}"
        )
        result.checks.append(Check(f"{item.label}: wall / (model rounds x L)", ratio, WALL_FACTOR))
        result.figures[item.label] = (
            f"{item.calls} calls, {item.rounds} model rounds, {item.wall:.3f} s ({ratio:.2f} x rounds x L)"
        )
    ratios = [item.wall / (item.rounds * latency) for item in figures if item.rounds]
    if ratios:
        result.figures["median"] = f"{statistics.median(ratios):.2f}"
        print(f"\nmedian wall / (model rounds x L): {statistics.median(ratios):.2f}")
    result.figures["bare call"] = f"{bare * 1000:.0f} ms ({bare / latency:.2f} x L)"
    result.notes.append(f"one bare call took {bare / latency:.2f} x L: a round cannot take less here")
    result.print_checks()
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.one_diagnosis", description=__doc__)
    parser.add_argument("--latency", type=float, default=DEFAULT_LATENCY_SECONDS, help="seconds per call")
    parser.add_argument("--repeat", type=int, default=3, help="runs per scenario (the median is reported)")
    parser.add_argument("--only", default=None, help="only scenarios whose label contains this")
    options = parser.parse_args(argv)
    run(latency=options.latency, repeat=max(1, options.repeat), only=options.only)
    return 0


if __name__ == "__main__":
    sys.exit(main())

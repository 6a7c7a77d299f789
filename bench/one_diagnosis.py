"""Benchmark: one diagnosis, calls run concurrently vs strictly one after another.

The live clients (Run:ai token auth, Kubernetes via kubeconfig, signed ModelArts requests, the
read-only guard and retries) talk over loopback sockets to `diagnose sim`, which adds a fixed
latency L to every call. Each scenario is diagnosed twice per repetition: as the workflow runs it
(independent calls gathered), and through `TrackedSource(sequential=True)`, which lets only one
call be in flight. `RoundTracker` counts the dependent rounds (waves of overlapping calls).

The Run:ai bearer token is fetched by the HTTP client's auth flow before the first call is sent
(a new live source has no cached token), so it is one more dependent round, and one more call, in
both modes; it is counted as such and the sim gives the token request the same latency L.

Calls are HTTP requests as the sim received them. A recorded 5xx answer is retried by the client
(RetryPolicy: 4 attempts); each retry is one more call and one more dependent round. The backoff
between attempts is a policy wait, not latency: it is set to zero for the measured runs
(RetryPolicy(base_delay=0)), and one extra run with the default policy is shown beside them.

    python -m bench.one_diagnosis [--latency 0.1] [--repeat 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from bench.harness import BenchResult, Check, RoundTracker, TrackedSource, project_root, worked_examples_dir
from cli.demo import DEMO_ACCESS_KEY, DEMO_SECRET_KEY, platform_environment, write_kubeconfig
from diagnosis import engine
from diagnosis.evidence.bundles import load_bundle
from diagnosis.evidence.http import RetryPolicy
from diagnosis.models import Bundle, Diagnosis
from simulator.server import SimServer

DEFAULT_LATENCY_SECONDS = 0.1
WALL_FACTOR = 1.3  # wall <= 1.3 x (dependent rounds x L)
RATIO_SLACK = 0.1  # concurrent / sequential <= rounds / calls + 0.1


@dataclass(frozen=True)
class Scenario:
    label: str
    path: Path


def scenarios() -> list[Scenario]:
    examples = project_root() / "diagnosis" / "examples"
    worked = worked_examples_dir()
    return [
        Scenario("Run:ai OOM, option B (worked example)", worked / "runai-optb-oom-recurring.bundle.json"),
        Scenario("Run:ai crash needing Tier 2", examples / "runai" / "runai-crash-app-error.bundle.json"),
        Scenario(
            "ModelArts insufficient info (worked example)", worked / "modelarts-insufficient-info.bundle.json"
        ),
        Scenario(
            "ModelArts multi-task log previews",
            examples / "modelarts" / "modelarts-multi-task-logs.bundle.json",
        ),
    ]


@dataclass
class Run:
    wall_seconds: float
    rounds: int
    calls: int
    tokens: int
    retries: int
    diagnosis: Diagnosis


@dataclass
class ScenarioFigures:
    label: str
    outcome: str
    calls: int = 0  # HTTP calls of the diagnosis, the token request included
    rounds: int = 0  # dependent rounds, the token round included
    tokens: int = 0
    retries: int = 0
    default_backoff_wall: float | None = None
    concurrent: list[float] = field(default_factory=list)
    sequential: list[float] = field(default_factory=list)
    same_answer: bool = True

    @property
    def concurrent_wall(self) -> float:
        return statistics.median(self.concurrent)

    @property
    def sequential_wall(self) -> float:
        return statistics.median(self.sequential)


def _modelarts_project_id(bundle: Bundle) -> str | None:
    for exchange in bundle.exchanges:
        project_id = exchange.args.get("project_id")
        if project_id:
            return str(project_id)
    return None


@contextmanager
def scenario_environment(bundle: Bundle, *, sim: SimServer, folder: Path) -> Iterator[None]:
    """Live clients aimed at the sim; Tier 2 (kubeconfig) exactly when the bundle recorded it."""
    with platform_environment(sim, folder):
        has_k8s = any(exchange.op.startswith("k8s.") for exchange in bundle.exchanges)
        os.environ["KUBECONFIG"] = str(
            write_kubeconfig(folder, sim.base_url) if has_k8s else folder / "no-kubeconfig"
        )
        os.environ.pop("KUBERNETES_SERVICE_HOST", None)
        if bundle.platform == "modelarts":
            region = str(bundle.request.get("region") or "cn-north-4")
            variable = f"HUAWEICLOUD_SDK_REGION_MODELARTS_{region.upper().replace('-', '_')}"
            os.environ[variable] = sim.base_url
            project_id = _modelarts_project_id(bundle)
            if project_id:
                os.environ["HUAWEICLOUD_SDK_PROJECT_ID"] = project_id
        yield


NO_BACKOFF = RetryPolicy(base_delay=0.0)


async def diagnose_once(
    bundle: Bundle, *, sim: SimServer, sequential: bool, retry_policy: RetryPolicy | None = NO_BACKOFF
) -> Run:
    request = engine.request_from_bundle(bundle)
    tracker = RoundTracker()
    tokens_before = sim.tokens_issued
    requests_before = len(sim.requests)
    started = time.perf_counter()
    async with engine.live(request, retry_policy=retry_policy) as (source, _recorder):
        tracked = TrackedSource(source, tracker=tracker, sequential=sequential)
        diagnosis = await engine.diagnose_with(request, tracked, now=bundle.captured_at)  # type: ignore[arg-type]
    wall = time.perf_counter() - started
    tokens = sim.tokens_issued - tokens_before
    attempts = len(sim.requests) - requests_before
    retries = attempts - tokens - len(tracker.spans)
    return Run(
        wall_seconds=wall,
        rounds=tracker.rounds + tokens + retries,
        calls=attempts,
        tokens=tokens,
        retries=retries,
        diagnosis=diagnosis,
    )


def _answer(diagnosis: Diagnosis) -> tuple[object, ...]:
    return (diagnosis.outcome, diagnosis.category, diagnosis.confidence, diagnosis.signature)


def measure(
    chosen: list[Scenario], *, latency: float, repeat: int
) -> tuple[list[ScenarioFigures], list[str]]:
    bundles = [(scenario, load_bundle(scenario.path)) for scenario in chosen if scenario.path.exists()]
    missing = [
        f"{scenario.label}: {scenario.path} not found" for scenario in chosen if not scenario.path.exists()
    ]
    figures: list[ScenarioFigures] = []
    with tempfile.TemporaryDirectory(prefix="bench-one-") as folder:
        sim = SimServer(
            [bundle for _scenario, bundle in bundles],
            default_latency=latency,
            token_latency=latency,
            modelarts_keys=(DEMO_ACCESS_KEY, DEMO_SECRET_KEY),
        )
        with sim:
            for scenario, bundle in bundles:
                with scenario_environment(bundle, sim=sim, folder=Path(folder)):
                    # Warm-up (imports, kubeconfig parsing, first connections): not measured.
                    asyncio.run(diagnose_once(bundle, sim=sim, sequential=False))
                    result: ScenarioFigures | None = None
                    for _ in range(repeat):
                        concurrent = asyncio.run(diagnose_once(bundle, sim=sim, sequential=False))
                        sequential = asyncio.run(diagnose_once(bundle, sim=sim, sequential=True))
                        if result is None:
                            result = ScenarioFigures(
                                label=scenario.label,
                                outcome=concurrent.diagnosis.category or concurrent.diagnosis.outcome,
                                calls=concurrent.calls,
                                rounds=concurrent.rounds,
                                tokens=concurrent.tokens,
                                retries=concurrent.retries,
                            )
                        result.concurrent.append(concurrent.wall_seconds)
                        result.sequential.append(sequential.wall_seconds)
                        result.same_answer = result.same_answer and _answer(concurrent.diagnosis) == _answer(
                            sequential.diagnosis
                        )
                    if result is not None and result.retries:
                        with_backoff = asyncio.run(
                            diagnose_once(bundle, sim=sim, sequential=False, retry_policy=None)
                        )
                        result.default_backoff_wall = with_backoff.wall_seconds
                    if result is not None:
                        figures.append(result)
    return figures, missing


def run(*, latency: float = DEFAULT_LATENCY_SECONDS, repeat: int = 3, only: str | None = None) -> BenchResult:
    chosen = [scenario for scenario in scenarios() if only is None or only.lower() in scenario.label.lower()]
    print(f"One diagnosis at L = {latency * 1000:.0f} ms per call (live clients -> diagnose sim, loopback)")
    print(f"median of {repeat} run(s) per mode; the Run:ai token request counts as one call and one round\n")
    figures, missing = measure(chosen, latency=latency, repeat=repeat)
    result = BenchResult(title="one diagnosis")
    header = (
        f"{'scenario':<46} {'result':<22} {'calls':>5} {'rounds':>6} {'concurrent':>10} "
        f"{'sequential':>10} {'ratio':>6} {'rounds/calls':>12}"
    )
    print(header)
    print("-" * len(header))
    for item in figures:
        ratio = item.concurrent_wall / item.sequential_wall
        expected = item.rounds / item.calls
        print(
            f"{item.label:<46} {item.outcome[:22]:<22} {item.calls:>5} {item.rounds:>6} "
            f"{item.concurrent_wall:>9.3f}s {item.sequential_wall:>9.3f}s {ratio:>6.2f} {expected:>12.2f}"
        )
        bound = item.rounds * latency
        result.checks.append(
            Check(f"{item.label}: wall / (rounds x L)", item.concurrent_wall / bound, WALL_FACTOR)
        )
        result.checks.append(
            Check(f"{item.label}: concurrent/sequential - rounds/calls", ratio - expected, RATIO_SLACK)
        )
        if item.retries:
            result.notes.append(
                f"{item.label}: {item.retries} retries of a recorded 5xx answer (calls and rounds include"
                f" them); with the default backoff the concurrent run took {item.default_backoff_wall or 0:.2f} s"
            )
        if not item.same_answer:
            result.notes.append(f"{item.label}: concurrent and sequential runs gave different answers")
        result.figures[item.label] = (
            f"{item.calls} calls, {item.rounds} rounds, {item.concurrent_wall:.2f} s concurrent vs "
            f"{item.sequential_wall:.2f} s sequential (ratio {ratio:.2f}, rounds/calls {expected:.2f})"
        )
    if any(item.tokens for item in figures):
        result.notes.append(
            "Run:ai rows include the token request (one call, one dependent round, latency L)"
        )
    result.notes.extend(f"skipped {text}" for text in missing)
    result.print_checks()
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.one_diagnosis", description=__doc__)
    parser.add_argument("--latency", type=float, default=DEFAULT_LATENCY_SECONDS, help="seconds per call")
    parser.add_argument("--repeat", type=int, default=3, help="runs per mode (the median is reported)")
    parser.add_argument("--only", default=None, help="only scenarios whose label contains this")
    options = parser.parse_args(argv)
    run(latency=options.latency, repeat=max(1, options.repeat), only=options.only)
    return 0


if __name__ == "__main__":
    sys.exit(main())

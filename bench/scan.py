"""Benchmark: a whole-region ModelArts scan of 1,000 jobs under a 20 requests/s limit.

1,000 generated jobs (20 search pages x 50 items) are served by `diagnose sim` with a fixed latency
L per call. Each job is a copy (new id, new name) of one of the shipped ModelArts scenarios, in a
mix of phases: most are failed jobs whose details alone explain them (the runbook's early exit:
ShowTrainingJobDetails only), some need events, stages and log previews, some only events and
stages, and some are Completed/Running/Pending (listed, not diagnosed: no call). The scan is the
product's own `run_scan` over the live signed client with one shared `Throttle(20)`.

The rate-limit bound is calls / rate: no scan can be faster under that limit. A second scan of the
same jobs gets a few 429 answers with Retry-After mid-scan: every job must still have its result
(the same one as in the clean scan), and the pause must hold back the whole scan (the shared
throttle), which shows as no request sent during a pause window and a longer wall time.

    python -m bench.scan [--jobs 1000] [--latency 0.1] [--rate 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from bench.harness import BenchResult, Check, project_root
from cli.demo import DEMO_ACCESS_KEY, DEMO_SECRET_KEY, platform_environment
from diagnosis.bundle import Bundle
from diagnosis.evidence.bundles import load_bundle
from diagnosis.evidence.http.throttle import Throttle
from diagnosis.modelarts import client as modelarts_client
from diagnosis.modelarts.routes import SEARCH_PAGE_SIZE
from diagnosis.modelarts.scan import DEFAULT_CONCURRENCY, ScanResult, run_scan
from diagnosis.models import Exchange
from diagnosis.scan import ScanProgress
from simulator.server import Fault, SimServer

REGION = "cn-north-4"
PROJECT_ID = "b0e4c1a7d2f94e8c9a3b5d6e7f801234"
DEFAULT_JOBS = 1000
DEFAULT_LATENCY_SECONDS = 0.1
DEFAULT_RATE = 20.0
WALL_FACTOR = 1.15
# The 429 scan takes at least its requests at the rate plus the pauses (timer rounding allowed).
PAUSE_FLOOR_FACTOR = 0.98
RETRY_AFTER_SECONDS = 2.0
# When the 429s come (fraction of jobs diagnosed), and how many requests each time.
FAULT_POINTS = (0.3, 0.65)
FAULTS_PER_POINT = 2

# One page of 50: which scenario each slot copies (the mix repeats on every page).
EARLY_EXIT = (
    "modelarts-early-exit-cuda-oom",
    "modelarts-early-exit-file-not-found",
    "modelarts-early-exit-nccl-error",
    "modelarts-early-exit-obs-missing",
)
FULL_PATH = (  # details, events + stages, then log previews
    "modelarts-exit-137-killed",
    "modelarts-exit-code-139",
    "modelarts-node-failure-xid",
    "modelarts-multi-task-logs",
    "modelarts-stuck-stage",
)
EVENTS_AND_STAGES = (
    "modelarts-job-timeout",
    "modelarts-error-event-image-pull",
    "modelarts-platform-analysis",
)
NOT_ABNORMAL = ("modelarts-completed", "modelarts-running-healthy", "modelarts-pending-short")
PAGE_MIX = (EARLY_EXIT, 34), (FULL_PATH, 5), (EVENTS_AND_STAGES, 3), (NOT_ABNORMAL, 8)


@dataclass
class Corpus:
    bundle: Bundle
    jobs: int
    abnormal: int
    kinds: dict[str, int]
    now: datetime


def _templates() -> dict[str, Bundle]:
    folder = project_root() / "diagnosis" / "examples" / "modelarts"
    names = {name for group, _count in PAGE_MIX for name in group}
    return {name: load_bundle(folder / f"{name}.bundle.json") for name in sorted(names)}


def _slots() -> list[tuple[str, str]]:
    """(kind, scenario) for each of the 50 positions of a page."""
    slots: list[tuple[str, str]] = []
    for group, count in PAGE_MIX:
        kind = {EARLY_EXIT: "details only", FULL_PATH: "events+stages+previews"}.get(group, "")
        kind = kind or ("events+stages" if group is EVENTS_AND_STAGES else "not abnormal")
        slots += [(kind, group[index % len(group)]) for index in range(count)]
    assert len(slots) == SEARCH_PAGE_SIZE
    # Interleave the kinds so that every stretch of the scan has the same mix.
    return [slots[(index * 7) % SEARCH_PAGE_SIZE] for index in range(SEARCH_PAGE_SIZE)]


def _copy_exchanges(template: Bundle, *, job_id: str, name: str) -> tuple[list[Exchange], dict[str, Any]]:
    """The template's exchanges for a new job id and name; returns them and the job's details body."""
    old_id = next(
        str(exchange.args["training_job_id"])
        for exchange in template.exchanges
        if exchange.op == "ShowTrainingJobDetails"
    )
    text = json.dumps(
        [exchange.model_dump(mode="json") for exchange in template.exchanges], ensure_ascii=False
    )
    copied = [Exchange.model_validate(item) for item in json.loads(text.replace(old_id, job_id))]
    details: dict[str, Any] = {}
    for exchange in copied:
        exchange.args["project_id"] = PROJECT_ID
        if exchange.op == "ShowTrainingJobDetails" and isinstance(exchange.body, dict):
            exchange.body.setdefault("metadata", {})["name"] = name
            details = exchange.body
    return copied, details


def generate(jobs: int) -> Corpus:
    """`jobs` jobs over ceil(jobs / 50) search pages, newest first, with their per-job answers."""
    templates = _templates()
    slots = _slots()
    exchanges: list[Exchange] = []
    items: list[dict[str, Any]] = []
    kinds: dict[str, int] = {}
    abnormal = 0
    for number in range(jobs):
        kind, scenario = slots[number % SEARCH_PAGE_SIZE]
        job_id = str(uuid.UUID(int=number + 1, version=4))
        copied, details = _copy_exchanges(
            templates[scenario], job_id=job_id, name=f"{scenario.removeprefix('modelarts-')}-{number:04d}"
        )
        exchanges += copied
        items.append(details)
        kinds[kind] = kinds.get(kind, 0) + 1
        abnormal += kind != "not abnormal"
    pages = math.ceil(jobs / SEARCH_PAGE_SIZE)
    for page in range(pages):
        chunk = items[page * SEARCH_PAGE_SIZE : (page + 1) * SEARCH_PAGE_SIZE]
        args: dict[str, Any] = {"project_id": PROJECT_ID}
        if page:
            args["offset"] = page
        body = {"total": jobs, "count": jobs, "limit": SEARCH_PAGE_SIZE, "offset": page, "items": chunk}
        exchanges.append(Exchange(op="ListTrainingJobs", args=args, status=200, body=body))
    now = max(template.captured_at for template in templates.values())
    bundle = Bundle(
        platform="modelarts",
        captured_at=now,
        request={"region": REGION},
        exchanges=exchanges,
    )
    return Corpus(bundle=bundle, jobs=jobs, abnormal=abnormal, kinds=kinds, now=now)


class RecordingThrottle(Throttle):
    """The product's Throttle, noting when each request was let through and each 429 pause."""

    def __init__(self, rate_per_second: float) -> None:
        super().__init__(rate_per_second)
        self.sent_at: list[float] = []
        self.pause_windows: list[tuple[float, float]] = []

    async def acquire(self) -> None:
        await super().acquire()
        self.sent_at.append(time.monotonic())

    def pause(self, seconds: float) -> None:
        super().pause(seconds)
        started = time.monotonic()
        self.pause_windows.append((started, started + seconds))


@dataclass
class ScanRun:
    wall_seconds: float
    requests: int
    result: ScanResult
    throttle: RecordingThrottle
    faults_answered: int = 0
    answers: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)

    def merged_pauses(self) -> list[tuple[float, float]]:
        merged: list[tuple[float, float]] = []
        for start, end in sorted(self.throttle.pause_windows):
            if merged and start <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], end))
            else:
                merged.append((start, end))
        return merged

    def paused_seconds(self) -> float:
        return sum(end - start for start, end in self.merged_pauses())

    def sent_during_pauses(self) -> int:
        """Requests let through by the throttle while a 429 pause was on (should be none)."""
        windows = self.merged_pauses()
        return sum(
            1 for moment in self.throttle.sent_at if any(start < moment < end for start, end in windows)
        )


@contextmanager
def sim_environment(sim: SimServer, folder: Path) -> Iterator[None]:
    with platform_environment(sim, folder):
        os.environ[f"HUAWEICLOUD_SDK_REGION_MODELARTS_{REGION.upper().replace('-', '_')}"] = sim.base_url
        os.environ["HUAWEICLOUD_SDK_PROJECT_ID"] = PROJECT_ID
        yield


async def scan_once(
    corpus: Corpus,
    *,
    sim: SimServer,
    rate: float,
    concurrency: int,
    on_progress: Callable[[ScanProgress], None] | None = None,
) -> ScanRun:
    throttle = RecordingThrottle(rate)
    requests_before = len(sim.requests)
    started = time.perf_counter()
    async with modelarts_client.live_sources(region=REGION, throttle=throttle) as make_source:
        result = await run_scan(
            make_source,
            region=REGION,
            now=corpus.now,
            lang="en",
            concurrency=concurrency,
            progress=on_progress,
        )
    wall = time.perf_counter() - started
    answers: dict[str, tuple[str | None, str | None]] = {
        str(item.target.job_id): (item.outcome, item.category or item.route) for item in result.results
    }
    return ScanRun(
        wall_seconds=wall,
        requests=len(sim.requests) - requests_before,
        result=result,
        throttle=throttle,
        answers=answers,
    )


def _inject_midway(sim: SimServer, corpus: Corpus, *, retry_after: float) -> Callable[[ScanProgress], None]:
    """At each fault point, the next ShowTrainingJobDetails answers are 429 with Retry-After."""
    points = [max(1, int(fraction * corpus.abnormal)) for fraction in FAULT_POINTS]

    def on_progress(progress: ScanProgress) -> None:
        if points and progress.done >= points[0]:
            points.pop(0)
            with sim._lock:  # the sim's handler threads read the fault queues under this lock
                sim.faults.setdefault("ShowTrainingJobDetails", []).append(
                    Fault(status=429, retry_after=retry_after, times=FAULTS_PER_POINT)
                )

    return on_progress


def run(
    *,
    jobs: int = DEFAULT_JOBS,
    latency: float = DEFAULT_LATENCY_SECONDS,
    rate: float = DEFAULT_RATE,
    concurrency: int = DEFAULT_CONCURRENCY,
    retry_after: float = RETRY_AFTER_SECONDS,
) -> BenchResult:
    corpus = generate(jobs)
    pages = math.ceil(jobs / SEARCH_PAGE_SIZE)
    print(
        f"Scan of {corpus.jobs} ModelArts jobs ({pages} search pages x {SEARCH_PAGE_SIZE}) at L = "
        f"{latency * 1000:.0f} ms per call, {rate:g} requests/s shared limit, {concurrency} jobs at a time"
    )
    print("jobs by evidence needed: " + ", ".join(f"{kind} {count}" for kind, count in corpus.kinds.items()))
    result = BenchResult(title="scan")
    with tempfile.TemporaryDirectory(prefix="bench-scan-") as folder:
        sim = SimServer(
            [corpus.bundle], default_latency=latency, modelarts_keys=(DEMO_ACCESS_KEY, DEMO_SECRET_KEY)
        )
        with sim, sim_environment(sim, Path(folder)):
            clean = asyncio.run(scan_once(corpus, sim=sim, rate=rate, concurrency=concurrency))
            bound = clean.requests / rate
            print(f"\nclean scan: {len(clean.result.results)} jobs diagnosed, {clean.requests} calls")
            print(f"  wall {clean.wall_seconds:.2f} s, rate-limit bound {bound:.2f} s (calls / {rate:g})")
            print(f"  wall / bound = {clean.wall_seconds / bound:.3f}")
            faults_before = sim.op_count("ShowTrainingJobDetails")
            faulty = asyncio.run(
                scan_once(
                    corpus,
                    sim=sim,
                    rate=rate,
                    concurrency=concurrency,
                    on_progress=_inject_midway(sim, corpus, retry_after=retry_after),
                )
            )
            details_calls = sim.op_count("ShowTrainingJobDetails") - faults_before
    injected = len(FAULT_POINTS) * FAULTS_PER_POINT
    lost = [job for job in clean.answers if job not in faulty.answers]
    changed = [job for job, answer in clean.answers.items() if faulty.answers.get(job) not in (None, answer)]
    extra_requests = faulty.requests - clean.requests
    faulty_bound = faulty.requests / rate
    print(
        f"\nscan with {injected} x 429 (Retry-After {retry_after:g} s) injected mid-scan "
        f"({len(FAULT_POINTS)} moments, {FAULTS_PER_POINT} requests each):"
    )
    print(
        f"  {len(faulty.result.results)} jobs diagnosed of {corpus.abnormal} abnormal; lost {len(lost)}, "
        f"answer changed {len(changed)}"
    )
    print(
        f"  {faulty.requests} calls ({extra_requests} retried; ShowTrainingJobDetails {details_calls}), "
        f"throttle pauses {faulty.throttle.pauses}, paused {faulty.paused_seconds():.2f} s in all"
    )
    print(f"  requests let through during a pause: {faulty.sent_during_pauses()}")
    print(
        f"  wall {faulty.wall_seconds:.2f} s vs clean {clean.wall_seconds:.2f} s "
        f"(+{faulty.wall_seconds - clean.wall_seconds:.2f} s; rate bound + pauses = "
        f"{faulty_bound + faulty.paused_seconds():.2f} s)"
    )
    # Paced at the rate and held back during every pause, the scan cannot end before its requests
    # at the rate plus the pauses (a floor that, unlike the clean run's time, a busy machine does
    # not move).
    floor = faulty_bound + faulty.paused_seconds()
    result.checks += [
        Check("clean scan: wall / rate-limit bound", clean.wall_seconds / bound, WALL_FACTOR),
        Check("clean scan: abnormal jobs without a result", float(corpus.abnormal - len(clean.answers)), 0),
        Check("429 scan: jobs lost or answered differently", float(len(lost) + len(changed)), 0),
        Check("429 scan: requests let through during a pause", float(faulty.sent_during_pauses()), 0),
        Check(
            "429 scan: wall / (rate bound + paused time) (the whole scan waited)",
            faulty.wall_seconds / floor if faulty.paused_seconds() else 0.0,
            PAUSE_FLOOR_FACTOR,
            at_least=True,
        ),
    ]
    result.figures = {
        "jobs": f"{corpus.jobs} listed, {corpus.abnormal} diagnosed",
        "calls": str(clean.requests),
        "wall": f"{clean.wall_seconds:.1f} s",
        "bound": f"{bound:.1f} s",
        "ratio": f"{clean.wall_seconds / bound:.3f}",
        "with 429s": (
            f"{faulty.wall_seconds:.1f} s, {injected} x 429 retried, {faulty.throttle.pauses} pauses "
            f"({faulty.paused_seconds():.1f} s), {len(lost)} lost"
        ),
    }
    result.print_checks()
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.scan", description=__doc__)
    parser.add_argument("--jobs", type=int, default=DEFAULT_JOBS, help="jobs listed (default 1000)")
    parser.add_argument("--latency", type=float, default=DEFAULT_LATENCY_SECONDS, help="seconds per call")
    parser.add_argument("--rate", type=float, default=DEFAULT_RATE, help="requests per second, whole scan")
    parser.add_argument("--concurrency", type=int, default=DEFAULT_CONCURRENCY, help="jobs at a time")
    options = parser.parse_args(argv)
    run(
        jobs=max(1, options.jobs), latency=options.latency, rate=options.rate, concurrency=options.concurrency
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

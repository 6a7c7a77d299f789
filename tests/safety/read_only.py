"""Guarantee 1, read-only: no code path sends a mutating request.

- Every scenario's workflow runs offline under a transport, outermost on the client, that records
  every request the product makes and counts anything but GET and the named read-only POSTs
  (ModelArts job search; the Run:ai token request has no place offline) as a violation, even if the
  guard below would refuse it.
- A hypothesis property drives random scenario and fault combinations through the live clients
  against the simulator, plus the ModelArts scan and the log-link fetch, and checks every request
  the simulator received: GET, or POST to the token endpoint or to `/v2/{project}/training-job-searches`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import httpx
from hypothesis import given
from hypothesis import strategies as st

from diagnosis.masking import mask
from diagnosis.modelarts import client as modelarts_client
from diagnosis.modelarts.logurl import fetch_log_url
from diagnosis.modelarts.scan import run_scan
from simulator.server import Fault
from tests.safety.bundles import Scenario
from tests.safety.faults import FAULT_KINDS
from tests.safety.fuzzing import _hypothesis
from tests.safety.live import Budget, LiveRig, environment
from tests.safety.sources import replay_over

TOKEN_PATH = "/api/v1/token"
SEARCH_PATH = re.compile(r"/v2/[^/]+/training-job-searches/?")


def is_read(method: str, path: str) -> bool:
    """What a read-only product may send: GET, or POST to the token endpoint or the job search."""
    method = method.upper()
    return method == "GET" or (
        method == "POST" and (path == TOKEN_PATH or SEARCH_PATH.fullmatch(path) is not None)
    )


@dataclass
class ReadOnlyResult:
    runs: int = 0
    requests: int = 0
    methods: dict[str, int] = field(default_factory=dict)
    violations: list[str] = field(default_factory=list)
    crashes: list[str] = field(default_factory=list)

    def saw(self, method: str, path: str, where: str) -> None:
        self.requests += 1
        self.methods[method] = self.methods.get(method, 0) + 1
        if not is_read(method, path):
            self.violations.append(f"{where}: {method} {path}")


class Watching(httpx.AsyncBaseTransport):
    """Outermost transport: every request the product makes is seen here before any guard."""

    def __init__(self, inner: httpx.AsyncBaseTransport, result: ReadOnlyResult, where: str) -> None:
        self.inner = inner
        self.result = result
        self.where = where

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.result.saw(request.method, request.url.path, self.where)
        return await self.inner.handle_async_request(request)


def _watched(inner: httpx.AsyncBaseTransport, *, result: ReadOnlyResult, where: str) -> Watching:
    return Watching(inner, result, where)


async def _offline(result: ReadOnlyResult, scenarios: Sequence[Scenario]) -> None:
    for scenario in scenarios:
        result.runs += 1
        try:
            await replay_over(
                scenario.bundle, outer=functools.partial(_watched, result=result, where=scenario.name)
            )
        except Exception as exc:
            result.crashes.append(f"{scenario.name}: {type(exc).__name__}: {mask(str(exc))[:160]}")


def _sim_requests(result: ReadOnlyResult, rig: LiveRig, where: str) -> None:
    for method, path in list(rig.sim.requests):
        result.saw(method, path, where)


async def _scan_and_log_link(result: ReadOnlyResult, rig: LiveRig, scenarios: Sequence[Scenario]) -> None:
    """The ModelArts scan (job search, paged) and the on-demand log link, live against the simulator."""
    scan = next((item for item in scenarios if item.name.endswith("scan-pages")), None)
    if scan is None:
        return
    rig.serve(scan.bundle)
    values = rig.modelarts_environment(scan.bundle)
    with environment(values, remove=("HUAWEICLOUD_SDK_SECURITY_TOKEN", "HCLOUD_PROFILE")):
        result.runs += 1
        async with modelarts_client.live_sources(
            region=None, retry_policy=Budget().options()["retry_policy"]
        ) as make:
            await run_scan(make, region=None, now=scan.bundle.captured_at, concurrency=2)
        result.runs += 1
        with contextlib.suppress(Exception):  # no link in the bundle: a refusal is fine, a write is not
            await fetch_log_url(job_id="00000000-0000-4000-8000-000000000000", task_id="worker-0")
    _sim_requests(result, rig, "modelarts scan and log link")


def read_only(scenarios: Sequence[Scenario], *, max_examples: int) -> ReadOnlyResult:
    result = ReadOnlyResult()
    asyncio.run(_offline(result, scenarios))
    live = [item for item in scenarios if not item.name.endswith("scan-pages")]
    with LiveRig(timeout_hold_seconds=1.0) as rig:

        @_hypothesis(max_examples)
        @given(
            index=st.integers(min_value=0, max_value=max(0, len(live) - 1)),
            picks=st.lists(
                st.tuples(
                    st.integers(min_value=0, max_value=20),
                    st.sampled_from(sorted(FAULT_KINDS)),
                    st.booleans(),
                ),
                max_size=3,
            ),
        )
        def property_run(index: int, picks: list[tuple[int, str, bool]]) -> None:
            scenario = live[index]
            ops = sorted({exchange.op for exchange in scenario.bundle.exchanges})
            faults: dict[str, list[Fault]] = {}
            for number, kind, persistent in picks:
                if ops:
                    faults.setdefault(ops[number % len(ops)], []).append(
                        FAULT_KINDS[kind](-1 if persistent else 1)
                    )
            rig.serve(scenario.bundle, faults=faults)
            result.runs += 1
            try:
                asyncio.run(rig.diagnose(scenario.bundle, budget=_BUDGET))
            except Exception as exc:
                result.crashes.append(f"{scenario.name}: {type(exc).__name__}: {mask(str(exc))[:160]}")
            _sim_requests(result, rig, f"{scenario.name} with {sorted(faults)}")

        if live:
            property_run()
        try:
            asyncio.run(_scan_and_log_link(result, rig, scenarios))
        except Exception as exc:
            result.crashes.append(f"scan: {type(exc).__name__}: {mask(str(exc))[:160]}")
    return result


_BUDGET = Budget(
    timeout_seconds=0.2, attempts=2, base_delay=0.01, max_delay=0.02, retry_deadline=2.0, deadline_seconds=6.0
)

"""Guarantee 1: whatever the scenario and the faults, only reads leave the product."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.server import Fault
from tests.safety.bundles import Scenario, scenarios
from tests.safety.faults import FAULT_KINDS
from tests.safety.live import Budget, LiveRig
from tests.safety.read_only import ReadOnlyResult, Watching, is_read, read_only
from tests.safety.sources import replay_over

LIVE = [item for item in scenarios() if not item.name.endswith("scan-pages")]
BUDGET = Budget(
    timeout_seconds=0.2, attempts=2, base_delay=0.01, max_delay=0.02, retry_deadline=2.0, deadline_seconds=6.0
)


@pytest.fixture(scope="module")
def rig() -> Iterator[LiveRig]:
    with LiveRig(timeout_hold_seconds=1.0) as live:
        yield live


def test_every_workflow_offline_sends_only_reads() -> None:
    result = ReadOnlyResult()
    for scenario in scenarios():
        asyncio.run(replay_over(scenario.bundle, outer=lambda inner: Watching(inner, result, "offline")))
    assert result.requests > 3 * len(scenarios())
    assert result.violations == []
    assert set(result.methods) <= {"GET", "POST"}


def test_the_watch_sees_a_write_even_when_the_guard_refuses_it() -> None:
    result = ReadOnlyResult()

    async def attempt() -> httpx.Response:
        inner = httpx.MockTransport(lambda request: httpx.Response(200))
        async with httpx.AsyncClient(transport=Watching(inner, result, "test")) as client:
            return await client.delete("https://runai.example.com/api/v1/workloads/trainings/w1")

    asyncio.run(attempt())
    assert result.violations == ["test: DELETE /api/v1/workloads/trainings/w1"]
    assert is_read("POST", "/v2/p1/training-job-searches") and is_read("POST", "/api/v1/token")
    assert not is_read("POST", "/v2/p1/training-jobs") and not is_read("PUT", "/api/v1/token")


@settings(max_examples=12, deadline=None)
@given(
    index=st.integers(min_value=0, max_value=len(LIVE) - 1),
    picks=st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=20), st.sampled_from(sorted(FAULT_KINDS)), st.booleans()
        ),
        max_size=3,
    ),
)
def test_random_scenarios_and_faults_against_the_simulator_only_read(
    rig: LiveRig, index: int, picks: list[tuple[int, str, bool]]
) -> None:
    scenario: Scenario = LIVE[index]
    ops = sorted({exchange.op for exchange in scenario.bundle.exchanges})
    faults: dict[str, list[Fault]] = {}
    for number, kind, persistent in picks:
        faults.setdefault(ops[number % len(ops)], []).append(FAULT_KINDS[kind](-1 if persistent else 1))
    rig.serve(scenario.bundle, faults=faults)
    asyncio.run(rig.diagnose(scenario.bundle, budget=BUDGET))
    received = list(rig.sim.requests)
    assert received, "the simulator was asked"
    assert all(is_read(method, path) for method, path in received), received


def test_the_scan_and_the_log_link_only_read() -> None:
    result = read_only([item for item in scenarios() if item.name.endswith("scan-pages")], max_examples=1)
    assert result.crashes == [] and result.violations == []
    assert result.methods.get("POST", 0) >= 2, "the scan pages through the job search"

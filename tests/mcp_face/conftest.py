"""The simulated platforms the MCP tests talk to (one simulator per platform for the session)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from diagnosis.bundle import Bundle
from diagnosis.evidence.bundles import load_bundle, parse_bundle
from simulator.server import SimServer
from tests.mcp_face.helpers import (
    MODELARTS_AK,
    MODELARTS_BUNDLES,
    MODELARTS_EXAMPLES,
    MODELARTS_PROJECT,
    MODELARTS_SK,
    RUNAI_EXAMPLES,
    with_project,
)
from tests.runai.scan_world import scan_bundle

# Run:ai scenarios without Tier-2 answers (the servers run without Kubernetes access).
RUNAI_SCENARIOS = ("runai-oom-killed", "runai-image-pull-manifest-missing", "runai-preempted-reclaim")
MODELARTS_SCENARIOS = ("early-exit-cuda-oom", "exit-137-killed", "name-several-matches", "scan-pages")


def runai_bundle(name: str) -> Bundle:
    return load_bundle(RUNAI_EXAMPLES / f"{name}.bundle.json")


def modelarts_bundle(name: str) -> Bundle:
    """A ModelArts example (else a test bundle) under the project id the servers' credentials
    name, so that one simulator serves several of them."""
    example = MODELARTS_EXAMPLES / f"modelarts-{name}.bundle.json"
    bundle = load_bundle(example if example.exists() else MODELARTS_BUNDLES / f"{name}.bundle.json")
    return with_project(bundle, MODELARTS_PROJECT)


@pytest.fixture(scope="session")
def scan_world() -> Bundle:
    return parse_bundle(scan_bundle())


@pytest.fixture(scope="session")
def runai_sim(scan_world: Bundle) -> Iterator[SimServer]:
    bundles = [runai_bundle(name) for name in RUNAI_SCENARIOS] + [scan_world]
    with SimServer(bundles, timeout_hold_seconds=3) as sim:
        yield sim


@pytest.fixture
def runai(runai_sim: SimServer) -> Iterator[SimServer]:
    """The shared Run:ai simulator with its counters, latencies and faults reset."""
    runai_sim.requests.clear()
    runai_sim.ops.clear()
    yield runai_sim
    runai_sim.latency.clear()
    runai_sim.faults.clear()


@pytest.fixture(scope="session")
def modelarts_sim() -> Iterator[SimServer]:
    bundles = [modelarts_bundle(name) for name in MODELARTS_SCENARIOS]
    with SimServer(bundles, modelarts_keys=(MODELARTS_AK, MODELARTS_SK), timeout_hold_seconds=3) as sim:
        yield sim


@pytest.fixture
def modelarts(modelarts_sim: SimServer) -> Iterator[SimServer]:
    modelarts_sim.requests.clear()
    modelarts_sim.ops.clear()
    yield modelarts_sim
    modelarts_sim.latency.clear()
    modelarts_sim.faults.clear()

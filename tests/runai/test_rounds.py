"""The workflow reaches the data-dependency limit: for every bundle, the rounds it takes (every
call as long as the others) equal the minimum the dependency model in bench/ allows for the calls
it made."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.rounds_model import Call, minimum_rounds
from diagnosis import engine
from diagnosis.evidence.bundles import load_bundle
from diagnosis.runai.backend import BACKEND
from tests.runai.helpers import DEMO_BUNDLES, TEST_BUNDLES, WORKED_RUNAI
from tests.runai.round_gate import RoundGate

BUNDLES = [
    *sorted(DEMO_BUNDLES.glob("*.bundle.json")),
    *sorted(TEST_BUNDLES.glob("*.bundle.json")),
    *WORKED_RUNAI,
]


async def _gated(path: Path) -> RoundGate:
    bundle = load_bundle(path)
    request = engine.request_from_bundle(bundle)
    async with BACKEND.replay_source(bundle) as source:
        gate = RoundGate(source)
        await engine.diagnose_with(request, gate, now=bundle.captured_at)  # type: ignore[arg-type]
    return gate


@pytest.mark.parametrize("path", BUNDLES, ids=lambda path: path.name.removesuffix(".bundle.json"))
async def test_rounds_are_the_models_minimum(path: Path) -> None:
    gate = await _gated(path)
    calls = []
    for batch in gate.rounds:
        for op, args in batch:
            status, answer = gate.answers.get(gate.key(op, args), (None, ""))
            calls.append(Call.of(op, args, status=status, answer=answer))
    model = max(minimum_rounds("runai", calls), default=0)
    assert len(gate.rounds) == model, [[op for op, _ in batch] for batch in gate.rounds]


async def test_status_and_events_go_together_and_status_is_listed_first() -> None:
    gate = await _gated(DEMO_BUNDLES / "runai-oom-killed.bundle.json")
    assert [op for op, _ in gate.rounds[0]] == ["get_workload_status", "get_workload_events"]
    assert [op for op, _ in gate.rounds[1]] == [
        "get_workload_spec",
        "get_workload_pods",
        "get_workload_history",
    ]

"""The ModelArts workflow reaches the data-dependency limit: for every bundle, the rounds it takes
(every call as long as the others) equal the minimum the dependency model in bench/ allows for the
calls it made: the name search, then the details, then events, stages, the platform's diagnosis
and the log previews together (each further events page after the one before it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.rounds_model import Call, minimum_rounds
from diagnosis import engine
from diagnosis.bundle import Bundle
from diagnosis.evidence.bundles import load_bundle
from diagnosis.modelarts.backend import BACKEND
from tests.modelarts.conftest import BUNDLES as TEST_BUNDLES
from tests.modelarts.conftest import DEMO_BUNDLES, variant
from tests.runai.round_gate import RoundGate

BUNDLES = [*sorted(DEMO_BUNDLES.glob("*.bundle.json")), *sorted(TEST_BUNDLES.glob("*.bundle.json"))]


async def _gated(path: Path) -> RoundGate:
    return await _gated_bundle(load_bundle(path))


async def _gated_bundle(bundle: Bundle) -> RoundGate:
    request = engine.request_from_bundle(bundle)
    async with BACKEND.replay_source(bundle) as source:
        gate = RoundGate(source)
        await engine.diagnose_with(request, gate, now=bundle.captured_at)  # type: ignore[arg-type]
    return gate


def _model_rounds(gate: RoundGate) -> int:
    calls = []
    for batch in gate.rounds:
        for op, args in batch:
            status, answer = gate.answers.get(gate.key(op, args), (None, ""))
            calls.append(Call.of(op, args, status=status, answer=answer))
    return max(minimum_rounds("modelarts", calls), default=0)


@pytest.mark.parametrize("path", BUNDLES, ids=lambda path: path.name.removesuffix(".bundle.json"))
async def test_rounds_are_the_models_minimum(path: Path) -> None:
    gate = await _gated(path)
    assert len(gate.rounds) == _model_rounds(gate), [[op for op, _ in batch] for batch in gate.rounds]


async def test_events_stages_diagnosis_and_previews_go_together() -> None:
    gate = await _gated(DEMO_BUNDLES / "modelarts-multi-task-logs.bundle.json")
    assert [op for op, _ in gate.rounds[0]] == ["ShowTrainingJobDetails"]
    assert sorted(op for op, _ in gate.rounds[1]) == sorted(
        [
            "ListTrainingJobEvents",
            "ListTrainingJobStages",
            "ShowTrainingJobLogsPreview",
            "ShowTrainingJobLogsPreview",
            "ShowTrainingJobUserDiagnosis",
        ]
    )
    assert len(gate.rounds) == 2


async def test_further_event_pages_are_one_round_together() -> None:
    """After the first page gives `total`, every other page is asked at once: one more round."""
    from tests.modelarts.test_workflow import _paged_events

    bundle = variant(
        "error-event-image-pull", lambda data: _paged_events(data, total=450, pages=5, cause_on=4)
    )
    gate = await _gated_bundle(bundle)
    assert len(gate.rounds) == 3
    assert [op for op, _ in gate.rounds[2]] == ["ListTrainingJobEvents"] * 4

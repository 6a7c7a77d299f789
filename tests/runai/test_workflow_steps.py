"""The workflow as step functions: each step returns the next step or the finished diagnosis, and
never changes the state it was given."""

from __future__ import annotations

import dataclasses
from typing import Any

from diagnosis import engine
from diagnosis.evidence.bundles import parse_bundle
from diagnosis.models import Diagnosis, Target
from diagnosis.render.i18n import Translator
from diagnosis.runai.backend import BACKEND
from diagnosis.runai.messages import CATALOGUE
from diagnosis.runai.workflow import resolve
from diagnosis.runai.workflow.state import Next, Run, State
from diagnosis.timeutil import parse_duration
from tests.runai.scenarios import oom_killed


def _snapshot(state: State) -> dict[str, Any]:
    return {f.name: repr(getattr(state, f.name)) for f in dataclasses.fields(state) if f.name != "run"}


async def test_steps_hand_on_new_states_and_end_in_the_diagnosis_the_engine_gives() -> None:
    bundle = parse_bundle(oom_killed().bundle())
    request = engine.request_from_bundle(bundle)
    async with BACKEND.replay_source(bundle) as source:
        run = Run(
            request=request,
            source=source,
            now=bundle.captured_at,
            t=Translator(CATALOGUE, "en"),
            tier2_available=source.tier2_available,
            tier2_unavailable_reason=source.tier2_unavailable_reason,
            lookback_text="7d",
            lookback=parse_duration("7d"),
        )
        state = State(run=run, target=Target(workload_id=request.workload_id, cluster_id=request.cluster_id))
        names: list[str] = []
        result: Next | Diagnosis = Next(resolve.start, state)
        while isinstance(result, Next):
            before = _snapshot(result.state)
            names.append(result.step.__name__)  # type: ignore[attr-defined]
            given = result.state
            result = await result.step(given)
            assert _snapshot(given) == before, f"{names[-1]} changed the state it was given"
    assert names == [
        "start",
        "read_status",
        "read_events",
        "apply_phase_rule",
        "read_evidence",
        "gather_conditional",
        "conclude",
    ]
    expected = await engine.replay(bundle)
    assert (result.outcome, result.category, result.confidence) == (
        expected.outcome,
        expected.category,
        expected.confidence,
    )
    assert result.calls == expected.calls

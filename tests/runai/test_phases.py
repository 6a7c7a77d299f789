"""The phase rule knows every value of the API's `Phase` enum (checked against the generated
client of the current release and of each older plane) and still reads the runbook's words."""

from __future__ import annotations

import pytest

from diagnosis.evidence.bundles import parse_bundle
from diagnosis.runai.phases import API_PHASES, RUNBOOK_PHASES
from simulator.runai_planes import PLANES
from tests.runai import official
from tests.runai.factory import Scenario
from tests.runai.helpers import replay_bundle
from tests.runai.scenarios import T

# What a workload in each phase gets with no other evidence (the runbook's phase rule).
OUTCOMES = {
    "failed": "diagnosed",
    "stopped": "diagnosed",
    "completed": "not_a_failure",
    "pending": "routed",
    "running": "needs_input",
    "degraded": "needs_input",
    "creating": "out_of_scope",
    "initializing": "out_of_scope",
    "resuming": "out_of_scope",
    "deleting": "out_of_scope",
    "updating": "out_of_scope",
    "stopping": "out_of_scope",
    "terminating": "out_of_scope",
    "unknown": "out_of_scope",
    # the runbook's words
    "crashed": "diagnosed",
    "succeeded": "not_a_failure",
    "suspended": "out_of_scope",
}


def test_the_phase_enum_is_the_current_releases() -> None:
    import runai.models

    assert {member.value.lower() for member in runai.models.Phase} == API_PHASES
    assert not API_PHASES & RUNBOOK_PHASES and set(OUTCOMES) == API_PHASES | RUNBOOK_PHASES


@pytest.mark.parametrize("plane", ["2.18", "2.20"])
def test_the_phase_enum_is_the_same_on_older_planes(plane: str) -> None:
    judged = official.in_plane(PLANES[plane].runapy, {})
    assert {phase.lower() for phase in judged["phases"]} == API_PHASES


@pytest.mark.parametrize("phase", sorted(OUTCOMES))
async def test_every_phase_gets_the_runbooks_outcome(phase: str) -> None:
    s = Scenario(f"phase-{phase}", name="any-job", project="p", captured_at=T)
    name = phase.capitalize()
    s.status(s.workload(phase=name, created=s.at(hours=3), phase_updated=s.at(hours=1)))
    s.events([])
    s.spec_answer(s.spec(created=s.at(hours=3), actual_phase=name))
    s.pods([])
    s.history([])
    diagnosis = await replay_bundle(parse_bundle(s.bundle()))
    assert diagnosis.outcome == OUTCOMES[phase]
    if phase in ("failed", "crashed"):
        assert diagnosis.category == "UNKNOWN"
    if phase == "stopped":
        assert (diagnosis.category, diagnosis.confidence) == ("SCHEDULING_POLICY_TERMINATED", "MEDIUM")

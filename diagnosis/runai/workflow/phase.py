"""Runbook step 1.5, the phase rule: which phases go on to steps 2-5, and what the others report.

- Failed (the runbook's Crashed) and Stopped go on; Stopped only once preemption is ruled out.
- Completed (Succeeded): not a failure.
- Pending/Initializing go on only with a direct pod-failure signal (image pull, mount, init, ...);
  Pending with scheduling evidence alone is routed to the pending-workload runbook.
- Running/Degraded go on only with a confirmed crash loop; otherwise ask whether a past run was
  meant, and stop (no history, metrics or Tier-2 calls).
- A literal Suspended, and every other phase: out of scope, with the phase reported.
"""

from __future__ import annotations

from diagnosis.models import Diagnosis, Evidence, Question
from diagnosis.runai.phases import (
    FAILED,
    RUNNING,
    STARTING,
    SUCCEEDED,
    crash_confirmed,
    pod_failure_confirmed,
)
from diagnosis.runai.rules import Signal
from diagnosis.runai.workflow.evidence import read_evidence
from diagnosis.runai.workflow.finish import finished, needs_input, unknown_without_status
from diagnosis.runai.workflow.state import Next, State


async def apply_phase_rule(state: State) -> Next | Diagnosis:
    phase = (state.known_status.phase or "").strip()
    lowered = phase.lower()
    t = state.t
    signals = state.run.classify([*state.status_observations, *state.event_observations])
    if not phase:
        # Without a phase no branch of the phase rule applies: a partial diagnosis, not a guess.
        return unknown_without_status(state.noted(t("lim.no_phase")))
    if lowered in FAILED or lowered == "stopped":
        return Next(read_evidence, state)
    if lowered in SUCCEEDED:
        return finished(state, "not_a_failure", root_cause=t("rc.succeeded", phase=phase))
    if lowered in STARTING:
        return _starting(state, signals, phase)
    if lowered == "suspended":
        return finished(state, "out_of_scope", root_cause=t("rc.suspended", phase=phase))
    if lowered in RUNNING:
        return _running(state, signals, phase)
    return finished(state, "out_of_scope", root_cause=t("rc.other_phase", phase=phase))


def _starting(state: State, signals: list[Signal], phase: str) -> Next | Diagnosis:
    t = state.t
    if pod_failure_confirmed(signals):
        return Next(read_evidence, state)
    if phase.lower() != "pending":
        return finished(state, "out_of_scope", root_cause=t("rc.initializing", phase=phase))
    scheduling = [signal for signal in signals if signal.rule.role == "scheduling"]
    state = state.with_evidence(
        *(
            Evidence(source=s.observation.source, field=s.observation.field, text=s.observation.quoted())
            for s in scheduling[:3]
        )
    )
    if not scheduling:
        state = state.noted(t("lim.pending_no_reason"))
    state = state.stepped(t("next.pending_workflow"))
    direct = any(signal.observation.kind == "event" for signal in scheduling)
    return finished(
        state,
        "routed",
        route="pending_scheduling",
        confidence="HIGH" if direct else "MEDIUM",
        root_cause=t("rc.pending_scheduling"),
    )


def _running(state: State, signals: list[Signal], phase: str) -> Next | Diagnosis:
    t = state.t
    if crash_confirmed(signals):
        return Next(read_evidence, state)
    if not state.events_read:
        state = state.noted(t("lim.running_events_unavailable"))
    name = state.known_status.name or "?"
    return needs_input(
        state,
        root_cause=t("rc.running", phase=phase),
        questions=[Question(key="past_run", prompt=t("q.past_run", name=name, phase=phase))],
    )

"""Preemption: the wrong runbook. Found in status, events, history or Tier 2, it routes the request.

A preemption is a scheduler-initiated eviction (`Evict` / `Preempted` with "preempted by", reclaim
or consolidation wording, or a `DisruptionTarget` condition with reason `PreemptionByScheduler`)
after the workload's last start (the newest `Started` event; any time when there is none), not
followed by a failure signal: an OOM kill or a non-zero exit other than the 137/143 the eviction
itself causes. The eviction wording is KAI-Scheduler's, the open-sourced Run:ai scheduler:
https://github.com/NVIDIA/KAI-Scheduler
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from diagnosis.models import Diagnosis, Evidence
from diagnosis.runai.rules import KILL_EXIT_CODES, Signal
from diagnosis.runai.signals import Observation
from diagnosis.runai.workflow.finish import finished
from diagnosis.runai.workflow.state import State

_EPOCH = datetime.min.replace(tzinfo=UTC)


def _last_start(observations: Sequence[Observation]) -> datetime | None:
    starts = [o.at for o in observations if o.kind == "event" and o.reason.lower() == "started" and o.at]
    return max(starts) if starts else None


def _failure_after(signals: list[Signal], evicted_at: datetime) -> bool:
    for signal in signals:
        at = signal.observation.at
        if signal.rule.role != "cause" or at is None or at <= evicted_at:
            continue
        code = signal.observation.exit_code
        if signal.category == "OOM_KILLED" or (code not in (None, 0) and code not in KILL_EXIT_CODES):
            return True
    return False


def find_preemption(state: State, observations: Sequence[Observation]) -> Signal | None:
    """The newest preemption after the last start that no failure follows, if any."""
    signals = state.run.classify(observations)
    last_start = _last_start(observations)
    found = [
        signal
        for signal in signals
        if signal.rule.role == "preemption"
        and (last_start is None or signal.observation.at is None or signal.observation.at >= last_start)
    ]
    if not found:
        return None
    newest = max(found, key=lambda signal: signal.observation.at or _EPOCH)
    evicted_at = newest.observation.at
    if evicted_at is not None and _failure_after(signals, evicted_at):
        return None
    return newest


def routed_preempted(state: State, signal: Signal) -> Diagnosis:
    observation = signal.observation
    if state.target.cluster_id:
        state = state.with_evidence(
            Evidence(source="get_workload_status", field="clusterId", text=state.target.cluster_id)
        )
    state = state.with_evidence(
        Evidence(source=observation.source, field=observation.field, text=observation.quoted())
    ).stepped(state.t("next.preemption_workflow"))
    direct = observation.kind in ("event", "condition")
    return finished(
        state,
        "routed",
        route="preempted",
        confidence="HIGH" if direct else "MEDIUM",
        root_cause=state.t("rc.preempted"),
    )


def route_if_preempted(state: State, observations: Sequence[Observation]) -> Diagnosis | None:
    """The routed diagnosis when the observations show a preemption, else None."""
    signal = find_preemption(state, observations)
    return routed_preempted(state, signal) if signal is not None else None

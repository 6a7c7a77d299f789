"""Runbook step 5: the category with its evidence, the recurrence in the lookback, the report's text.

Recurrence counts distinct failures of the same category inside the lookback (signals of one
category chained less than 120 s apart are one failure), and only when history was read.
"""

from __future__ import annotations

from datetime import datetime

from diagnosis.models import Diagnosis, Measurements, Recurrence
from diagnosis.runai.compose import Context, compose_diagnosed
from diagnosis.runai.phases import TERMINAL
from diagnosis.runai.recurrence import count_failures
from diagnosis.runai.rules import Verdict
from diagnosis.runai.workflow.finish import with_deadline_note
from diagnosis.runai.workflow.state import Conditional, State
from diagnosis.runai.workflow.targets import namespace
from diagnosis.timeutil import parse_instant


async def conclude(state: State) -> Diagnosis:
    found = state.conditional
    if found is None:
        raise LookupError("step 4 runs before step 5")
    verdict = found.verdict
    context = _context(state, found)
    recurrence: Recurrence | None = None
    if state.history_read and verdict.category != "UNKNOWN":
        failure_at = _current_failure_at(state, verdict)
        counted = count_failures(
            found.signals,
            category=verdict.category,
            current_failure_at=failure_at,
            current_run_start=_run_start(state, failure_at),
            now=state.run.now,
            lookback=state.run.lookback,
        )
        window = state.run.lookback_text
        recurrence = Recurrence(count=counted.count, window=window, recurring=counted.count >= 2)
        context.occurrences = counted.occurrences
        if not counted.current_inside:
            state = state.noted(state.t("lim.failure_outside_lookback", window=window))
    elif verdict.category != "UNKNOWN" and not state.history_read:
        state = state.noted(state.t("lim.recurrence_unknown"))
    context.recurrence = recurrence
    composed = compose_diagnosed(context)
    seen = {(item.source, item.field, item.text) for item in state.evidence}
    for item in composed.evidence:
        key = (item.source, item.field, item.text)
        if key not in seen:
            seen.add(key)
            state = state.with_evidence(item)
    state = state.noted(*composed.limitations).stepped(*composed.next_steps)
    state = with_deadline_note(state)
    return Diagnosis(
        platform="runai",
        target=state.target,
        outcome="diagnosed",
        category=verdict.category,
        signature=verdict.signature,
        confidence=verdict.confidence,
        root_cause=composed.root_cause,
        evidence=list(state.evidence),
        measurements=composed.measurements or Measurements(),
        recurrence=recurrence,
        recommendations=composed.recommendations,
        limitations=list(state.limitations),
        next_steps=list(state.next_steps),
        calls=list(state.run.source.calls),
    )


def _context(state: State, found: Conditional) -> Context:
    return Context(
        t=state.t,
        status=state.known_status,
        spec=state.spec,
        pods=list(state.pods),
        tier2=found.tier2,
        verdict=found.verdict,
        signals=found.signals,
        lookback_text=state.run.lookback_text,
        namespace=namespace(state)[0],
        metrics_answer=found.metrics_answer,
    )


def _run_start(state: State, failure_at: datetime | None) -> datetime | None:
    """When the run that failed started: the newest Started event or Running phase update before
    the failure, else the workload's creation."""
    starts = [
        o.at
        for o in [*state.event_observations, *state.history_observations]
        if o.at is not None
        and (failure_at is None or o.at <= failure_at)
        and (
            (o.kind == "event" and o.reason.lower() == "started")
            or (o.kind == "phase_update" and o.reason.lower() == "running")
        )
    ]
    return max(starts) if starts else parse_instant(state.known_status.createdAt)


def _current_failure_at(state: State, verdict: Verdict) -> datetime | None:
    status = state.known_status
    if (status.phase or "").lower() in TERMINAL:
        moment = parse_instant(status.completedAt) or parse_instant(status.phaseUpdatedAt)
        if moment is not None:
            return moment
    times = [s.observation.at for s in verdict.supporting if s.observation.at is not None]
    if times:
        return max(times)
    return parse_instant(status.phaseUpdatedAt)

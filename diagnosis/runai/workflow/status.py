"""Runbook step 1.2-1.6: the workload's status and recent events, the cluster check, preemption.

Status and events are requested together (both need only the workload id), `get_workload_status`
first in `calls`; the cluster check, preemption and the phase rule are applied before anything of
step 2 is requested. `events: null` is a retrieval failure, not
"no events" (runbook step 1.6).
"""

from __future__ import annotations

import asyncio

from diagnosis.evidence.answer import Answer
from diagnosis.models import Diagnosis, Evidence
from diagnosis.runai import parse
from diagnosis.runai.paging import Paged, event_items, read_event_pages
from diagnosis.runai.signals import from_events, from_status, quote
from diagnosis.runai.workflow.finish import finished, refused, unknown_without_status, unreachable
from diagnosis.runai.workflow.phase import apply_phase_rule
from diagnosis.runai.workflow.preemption import route_if_preempted
from diagnosis.runai.workflow.state import Next, State


async def read_status(state: State) -> Next | Diagnosis:
    """Status and events together (both need only the workload id); the events wait in the state
    for `read_events` until the status has passed its checks."""
    workload_id = state.workload_id
    answer = state.cached_status.get(workload_id)
    if answer is None or workload_id not in state.cached_events:
        notes: list[str] = []
        fetched_answer, paged = await asyncio.gather(
            _status(state, answer),
            read_event_pages(state.run.source, workload_id, cut=state.run.cut, t=state.t, note=notes.append),
        )
        answer = fetched_answer
        state = state.but(cached_events={**state.cached_events, workload_id: paged}, event_notes=tuple(notes))
    state = state.with_target(workload_id=workload_id)
    body = answer.body
    listed = state.deleted_entries.get(workload_id)
    if listed is not None:
        # Found among deleted workloads: said; and when the status endpoint no longer answers for
        # it, its entry in the list of deleted workloads is its status.
        deleted_at = listed.get("deletedAt") or "?"
        state = state.noted(state.t("lim.deleted_workload", deleted_at=deleted_at))
        if answer.status == 404:
            failure = answer.describe_failure(lang=state.t.lang)
            state = state.noted(state.t("lim.deleted_status_from_list", failure=failure))
            state = state.but(status_source="list_workloads")
            body = listed
    if not answer.ok and body is answer.body:
        return _status_failed(state, answer)
    status, problem = parse.view(parse.Workload, body)
    if status is None:
        return unknown_without_status(
            state.noted(state.t("lim.shape", call="get_workload_status", problem=problem))
        )
    return _check_cluster(_with_status(state, status))


async def _status(state: State, cached: Answer | None) -> Answer:
    if cached is not None:
        return cached
    return await state.run.source.fetch("get_workload_status", workloadId=state.workload_id)


def _status_failed(state: State, answer: Answer) -> Diagnosis:
    t = state.t
    if answer.status == 404:
        state = state.with_evidence(
            Evidence(source=answer.op, field=None, text=quote(answer.describe_failure()), value=404)
        )
        return finished(state, "not_found", root_cause=t("rc.not_found", id=state.workload_id))
    if answer.denied:
        return refused(state, answer)
    if answer.unreachable:
        return unreachable(state, answer)
    return unknown_without_status(
        state.noted(
            t("lim.call_failed", call="get_workload_status", failure=answer.describe_failure(lang=t.lang))
        )
    )


def _with_status(state: State, status: parse.Workload) -> State:
    request = state.run.request
    state = state.but(status=status).with_target(
        workload_id=status.id or state.workload_id,
        name=status.name or state.target.name,
        project=status.projectName or state.target.project,
        type=status.type,
        phase=status.phase,
    )
    if request.workload_id and request.workload_name and status.name and status.name != request.workload_name:
        # When both an id and a name are given, the id wins; a different name is noted.
        state = state.noted(state.t("lim.name_differs", given=request.workload_name, actual=status.name))
    return state.with_evidence(Evidence(source=state.status_source, field="phase", text=status.phase or "?"))


def _check_cluster(state: State) -> Next | Diagnosis:
    """The workload must be on the cluster asked for: never diagnose one of another cluster."""
    status = state.known_status
    asked = state.run.request.cluster_id or ""
    if not status.clusterId:
        return Next(read_events, state.noted(state.t("lim.no_cluster_id")).with_target(cluster_id=asked))
    if status.clusterId.lower() != asked.lower():
        state = state.with_target(cluster_id=status.clusterId, asked_cluster_id=asked).with_evidence(
            Evidence(source=state.status_source, field="clusterId", text=status.clusterId)
        )
        return finished(
            state,
            "wrong_cluster",
            root_cause=state.t("rc.wrong_cluster", asked=asked, actual=status.clusterId),
        )
    return Next(read_events, state.with_target(cluster_id=status.clusterId))


async def read_events(state: State) -> Next | Diagnosis:
    paged = state.cached_events[state.workload_id]
    state = state.noted(*state.event_notes)
    if paged.failure is not None and paged.failure.denied:
        return refused(state, paged.failure)
    state = _absorb_events(state, paged)
    preempted = route_if_preempted(state, [*state.status_observations, *state.event_observations])
    if preempted is not None:
        return preempted
    return Next(apply_phase_rule, state)


def _absorb_events(state: State, paged: Paged) -> State:
    t = state.t
    if paged.failure is not None and not paged.items:
        if paged.null_collection:
            state = state.noted(t("lim.events_null"))
        else:
            failure = paged.failure.describe_failure(lang=t.lang)
            state = state.noted(t("lim.call_failed", call="get_workload_events", failure=failure))
    else:
        state = state.but(events_read=True)
        if paged.failure is not None:
            state = state.noted(t("lim.events_partial", failure=paged.failure.describe_failure(lang=t.lang)))
    return state.but(
        status_observations=tuple(from_status(state.known_status, source=state.status_source)),
        event_observations=tuple(from_events(event_items(paged), source="get_workload_events")),
    )

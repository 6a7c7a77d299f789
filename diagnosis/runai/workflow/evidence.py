"""Runbook steps 2 and 3: the submitted spec, the pods and the history, read together.

A Stopped workload whose events could not be read rules preemption out in history first. A
preemption that only shows in history still routes. The spec corroborates, never classifies alone.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from diagnosis.evidence.answer import Answer
from diagnosis.models import Diagnosis
from diagnosis.runai import parse
from diagnosis.runai.paging import HISTORY_PAGE_SIZE, Paged, all_older_than, history_created_at, read_pages
from diagnosis.runai.routes import spec_variant_for_type
from diagnosis.runai.signals import from_history
from diagnosis.runai.workflow.conditional import gather_conditional
from diagnosis.runai.workflow.finish import refused
from diagnosis.runai.workflow.preemption import route_if_preempted
from diagnosis.runai.workflow.state import Next, Note, Run, State
from diagnosis.timeutil import parse_instant

_EPOCH = datetime.min.replace(tzinfo=UTC)


async def read_evidence(state: State) -> Next | Diagnosis:
    stopped = (state.known_status.phase or "").lower() == "stopped"
    if stopped and not state.events_read:
        return Next(_history_first, state)
    run = state.run
    notes: list[str] = []
    spec_answer, pods_paged, history_paged = await asyncio.gather(
        read_spec(run, state, notes.append),
        read_pods(run, state.workload_id, notes.append),
        read_history(run, state.workload_id, notes.append),
    )
    state = absorb_history(state.noted(*notes), history_paged)
    return _absorb_step2(state, spec_answer, pods_paged, history_paged)


async def _history_first(state: State) -> Next | Diagnosis:
    """A Stopped workload without events: preemption is ruled out in history before going on."""
    run = state.run
    notes: list[str] = []
    history_paged = await read_history(run, state.workload_id, notes.append)
    state = absorb_history(state.noted(*notes), history_paged)
    preempted = route_if_preempted(state, [*state.status_observations, *state.history_observations])
    if preempted is not None:
        return preempted
    notes = []
    spec_answer, pods_paged = await asyncio.gather(
        read_spec(run, state, notes.append), read_pods(run, state.workload_id, notes.append)
    )
    return _absorb_step2(state.noted(*notes), spec_answer, pods_paged, history_paged)


def _absorb_step2(
    state: State, spec_answer: Answer | None, pods_paged: Paged, history_paged: Paged
) -> Next | Diagnosis:
    for answer in (spec_answer, pods_paged.failure, history_paged.failure):
        if answer is not None and answer.denied:
            return refused(state, answer)
    state = absorb_pods(absorb_spec(state, spec_answer), pods_paged)
    preempted = route_if_preempted(state, state.timeline())
    if preempted is not None:
        return preempted
    return Next(gather_conditional, state)


async def read_spec(run: Run, state: State, note: Note) -> Answer | None:
    variant = spec_variant_for_type(state.known_status.type)
    if variant is None:
        note(run.t("lim.spec_type_unknown", type=state.known_status.type or "?"))
        return None
    return await run.source.fetch("get_workload_spec", variant=variant, workloadId=state.workload_id)


async def read_pods(run: Run, workload_id: str, note: Note) -> Paged:
    paged = await read_pages(
        run.source, "get_workload_pods", "pods", t=run.t, note=note, workloadId=workload_id
    )
    if paged.failure is not None or paged.items:
        return paged
    # Restarted or replaced pods may be listed only with `deleted=true`. Asked only when the plain
    # answer is empty; if that read fails, the empty answer stands.
    deleted = await read_pages(
        run.source, "get_workload_pods", "pods", t=run.t, note=note, deleted=True, workloadId=workload_id
    )
    if deleted.failure is not None or not deleted.items:
        return paged
    deleted.items = [(f"{where}@deleted=true", item) for where, item in deleted.items]
    return deleted


async def read_history(run: Run, workload_id: str, note: Note) -> Paged:
    return await read_pages(
        run.source,
        "get_workload_history",
        "records",
        t=run.t,
        note=note,
        page_size=HISTORY_PAGE_SIZE,
        older_than_cut=all_older_than(run.cut, history_created_at),
        workloadId=workload_id,
    )


def absorb_history(state: State, paged: Paged) -> State:
    t = state.t
    if paged.failure is not None and not paged.items:
        if paged.null_collection:
            return state.noted(t("lim.history_null"))
        failure = paged.failure.describe_failure(lang=t.lang)
        return state.noted(t("lim.call_failed", call="get_workload_history", failure=failure))
    if paged.failure is not None:
        state = state.noted(t("lim.history_partial", failure=paged.failure.describe_failure(lang=t.lang)))
    records = [(where, parse.HistoryRecord.model_validate(item)) for where, item in paged.items]
    # No API version documents the order of history records: sort by meta.creationTimestamp.
    records.sort(
        key=lambda pair: parse_instant_or_epoch(pair[1].meta.creationTimestamp if pair[1].meta else None)
    )
    return state.but(history_read=True, history_observations=tuple(from_history(records)))


def parse_instant_or_epoch(value: str | None) -> datetime:
    return parse_instant(value) or _EPOCH


def absorb_spec(state: State, answer: Answer | None) -> State:
    t = state.t
    if answer is None:
        return state
    if not answer.ok:
        if answer.status == 404:
            return state.noted(t("lim.spec_missing", type=state.target.type or "?"))
        return state.noted(
            t("lim.call_failed", call="get_workload_spec", failure=answer.describe_failure(lang=t.lang))
        )
    spec, problem = parse.view(parse.WorkloadSpec, answer.body)
    if spec is None or spec.spec is None:
        return state.noted(t("lim.shape", call="get_workload_spec", problem=problem or "no `spec` object"))
    return state.but(spec=spec)


def absorb_pods(state: State, paged: Paged) -> State:
    t = state.t
    if paged.failure is not None and not paged.items:
        failure = paged.failure.describe_failure(lang=t.lang)
        return state.noted(t("lim.call_failed", call="get_workload_pods", failure=failure))
    pods = tuple((where, parse.Pod.model_validate(item)) for where, item in paged.items)
    state = state.but(pods=pods)
    return state if pods else state.noted(t("lim.no_pods"))

"""The first steps: the identifiers a diagnosis needs, and Option B's name lookup.

A cluster id is always required; the workload is named by its id (Option A) or by a name and a
project (Option B). What is missing is asked for before any call.
"""

from __future__ import annotations

from diagnosis.models import Diagnosis, Question
from diagnosis.runai.workflow.finish import needs_input, refused, unreachable
from diagnosis.runai.workflow.option_b import OptionB, Stop
from diagnosis.runai.workflow.state import Next, State
from diagnosis.runai.workflow.status import read_status


async def start(state: State) -> Next | Diagnosis:
    request = state.run.request
    t = state.t
    if not request.cluster_id:
        return needs_input(
            state,
            root_cause=t("rc.needs_cluster"),
            questions=[Question(key="cluster_id", prompt=t("q.cluster_id"))],
        )
    if request.workload_id:
        return Next(read_status, state.but(workload_id=request.workload_id))
    if request.workload_name and request.project:
        return Next(resolve_by_name, state)
    return needs_input(
        state,
        root_cause=t("rc.needs_workload"),
        questions=[Question(key="workload", prompt=t("q.workload"))],
    )


async def resolve_by_name(state: State) -> Next | Diagnosis:
    """Option B; what it read is reused by step 1, its evidence comes first."""
    run = state.run
    request = run.request
    notes: list[str] = []
    resolver = OptionB(run.source, t=run.t, cut=run.cut, active=request.intent == "active", note=notes.append)
    resolved = await resolver.resolve(
        str(request.workload_name), str(request.project), str(request.cluster_id)
    )
    state = state.with_evidence(*resolver.evidence).noted(*notes)
    if isinstance(resolved, Stop):
        if resolved.denied is not None:
            return refused(state, resolved.denied)
        if resolved.unreachable is not None:
            return unreachable(state, resolved.unreachable)
        return needs_input(state, root_cause=resolved.root_cause, questions=resolved.questions)
    return Next(
        read_status,
        state.but(
            workload_id=resolved,
            cached_status=dict(resolver.cached_status),
            cached_events=dict(resolver.cached_events),
            deleted_entries=dict(resolver.deleted),
        ),
    )

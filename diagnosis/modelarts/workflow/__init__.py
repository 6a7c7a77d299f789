"""The ModelArts runbook's five phases in order.

1. discovery (discovery.py): a full job id goes on; a name is searched; nothing asks for
   an id or a name.
2. status: `ShowTrainingJobDetails` (a failure here is failures.py: unreachable, auth_failed,
   not found, a missing grant, or a 5xx), then the phase table (below), and the early exit when a task
   message already holds a traceback that names the cause (collection.py).
3. collection (collection.py, evidence.py; unfinished.py for Running and Pending): events,
   stages, the platform's diagnosis and the failing tasks' log previews in one round. The
   full-log URL is never fetched here (it is a 5-minute credential, offered on demand only).
4. analysis (conclude.py): signals from every source, consequences dropped, the strongest
   category first; HIGH / MEDIUM / LOW and the fault level (compose.py).
5. output: a `Diagnosis` (state.py); the report renderers do the formatting.

Pure: every answer comes through the Source, the clock is the `now` argument.
"""

from __future__ import annotations

from datetime import datetime

from diagnosis.evidence.answer import Answer
from diagnosis.modelarts.parse.job import Job, parse_job
from diagnosis.modelarts.workflow.collection import fault_path
from diagnosis.modelarts.workflow.compose import secondary_part
from diagnosis.modelarts.workflow.discovery import JobListing, discover, list_jobs
from diagnosis.modelarts.workflow.failures import details_failure, first_call_failed, search_failed
from diagnosis.modelarts.workflow.state import DETAILS, Run, Source
from diagnosis.modelarts.workflow.unfinished import pending_path, running_path
from diagnosis.models import DiagnoseRequest, Diagnosis

__all__ = ["JobListing", "Source", "diagnose", "list_jobs", "listing_failure"]

STOPPED_PHASES = frozenset({"Stopped", "Terminated", "Terminating"})
NORMAL_PHASES = frozenset({"Completed", "Success", "Succeeded"})
OBSERVE_PHASES = frozenset({"Creating", "Initializing"})


async def assess(run: Run, job: Job) -> Diagnosis:
    t = run.t
    phase = job.phase
    run.cite(DETAILS, "status.phase", phase or "null")
    if job.secondary_phase and job.secondary_phase != phase:
        run.cite(DETAILS, "status.secondary_phase", job.secondary_phase)
    if job.is_fault:
        return await fault_path(run, job)
    if phase in STOPPED_PHASES:
        return run.result(
            "out_of_scope", root_cause=t("root.stopped", phase=phase, secondary=secondary_part(t, job))
        )
    if phase in NORMAL_PHASES:
        return run.result("not_a_failure", fault_level="Normal", root_cause=t("root.completed", phase=phase))
    if phase == "Running":
        return await running_path(run, job)
    if phase in OBSERVE_PHASES:
        run.next_steps.append(t("next.look_again"))
        return run.result("observe", root_cause=t("root.creating", phase=phase))
    if phase == "Pending":
        return await pending_path(run, job)
    if phase is None:
        run.limitations.append(t("limit.no_phase"))
        run.next_steps.append(t("next.retry_details", reason=t("reason.no_phase")))
        run.next_steps.append(t("direction.console"))
        return run.insufficient_result()
    return run.result("out_of_scope", root_cause=t("root.other_phase", phase=phase))


async def diagnose(request: DiagnoseRequest, source: Source, *, now: datetime, lang: str) -> Diagnosis:
    run = Run(request, source, now=now, lang=lang)
    if run.job_id is None:
        found = await discover(run)
        if isinstance(found, Diagnosis):
            return found
        run.job_id = found
    details = await source.fetch(DETAILS, training_job_id=run.job_id)
    early = details_failure(run, details)
    if early is not None:
        return early
    job = parse_job(details.body)
    if job is None:
        run.cite(DETAILS, None, run.t("evidence.unreadable"))
        run.limitations.append(run.t("limit.details_unreadable"))
        return first_call_failed(run, details)
    run.job = job
    return await assess(run, job)


def listing_failure(
    answer: Answer, *, source: Source, region: str | None, now: datetime, lang: str
) -> Diagnosis:
    """A scan whose job listing failed: permission_denied or LOW with what to do next."""
    run = Run(DiagnoseRequest(platform="modelarts", region=region), source, now=now, lang=lang)
    return search_failed(run, answer, None)

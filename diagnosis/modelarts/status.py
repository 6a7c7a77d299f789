"""Phase 2: the phase table (modelarts-runbook.md, rulings M8-M10).

A faulty phase (or secondary phase) goes on to collection; Stopped / Terminated / Terminating
are out of scope (M9); Completed is no failure; Running is checked for a stall (M8); Creating /
Initializing are observed, Pending past 30 minutes is checked for resources (M10); no phase at
all is LOW; any other phase is out of scope.
"""

from __future__ import annotations

from diagnosis.modelarts.collection import fault_path
from diagnosis.modelarts.ops import DETAILS
from diagnosis.modelarts.parse import Job
from diagnosis.modelarts.pending import pending_path
from diagnosis.modelarts.run import Run
from diagnosis.modelarts.running import running_path
from diagnosis.modelarts.wording import secondary_part
from diagnosis.models import Diagnosis

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

"""Phase 4 on a faulty job: first match wins, the runbook's A-E order,
and JOB_STALLED when a stage has stayed open for more than an hour.
"""

from __future__ import annotations

from datetime import timedelta

from diagnosis.evidence.answer import Answer
from diagnosis.modelarts.messages import format_duration
from diagnosis.modelarts.parse.job import Job
from diagnosis.modelarts.parse.stages import Stage, Stages
from diagnosis.modelarts.signals import Signal, choose
from diagnosis.modelarts.workflow.compose import (
    diagnosed_direct,
    diagnosed_indirect,
    exit_code_verdict,
    measurements,
    recommendations,
)
from diagnosis.modelarts.workflow.evidence import STALL_AGE, cite_open_stage
from diagnosis.modelarts.workflow.failures import insufficient, permission_denied
from diagnosis.modelarts.workflow.state import STAGES, Run
from diagnosis.models import Diagnosis, Measurements


def stuck_stage(run: Run, stages: Stages) -> Diagnosis | None:
    """Cite the stages; a stage still open for more than 1 hour on a faulty job is where it is stuck."""
    t = run.t
    if not stages.stages:
        run.cite(STAGES, "running_records", t("evidence.no_stages"))
        return None
    open_stage = stages.open_stage()
    if open_stage is None:
        cited = next((s for s in stages.stages if s.name == "running"), stages.stages[-1])
        run.cite(
            STAGES,
            f"{cited.path}.{cited.end_field}",
            t(
                "evidence.stage_ended",
                name=cited.name,
                start=cited.start_text or "?",
                end=cited.end_text or "?",
            ),
        )
        return None
    age = cite_open_stage(run, open_stage)
    if age is None or age <= STALL_AGE or run.job is None:
        return None
    return run.result(
        "diagnosed",
        category="JOB_STALLED",
        confidence="MEDIUM",
        fault_level="Suspected",
        signature=t("signature.stage", name=open_stage.name),
        root_cause=t("root.stage_stuck", name=open_stage.name, age=format_duration(age, run.lang)),
        recommendations=recommendations(run, ("stall_check",), {"stage": open_stage.name}, medium=True),
        measurements=measurements(run.job),
    )


def stalled_running(
    run: Run, stage: Stage | None, stage_age: timedelta | None, log_age: timedelta | None
) -> Diagnosis | None:
    """A Running job whose open stage and newest log line are both more than an hour old."""
    if (
        stage is None
        or stage_age is None
        or stage_age <= STALL_AGE
        or log_age is None
        or log_age <= STALL_AGE
    ):
        return None
    t = run.t
    return run.result(
        "diagnosed",
        category="JOB_STALLED",
        confidence="MEDIUM",
        fault_level="Suspected",
        signature=t("signature.stage", name=stage.name),
        root_cause=t(
            "root.stalled",
            name=stage.name,
            stage_age=format_duration(stage_age, run.lang),
            log_age=format_duration(log_age, run.lang),
        ),
        recommendations=recommendations(
            run, ("stall_check", "stall_restart"), {"stage": stage.name}, medium=True
        ),
        measurements=Measurements(),
    )


def conclude(
    run: Run,
    job: Job,
    signals: list[Signal],
    *,
    stages: Stages | None = None,
    events_read: Answer | None = None,
) -> Diagnosis:
    winner = choose(signals)
    run.consequences = [s for s in signals if s.consequence and winner is not None and not winner.consequence]
    # The stages are cited whatever wins; their verdict counts only after the exit code's.
    stage_verdict = stuck_stage(run, stages) if stages is not None else None
    if winner is not None and winner.direct and not winner.consequence:
        return diagnosed_direct(run, job, winner, signals)
    if run.denied and winner is None:
        return permission_denied(run, run.denied[0])
    if winner is not None:
        # Only a consequence (or an indirect line) names a category: most likely, not certain.
        return diagnosed_indirect(run, job, winner)
    exit_result = exit_code_verdict(run, job)
    if exit_result is not None:
        return exit_result
    if stage_verdict is not None:
        return stage_verdict
    return insufficient(run, job, events_read=events_read)

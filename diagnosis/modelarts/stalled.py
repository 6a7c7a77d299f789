"""JOB_STALLED: a stage open for more than an hour, at MEDIUM and only Suspected.

On a faulty job the open stage alone says where it is stuck; on a Running job the newest log
line must be more than an hour old too (naive log times read in the job's one zone, ages.py).
"""

from __future__ import annotations

from datetime import timedelta

from diagnosis.modelarts.ages import STALL_AGE
from diagnosis.modelarts.causes import measurements, recommendations
from diagnosis.modelarts.messages import format_duration
from diagnosis.modelarts.ops import STAGES
from diagnosis.modelarts.parse import Stage, Stages
from diagnosis.modelarts.run import Run
from diagnosis.modelarts.stages import cite_open_stage
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

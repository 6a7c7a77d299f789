"""`ListTrainingJobStages`: read the answer, cite the stage still open and how long it has been."""

from __future__ import annotations

from datetime import timedelta

from diagnosis.evidence.source import Answer
from diagnosis.modelarts.ages import stage_age
from diagnosis.modelarts.ops import STAGES
from diagnosis.modelarts.parse import Stage, Stages, parse_stages
from diagnosis.modelarts.run import Run


def read_stages(run: Run, answer: Answer) -> Stages | None:
    if not answer.ok:
        run.note_failure(answer, what=run.t("what.stages"))
        return None
    stages = parse_stages(answer.body)
    if stages is None:
        run.cite(STAGES, None, run.t("evidence.unreadable"))
        run.limitations.append(run.t("limit.unreadable", op=STAGES))
    return stages


def cite_open_stage(run: Run, stage: Stage) -> timedelta | None:
    """Cite the open stage with its age in seconds; the age (None when it cannot be told)."""
    age = stage_age(run, stage)
    run.cite(
        STAGES,
        f"{stage.path}.start_time" if stage.status is None else f"{stage.path}.status",
        run.t("evidence.stage_open", name=stage.name, start=stage.start_text or "?"),
        int(age.total_seconds()) if age is not None else None,
    )
    return age

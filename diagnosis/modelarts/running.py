"""A Running job (rulings M8): a false alarm unless it is stalled.

Read the stages and every task's log preview (at most 8) concurrently; JOB_STALLED when the open
stage and the newest timestamped log line are both more than an hour old (stalled.py), else
`not_a_failure` with the ages that were read. A log time without an offset is read both as UTC
and as China time (G15, ages.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, timedelta

from diagnosis.evidence.source import Answer
from diagnosis.logs.scan import scan_text
from diagnosis.modelarts.ages import newest_log_age
from diagnosis.modelarts.messages import format_duration
from diagnosis.modelarts.ops import PREVIEW, STAGES
from diagnosis.modelarts.parse import CHINA_OFFSET, Job, Stage, TimeReading, parse_preview
from diagnosis.modelarts.permission import permission_denied
from diagnosis.modelarts.previews import cap_tasks, fetch_preview, note_preview_failure
from diagnosis.modelarts.run import Run, aware
from diagnosis.modelarts.stages import cite_open_stage, read_stages
from diagnosis.modelarts.stalled import stalled_running
from diagnosis.modelarts.wording import log_field
from diagnosis.models import Diagnosis


async def running_path(run: Run, job: Job) -> Diagnosis:
    t = run.t
    tasks = cap_tasks(run, job.task_ids)
    stages_answer, *preview_answers = await asyncio.gather(
        run.source.fetch(STAGES, training_job_id=job.job_id or run.job_id),
        *(fetch_preview(run, job, task) for task in tasks),
    )
    stages = read_stages(run, stages_answer)
    newest = _latest_log_times(run, tasks, preview_answers)
    open_stage = stages.open_stage() if stages is not None else None
    stage_age: timedelta | None = None
    if stages is not None:
        if open_stage is None:
            run.cite(STAGES, "running_records", t("evidence.no_open_stage"))
        else:
            stage_age = cite_open_stage(run, open_stage)
    log_age = newest_log_age(run, newest)
    stalled = stalled_running(run, open_stage, stage_age, log_age)
    if stalled is not None:
        return stalled
    if run.denied:
        return permission_denied(run, run.denied[0])
    if not newest and run.previews_read:
        run.limitations.append(t("limit.no_log_timestamp"))
    elif not run.previews_read and tasks:
        run.limitations.append(t("limit.no_log_read"))
    if not tasks:
        run.limitations.append(t("limit.no_task_ids"))
    return run.result(
        "not_a_failure",
        fault_level="Normal",
        root_cause=_running_root(run, open_stage, stage_age, log_age),
    )


def _latest_log_times(run: Run, tasks: Sequence[str], answers: Sequence[Answer]) -> list[TimeReading]:
    """Each readable preview's newest timestamp, cited; in the zones it may be in."""
    newest: list[TimeReading] = []
    for task, answer in zip(tasks, answers, strict=True):
        if not answer.ok:
            note_preview_failure(run, task, answer)
            continue
        preview = parse_preview(answer.body, answer.text)
        if preview is None:
            run.limitations.append(run.t("limit.preview_unreadable", task=task))
            continue
        run.previews_read[task] = preview
        latest = scan_text(preview.content).latest_timestamp
        if latest is None:
            continue
        if latest.has_offset:
            reading = TimeReading(latest.text, (aware(latest.value),))
        else:
            naive = latest.value.replace(tzinfo=UTC)
            reading = TimeReading(latest.text, (naive, naive - CHINA_OFFSET))
        newest.append(reading)
        run.cite(
            PREVIEW,
            log_field(preview.content_field, task),
            run.t("evidence.latest_log_line", text=latest.text),
        )
    return newest


def _running_root(
    run: Run, stage: Stage | None, stage_age: timedelta | None, log_age: timedelta | None
) -> str:
    t = run.t
    parts = [t("root.running")]
    if stage is not None and stage_age is not None:
        parts.append(t("root.running_stage", name=stage.name, age=format_duration(stage_age, run.lang)))
    if log_age is not None:
        parts.append(t("root.running_log", age=format_duration(log_age, run.lang)))
    return t("root.join").join(parts)

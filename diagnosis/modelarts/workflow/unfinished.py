"""Jobs that have not failed (yet): a Running job is a false alarm unless it is stalled; a
Pending one is observed, unless it has waited more than 30 minutes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, timedelta

from diagnosis.evidence.answer import Answer
from diagnosis.logs.scan import scan_text
from diagnosis.modelarts.messages import format_duration
from diagnosis.modelarts.parse.job import Job
from diagnosis.modelarts.parse.preview import parse_preview
from diagnosis.modelarts.parse.stages import Stage
from diagnosis.modelarts.parse.times import CHINA_OFFSET, TimeReading
from diagnosis.modelarts.signals import choose
from diagnosis.modelarts.workflow.compose import (
    cite_winner,
    fault_level,
    fill,
    inline,
    log_field,
    recommendations,
    secondary_part,
)
from diagnosis.modelarts.workflow.conclude import stalled_running
from diagnosis.modelarts.workflow.evidence import (
    cap_tasks,
    cite_open_stage,
    fetch_events,
    fetch_preview,
    newest_log_age,
    note_preview_failure,
    read_events,
    read_stages,
)
from diagnosis.modelarts.workflow.failures import permission_denied
from diagnosis.modelarts.workflow.state import DETAILS, PREVIEW, STAGES, Run, aware
from diagnosis.models import Confidence, Diagnosis
from diagnosis.timeutil import iso


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


PENDING_AGE = timedelta(minutes=30)  # a Pending job younger than this is only observed


async def pending_path(run: Run, job: Job) -> Diagnosis:
    t = run.t
    created = job.create_time
    if created is None:
        run.limitations.append(t("limit.no_create_time"))
        run.next_steps.append(t("next.look_again"))
        return run.result(
            "observe",
            root_cause=t("root.pending", phase=job.phase, secondary=secondary_part(t, job), age="?"),
        )
    age = run.now - aware(created)
    run.cite(DETAILS, "metadata.create_time", iso(created), int(age.total_seconds()))
    if age <= PENDING_AGE:
        run.next_steps.append(t("next.look_again"))
        return run.result(
            "observe",
            root_cause=t(
                "root.pending",
                phase=job.phase,
                secondary=secondary_part(t, job),
                age=format_duration(age, run.lang),
            ),
        )
    answer = await fetch_events(run, level=None)
    signals = [s for s in read_events(run, answer, level=None) if s.category == "RESOURCE_INSUFFICIENT"]
    winner = choose(signals)
    if winner is None and run.denied:
        return permission_denied(run, run.denied[0])
    if winner is None:
        run.next_steps.append(t("next.look_again"))
        run.next_steps.append(t("next.check_pool"))
        return run.result(
            "observe",
            root_cause=t(
                "root.pending_long",
                phase=job.phase,
                secondary=secondary_part(t, job),
                age=format_duration(age, run.lang),
            ),
        )
    cite_winner(run, winner)
    confidence: Confidence = "HIGH" if winner.direct else "MEDIUM"
    root = t(
        "root.pending_resources",
        age=format_duration(age, run.lang),
        line=inline(winner.line),
        meaning=t(winner.rule.meaning_key, **fill(winner.values)),
    )
    if confidence == "MEDIUM":
        root = t("root.most_likely", cause=root)
    return run.result(
        "diagnosed",
        category="RESOURCE_INSUFFICIENT",
        confidence=confidence,
        fault_level=fault_level(job, "RESOURCE_INSUFFICIENT", confidence),
        signature=winner.line,
        root_cause=root,
        recommendations=recommendations(run, winner.rule.fixes, winner.values, medium=confidence == "MEDIUM"),
    )

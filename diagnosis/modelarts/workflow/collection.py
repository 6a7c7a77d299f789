"""Phase 3 on a faulty job (Failed, Timeout, Abnormal, or a faulty secondary phase).

Every task message and exit code is cited. A message that names the cause with a traceback
exits early: no call. Else one round reads the Error events, the stages, the platform's own
diagnosis and the failing tasks' log previews; the previews count only when nothing else named
the cause (the extended path). The full-log URL is never fetched. conclude.py concludes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from diagnosis.evidence.answer import Answer
from diagnosis.modelarts.parse.job import Job
from diagnosis.modelarts.parse.user_diagnosis import parse_user_diagnosis
from diagnosis.modelarts.signals import Signal, diagnosis_signals, message_signals, platform_signals, shorten
from diagnosis.modelarts.workflow.conclude import conclude
from diagnosis.modelarts.workflow.evidence import (
    fetch_events,
    fetch_previews,
    read_events,
    read_previews,
    read_stages,
)
from diagnosis.modelarts.workflow.state import DETAILS, STAGES, USER_DIAGNOSIS, Run
from diagnosis.models import Diagnosis


async def fault_path(run: Run, job: Job) -> Diagnosis:
    from_messages = message_signals(job)
    from_platform = platform_signals(job)
    _cite_unexplained_messages(run, job, from_messages)
    _cite_exit_codes(run, job)
    if any(signal.early_exit for signal in from_messages):
        # Early exit: the task message names the cause; no phase-3 call.
        return conclude(run, job, [*from_messages, *from_platform])

    # One round: the events, the stages, the platform's own diagnosis (unless the details already
    # hold its analysis) and, unless the details already name the cause, the failing tasks' log
    # previews (the extended path). The previews count only when the rest names no cause.
    job_id = job.job_id or run.job_id
    named = _names_cause([*from_messages, *from_platform])
    tasks = [] if named else _failing_tasks(job)
    ask_diagnosis = not job.analyses
    events_answer, stages_answer, *more = await asyncio.gather(
        fetch_events(run, level="Error"),
        run.source.fetch(STAGES, training_job_id=job_id),
        *fetch_previews(run, job, tasks),
        *([run.source.fetch(USER_DIAGNOSIS, training_job_id=job_id)] if ask_diagnosis else []),
    )
    preview_answers = more[: len(more) - 1] if ask_diagnosis else more
    from_events = read_events(run, events_answer, level="Error")
    stages = read_stages(run, stages_answer)
    from_diagnosis = read_user_diagnosis(run, more[-1]) if ask_diagnosis else []
    signals = [*from_messages, *from_platform, *from_diagnosis, *from_events]
    if not named and not _names_cause(signals):
        signals.extend(read_previews(run, tasks, preview_answers))
    return conclude(run, job, signals, stages=stages, events_read=events_answer)


def _names_cause(signals: Sequence[Signal]) -> bool:
    return any(signal.direct and not signal.consequence for signal in signals)


def read_user_diagnosis(run: Run, answer: Answer) -> list[Signal]:
    """`ShowTrainingJobUserDiagnosis`: the conclusions that word a cause (others are cited)."""
    if answer.status == 404:
        # Not every region offers the platform's diagnosis, and a job may have none.
        run.limitations.append(run.t("limit.user_diagnosis_none"))
        return []
    if not answer.ok:
        run.note_failure(answer, what=run.t("what.user_diagnosis"))
        return []
    diagnosis = parse_user_diagnosis(answer.body)
    if diagnosis is None:
        run.cite(USER_DIAGNOSIS, None, run.t("evidence.unreadable"))
        run.limitations.append(run.t("limit.unreadable", op=USER_DIAGNOSIS))
        return []
    signals = diagnosis_signals(diagnosis)
    worded = {signal.order for signal in signals}
    for conclusion in diagnosis.conclusions:
        label = " ".join(part for part in (conclusion.kind, conclusion.code) if part)
        if conclusion.index not in worded and label:
            run.cite(USER_DIAGNOSIS, conclusion.path, label)
    return signals


def _failing_tasks(job: Job) -> list[str]:
    """Tasks with a non-zero exit code, else every task."""
    failing = [s.task for s in job.task_statuses if s.task and s.exit_code not in (None, 0)]
    return list(dict.fromkeys(failing)) or job.task_ids


def _cite_unexplained_messages(run: Run, job: Job, named: Sequence[Signal]) -> None:
    """Messages no rule names are evidence too (e.g. a vague `internal error`)."""
    named_fields = {signal.field for signal in named}
    for status in job.task_statuses:
        if status.message and f"{status.path}.message" not in named_fields:
            run.cite(DETAILS, f"{status.path}.message", shorten(status.message))


def _cite_exit_codes(run: Run, job: Job) -> None:
    for status in job.task_statuses:
        if status.exit_code is not None:
            run.cite(DETAILS, f"{status.path}.exit_code", str(status.exit_code), status.exit_code)

"""LOW: nothing names a cause. Say so, list what was collected and what to
fetch next (the full log of the failing task, the calls to retry), never a guess."""

from __future__ import annotations

from diagnosis.evidence.source import Answer
from diagnosis.modelarts.failed_calls import retry_step
from diagnosis.modelarts.ops import EVENTS, STAGES
from diagnosis.modelarts.parse import Job
from diagnosis.modelarts.run import Run
from diagnosis.modelarts.signals import shorten
from diagnosis.modelarts.wording import inline
from diagnosis.models import Diagnosis


def _missing_facts(run: Run, job: Job) -> None:
    for status in job.task_statuses:
        if status.exit_code is None:
            run.limitations.append(run.t("limit.no_exit_code", path=status.path))
    if not job.task_statuses:
        run.limitations.append(run.t("limit.no_task_statuses"))


def _retry_steps(run: Run, message: str | None) -> None:
    """The calls that failed, to retry: each log preview, then the events and stages."""
    t = run.t
    for task, answer in run.preview_failed.items():
        failure = f"HTTP {answer.status}" if answer.status is not None else answer.describe_failure()
        said = f"`{inline(shorten(message, 120))}`" if message else t("reason.no_message_short")
        reason = t("reason.preview_failed", failure=failure, message=said)
        run.next_steps.append(t("next.retry_preview", task=task, reason=reason))
    for failed in run.failed:
        if failed.op in (EVENTS, STAGES):
            run.next_steps.append(
                retry_step(run, failed, op=failed.op, reason=t(f"reason.{failed.op}_failed"))
            )


def _tasks_to_read(run: Run, job: Job) -> list[str]:
    failing = next((s for s in job.task_statuses if s.exit_code not in (None, 0)), None)
    tasks = [task for task in run.preview_failed] or (
        [failing.task] if failing and failing.task else job.task_ids[:1]
    )
    return tasks or ["?"]


def insufficient(run: Run, job: Job, *, events_read: Answer | None) -> Diagnosis:
    t = run.t
    _missing_facts(run, job)
    message = next((s.message for s in job.task_statuses if s.message), None)
    _retry_steps(run, message)
    for task in _tasks_to_read(run, job):
        reason_key = "reason.full_log_failed" if task in run.preview_failed else "reason.full_log_truncated"
        run.next_steps.append(t("next.full_log", task=task, reason=t(reason_key)))
    if events_read is not None and events_read.ok:
        run.next_steps.append(t("next.warning_events"))
    if message:
        run.next_steps.append(t("direction.vague_message", message=inline(shorten(message, 120))))
    else:
        run.next_steps.append(t("direction.no_message"))
    return run.insufficient_result(signature=shorten(message, 200) if message else None)

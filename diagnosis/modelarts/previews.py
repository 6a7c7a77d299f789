"""`ShowTrainingJobLogsPreview`, the extended path (rulings M4): the failing tasks' logs, at most 8,
read concurrently; what they name, or that they name nothing (cited with their last line)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence

from diagnosis.evidence.source import Answer
from diagnosis.modelarts.ops import PREVIEW
from diagnosis.modelarts.parse import Job, Preview, parse_preview
from diagnosis.modelarts.run import Run
from diagnosis.modelarts.signals import Signal, preview_signals, shorten
from diagnosis.modelarts.wording import log_field

MAX_PREVIEWS = 8  # rulings M4/M8


def cap_tasks(run: Run, tasks: list[str]) -> list[str]:
    """At most 8 tasks; a limitation says how many were left out."""
    if len(tasks) > MAX_PREVIEWS:
        run.limitations.append(run.t("limit.preview_cap", count=len(tasks), cap=MAX_PREVIEWS))
    return tasks[:MAX_PREVIEWS]


def fetch_preview(run: Run, job: Job, task: str) -> Awaitable[Answer]:
    return run.source.fetch(PREVIEW, training_job_id=job.job_id or run.job_id, task_id=task)


def note_preview_failure(run: Run, task: str, answer: Answer) -> None:
    """A preview that did not answer: cited, counted as failed or denied, and a limitation."""
    run.preview_failed[task] = answer
    run.cite_failure(answer)
    (run.denied if answer.denied else run.failed).append(answer)
    run.limitations.append(run.t("limit.preview_failed", task=task, failure=answer.describe_failure()))


def fetch_previews(run: Run, job: Job, tasks: Sequence[str]) -> list[Awaitable[Answer]]:
    """The previews of (at most 8 of) the tasks, to be awaited with the other calls of their round."""
    return [fetch_preview(run, job, task) for task in tasks[:MAX_PREVIEWS]]


async def log_signals(run: Run, job: Job, tasks: Sequence[str]) -> list[Signal]:
    """Read the tasks' previews concurrently; the signals their lines give."""
    answers = await asyncio.gather(*fetch_previews(run, job, tasks))
    return read_previews(run, tasks, answers)


def read_previews(run: Run, tasks: Sequence[str], answers: Sequence[Answer]) -> list[Signal]:
    """What the previews of `tasks` (the first 8 were asked) say; limitations for what they miss."""
    t = run.t
    if not tasks:
        run.limitations.append(t("limit.no_task_ids"))
        return []
    tasks = cap_tasks(run, list(tasks))
    signals: list[Signal] = []
    for task, answer in zip(tasks, answers, strict=True):
        if not answer.ok:
            note_preview_failure(run, task, answer)
            continue
        preview = parse_preview(answer.body, answer.text)
        if preview is None:
            run.preview_failed[task] = answer
            run.limitations.append(t("limit.preview_unreadable", task=task))
            continue
        run.previews_read[task] = preview
        if preview.truncated:
            run.limitations.append(
                t(
                    "limit.preview_truncated",
                    task=task,
                    shown=preview.current_size if preview.current_size is not None else "?",
                    full=preview.full_size if preview.full_size is not None else "?",
                )
            )
        found = preview_signals(task, preview)
        if not found:
            cite_clean_preview(run, task, preview)
        signals.extend(found)
    return signals


def cite_clean_preview(run: Run, task: str, preview: Preview) -> None:
    """A log read that names nothing is evidence too: say so, with its last line."""
    lines = [line for line in preview.content.splitlines() if line.strip()]
    last = shorten(lines[-1].strip(), 160) if lines else ""
    key = "evidence.preview_clean" if lines else "evidence.preview_empty"
    size = preview.current_size if preview.current_size is not None else len(preview.content.encode())
    run.cite(PREVIEW, log_field(preview.content_field, task), run.t(key, last=last), size)

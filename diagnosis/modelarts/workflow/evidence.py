"""Reading phase 3's answers: the Error events (every page), the stages (and how old the open one
is), the log previews (the extended path), each cited, or its failure noted. A time
without a zone is read both as UTC and as China time; the smallest age counts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from datetime import timedelta
from typing import Any

from diagnosis.evidence.answer import Answer
from diagnosis.modelarts.parse.events import parse_events
from diagnosis.modelarts.parse.job import Job
from diagnosis.modelarts.parse.preview import Preview, parse_preview
from diagnosis.modelarts.parse.stages import Stage, Stages, parse_stages
from diagnosis.modelarts.parse.times import TimeReading
from diagnosis.modelarts.routes import EVENTS_PAGE_SIZE
from diagnosis.modelarts.signals import Signal, event_signals, preview_signals, shorten
from diagnosis.modelarts.workflow.compose import log_field
from diagnosis.modelarts.workflow.state import EVENTS, PREVIEW, STAGES, Run

STALL_AGE = timedelta(hours=1)  # a stage or a log line older than this counts as stalled


def stage_age(run: Run, stage: Stage) -> timedelta | None:
    if stage.duration is not None and stage.start is None:
        return stage.duration
    if stage.start is None:
        return None
    age = stage.start.age(run.now, threshold=STALL_AGE)
    if age is None:
        return None
    value, doubtful = age
    if doubtful:
        run.limitations.append(
            run.t(
                "limit.zone_doubt",
                what=run.t("what.stage_start", name=stage.name),
                text=stage.start.text,
            )
        )
    return value


def newest_log_age(run: Run, readings: list[TimeReading]) -> timedelta | None:
    """The age of the newest log line across tasks, counted only if every possible reading agrees."""
    ages: list[timedelta] = []
    doubtful = False
    for reading in readings:
        result = reading.age(run.now, threshold=STALL_AGE)
        if result is None:
            continue
        age, doubt = result
        doubtful = doubtful or doubt
        ages.append(age)
    if not ages:
        return None
    newest = min(ages)
    if doubtful:
        run.limitations.append(run.t("limit.zone_doubt", what=run.t("what.log_line"), text=readings[0].text))
    return newest


MAX_EVENT_PAGES = 10


def _event_key(item: Any) -> tuple[Any, Any] | None:
    """Events are told apart by (time, message), in either of the API's spellings."""
    if not isinstance(item, dict):
        return None
    return (item.get("time") or item.get("occur_time"), item.get("message") or item.get("info"))


def _unseen_events(answers: Sequence[Answer], seen: set[Any]) -> list[Any]:
    """The events of the further pages not read before, told apart by (time, message)."""
    events: list[Any] = []
    for more in answers:
        if not more.ok or parse_events(more.body) is None:
            continue
        for item in more.body.get("events") or [] if isinstance(more.body, dict) else []:
            key = _event_key(item)
            if key is not None and key not in seen:
                seen.add(key)
                events.append(item)
    return events


async def fetch_events(run: Run, *, level: str | None) -> Answer:
    """`ListTrainingJobEvents` (`limit=100`), then every further page `total` says there is.

    `offset` is a page index (0 = the first page, as the SDK documents it): once the first page
    gives `total`, the other pages are asked together, at most MAX_EVENT_PAGES in all; a limitation
    says when events were left unread. Events are told apart by (time, message).
    """
    args: dict[str, Any] = {"training_job_id": run.job_id, "limit": EVENTS_PAGE_SIZE}
    if level:
        args["level"] = level
    first = await run.source.fetch(EVENTS, **args)
    if not first.ok:
        return first
    page = parse_events(first.body)
    if page is None or page.total is None or page.total <= len(page.events) or not page.events:
        return first
    events = list(first.body.get("events") or []) if isinstance(first.body, dict) else []
    page_size = len(events)
    pages = -(-page.total // page_size)
    wanted = range(1, min(pages, MAX_EVENT_PAGES))
    answers = await asyncio.gather(*(run.source.fetch(EVENTS, **args, offset=index) for index in wanted))
    seen = {_event_key(item) for item in events if isinstance(item, dict)}
    events += _unseen_events(answers, seen)
    if len(events) < page.total:
        message = "limit.events_cap" if pages > MAX_EVENT_PAGES else "limit.events_incomplete"
        run.limitations.append(
            run.t(message, read=len(events), total=page.total, pages=min(pages, MAX_EVENT_PAGES))
        )
    body = dict(first.body)
    body["events"] = events
    return first.model_copy(update={"body": body})


def read_events(run: Run, answer: Answer, *, level: str | None) -> list[Signal]:
    """Cite what the events say (or that there are none) and return the signals they give."""
    t = run.t
    if not answer.ok:
        run.note_failure(answer, what=t("what.events"))
        return []
    page = parse_events(answer.body)
    if page is None:
        run.cite(EVENTS, None, t("evidence.unreadable"))
        run.limitations.append(t("limit.unreadable", op=EVENTS))
        return []
    shown = page.total if page.total is not None else len(page.events)
    filter_text = f"level={level}" if level else t("evidence.all_levels")
    if not page.events:
        run.cite(EVENTS, "total", t("evidence.event_total", total=shown, filter=filter_text), shown)
        return []
    signals = event_signals(page.events, level=level)
    if not signals:
        run.cite(EVENTS, "total", t("evidence.event_total_unmatched", total=shown, filter=filter_text), shown)
        run.cite(EVENTS, page.events[0].path, shorten(page.events[0].message))
    return signals


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


MAX_PREVIEWS = 8  # log previews read at most, concurrently


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
    run.limitations.append(
        run.t("limit.preview_failed", task=task, failure=answer.describe_failure(lang=run.t.lang))
    )


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
        found = preview_signals(task, preview, now=run.now)
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

"""Lenient views of ModelArts answers. Every field may be absent, null or of an unexpected type.

The runbook and the SDK name several fields differently (modelarts-runbook.md, "Reconciling the
runbook with the wire format"); both vocabularies are read and each view remembers which field it
read so that evidence cites the one that was present:

| runbook                                  | wire (SDK)                                        |
| `task_statuses[].task_id`                | `task_statuses[].task`                            |
| events `{level, type, info, occur_time}` | `{time, level, message, source}`                  |
| stages `{stage_name, status, duration}`  | `running_records[].stages[]{name, start_time, …}` |
| preview `{log, next_marker}`             | `{content, current_size, full_size}` (`context`)  |
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from diagnosis.evidence.lenient import as_int
from diagnosis.timeutil import has_offset, parse_instant

FAULT_PHASES = frozenset({"Failed", "Abnormal", "Timeout"})
FAULT_SECONDARY_PHASES = frozenset({"CreateFailed", "Lost"})


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, dict | list):
        return None
    text = str(value)
    return text if text.strip() else None


@dataclass(frozen=True)
class TaskStatus:
    index: int
    task: str | None
    task_field: str | None  # `task` (wire) or `task_id` (runbook)
    exit_code: int | None
    message: str | None

    @property
    def path(self) -> str:
        return f"status.task_statuses[{self.index}]"


@dataclass(frozen=True)
class PlatformAnalysis:
    index: int
    description: str
    solution: str | None
    document_link: str | None

    @property
    def path(self) -> str:
        return f"status.failureAnalysisResult.analysis_results[{self.index}].description"


@dataclass(frozen=True)
class FaultRecord:
    """A platform fault-tolerance record (`status.running_records[].recover_records[]`)."""

    path: str
    fault_scenario: str | None
    reason: str | None
    related_task: str | None


@dataclass(frozen=True)
class RunEnd:
    """Why a run of the job ended, as the platform records it (`status.running_records[]`)."""

    path: str
    end_reason: str
    end_related_task: str | None


@dataclass(frozen=True)
class Job:
    job_id: str | None
    name: str | None
    phase: str | None
    secondary_phase: str | None
    create_time: datetime | None
    tasks: list[str]
    task_statuses: list[TaskStatus]
    analyses: list[PlatformAnalysis]
    fault_records: list[FaultRecord]
    code_dir: str | None
    engine_name: str | None
    run_ends: list[RunEnd] = field(default_factory=list)
    raw: dict[str, Any] = field(repr=False, default_factory=dict)

    @property
    def is_fault(self) -> bool:
        return self.phase in FAULT_PHASES or self.secondary_phase in FAULT_SECONDARY_PHASES

    @property
    def task_ids(self) -> list[str]:
        """Task names for the log calls: `status.tasks[]`, then any named by a task status."""
        found: list[str] = []
        for task in [*self.tasks, *(status.task for status in self.task_statuses if status.task)]:
            if task and task not in found:
                found.append(task)
        return found


def parse_job(body: Any) -> Job | None:
    """A training job (details answer or a search item); None when the answer is not a job object."""
    if not isinstance(body, dict):
        return None
    metadata = _dict(body.get("metadata"))
    status = _dict(body.get("status"))
    if not metadata and not status:
        return None
    task_statuses: list[TaskStatus] = []
    for index, item in enumerate(_list(status.get("task_statuses"))):
        if not isinstance(item, dict):
            continue
        task_field = "task" if _text(item.get("task")) else "task_id" if _text(item.get("task_id")) else None
        task_statuses.append(
            TaskStatus(
                index=index,
                task=_text(item.get(task_field)) if task_field else None,
                task_field=task_field,
                exit_code=as_int(item.get("exit_code")),
                message=_text(item.get("message")),
            )
        )
    analysis = _dict(status.get("failureAnalysisResult") or status.get("failure_analysis_result"))
    analyses: list[PlatformAnalysis] = []
    for index, item in enumerate(_list(analysis.get("analysis_results"))):
        description = _text(_dict(item).get("description"))
        if description:
            analyses.append(
                PlatformAnalysis(
                    index=index,
                    description=description,
                    solution=_text(item.get("solution")),
                    document_link=_text(item.get("document_link")),
                )
            )
    records: list[FaultRecord] = []
    run_ends: list[RunEnd] = []
    for run_index, run in enumerate(_list(status.get("running_records"))):
        end_reason = _text(_dict(run).get("end_reason"))
        if end_reason:
            run_ends.append(
                RunEnd(
                    path=f"status.running_records[{run_index}]",
                    end_reason=end_reason,
                    end_related_task=_text(_dict(run).get("end_related_task")),
                )
            )
        for index, item in enumerate(_list(_dict(run).get("recover_records"))):
            item = _dict(item)
            if item.get("fault_scenario") or item.get("reason"):
                records.append(
                    FaultRecord(
                        path=f"status.running_records[{run_index}].recover_records[{index}]",
                        fault_scenario=_text(item.get("fault_scenario")),
                        reason=_text(item.get("reason")),
                        related_task=_text(item.get("related_task")),
                    )
                )
    create_time = metadata.get("create_time")
    return Job(
        job_id=_text(metadata.get("id")),
        name=_text(metadata.get("name")),
        phase=_text(status.get("phase")),
        secondary_phase=_text(status.get("secondary_phase")),
        create_time=parse_instant(create_time) if create_time not in (None, "") else None,
        tasks=[str(task) for task in _list(status.get("tasks")) if _text(task)],
        task_statuses=task_statuses,
        analyses=analyses,
        fault_records=records,
        code_dir=_text(_dict(body.get("algorithm")).get("code_dir")),
        engine_name=_text(_dict(_dict(body.get("algorithm")).get("engine")).get("engine_name")),
        run_ends=run_ends,
        raw=body,
    )


@dataclass(frozen=True)
class JobPage:
    jobs: list[Job]
    count: int | None
    item_count: int


def parse_job_page(body: Any) -> JobPage | None:
    """A job-search answer (`items[]`); None when it has no `items` list."""
    if not isinstance(body, dict) or not isinstance(body.get("items"), list):
        return None
    jobs = [job for job in (parse_job(item) for item in body["items"]) if job is not None]
    return JobPage(jobs=jobs, count=as_int(body.get("count")), item_count=len(body["items"]))


@dataclass(frozen=True)
class Event:
    index: int
    time: str | None
    level: str | None
    message: str
    source: str | None
    message_field: str  # `message` (wire) or `info` (runbook)

    @property
    def path(self) -> str:
        return f"events[{self.index}].{self.message_field}"

    @property
    def key(self) -> tuple[str | None, str]:
        return (self.time, self.message)


@dataclass(frozen=True)
class EventPage:
    events: list[Event]
    total: int | None


def parse_events(body: Any) -> EventPage | None:
    if isinstance(body, list):
        items, total = body, None
    elif isinstance(body, dict) and isinstance(body.get("events"), list | type(None)):
        items, total = _list(body.get("events")), as_int(body.get("total"))
    else:
        return None
    events: list[Event] = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        message_field = "message" if _text(item.get("message")) else "info"
        message = _text(item.get(message_field))
        if message is None:
            continue
        time = _text(item.get("time")) or _text(item.get("occur_time"))
        events.append(
            Event(
                index=index,
                time=time,
                level=_text(item.get("level")),
                message=message,
                source=_text(item.get("source")) or _text(item.get("type")),
                message_field=message_field,
            )
        )
    return EventPage(events=events, total=total)


CHINA_OFFSET = timedelta(hours=8)
FUTURE_TOLERANCE = timedelta(minutes=5)  # rulings G15: a reading this far after now is impossible


@dataclass(frozen=True)
class TimeReading:
    """A timestamp as written, with the instants it may stand for.

    A time without an offset is read both as UTC and as UTC+8 (containers and the console often
    write China time): rulings G15.
    """

    text: str
    readings: tuple[datetime, ...]

    @property
    def ambiguous(self) -> bool:
        return len(self.readings) > 1

    def age(self, now: datetime, *, threshold: timedelta) -> tuple[timedelta, bool] | None:
        """Rulings G15: readings more than 5 minutes after now are impossible and dropped; the
        smallest remaining age counts; doubtful when readings fall on both sides of `threshold`."""
        ages = [now - instant for instant in self.readings if instant - now <= FUTURE_TOLERANCE]
        if not ages:
            return None
        doubtful = len(ages) > 1 and min(ages) <= threshold < max(ages)
        return max(min(ages), timedelta(0)), doubtful


def read_time(value: Any) -> TimeReading | None:
    if value is None or isinstance(value, bool | dict | list):
        return None
    text = str(value).strip()
    if not text:
        return None
    if isinstance(value, int | float) or text.isdigit():
        instant = parse_instant(int(float(text)))
        return TimeReading(text, (instant,)) if instant else None
    instant = parse_instant(text)
    if instant is None:
        return None
    if has_offset(text):
        return TimeReading(text, (instant,))
    # Naive: as UTC, and as China time (the same wall clock, 8 hours earlier in UTC).
    return TimeReading(text, (instant, instant - CHINA_OFFSET))


@dataclass(frozen=True)
class Stage:
    path: str
    name: str
    start: TimeReading | None
    end: TimeReading | None
    status: str | None  # runbook vocabulary only
    duration: timedelta | None  # runbook vocabulary only
    start_text: str | None
    end_text: str | None
    end_field: str


@dataclass(frozen=True)
class Stages:
    record_order: int | None
    record_index: int | None
    stages: list[Stage]
    record_count: int

    def open_stage(self) -> Stage | None:
        """The stage in progress: runbook `status: RUNNING`, or a start and no end (latest record)."""
        for stage in reversed(self.stages):
            if stage.status is not None:
                if stage.status.upper() == "RUNNING":
                    return stage
                continue
            if stage.start is not None and stage.end is None and not stage.end_text:
                return stage
        return None


def _duration(value: Any) -> timedelta | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        # The runbook does not give the unit: values this large can only be milliseconds.
        seconds = value / 1000 if value > 10**7 else value
        return timedelta(seconds=seconds)
    text = str(value).strip().lower()
    if re.fullmatch(r"\d+(\.\d+)?", text):
        return _duration(float(text))
    clock = re.fullmatch(r"(\d+):(\d{2}):(\d{2})", text)
    if clock:
        return timedelta(hours=int(clock[1]), minutes=int(clock[2]), seconds=int(clock[3]))
    parts = re.findall(r"(\d+(?:\.\d+)?)\s*(ms|d|h|m|s)(?![a-z])", text)
    if not parts:
        return None
    units = {"d": 86400.0, "h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}
    return timedelta(seconds=sum(float(number) * units[unit] for number, unit in parts))


def parse_stages(body: Any) -> Stages | None:
    if isinstance(body, list):
        return _runbook_stages(body, "")
    if not isinstance(body, dict):
        return None
    records = body.get("running_records")
    if isinstance(records, list):
        latest_index: int | None = None
        latest_order = -1
        for index, record in enumerate(records):
            order = as_int(_dict(record).get("record_order"))
            order = index if order is None else order
            if order >= latest_order:
                latest_index, latest_order = index, order
        if latest_index is None:
            return Stages(record_order=None, record_index=None, stages=[], record_count=0)
        stages: list[Stage] = []
        for index, item in enumerate(_list(_dict(records[latest_index]).get("stages"))):
            item = _dict(item)
            name = _text(item.get("name")) or _text(item.get("stage_name")) or f"stage {index + 1}"
            path = f"running_records[{latest_index}].stages[{index}]"
            stages.append(_stage(item, path=path, name=name, end_field="end_time"))
        return Stages(
            record_order=latest_order, record_index=latest_index, stages=stages, record_count=len(records)
        )
    if isinstance(body.get("stages"), list):
        return _runbook_stages(body["stages"], "stages")
    return None


def _stage(item: dict[str, Any], *, path: str, name: str, end_field: str) -> Stage:
    """One stage, whichever vocabulary named it (`end_field` is what evidence cites for its end)."""
    return Stage(
        path=path,
        name=name,
        start=read_time(item.get("start_time")),
        end=read_time(item.get("end_time")),
        status=_text(item.get("status")),
        duration=_duration(item.get("duration")),
        start_text=_text(item.get("start_time")),
        end_text=_text(item.get("end_time")),
        end_field=end_field,
    )


def _runbook_stages(items: list[Any], prefix: str) -> Stages:
    stages: list[Stage] = []
    for index, item in enumerate(items):
        item = _dict(item)
        name = _text(item.get("stage_name")) or _text(item.get("name")) or f"stage {index + 1}"
        path = f"{prefix}[{index}]" if prefix else f"[{index}]"
        stages.append(_stage(item, path=path, name=name, end_field="status"))
    return Stages(record_order=None, record_index=None, stages=stages, record_count=1)


@dataclass(frozen=True)
class Preview:
    content: str
    content_field: str  # `content` (wire), `context` (before 2022-03) or `log` (runbook)
    current_size: int | None
    full_size: int | None
    has_more: bool

    @property
    def truncated(self) -> bool:
        if self.has_more:
            return True
        return (
            self.full_size is not None
            and self.current_size is not None
            and self.full_size > self.current_size
        )


def parse_preview(body: Any, text: str | None = None) -> Preview | None:
    if isinstance(body, dict):
        for key in ("content", "context", "log"):
            value = body.get(key)
            if isinstance(value, str):
                return Preview(
                    content=value,
                    content_field=key,
                    current_size=as_int(body.get("current_size")),
                    full_size=as_int(body.get("full_size")),
                    has_more=bool(_text(body.get("next_marker"))),
                )
        return None
    if text is not None:
        return Preview(
            content=text, content_field="(text)", current_size=None, full_size=None, has_more=False
        )
    return None


# Where a conclusion of the platform's diagnosis may word what it found; the documentation names
# `code` and `class` and leaves the rest open, so every text field it might use is read.
_CONCLUSION_TEXT = ("description", "reason", "cause", "message", "detail", "summary", "name")
_CONCLUSION_SOLUTION = ("solution", "suggestion", "advice")


@dataclass(frozen=True)
class Conclusion:
    """One finding of `ShowTrainingJobUserDiagnosis` (`conclusions[].conclusion`)."""

    index: int
    code: str | None
    kind: str | None  # the API's `class`
    text: str | None
    text_field: str | None
    solution: str | None
    tasks: list[str]

    @property
    def path(self) -> str:
        return f"conclusions[{self.index}].conclusion"


@dataclass(frozen=True)
class UserDiagnosis:
    """The platform's log-based diagnosis: `status` Running (still watching) or Completed, `level`
    Fatal, Error or Warning (high, medium, low risk), and its conclusions."""

    status: str | None
    level: str | None
    conclusions: list[Conclusion]

    @property
    def serious(self) -> bool:
        return (self.level or "").lower() in ("fatal", "error")


def parse_user_diagnosis(body: Any) -> UserDiagnosis | None:
    if not isinstance(body, dict):
        return None
    conclusions: list[Conclusion] = []
    for index, item in enumerate(_list(body.get("conclusions"))):
        found = _dict(_dict(item).get("conclusion"))
        text_field = next((key for key in _CONCLUSION_TEXT if _text(found.get(key))), None)
        solution = next(
            (_text(found.get(key)) for key in _CONCLUSION_SOLUTION if _text(found.get(key))), None
        )
        tasks = [
            task
            for source in _list(_dict(item).get("sources"))
            for task in [_text(_dict(source).get("task")) or _text(_dict(source).get("task_id"))]
            if task
        ]
        if not found:
            continue
        conclusions.append(
            Conclusion(
                index=index,
                code=_text(found.get("code")),
                kind=_text(found.get("class")),
                text=_text(found.get(text_field)) if text_field else None,
                text_field=text_field,
                solution=solution,
                tasks=tasks,
            )
        )
    return UserDiagnosis(
        status=_text(body.get("status")), level=_text(body.get("level")), conclusions=conclusions
    )

"""A training job as the details call or the job search answers it."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from diagnosis.evidence.lenient import as_dict, as_int, as_list, as_text
from diagnosis.timeutil import parse_instant

FAULT_PHASES = frozenset({"Failed", "Abnormal", "Timeout"})
FAULT_SECONDARY_PHASES = frozenset({"CreateFailed", "Lost"})


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
    metadata = as_dict(body.get("metadata"))
    status = as_dict(body.get("status"))
    if not metadata and not status:
        return None
    task_statuses: list[TaskStatus] = []
    for index, item in enumerate(as_list(status.get("task_statuses"))):
        if not isinstance(item, dict):
            continue
        task_field = (
            "task" if as_text(item.get("task")) else "task_id" if as_text(item.get("task_id")) else None
        )
        task_statuses.append(
            TaskStatus(
                index=index,
                task=as_text(item.get(task_field)) if task_field else None,
                task_field=task_field,
                exit_code=as_int(item.get("exit_code")),
                message=as_text(item.get("message")),
            )
        )
    analysis = as_dict(status.get("failureAnalysisResult") or status.get("failure_analysis_result"))
    analyses: list[PlatformAnalysis] = []
    for index, item in enumerate(as_list(analysis.get("analysis_results"))):
        description = as_text(as_dict(item).get("description"))
        if description:
            analyses.append(
                PlatformAnalysis(
                    index=index,
                    description=description,
                    solution=as_text(item.get("solution")),
                    document_link=as_text(item.get("document_link")),
                )
            )
    records: list[FaultRecord] = []
    run_ends: list[RunEnd] = []
    for run_index, run in enumerate(as_list(status.get("running_records"))):
        end_reason = as_text(as_dict(run).get("end_reason"))
        if end_reason:
            run_ends.append(
                RunEnd(
                    path=f"status.running_records[{run_index}]",
                    end_reason=end_reason,
                    end_related_task=as_text(as_dict(run).get("end_related_task")),
                )
            )
        for index, item in enumerate(as_list(as_dict(run).get("recover_records"))):
            item = as_dict(item)
            if item.get("fault_scenario") or item.get("reason"):
                records.append(
                    FaultRecord(
                        path=f"status.running_records[{run_index}].recover_records[{index}]",
                        fault_scenario=as_text(item.get("fault_scenario")),
                        reason=as_text(item.get("reason")),
                        related_task=as_text(item.get("related_task")),
                    )
                )
    create_time = metadata.get("create_time")
    return Job(
        job_id=as_text(metadata.get("id")),
        name=as_text(metadata.get("name")),
        phase=as_text(status.get("phase")),
        secondary_phase=as_text(status.get("secondary_phase")),
        create_time=parse_instant(create_time) if create_time not in (None, "") else None,
        tasks=[str(task) for task in as_list(status.get("tasks")) if as_text(task)],
        task_statuses=task_statuses,
        analyses=analyses,
        fault_records=records,
        code_dir=as_text(as_dict(body.get("algorithm")).get("code_dir")),
        engine_name=as_text(as_dict(as_dict(body.get("algorithm")).get("engine")).get("engine_name")),
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

"""Listings the simulator answers from the jobs it knows, when no bundle recorded that listing.

A bundle records the calls of one diagnosis: a job's details, never the region's job list a scan
asks for, nor a name search it did not make. So that `diagnose modelarts scan`, `--job-name` and
`diagnose runai scan` work on the simulator, a listing with no recorded answer is built as the
platform builds it, from every job answer the bundles hold:

- ModelArts `ListTrainingJobs` (the job search, https://support.huaweicloud.com/api-modelarts/ListTrainingJobs.html):
  the project's jobs from `ShowTrainingJobDetails`, newest first (`create_time`), the `name`
  filter's `like` as a case-sensitive substring, `offset` a page index and `limit` its size (at most 50);
- Run:ai `GET /api/v1/workloads` (https://api-docs.run.ai/latest/tag/Workloads): the workloads
  from `get_workload_status`, `filterBy` as the API reads it (`field==value` and `field>=value`
  terms joined by commas), `sortBy`/`sortOrder`, `offset`/`limit`, and `deleted=true` for the
  deleted ones only.

SIMULATOR_PROJECT_ID is one ModelArts project holding every scenario's jobs (the scenarios were
recorded in projects of their own): with it, one environment serves every scenario and a scan of
the region sees all of them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from diagnosis.models import Exchange
from diagnosis.timeutil import parse_instant

SIMULATOR_PROJECT_ID = "0a1b2c3d4e5f60718293a4b5c6d7e8f9"
MODELARTS_PAGE_SIZE = 50  # the job search's maximum page size
RUNAI_DEFAULT_LIMIT = 50
MODELARTS_LISTING = "ListTrainingJobs"
MODELARTS_DETAILS = "ShowTrainingJobDetails"
RUNAI_LISTING = "list_workloads"
RUNAI_STATUS = "get_workload_status"


def _int(value: Any, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def modelarts_job_projects(exchanges: Iterable[Exchange]) -> dict[str, str]:
    """Job id → the project it was recorded in (to answer for SIMULATOR_PROJECT_ID)."""
    found: dict[str, str] = {}
    for exchange in exchanges:
        job_id = exchange.args.get("training_job_id")
        project_id = exchange.args.get("project_id")
        if job_id and project_id:
            found.setdefault(str(job_id), str(project_id))
    return found


def _modelarts_jobs(exchanges: Iterable[Exchange], project_id: str) -> list[dict[str, Any]]:
    jobs: dict[str, dict[str, Any]] = {}
    for exchange in exchanges:
        if exchange.op != MODELARTS_DETAILS or exchange.status != 200 or not isinstance(exchange.body, dict):
            continue
        if project_id != SIMULATOR_PROJECT_ID and str(exchange.args.get("project_id")) != project_id:
            continue
        metadata = exchange.body.get("metadata")
        job_id = metadata.get("id") if isinstance(metadata, dict) else None
        if job_id:
            jobs.setdefault(str(job_id), exchange.body)
    return list(jobs.values())


def _list_item(details: Mapping[str, Any]) -> dict[str, Any]:
    """A job's details as the job search lists it: the search's item has no platform failure
    analysis and names a task's status by the task only (as Huawei's SDK models the two answers)."""
    item = json.loads(json.dumps(details))
    status = item.get("status")
    if isinstance(status, dict):
        status.pop("failureAnalysisResult", None)
        for task in status.get("task_statuses") or []:
            if isinstance(task, dict):
                task.pop("task_id", None)
    return dict(item)


def _create_time(job: Mapping[str, Any]) -> int:
    metadata = job.get("metadata")
    return _int(metadata.get("create_time"), 0) if isinstance(metadata, dict) else 0


def modelarts_listing(exchanges: Iterable[Exchange], args: Mapping[str, Any]) -> dict[str, Any]:
    """The job search's answer for `args` (project_id, name, offset, limit)."""
    jobs = _modelarts_jobs(exchanges, str(args.get("project_id") or ""))
    name = str(args.get("name") or "")
    if name:
        # `like` is case-sensitive: a recorded search for "Food101" found no "resnet50-food101-v2".
        jobs = [job for job in jobs if name in str((job.get("metadata") or {}).get("name") or "")]
    jobs.sort(key=_create_time, reverse=True)
    limit = min(MODELARTS_PAGE_SIZE, max(1, _int(args.get("limit"), MODELARTS_PAGE_SIZE)))
    page = max(0, _int(args.get("offset"), 0))
    items = [_list_item(job) for job in jobs[page * limit : (page + 1) * limit]]
    return {"total": len(jobs), "count": len(items), "limit": limit, "offset": page, "items": items}


def _terms(filter_by: str) -> list[tuple[str, str, str]]:
    """`clusterId==c,phase==Failed,phaseUpdatedAt>=t` → (field, operator, value) terms."""
    terms: list[tuple[str, str, str]] = []
    for part in filter_by.split(","):
        for operator in ("==", "!=", ">=", "<=", "=@", "!@", "=^", "=$"):
            field, found, value = part.partition(operator)
            if found:
                terms.append((field.strip(), operator, value.strip()))
                break
    return terms


def _compare_instants(left: str, right: str) -> tuple[datetime, datetime] | None:
    first, second = parse_instant(left), parse_instant(right)
    return (first, second) if first is not None and second is not None else None


def _term_holds(workload: Mapping[str, Any], field: str, operator: str, value: str) -> bool:
    raw = workload.get(field)
    text = "" if raw is None else str(raw)
    if operator == "==":
        return text == value
    if operator == "!=":
        return text != value
    if operator in (">=", "<="):
        instants = _compare_instants(text, value)
        if instants is None:
            return False
        return instants[0] >= instants[1] if operator == ">=" else instants[0] <= instants[1]
    if operator == "=@":
        return value in text
    if operator == "!@":
        return value not in text
    if operator == "=^":
        return text.startswith(value)
    return text.endswith(value)


def _runai_workloads(exchanges: Iterable[Exchange]) -> list[dict[str, Any]]:
    workloads: dict[str, dict[str, Any]] = {}
    for exchange in exchanges:
        if exchange.op != RUNAI_STATUS or exchange.status != 200 or not isinstance(exchange.body, dict):
            continue
        workload_id = exchange.body.get("id")
        if workload_id:
            # A listed workload carries no pending-scheduling messages (the official models of
            # the two answers): they are read from the workload itself.
            listed = {
                key: value for key, value in exchange.body.items() if key != "pendingSchedulingMessages"
            }
            workloads.setdefault(str(workload_id), listed)
    return list(workloads.values())


def runai_listing(exchanges: Iterable[Exchange], args: Mapping[str, Any]) -> dict[str, Any]:
    """The workload list's answer for `args` (filterBy, sortBy, sortOrder, offset, limit, deleted)."""
    deleted = str(args.get("deleted") or "").lower() == "true"
    terms = _terms(str(args.get("filterBy") or ""))
    workloads = [
        workload
        for workload in _runai_workloads(exchanges)
        if bool(workload.get("deletedAt")) == deleted and all(_term_holds(workload, *term) for term in terms)
    ]
    sort_by = str(args.get("sortBy") or "")
    if sort_by:
        descending = str(args.get("sortOrder") or "asc").lower() == "desc"
        workloads.sort(key=lambda workload: str(workload.get(sort_by) or ""), reverse=descending)
    offset = max(0, _int(args.get("offset"), 0))
    limit = max(1, _int(args.get("limit"), RUNAI_DEFAULT_LIMIT))
    answer: dict[str, Any] = {"workloads": workloads[offset : offset + limit]}
    # `next` is the offset of the next page, absent on the last one.
    if offset + limit < len(workloads):
        answer["next"] = offset + limit
    return answer


def synthesised_listing(
    platform: str, op: str, exchanges: Iterable[Exchange], args: Mapping[str, Any]
) -> dict[str, Any] | None:
    """The listing answer for a call no bundle recorded, or None when `op` is no listing."""
    if platform == "modelarts" and op == MODELARTS_LISTING:
        return modelarts_listing(exchanges, args)
    if platform == "runai" and op == RUNAI_LISTING:
        return runai_listing(exchanges, args)
    return None

"""Calls that gave nothing to go on. ModelArts not reached, or the credentials rejected: no
diagnosis (`unreachable`, `auth_failed`); a 403: the documented read-only actions to grant;
a 5xx on the first call: UNKNOWN / LOW with a retry step; 404: not_found. And
LOW when nothing names a cause: what was collected and what to fetch next, never a guess.
"""

from __future__ import annotations

from diagnosis.evidence.answer import Answer
from diagnosis.modelarts.parse.job import Job
from diagnosis.modelarts.signals import shorten
from diagnosis.modelarts.workflow.compose import inline
from diagnosis.modelarts.workflow.state import DETAILS, EVENTS, SEARCH, STAGES, Run
from diagnosis.models import Diagnosis, Recommendation

GET_ACTION = "modelarts:trainJob:get"
LIST_ACTION = "modelarts:trainJob:list"
# The documented IAM actions, never the runbook's `trainingJobs:*`; logExport only on demand.
REQUIRED_ACTIONS = (GET_ACTION, LIST_ACTION)


def permission_denied(run: Run, answer: Answer) -> Diagnosis:
    """Stop, list the documented read-only actions, and a minimal policy (in the report)."""
    t = run.t
    first = answer.op in (DETAILS, SEARCH) and len(run.source.calls) <= 1
    code = answer.error_code() or str(answer.status)
    key = "root.denied_first" if first else "root.denied_later"
    root = t(key, op=answer.op, status=answer.status, code=code)
    if first:
        run.limitations.append(t("limit.denied_first", op=answer.op, status=answer.status))
    else:
        run.limitations.append(t("limit.denied_later", op=answer.op, status=answer.status))
    if answer.status == 401:
        run.next_steps.append(t("next.check_keys"))
    run.next_steps.append(t("next.rerun_after_grant"))
    return run.result(
        "permission_denied",
        confidence="LOW",
        root_cause=root,
        recommendations=[
            Recommendation(text=t("fix.grant_policy", region=run.region or "?"), changes_resources=True)
        ],
        permissions=REQUIRED_ACTIONS,
    )


NOT_FOUND_CODES = ("ModelArts.2775", "ModelArts.0102")


def is_not_found(answer: Answer) -> bool:
    return answer.status == 404 or answer.error_code() in NOT_FOUND_CODES


def retry_step(run: Run, answer: Answer, *, op: str, reason: str) -> str:
    if answer.status is None:
        return run.t(
            "next.retry_after_timeout", op=op, failure=answer.describe_failure(lang=run.t.lang), reason=reason
        )
    return run.t("next.retry_later", op=op, failure=answer.describe_failure(lang=run.t.lang), reason=reason)


def direction_for_failure(run: Run, answer: Answer) -> str:
    if answer.status is None:
        return run.t("direction.network", failure=answer.describe_failure(lang=run.t.lang))
    request_id = answer.request_id or (
        answer.body.get("request_id") if isinstance(answer.body, dict) else None
    )
    if request_id:
        return run.t("direction.ticket_with_request_id", request_id=request_id, status=answer.status)
    return run.t("direction.ticket", status=answer.status)


def not_asked(run: Run, answer: Answer) -> Diagnosis | None:
    """ModelArts was never properly asked: it could not be reached (refused, DNS, TLS, timeout,
    the deadline), or its API gateway rejected the credentials (401: a bad signature, a wrong or
    locked key, an expired security token, a clock more than 15 minutes off). Neither is a
    diagnosis of the job, and a 401 is no missing grant (that is a 403). None otherwise."""
    kind = answer.failure_class()
    if kind not in ("unreachable", "auth_failed"):
        return None
    t = run.t
    run.cite_failure(answer)
    if kind == "unreachable":
        url = str(getattr(run.source, "base_url", "") or "?").rstrip("/")
        seconds = float(getattr(run.source, "deadline_seconds", 0.0) or 0.0)
        run.next_steps.append(t("next.unreachable_endpoint", url=url, region=run.region or "?"))
        run.next_steps.append(t("next.unreachable_network"))
        run.next_steps.append(t("next.unreachable_retry", seconds=seconds))
        return run.result(
            "unreachable",
            root_cause=t("root.unreachable", op=answer.op, failure=answer.describe_failure(lang=t.lang)),
        )
    run.next_steps.append(t("next.auth_keys"))
    run.next_steps.append(t("next.auth_token"))
    run.next_steps.append(t("next.auth_clock"))
    return run.result(
        "auth_failed",
        root_cause=t("root.auth_failed", op=answer.op, failure=answer.describe_failure(lang=t.lang)),
    )


def search_failed(run: Run, answer: Answer, name: str | None) -> Diagnosis:
    """The job search (by name, or the scan's listing) failed on its first page."""
    t = run.t
    stopped = not_asked(run, answer)
    if stopped is not None:
        return stopped
    run.cite_failure(answer)
    if answer.denied:
        return permission_denied(run, answer)
    run.limitations.append(t("limit.search_failed", failure=answer.describe_failure(lang=t.lang)))
    reason = t("reason.search_failed", name=name) if name else t("reason.scan_failed")
    run.next_steps.append(retry_step(run, answer, op=SEARCH, reason=reason))
    if name:
        run.next_steps.append(t("next.use_job_id"))
    run.next_steps.append(direction_for_failure(run, answer))
    return run.insufficient_result()


def details_failure(run: Run, answer: Answer) -> Diagnosis | None:
    """`ShowTrainingJobDetails` did not answer: not found, denied or failed; None if it did."""
    if answer.ok:
        return None
    stopped = not_asked(run, answer)
    if stopped is not None:
        return stopped
    run.cite_failure(answer)
    if is_not_found(answer):
        region = run.region or "?"
        run.next_steps.append(run.t("next.check_id_region", region=region))
        return run.result(
            "not_found",
            root_cause=run.t("root.id_not_found", job_id=run.job_id or "?", region=region),
        )
    if answer.denied:
        return permission_denied(run, answer)
    run.limitations.append(run.t("limit.details_failed", failure=answer.describe_failure(lang=run.t.lang)))
    return first_call_failed(run, answer)


def first_call_failed(run: Run, answer: Answer) -> Diagnosis:
    """A 5xx on the first call: UNKNOWN, LOW, retry later or open a ticket."""
    run.next_steps.append(retry_step(run, answer, op=DETAILS, reason=run.t("reason.details_failed")))
    run.next_steps.append(direction_for_failure(run, answer))
    return run.insufficient_result()


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
        failure = (
            f"HTTP {answer.status}" if answer.status is not None else answer.describe_failure(lang=t.lang)
        )
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

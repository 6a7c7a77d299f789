"""The first call (or the name search) gave nothing to go on: not found, denied, or failed (M12).

A platform that could not be reached, or that rejected the credentials (401), is no diagnosis
(`unreachable`, `auth_failed`); a 403 is a missing grant (permission_denied). A 5xx on the first
call is UNKNOWN / LOW with a retry step and a ticket quoting the request id. A 404 (or its error
codes) is not_found.
"""

from __future__ import annotations

from diagnosis.evidence.source import Answer
from diagnosis.modelarts.ops import DETAILS, SEARCH
from diagnosis.modelarts.permission import permission_denied
from diagnosis.modelarts.run import Run
from diagnosis.models import Diagnosis

NOT_FOUND_CODES = ("ModelArts.2775", "ModelArts.0102")


def is_not_found(answer: Answer) -> bool:
    return answer.status == 404 or answer.error_code() in NOT_FOUND_CODES


def retry_step(run: Run, answer: Answer, *, op: str, reason: str) -> str:
    if answer.status is None:
        return run.t("next.retry_after_timeout", op=op, failure=answer.describe_failure(), reason=reason)
    return run.t("next.retry_later", op=op, failure=answer.describe_failure(), reason=reason)


def direction_for_failure(run: Run, answer: Answer) -> str:
    if answer.status is None:
        return run.t("direction.network", failure=answer.describe_failure())
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
            "unreachable", root_cause=t("root.unreachable", op=answer.op, failure=answer.describe_failure())
        )
    run.next_steps.append(t("next.auth_keys"))
    run.next_steps.append(t("next.auth_token"))
    run.next_steps.append(t("next.auth_clock"))
    return run.result(
        "auth_failed", root_cause=t("root.auth_failed", op=answer.op, failure=answer.describe_failure())
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
    run.limitations.append(t("limit.search_failed", failure=answer.describe_failure()))
    reason = t("reason.search_failed", name=name) if name else t("reason.scan_failed")
    run.next_steps.append(retry_step(run, answer, op=SEARCH, reason=reason))
    if name:
        run.next_steps.append(t("next.use_job_id"))
    run.next_steps.append(direction_for_failure(run, answer))
    return run.insufficient_result()


def details_failure(run: Run, answer: Answer) -> Diagnosis | None:
    """`ShowTrainingJobDetails` did not answer: not found, denied (M1) or failed (M12); None if it did."""
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
    run.limitations.append(run.t("limit.details_failed", failure=answer.describe_failure()))
    return first_call_failed(run, answer)


def first_call_failed(run: Run, answer: Answer) -> Diagnosis:
    """Rulings M12: 5xx or timeout on the first call: UNKNOWN, LOW, retry later or open a ticket."""
    run.next_steps.append(retry_step(run, answer, op=DETAILS, reason=run.t("reason.details_failed")))
    run.next_steps.append(direction_for_failure(run, answer))
    return run.insufficient_result()

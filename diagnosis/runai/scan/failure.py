"""The scan's answer when the list of failed workloads cannot be read."""

from __future__ import annotations

from diagnosis.evidence.answer import Answer
from diagnosis.models import Diagnosis, Evidence, Outcome, Target
from diagnosis.render.i18n import Translator
from diagnosis.runai.scan.listing import describe_list_failure
from diagnosis.runai.signals import quote


def listing_failure(
    answer: Answer, *, cluster_id: str, project: str | None, t: Translator, calls: list[str]
) -> Diagnosis:
    """No answer is `unreachable` and a rejected credential (401) `auth_failed`, each with what to
    check; a 403 is permission_denied naming the access needed; anything else an UNKNOWN, LOW
    diagnosis saying what failed and to retry."""
    target = Target(cluster_id=cluster_id, project=project)
    evidence = [
        Evidence(source=answer.op, field=None, text=quote(describe_list_failure(answer)), value=answer.status)
    ]
    kind = answer.failure_class()
    if kind in ("unreachable", "auth_failed"):
        return _not_reached(answer, kind, target=target, evidence=evidence, t=t, calls=calls)
    if answer.denied:
        permission = (
            t("perm.viewer_project", project=project, cluster=cluster_id)
            if project
            else t("perm.viewer_cluster", cluster=cluster_id)
        )
        return Diagnosis(
            platform="runai",
            target=target,
            outcome="permission_denied",
            confidence="LOW",
            root_cause=t("rc.permission_denied", call=answer.op, failure=describe_list_failure(answer, t)),
            evidence=evidence,
            next_steps=[t("next.grant_and_rerun")],
            permissions=[permission],
            calls=list(calls),
        )
    failure = describe_list_failure(answer, t)
    return Diagnosis(
        platform="runai",
        target=target,
        outcome="diagnosed",
        category="UNKNOWN",
        confidence="LOW",
        root_cause=t("scan.rc_list_failed", failure=failure),
        evidence=evidence if answer.retrieved else [],
        limitations=[t("lim.call_failed", call=answer.op, failure=failure)],
        next_steps=[t("scan.next_retry")],
        calls=list(calls),
    )


def _not_reached(
    answer: Answer,
    kind: str,
    *,
    target: Target,
    evidence: list[Evidence],
    t: Translator,
    calls: list[str],
) -> Diagnosis:
    failure = describe_list_failure(answer, t)
    if kind == "unreachable":
        steps = [t("next.unreachable_endpoint", url="RUNAI_URL"), t("next.unreachable_network")]
        outcome: Outcome = "unreachable"
    else:
        steps = [t("next.auth_credentials"), t("next.auth_token", url="RUNAI_URL"), t("next.auth_clock")]
        outcome = "auth_failed"
    return Diagnosis(
        platform="runai",
        target=target,
        outcome=outcome,
        root_cause=t(f"rc.{kind}", call=answer.op, failure=failure),
        evidence=evidence,
        next_steps=steps,
        calls=list(calls),
    )

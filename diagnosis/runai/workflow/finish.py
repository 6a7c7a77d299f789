"""The diagnoses a step can finish with before step 5: questions, refusals, routes, partial results."""

from __future__ import annotations

from collections.abc import Sequence

from diagnosis.evidence.answer import Answer
from diagnosis.models import Category, Confidence, Diagnosis, Evidence, Outcome, Question, Route
from diagnosis.runai.signals import quote
from diagnosis.runai.workflow.state import State


def with_deadline_note(state: State) -> State:
    """The deadline that cut evidence off is named (the limitation says how long it was)."""
    source = state.run.source
    if getattr(source, "deadline_reached", False):
        seconds = float(getattr(source, "deadline_seconds", 0.0) or 0.0)
        return state.noted(state.t("lim.deadline", seconds=seconds))
    return state


def finished(
    state: State,
    outcome: Outcome,
    *,
    root_cause: str,
    route: Route | None = None,
    confidence: Confidence | None = None,
    questions: Sequence[Question] = (),
    permissions: Sequence[str] = (),
    category: Category | None = None,
    signature: str | None = None,
) -> Diagnosis:
    state = with_deadline_note(state)
    return Diagnosis(
        platform="runai",
        target=state.target,
        outcome=outcome,
        route=route,
        category=category,
        signature=signature,
        confidence=confidence,
        root_cause=root_cause,
        evidence=list(state.evidence),
        limitations=list(state.limitations),
        next_steps=list(state.next_steps),
        questions=list(questions),
        permissions=list(permissions),
        calls=list(state.run.source.calls),
    )


def refused(state: State, answer: Answer) -> Diagnosis:
    """A control-plane 401 is a rejected credential (Run:ai answers 401 for a token that is
    missing, expired or from an issuer it does not know); a 403 a missing grant."""
    if answer.failure_class() == "auth_failed":
        return auth_failed(state, answer)
    return denied(state, answer)


def unreachable(state: State, answer: Answer) -> Diagnosis:
    """The control plane gave no answer (refused, DNS, TLS, timeout, the deadline): no diagnosis,
    only what to check."""
    t = state.t
    url = str(getattr(state.run.source, "base_url", "") or "RUNAI_URL").rstrip("/")
    seconds = float(getattr(state.run.source, "deadline_seconds", 0.0) or 0.0)
    state = state.with_evidence(
        Evidence(source=answer.op, field=None, text=quote(answer.describe_failure()))
    ).stepped(
        t("next.unreachable_endpoint", url=url),
        t("next.unreachable_network"),
        t("next.unreachable_retry", seconds=seconds),
    )
    return finished(
        state,
        "unreachable",
        root_cause=t("rc.unreachable", call=answer.op, failure=answer.describe_failure(lang=t.lang)),
    )


def auth_failed(state: State, answer: Answer) -> Diagnosis:
    """The control plane rejected the credentials: a credentials and clock checklist, no grant."""
    t = state.t
    url = str(getattr(state.run.source, "base_url", "") or "RUNAI_URL").rstrip("/")
    state = state.with_evidence(
        Evidence(source=answer.op, field=None, text=quote(answer.describe_failure()), value=answer.status)
    ).stepped(t("next.auth_credentials"), t("next.auth_token", url=url), t("next.auth_clock"))
    return finished(
        state,
        "auth_failed",
        root_cause=t("rc.auth_failed", call=answer.op, failure=answer.describe_failure(lang=t.lang)),
    )


def denied(state: State, answer: Answer) -> Diagnosis:
    """A control-plane 403 stops the diagnosis and names the access needed: a viewer role on the
    workload's project (or cluster)."""
    t = state.t
    request = state.run.request
    project = state.target.project or request.project
    cluster = state.target.cluster_id or request.cluster_id or "?"
    permission = (
        t("perm.viewer_project", project=project, cluster=cluster)
        if project
        else t("perm.viewer_cluster", cluster=cluster)
    )
    state = state.with_evidence(
        Evidence(source=answer.op, field=None, text=quote(answer.describe_failure()), value=answer.status)
    ).stepped(t("next.grant_and_rerun"))
    return finished(
        state,
        "permission_denied",
        root_cause=t("rc.permission_denied", call=answer.op, failure=answer.describe_failure(lang=t.lang)),
        confidence="LOW",
        permissions=[permission],
    )


def unknown_without_status(state: State) -> Diagnosis:
    """The status could not be read (or holds no phase): a partial diagnosis, not a guess."""
    state = state.stepped(state.t("next.retry_status"))
    return finished(
        state, "diagnosed", root_cause=state.t("rc.no_status"), category="UNKNOWN", confidence="LOW"
    )


def needs_input(state: State, *, root_cause: str, questions: Sequence[Question]) -> Diagnosis:
    return finished(state, "needs_input", root_cause=root_cause, questions=questions)

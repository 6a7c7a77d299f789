"""The diagnoses a step can finish with before step 5: questions, refusals, routes, partial results."""

from __future__ import annotations

from collections.abc import Sequence

from diagnosis.evidence.source import Answer
from diagnosis.models import Category, Confidence, Diagnosis, Evidence, Outcome, Question, Route
from diagnosis.runai.signals import quote
from diagnosis.runai.workflow.state import State


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


def denied(state: State, answer: Answer) -> Diagnosis:
    """A control-plane 401/403 stops the diagnosis and names the access needed: a viewer role on the
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
        root_cause=t("rc.permission_denied", call=answer.op, failure=answer.describe_failure()),
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

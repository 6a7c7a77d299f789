"""The access policy applied to a request: before it runs, on its target, and per person."""

from __future__ import annotations

from typing import Literal

from bot.commands import RequestDraft
from bot.policy import BOTH_PLATFORMS, Decision, Scope, scope_of_target
from bot.services import BotServices
from bot.state.models import PendingRequest
from diagnosis.models import Diagnosis

# Why an answer to a question is refused (the label that says so).
AnswerRefusal = Literal["answer_elsewhere", "answer_not_asker"]


def with_aliases(services: BotServices, draft: RequestDraft) -> RequestDraft:
    """Cluster names from the policy's alias table become cluster ids (never guessed otherwise)."""
    if draft.cluster_id:
        resolved = services.policy.cluster_id(draft.cluster_id)
        if resolved != draft.cluster_id:
            return draft.model_copy(update={"cluster_id": resolved})
    return draft


def before_run(services: BotServices, draft: RequestDraft, *, user: str, channel: str) -> Decision:
    policy = services.policy
    platforms = [draft.platform] if draft.platform else list(BOTH_PLATFORMS)
    last = Decision(allowed=False, reason="no platform allowed")
    for platform in platforms:
        scope = Scope(platform=platform, cluster=draft.cluster_id, project=draft.project, region=draft.region)
        last = policy.decide(scope, user=user, channel=channel, members=services.group_members)
        if last.allowed:
            return last
    return last


def on_target(
    services: BotServices, diagnosis: Diagnosis, draft: RequestDraft, *, user: str, channel: str
) -> Decision:
    """Checked on what the diagnosis resolved: a workload id reveals its project only once read.
    Dimensions the target leaves empty fall back to what the request named."""
    scope = scope_of_target(diagnosis)
    scope = scope.model_copy(
        update={
            "cluster": scope.cluster or draft.cluster_id,
            "project": scope.project or draft.project,
            "region": scope.region or draft.region,
        }
    )
    return services.policy.decide(
        scope, user=user, channel=channel, members=services.group_members, final=True
    )


def for_scan(services: BotServices, scope: Scope, *, user: str, channel: str) -> Decision:
    return services.policy.decide(
        scope, user=user, channel=channel, members=services.group_members, final=True
    )


def answer_refusal(pending: PendingRequest, *, user: str, channel: str | None) -> AnswerRefusal | None:
    """Why `user`, in `channel`, may not answer or cancel the pending question; None when they may.

    A question is answered in the channel it was asked in (a button copied into another channel,
    or a modal whose channel is not the question's, is no answer) and by the person who asked: the
    answer resumes their request, under their name and their access. Choice buttons, the select,
    Cancel, "Type another value…" and its modal all check this, on the click and on the submission.
    """
    if channel != pending.place.channel:
        return "answer_elsewhere"
    if user != pending.user:
        return "answer_not_asker"
    return None

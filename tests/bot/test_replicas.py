"""Two `diagnose bot --http` replicas behind one (imagined) load balancer, sharing a real Redis.

A question asked by one replica is answered on the other, a retried Slack event is handled once
across replicas, and the per-user rate limit holds across them. The two processes are started once
for the module; each test talks in its own channel as its own user.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from playground.slack_api import Call, SlackApiStandIn, running_slack_api
from tests.bot.harness import SlackSender
from tests.bot.processes import bot_processes

PREEMPTED = "runai id=2e6b8f31-d4a0-4c97-95e2-a13f7b0c8d46 cluster=91c0d5e8-2f47-4a3b-b6e1-7c8a0f2d4e59"
# No cluster: the bot asks for it (the demo bundles suggest the one they know).
WITHOUT_CLUSTER = "runai workload=segformer-finetune project=vision-lab"
PER_USER = 2


@dataclass
class Replicas:
    api: SlackApiStandIn
    a: SlackSender
    b: SlackSender

    def in_channel(self, method: str, channel: str) -> list[Call]:
        return [
            call
            for call in self.api.calls_to(method)
            if (call.body.get("channel") or call.body.get("channel_id")) == channel
        ]


@pytest.fixture(scope="module")
def replicas(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Replicas]:
    state_dir: Path = tmp_path_factory.mktemp("replicas")
    policy = state_dir / "policy.json"
    policy.write_text(
        json.dumps({"rules": [{}], "rate_limit": {"per_user": PER_USER, "window_seconds": 600}}),
        encoding="utf-8",
    )
    env = {
        "REDIS_URL": redis_url,
        "DIAGNOSE_REDIS_NAMESPACE": f"replicas-{uuid.uuid4().hex[:12]}",
        "DIAGNOSE_POLICY": str(policy),
    }
    with running_slack_api() as api, bot_processes(api, state_dir, count=2, extra_env=env) as urls:
        senders = Replicas(api=api, a=SlackSender(urls[0], api), b=SlackSender(urls[1], api, first_id=10_000))
        yield senders
        senders.a.close()
        senders.b.close()


def fresh(prefix: str) -> str:
    """A channel or user id of its own for each test (the fake Web API is shared by the module)."""
    return f"{prefix}{uuid.uuid4().hex[:8].upper()}"


def test_a_question_asked_by_one_replica_is_answered_on_the_other(replicas: Replicas) -> None:
    api, channel, user = replicas.api, fresh("C0Q"), fresh("U0Q")
    assert replicas.a.command(WITHOUT_CLUSTER, channel=channel, user=user).status == 200
    prompt = api.wait_for(
        "chat.postMessage",
        where=lambda c: c.body.get("channel") == channel and "question|" in json.dumps(c.body.get("blocks")),
        timeout=30,
    )[0]
    assert replicas.b.click(prompt, "answer_choice_0", channel=channel, user=user).status == 200
    api.wait_for(
        "chat.update",
        where=lambda c: c.body.get("channel") == channel and "OOM_KILLED" in c.body.get("text", ""),
        timeout=30,
    )
    # The full report and the memory chart, in the report's thread.
    api.wait_for(
        "files.completeUploadExternal",
        where=lambda c: c.body.get("channel_id") == channel,
        count=2,
        timeout=30,
    )
    # The same button again, on replica A: the question was taken by B, A only says so.
    replicas.a.click(prompt, "answer_choice_0", channel=channel, user=user)
    told = api.wait_for("chat.postEphemeral", where=lambda c: c.body.get("channel") == channel, timeout=30)[0]
    assert "already answered" in told.body["text"]
    reports = [c for c in replicas.in_channel("chat.update", channel) if "OOM_KILLED" in c.body["text"]]
    assert len(reports) == 1, "one report, whichever replica the click reached"
    files = sorted(upload.filename for upload in replicas.api.uploads() if upload.channel == channel)
    assert files == ["diagnosis-segformer-finetune.md", "memory-segformer-finetune.png"]


def test_a_retried_event_is_handled_once_across_replicas(replicas: Replicas) -> None:
    api, channel, user = replicas.api, fresh("C0R"), fresh("U0R")
    event = {
        "type": "app_mention",
        "user": user,
        "text": f"<@U0DIAGBOT> {PREEMPTED}",
        "ts": "1767300000.000100",
        "channel": channel,
    }
    event_id = f"Ev{uuid.uuid4().hex[:10].upper()}"
    first = replicas.a.event(event, event_id=event_id)
    # Slack thought the first delivery was lost and retries it; the load balancer picks replica B.
    retried = replicas.b.event(event, event_id=event_id, retry_num=1)
    again = replicas.a.event(event, event_id=event_id, retry_num=2)
    assert (first.status, retried.status, again.status) == (200, 200, 200), "every delivery is acked"
    api.wait_for(
        "chat.update",
        where=lambda c: c.body.get("channel") == channel and "Routed: preempted" in c.body.get("text", ""),
        timeout=30,
    )
    api.wait_for(
        "files.completeUploadExternal", where=lambda c: c.body.get("channel_id") == channel, timeout=30
    )
    placeholders = replicas.in_channel("chat.postMessage", channel)
    assert len(placeholders) == 1, "one replica answered, once"
    assert placeholders[0].body["thread_ts"] == "1767300000.000100", "in the mention's thread"


def test_the_per_user_rate_limit_holds_across_replicas(replicas: Replicas) -> None:
    api, channel, user = replicas.api, fresh("C0L"), fresh("U0L")
    for sender in (replicas.a, replicas.b):
        assert sender.command(PREEMPTED, channel=channel, user=user).status == 200
    api.wait_for(
        "chat.update",
        where=lambda c: c.body.get("channel") == channel and "Routed: preempted" in c.body.get("text", ""),
        count=PER_USER,
        timeout=30,
    )
    # Over the limit, on either replica: told so privately, nothing posted in the channel.
    for sender in (replicas.a, replicas.b):
        sender.command(PREEMPTED, channel=channel, user=user)
    denials = api.wait_for(
        "commands/",
        where=lambda c: (
            "many diagnoses" in str(c.body.get("text")) and c.body.get("response_type") == "ephemeral"
        ),
        count=2,
        timeout=30,
    )
    assert len(denials) == 2
    assert len(replicas.in_channel("chat.postMessage", channel)) == PER_USER
    # Another person in the same channel is not limited by the first one's requests.
    replicas.b.command(PREEMPTED, channel=channel, user=fresh("U0M"))
    api.wait_for(
        "chat.update",
        where=lambda c: c.body.get("channel") == channel and "Routed: preempted" in c.body.get("text", ""),
        count=PER_USER + 1,
        timeout=30,
    )

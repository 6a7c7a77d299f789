from __future__ import annotations

import json

from bot.state.store import StateStore
from diagnosis.models import Choice
from playground.slack_api import SlackApiStandIn
from tests.bot.examples import OOM, example_diagnosis
from tests.bot.harness import CHANNEL, ScriptedBackend, running_bot

CLUSTER = "4a9e2c17-5b3d-4f80-9c61-2d7be0f4a315"
MENTION_TS = "1767225600.000100"


def test_a_sentence_mention_is_answered_in_its_thread(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    with running_bot(slack_api, backend=backend, store=sqlite_store) as bot:
        reply = bot.slack.mention(
            f"why did segformer-finetune in vision-lab fail on cluster {CLUSTER}?", ts=MENTION_TS
        )
        assert reply.status == 200
        placeholder = slack_api.wait_for("chat.postMessage")[0]
        assert placeholder.body["thread_ts"] == MENTION_TS
        slack_api.wait_for("chat.update", where=lambda c: "OOM_KILLED" in c.body.get("text", ""))
        bot.idle()
    request = backend.requests[0]
    assert (request.workload_name, request.project, request.cluster_id) == (
        "segformer-finetune",
        "vision-lab",
        CLUSTER,
    )


def test_nothing_is_guessed_the_platform_is_asked(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    backend = ScriptedBackend(
        answer=lambda request: example_diagnosis(OOM),
        known={
            "cluster_id": [Choice(value=CLUSTER, label="prod-a")],
            "project": [Choice(value="vision-lab", label="vision-lab")],
        },
    )
    with running_bot(slack_api, backend=backend, store=sqlite_store) as bot:
        bot.slack.mention("is segformer-finetune crash-looping?", ts=MENTION_TS)
        first = slack_api.wait_for(
            "chat.postMessage", where=lambda c: "question|" in json.dumps(c.body.get("blocks"))
        )[0]
        assert "Which platform" in first.body["text"]
        bot.slack.click(first, "answer_choice_0")  # Run:ai
        second = slack_api.wait_for(
            "chat.postMessage", where=lambda c: "Which Run:ai cluster" in c.body.get("text", "")
        )[0]
        bot.slack.click(second, "answer_choice_0")
        third = slack_api.wait_for(
            "chat.postMessage", where=lambda c: "Which Run:ai project" in c.body.get("text", "")
        )[0]
        bot.slack.click(third, "answer_choice_0")
        slack_api.wait_for("chat.update", where=lambda c: "OOM_KILLED" in c.body.get("text", ""))
        bot.idle()
    request = backend.requests[0]
    assert (request.platform, request.cluster_id, request.project, request.intent) == (
        "runai",
        CLUSTER,
        "vision-lab",
        "active",
    )


def test_a_mention_delivered_as_app_mention_and_message_is_answered_once(
    slack_api: SlackApiStandIn, any_store: StateStore
) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    text = f"<@U0DIAGBOT> why did segformer-finetune in vision-lab fail on cluster {CLUSTER}?"
    with running_bot(slack_api, backend=backend, store=any_store) as bot:
        bot.slack.event(
            {"type": "message", "user": "U0ALICE01", "text": text, "ts": MENTION_TS, "channel": CHANNEL}
        )
        bot.slack.event(
            {"type": "app_mention", "user": "U0ALICE01", "text": text, "ts": MENTION_TS, "channel": CHANNEL}
        )
        slack_api.wait_for("chat.update", where=lambda c: "OOM_KILLED" in c.body.get("text", ""))
        bot.idle()
    assert len(backend.requests) == 1
    assert len(slack_api.calls_to("chat.postMessage")) == 1


def test_a_retried_event_produces_exactly_one_report(
    slack_api: SlackApiStandIn, any_store: StateStore
) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM), delay=0.1)
    with running_bot(slack_api, backend=backend, store=any_store) as bot:
        for retry in (None, 1, 2):
            reply = (
                bot.slack.mention(
                    f"why did segformer-finetune in vision-lab fail on cluster {CLUSTER}",
                    ts=MENTION_TS,
                    event_id="Ev0RETRIED1",
                )
                if retry is None
                else bot.slack.event(
                    {
                        "type": "app_mention",
                        "user": "U0ALICE01",
                        "text": f"<@U0DIAGBOT> why did segformer-finetune in vision-lab fail on cluster {CLUSTER}",
                        "ts": MENTION_TS,
                        "channel": CHANNEL,
                    },
                    event_id="Ev0RETRIED1",
                    retry_num=retry,
                )
            )
            assert reply.status == 200
        slack_api.wait_for("chat.update", where=lambda c: "OOM_KILLED" in c.body.get("text", ""))
        bot.idle()
    assert len(backend.requests) == 1
    reports = [c for c in slack_api.calls_to("chat.update") if "OOM_KILLED" in c.body.get("text", "")]
    assert len(reports) == 1
    assert len(slack_api.calls_to("files.completeUploadExternal")) == 1


def test_small_talk_mention_gets_the_usage(slack_api: SlackApiStandIn, sqlite_store: StateStore) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    with running_bot(slack_api, backend=backend, store=sqlite_store) as bot:
        bot.slack.mention("hello there", ts=MENTION_TS)
        usage = slack_api.wait_for("chat.postMessage")[0]
        assert usage.body["thread_ts"] == MENTION_TS
        assert "/diagnose runai" in json.dumps(usage.body["blocks"])
        bot.idle()
    assert backend.requests == []

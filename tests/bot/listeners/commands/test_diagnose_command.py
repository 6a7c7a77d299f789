from __future__ import annotations

import json

from bot.state.store import StateStore
from playground.slack_api import SlackApiStandIn
from tests.bot.examples import OOM, example_diagnosis
from tests.bot.harness import CHANNEL, USER, ScriptedBackend, running_bot

RUNAI_OPTB = (
    "runai cluster=4a9e2c17-5b3d-4f80-9c61-2d7be0f4a315 workload=segformer-finetune project=vision-lab"
)


def test_report_replaces_the_placeholder_and_the_full_report_goes_in_its_thread(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM), delay=0.05)
    with running_bot(slack_api, backend=backend, store=sqlite_store) as bot:
        reply = bot.slack.command(RUNAI_OPTB)
        assert reply.status == 200 and reply.seconds < 2.0
        placeholder = slack_api.wait_for("chat.postMessage")[0]
        assert placeholder.body["channel"] == CHANNEL and "thread_ts" not in placeholder.body
        assert "segformer-finetune" in placeholder.body["text"]
        report = slack_api.wait_for("chat.update", where=lambda c: "OOM_KILLED" in c.body.get("text", ""))[0]
        assert report.body["ts"] == placeholder_ts(slack_api)
        header = report.body["blocks"][0]["text"]["text"]
        assert "OOM_KILLED" in header and "Failed" in header
        complete = slack_api.wait_for("files.completeUploadExternal")[0]
        assert complete.body["thread_ts"] == placeholder_ts(slack_api)
        assert complete.body["channel_id"] == CHANNEL
        bot.idle()
    request = backend.requests[0]
    assert (request.cluster_id, request.workload_name, request.project) == (
        "4a9e2c17-5b3d-4f80-9c61-2d7be0f4a315",
        "segformer-finetune",
        "vision-lab",
    )
    uploaded = [c for c in slack_api.calls if c.method.startswith("upload/")]
    assert uploaded and uploaded[0].raw, "the full report's bytes were uploaded"


def placeholder_ts(api: SlackApiStandIn) -> str:
    return str(api.calls_to("chat.postMessage")[0].response["ts"])


def test_help_and_unknown_words_answer_with_usage_in_the_ack(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    with running_bot(slack_api, backend=backend, store=sqlite_store) as bot:
        for text in ("help", "frobnicate the cluster", "runai colour=blue"):
            reply = bot.slack.command(text)
            assert reply.status == 200
            body = reply.json()
            assert body["response_type"] == "ephemeral"
            assert "/diagnose runai cluster=" in json.dumps(body["blocks"])
            assert "Traceback" not in reply.body
        assert slack_api.calls_to("chat.postMessage") == []
    assert backend.requests == []


def test_user_id_only_appears_as_mention_in_report(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    with running_bot(slack_api, backend=backend, store=sqlite_store) as bot:
        bot.slack.command(RUNAI_OPTB)
        report = slack_api.wait_for("chat.update", where=lambda c: "OOM_KILLED" in c.body.get("text", ""))[0]
        assert f"<@{USER}>" in json.dumps(report.body["blocks"])

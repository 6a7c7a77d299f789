from __future__ import annotations

import json

from bot.explain import explain_markdown
from bot.state.store import StateStore
from playground.slack_api import SlackApiStandIn
from tests.bot.examples import MA_TRACEBACK, OOM, example_diagnosis
from tests.bot.harness import CHANNEL, USER, ScriptedBackend, running_bot

COMMAND = "runai cluster=4a9e2c17-5b3d-4f80-9c61-2d7be0f4a315 workload=segformer-finetune project=vision-lab"


def report_thread(api: SlackApiStandIn) -> str:
    api.wait_for("files.completeUploadExternal")
    return str(api.calls_to("chat.postMessage")[0].response["ts"])


def test_follow_ups_are_answered_from_the_stored_diagnosis(
    slack_api: SlackApiStandIn, any_store: StateStore
) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    with running_bot(slack_api, backend=backend, store=any_store) as bot:
        bot.slack.command(COMMAND)
        thread = report_thread(slack_api)
        bot.idle()
        bot.slack.thread_reply("evidence", ts="1767229000.000001", thread_ts=thread)
        evidence = slack_api.wait_for(
            "chat.postMessage", where=lambda c: c.body.get("text", "").startswith("Evidence")
        )[0]
        assert evidence.body["thread_ts"] == thread
        assert "get_workload_metrics" in json.dumps(evidence.body["blocks"])
        bot.slack.thread_reply("history", ts="1767229000.000002", thread_ts=thread)
        history = slack_api.wait_for(
            "chat.postMessage", where=lambda c: c.body.get("text", "").startswith("Recurrence")
        )[0]
        assert "2 failure(s) of this category in 7d" in json.dumps(history.body["blocks"])
        bot.slack.thread_reply("why?", ts="1767229000.000003", thread_ts=thread)
        slack_api.wait_for(
            "chat.postMessage", where=lambda c: "16Gi CPU-memory limit" in json.dumps(c.body.get("blocks"))
        )
        bot.slack.thread_reply("json", ts="1767229000.000004", thread_ts=thread)
        uploads = slack_api.wait_for("files.completeUploadExternal", count=2)
        assert uploads[1].body["thread_ts"] == thread
        assert any(
            c.method.startswith("upload/") and b'"schema": "diagnosis/v1"' in c.raw for c in slack_api.calls
        )
        bot.slack.thread_reply("looks like memory to me", ts="1767229000.000005", thread_ts=thread)
        bot.idle()
    assert len(backend.requests) == 1, "follow-ups never re-run the diagnosis"
    assert len(slack_api.calls_to("chat.postMessage")) == 4, "small talk in the thread gets no post"


def test_a_reply_the_bot_does_not_understand_gets_one_hint_and_never_a_diagnosis(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    with running_bot(slack_api, backend=backend, store=sqlite_store) as bot:
        bot.slack.command(COMMAND)
        thread = report_thread(slack_api)
        bot.idle()
        bot.slack.thread_reply("what about the weather?", ts="1767229000.000001", thread_ts=thread)
        hint = slack_api.wait_for(
            "chat.postEphemeral", where=lambda c: "did not understand" in c.body["text"]
        )[0]
        assert hint.body["thread_ts"] == thread and hint.body["user"] == USER
        assert len(hint.body["text"].splitlines()) == 1 and "`explain &lt;code&gt;`" in hint.body["text"]
        # Once per person and thread: people also talk to each other there.
        bot.slack.thread_reply("why did it fail on thursday?", ts="1767229000.000002", thread_ts=thread)
        bot.slack.thread_reply("no idea", ts="1767229000.000003", thread_ts=thread, user="U0BOB")
        slack_api.wait_for("chat.postEphemeral", where=lambda c: c.body["user"] == "U0BOB")
        bot.idle()
        hints = [
            c for c in slack_api.calls_to("chat.postEphemeral") if "did not understand" in c.body["text"]
        ]
        assert [c.body["user"] for c in hints] == [USER, "U0BOB"]
    assert len(backend.requests) == 1, "no job named after a word of a sentence is diagnosed"


def test_rerun_and_a_new_question_in_the_thread(slack_api: SlackApiStandIn, sqlite_store: StateStore) -> None:
    backend = ScriptedBackend(
        answer=lambda request: example_diagnosis(OOM if request.platform == "runai" else MA_TRACEBACK)
    )
    with running_bot(slack_api, backend=backend, store=sqlite_store) as bot:
        bot.slack.command(COMMAND)
        thread = report_thread(slack_api)
        bot.idle()
        bot.slack.thread_reply("rerun", ts="1767229000.000001", thread_ts=thread)
        rerun_status = slack_api.wait_for("chat.postMessage", count=2)[1]
        assert rerun_status.body["thread_ts"] == thread
        slack_api.wait_for("files.completeUploadExternal", count=2)
        bot.idle()
        bot.slack.mention(
            "what happened to job dish-classifier-vit-b16 in cn-north-4",
            ts="1767229000.000009",
            thread_ts=thread,
        )
        slack_api.wait_for("chat.update", where=lambda c: "CRASH_APP_ERROR" in c.body.get("text", ""))
        bot.idle()
    assert [r.platform for r in backend.requests] == ["runai", "runai", "modelarts"]
    assert backend.requests[2].job_name == "dish-classifier-vit-b16"


def test_explain_in_a_thread(slack_api: SlackApiStandIn, sqlite_store: StateStore) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    with running_bot(slack_api, backend=backend, store=sqlite_store) as bot:
        bot.slack.command(COMMAND)
        thread = report_thread(slack_api)
        bot.idle()
        bot.slack.thread_reply("explain 137", ts="1767229000.000001", thread_ts=thread)
        answer = slack_api.wait_for("chat.postMessage", count=2)[1]
        assert answer.body["thread_ts"] == thread
        assert "137" in answer.body["text"]
        # A reason, as `diagnose explain OOMKilled` explains it, in the language asked for.
        bot.slack.thread_reply("explain OOMKilled lang=fr", ts="1767229000.000002", thread_ts=thread)
        reason = slack_api.wait_for("chat.postMessage", count=3)[2]
        assert reason.body["thread_ts"] == thread
        assert explain_markdown("OOMKilled", lang="fr")[0].splitlines()[0].removeprefix("## ") in json.dumps(
            reason.body["blocks"], ensure_ascii=False
        )
        bot.idle()
    assert answer.body["channel"] == CHANNEL


def test_messages_from_bots_and_edits_are_ignored(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    with running_bot(slack_api, backend=backend, store=sqlite_store) as bot:
        bot.slack.command(COMMAND)
        thread = report_thread(slack_api)
        bot.idle()
        base = {"type": "message", "channel": CHANNEL, "thread_ts": thread}
        bot.slack.event(
            {**base, "text": "evidence", "ts": "1767229000.1", "bot_id": "B0OTHER", "subtype": "bot_message"}
        )
        bot.slack.event({**base, "text": "evidence", "ts": "1767229000.2", "subtype": "message_changed"})
        bot.slack.event({**base, "text": "evidence", "ts": "1767229000.3", "user": "U1", "bot_id": "B0OTHER"})
        bot.slack.event(
            {"type": "message", "channel": CHANNEL, "text": "evidence", "ts": "1767229000.4", "user": "U1"}
        )
        bot.idle()
    assert len(slack_api.calls_to("chat.postMessage")) == 1


def test_a_follow_up_where_no_diagnosis_is_stored_says_so(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    with running_bot(slack_api, backend=backend, store=sqlite_store) as bot:
        bot.slack.mention("evidence", ts="1767229000.000002", thread_ts="1767000000.000001")
        told = slack_api.wait_for("chat.postMessage")[0]
        assert "no longer have the diagnosis" in told.body["text"]
        bot.idle()
    assert backend.requests == []

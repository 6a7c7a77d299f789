"""What happens when Slack or the engine misbehaves: the user is always told, nothing is lost."""

from __future__ import annotations

import json

from bot.state.store import StateStore
from diagnosis.models import DiagnoseRequest, Diagnosis, Evidence
from playground.slack_api import SlackApiStandIn
from tests.bot.examples import OOM, example_diagnosis
from tests.bot.harness import ScriptedBackend, running_bot, wait_until

COMMAND = "runai cluster=4a9e2c17-5b3d-4f80-9c61-2d7be0f4a315 workload=segformer-finetune project=vision-lab"


def test_one_429_does_not_lose_the_report(slack_api: SlackApiStandIn, sqlite_store: StateStore) -> None:
    # No progress lines (they are best effort): the only chat.update is the report.
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM), steps=())
    slack_api.rate_limit("chat.update", retry_after=1, times=1)
    with running_bot(slack_api, backend=backend, store=sqlite_store) as bot:
        bot.slack.command(COMMAND)
        limited, delivered = slack_api.wait_for(
            "chat.update", where=lambda c: "OOM_KILLED" in c.body.get("text", ""), count=2
        )
        bot.idle()
    assert limited.response == {"ok": False, "error": "ratelimited"}
    assert delivered.response["ok"] is True and delivered.body == limited.body
    assert delivered.at - limited.at >= 1.0, "Retry-After was honoured"


def test_not_in_channel_is_told_through_the_response_url(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    slack_api.fail("chat.postMessage", "not_in_channel")
    with running_bot(slack_api, backend=backend, store=sqlite_store) as bot:
        bot.slack.command(COMMAND)
        told = slack_api.wait_for("commands/T0ACME001/1/resp")[0]
        assert "not_in_channel" in told.body["text"] and "/invite" in told.body["text"]
        bot.idle()
    assert backend.requests == []


def test_a_deleted_placeholder_gets_the_report_as_a_new_thread_message(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM), steps=())
    slack_api.fail("chat.update", "message_not_found", times=5)
    with running_bot(slack_api, backend=backend, store=sqlite_store) as bot:
        bot.slack.command(COMMAND)
        placeholder = slack_api.wait_for("chat.postMessage")[0]
        report = slack_api.wait_for(
            "chat.postMessage", where=lambda c: "OOM_KILLED" in c.body.get("text", "")
        )[0]
        assert report.body["thread_ts"] == placeholder.response["ts"]
        bot.idle()


def test_an_engine_crash_is_reported_without_a_traceback(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    def explode(request: DiagnoseRequest) -> Diagnosis:
        raise RuntimeError("runai settings: RUNAI_CLIENT_SECRET=s3cr3t-value is wrong\nmore detail")

    backend = ScriptedBackend(answer=explode)
    with running_bot(slack_api, backend=backend, store=sqlite_store) as bot:
        bot.slack.command(COMMAND)
        failed = slack_api.wait_for(
            "chat.update", where=lambda c: "could not be completed" in c.body.get("text", "")
        )[0]
        text = json.dumps(failed.body)
        assert "Traceback" not in text and "Nothing was changed" in text and "Reference:" in text
        assert "s3cr3t-value" not in text, "the reason is masked"
        bot.idle()


def test_a_full_queue_says_busy(slack_api: SlackApiStandIn, sqlite_store: StateStore) -> None:
    import threading

    release = threading.Event()

    def slow(request: DiagnoseRequest) -> Diagnosis:
        release.wait(10)
        return example_diagnosis(OOM)

    backend = ScriptedBackend(answer=slow)
    with running_bot(slack_api, backend=backend, store=sqlite_store, diagnosis_slots=1, max_waiting=1) as bot:
        # One diagnosis runs, one waits for it, and the third is told at once that the bot is busy.
        bot.slack.command(COMMAND)
        wait_until(lambda: len(backend.requests) == 1)
        bot.slack.command(COMMAND, user="U0BOB")
        slack_api.wait_for("chat.postMessage", count=2)
        wait_until(lambda: bot.queues.diagnoses.pending_count() == 1)
        bot.slack.command(COMMAND, user="U0CAROL")
        busy = slack_api.wait_for("chat.update", where=lambda c: "busy" in c.body.get("text", ""))[0]
        assert "U0CAROL" in json.dumps(slack_api.calls_to("chat.postMessage")[2].body)
        assert busy.body["ts"] == slack_api.calls_to("chat.postMessage")[2].response["ts"]
        release.set()
        slack_api.wait_for("chat.update", count=2, where=lambda c: "OOM_KILLED" in c.body.get("text", ""))
        bot.idle()
    assert len(backend.requests) == 2


def test_a_log_line_cannot_ping_the_channel(slack_api: SlackApiStandIn, sqlite_store: StateStore) -> None:
    hostile = example_diagnosis(OOM)
    hostile.evidence.append(
        Evidence(
            source="k8s.read_pod_log",
            field="log",
            text="ERROR <!channel> <!here|here> <@U0BOSS> <https://evil.example|click> & done",
        )
    )
    hostile.signature = "<!channel> RuntimeError"
    hostile.target.name = "<!everyone>-job"
    backend = ScriptedBackend(answer=lambda request: hostile)
    with running_bot(slack_api, backend=backend, store=sqlite_store) as bot:
        bot.slack.command(COMMAND)
        report = slack_api.wait_for("chat.update", where=lambda c: "OOM_KILLED" in c.body.get("text", ""))[0]
        bot.slack.thread_reply(
            "logs",
            ts="1767229000.000001",
            thread_ts=str(slack_api.calls_to("chat.postMessage")[0].response["ts"]),
        )
        logs = slack_api.wait_for(
            "chat.postMessage", where=lambda c: c.body.get("text", "").startswith("Logs")
        )[0]
        bot.idle()
    for call in (report, logs):
        text = json.dumps(call.body)
        for raw in ("<!channel>", "<!here", "<@U0BOSS>", "<https://evil", "<!everyone>"):
            assert raw not in text
        assert "&lt;!channel&gt;" in text
        assert call.body["link_names"] is False

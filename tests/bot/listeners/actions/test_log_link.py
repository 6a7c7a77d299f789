from __future__ import annotations

import json
import logging

import pytest

from bot.state.store import StateStore
from playground.slack_api import Call, SlackApiStandIn
from tests.bot.examples import MA_TRACEBACK, OOM, example_diagnosis
from tests.bot.harness import USER, BotUnderTest, ScriptedBackend, running_bot

JOB = "5f0c9a6e-81d2-4b7f-a3e4-6c2d19b8f07a"


def traceback_report(bot: BotUnderTest, api: SlackApiStandIn) -> Call:
    """A ModelArts traceback diagnosed through `/diagnose`: its report message (with the log-link button)."""
    bot.slack.command(f"modelarts job={JOB} region=cn-north-4")
    report = api.wait_for("chat.update", where=lambda c: "CRASH_APP_ERROR" in c.body.get("text", ""))[0]
    bot.idle()
    return report


def traceback_backend() -> ScriptedBackend:
    return ScriptedBackend(
        answer=lambda request: example_diagnosis(MA_TRACEBACK), steps=("ShowTrainingJobDetails",)
    )


def test_the_full_log_link_goes_to_the_asker_only(
    slack_api: SlackApiStandIn, sqlite_store: StateStore, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    backend = traceback_backend()
    with running_bot(slack_api, backend=backend, store=sqlite_store) as bot:
        report = traceback_report(bot, slack_api)
        bot.slack.click(report, "log_link", user="U0BOB")
        opened = slack_api.wait_for("views.open")[0]
        view = opened.body["view"]
        task_input = view["blocks"][0]["element"]
        assert task_input["initial_value"] == "worker-0", "the task the diagnosis names is proposed"
        bot.slack.submit_view(view, "worker-0", user="U0BOB")
        ephemeral = slack_api.wait_for("chat.postEphemeral")[0]
        bot.idle()
    assert ephemeral.body["user"] == "U0BOB"
    assert "obs.example.com" in json.dumps(ephemeral.body["blocks"])
    assert backend.log_urls == [(JOB, "worker-0")]
    # The link is a credential: it is in no channel message, no stored state and no log line.
    for call in slack_api.calls:
        if call.method != "chat.postEphemeral":
            assert "obs.example.com" not in json.dumps(call.body) and b"obs.example.com" not in call.raw
    assert "obs.example.com" not in caplog.text
    record = sqlite_store.get_thread(
        ephemeral.body["channel"], str(slack_api.calls_to("chat.postMessage")[0].response["ts"])
    )
    assert record is not None and "obs.example.com" not in record.model_dump_json()
    assert USER != "U0BOB"


def test_no_log_link_button_for_run_ai(slack_api: SlackApiStandIn, sqlite_store: StateStore) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    with running_bot(slack_api, backend=backend, store=sqlite_store) as bot:
        bot.slack.command(
            "runai cluster=4a9e2c17-5b3d-4f80-9c61-2d7be0f4a315 workload=segformer-finetune project=vision-lab"
        )
        report = slack_api.wait_for("chat.update", where=lambda c: "OOM_KILLED" in c.body.get("text", ""))[0]
        assert "log_link" not in json.dumps(report.body["blocks"])
        assert "rerun_diagnosis" in json.dumps(report.body["blocks"])


def test_a_rate_limited_modal_answers_the_click_at_once_and_says_why(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    """views.open must happen within the trigger id's 3 seconds, and over HTTP Slack's answer to
    the click waits for it: a 429 is not waited out; the click is answered and the person told."""
    with running_bot(slack_api, backend=traceback_backend(), store=sqlite_store) as bot:
        report = traceback_report(bot, slack_api)
        slack_api.rate_limit("views.open", retry_after=30, times=5)
        reply = bot.slack.click(report, "log_link", user="U0BOB")
        assert reply.status == 200 and reply.seconds < 2.5
        told = slack_api.wait_for("chat.postEphemeral")[0]
        bot.idle()
    assert told.body["user"] == "U0BOB" and "ratelimited" in told.body["text"]
    assert len(slack_api.calls_to("views.open")) == 1

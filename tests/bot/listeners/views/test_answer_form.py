from __future__ import annotations

import json

from bot.state.store import StateStore
from diagnosis.models import Choice
from playground.slack_api import SlackApiStandIn
from tests.blocks.checks import assert_view_within_limits
from tests.bot.examples import MA_TRACEBACK, OOM, example_diagnosis
from tests.bot.harness import CHANNEL, ScriptedBackend, running_bot
from tests.bot.listeners.actions.test_answer_choice import CLUSTER, prompt_of, report_update
from tests.bot.slack_connect import view_submission


def test_free_text_answer_through_a_modal(slack_api: SlackApiStandIn, sqlite_store: StateStore) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    with running_bot(slack_api, backend=backend, store=sqlite_store) as bot:
        bot.slack.command("runai workload=segformer-finetune project=vision-lab")
        prompt = prompt_of(slack_api)
        bot.slack.click(prompt, "answer_other")
        opened = slack_api.wait_for("views.open")[0]
        view = opened.body["view"]
        assert opened.body["trigger_id"].startswith("trigger.")
        assert_view_within_limits(view)
        bad = bot.slack.submit_view(view, "prod a; rm -rf /")
        assert bad.status == 200 and bad.json()["response_action"] == "errors"
        assert backend.requests == []
        good = bot.slack.submit_view(view, CLUSTER)
        assert good.status == 200 and good.body == ""
        report_update(slack_api)
        bot.idle()
    assert backend.requests[0].cluster_id == CLUSTER


def test_a_bad_task_name_keeps_the_log_link_form_open(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(MA_TRACEBACK), steps=())
    with running_bot(slack_api, backend=backend, store=sqlite_store) as bot:
        bot.slack.command("modelarts job=5f0c9a6e-81d2-4b7f-a3e4-6c2d19b8f07a region=cn-north-4")
        report = slack_api.wait_for(
            "chat.update", where=lambda c: "CRASH_APP_ERROR" in c.body.get("text", "")
        )[0]
        bot.idle()
        bot.slack.click(report, "log_link")
        view = slack_api.wait_for("views.open")[0].body["view"]
        reply = bot.slack.submit_view(view, "../../etc/passwd x")
        assert reply.json()["response_action"] == "errors"
        bot.idle()
    assert backend.log_urls == []
    assert slack_api.calls_to("chat.postEphemeral") == []


def test_a_submission_is_checked_against_the_questions_asker_and_channel(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    """Whatever the modal's private_metadata names, only the asker's submission, from the
    question's channel, answers it; a refused one keeps the modal open with the reason."""
    backend = ScriptedBackend(
        answer=lambda request: example_diagnosis(OOM),
        known={"cluster_id": [Choice(value=CLUSTER, label="prod-a")]},
    )
    with running_bot(slack_api, backend=backend, store=sqlite_store) as bot:
        bot.slack.command("runai workload=segformer-finetune project=vision-lab")
        prompt = prompt_of(slack_api)
        bot.slack.click(prompt, "answer_other")
        view = slack_api.wait_for("views.open")[0].body["view"]
        opened_for = json.loads(view["private_metadata"])
        assert opened_for["channel"] == CHANNEL
        elsewhere = json.dumps({**opened_for, "channel": "C0ELSEWHERE"})
        by_mallory = bot.slack.interaction(view_submission(view, CLUSTER, user="U0MALLORY"))
        forged_channel = bot.slack.interaction(
            view_submission(view, CLUSTER, user="U0ALICE01", private_metadata=elsewhere)
        )
        bot.idle()
        assert backend.requests == []
        good = bot.slack.submit_view(view, CLUSTER)
        report_update(slack_api)
        bot.idle()
    for refused, reason in ((by_mallory, "Only the person who asked"), (forged_channel, "another channel")):
        answer = refused.json()
        assert answer["response_action"] == "errors" and reason in answer["errors"]["answer"]
    assert good.body == "" and len(backend.requests) == 1

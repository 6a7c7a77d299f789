"""'Type another value…' opens its modal only for the question's asker, in the question's channel."""

from __future__ import annotations

from bot.state.store import StateStore
from diagnosis.models import Choice
from playground.slack_api import SlackApiStandIn
from tests.bot.examples import OOM, example_diagnosis
from tests.bot.harness import CHANNEL, ScriptedBackend, running_bot
from tests.bot.listeners.actions.test_answer_choice import CLUSTER, prompt_of, report_update

OTHER_CHANNEL = "C0ELSEWHERE"
MALLORY = "U0MALLORY"
BOB = "U0BOB"


def asking_backend() -> ScriptedBackend:
    return ScriptedBackend(
        answer=lambda request: example_diagnosis(OOM),
        known={"cluster_id": [Choice(value=CLUSTER, label="prod-a")]},
    )


def test_the_modal_opens_only_for_the_asker_in_the_questions_channel(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    backend = asking_backend()
    with running_bot(slack_api, backend=backend, store=sqlite_store) as bot:
        bot.slack.command("runai workload=segformer-finetune project=vision-lab")
        prompt = prompt_of(slack_api)
        bot.slack.click(prompt, "answer_other", channel=OTHER_CHANNEL, user=MALLORY)
        elsewhere = slack_api.wait_for("chat.postEphemeral", where=lambda c: c.body["user"] == MALLORY)[0]
        bot.slack.click(prompt, "answer_other", user=BOB)
        teammate = slack_api.wait_for("chat.postEphemeral", where=lambda c: c.body["user"] == BOB)[0]
        bot.idle()
        assert slack_api.calls_to("views.open") == []
        bot.slack.click(prompt, "answer_other")
        slack_api.wait_for("views.open")
        bot.idle()
    assert elsewhere.body["channel"] == OTHER_CHANNEL and "another channel" in elsewhere.body["text"]
    assert teammate.body["channel"] == CHANNEL and "Only the person who asked" in teammate.body["text"]
    assert backend.requests == []


def test_choice_and_cancel_buttons_answer_only_for_the_asker_in_the_questions_channel(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    backend = asking_backend()
    with running_bot(slack_api, backend=backend, store=sqlite_store) as bot:
        bot.slack.command("runai workload=segformer-finetune project=vision-lab")
        prompt = prompt_of(slack_api)
        bot.slack.click(prompt, "answer_choice_0", user=BOB)
        bot.slack.click(prompt, "answer_cancel", user=BOB)
        bot.slack.click(prompt, "answer_cancel", channel=OTHER_CHANNEL, user=MALLORY)
        told = slack_api.wait_for("chat.postEphemeral", count=3)
        bot.idle()
        assert backend.requests == [], "a teammate's click did not answer the asker's question"
        assert not [c for c in slack_api.calls_to("chat.update") if "Cancelled" in c.body.get("text", "")]
        bot.slack.click(prompt, "answer_choice_0")
        report_update(slack_api)
        bot.idle()
    assert sorted(call.body["user"] for call in told) == [BOB, BOB, MALLORY]
    assert len(backend.requests) == 1 and backend.requests[0].cluster_id == CLUSTER

from __future__ import annotations

import json
import threading
from typing import Any

import pytest

from bot.state.models import PendingRequest
from bot.state.store import StateStore
from diagnosis.models import Choice, DiagnoseRequest, Diagnosis, Question, Target
from playground.slack_api import Call, SlackApiStandIn
from tests.bot.examples import OOM, example_diagnosis
from tests.bot.harness import ScriptedBackend, running_bot

CLUSTER = "4a9e2c17-5b3d-4f80-9c61-2d7be0f4a315"


def prompt_of(api: SlackApiStandIn) -> Call:
    return api.wait_for("chat.postMessage", where=lambda c: "question|" in json.dumps(c.body.get("blocks")))[
        0
    ]


def report_update(api: SlackApiStandIn, word: str = "OOM_KILLED") -> Call:
    return api.wait_for("chat.update", where=lambda c: word in c.body.get("text", ""))[0]


def test_missing_cluster_is_answered_through_a_button(
    slack_api: SlackApiStandIn, any_store: StateStore
) -> None:
    backend = ScriptedBackend(
        answer=lambda request: example_diagnosis(OOM),
        known={
            "cluster_id": [Choice(value=CLUSTER, label="prod-a"), Choice(value="other-cluster", label="dev")]
        },
    )
    with running_bot(slack_api, backend=backend, store=any_store) as bot:
        bot.slack.command("runai workload=segformer-finetune project=vision-lab")
        prompt = prompt_of(slack_api)
        placeholder = slack_api.calls_to("chat.postMessage")[0]
        assert prompt.body["thread_ts"] == placeholder.response["ts"], "the question is asked in the thread"
        buttons = [e for b in prompt.body["blocks"] if b["type"] == "actions" for e in b["elements"]]
        assert [b["text"]["text"] for b in buttons][:2] == ["prod-a", "dev"]
        assert buttons[0]["value"] == CLUSTER, "the choice's value alone identifies it (S1)"
        assert backend.requests == [], "nothing runs before the question is answered"
        reply = bot.slack.click(prompt, "answer_choice_0")
        assert reply.status == 200
        answered = slack_api.wait_for("chat.update", where=lambda c: c.body["ts"] == prompt.response["ts"])[0]
        assert "prod-a" in json.dumps(answered.body["blocks"])
        report_update(slack_api)
        bot.idle()
    assert backend.requests[0].cluster_id == CLUSTER
    assert backend.requests[0].workload_name == "segformer-finetune"


def candidates_then_report(request: DiagnoseRequest) -> Diagnosis:
    if request.workload_id:
        diagnosis = example_diagnosis(OOM)
        diagnosis.target.workload_id = request.workload_id
        return diagnosis
    return Diagnosis(
        platform="runai",
        outcome="needs_input",
        target=Target(name="train-42", project="ml-team", cluster_id=CLUSTER),
        root_cause="3 workloads named train-42 are active; which one is crash-looping?",
        questions=[
            Question(
                key="workload_id",
                prompt="Several workloads match **train-42**: which one?",
                choices=[
                    Choice(value=f"wid-{n}", label=f"train-42 · Running · 2026-11-2{n}T08:00:00Z")
                    for n in range(1, 4)
                ],
            )
        ],
        calls=["list_workloads"],
    )


def test_several_candidates_are_offered_and_the_choice_resumes_the_request(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    backend = ScriptedBackend(answer=candidates_then_report)
    with running_bot(slack_api, backend=backend, store=sqlite_store) as bot:
        bot.slack.command(f"runai cluster={CLUSTER} workload=train-42 project=ml-team intent=active")
        prompt = prompt_of(slack_api)
        labels = [
            e["text"]["text"] for b in prompt.body["blocks"] if b["type"] == "actions" for e in b["elements"]
        ]
        assert labels[:3] == [f"train-42 · Running · 2026-11-2{n}T08:00:00Z" for n in range(1, 4)]
        needs_input = slack_api.wait_for(
            "chat.update", where=lambda c: "Needs input" in c.body.get("text", "")
        )
        assert needs_input, "the placeholder says what is asked"
        bot.slack.click(prompt, "answer_choice_1")
        report_update(slack_api)
        bot.idle()
    assert [r.workload_id for r in backend.requests] == [None, "wid-2"]
    assert backend.requests[1].workload_name == "train-42" and backend.requests[1].intent == "active"


def test_many_candidates_become_a_select(slack_api: SlackApiStandIn, sqlite_store: StateStore) -> None:
    choices = [Choice(value=f"job-{n}", label=f"job {n}") for n in range(12)]

    def answer(request: DiagnoseRequest) -> Diagnosis:
        if request.job_id:
            return example_diagnosis("modelarts-early-exit-traceback")
        return Diagnosis(
            platform="modelarts",
            outcome="needs_input",
            questions=[Question(key="job_id", prompt="Which job?", choices=choices)],
        )

    backend = ScriptedBackend(answer=answer)
    with running_bot(slack_api, backend=backend, store=sqlite_store) as bot:
        bot.slack.command("modelarts job=dish region=cn-north-4")
        prompt = prompt_of(slack_api)
        select = next(
            e
            for b in prompt.body["blocks"]
            if b["type"] == "actions"
            for e in b["elements"]
            if e["type"] == "static_select"
        )
        assert len(select["options"]) == 12
        bot.slack.click(prompt, "answer_select", value="job-7")
        report_update(slack_api, "CRASH_APP_ERROR")
        bot.idle()
    assert backend.requests[-1].job_id == "job-7"


def test_a_pending_question_survives_a_restart_and_resumes_once(
    slack_api: SlackApiStandIn, any_store: StateStore
) -> None:
    backend = ScriptedBackend(
        answer=lambda request: example_diagnosis(OOM),
        known={"cluster_id": [Choice(value=CLUSTER, label="prod-a")]},
    )
    with running_bot(slack_api, backend=backend, store=any_store) as first:
        first.slack.command("runai workload=segformer-finetune project=vision-lab")
        prompt = prompt_of(slack_api)
    # A new process (same store): the click lands on the restarted bot.
    with running_bot(slack_api, backend=backend, store=any_store) as second:
        second.slack.click(prompt, "answer_choice_0")
        second.slack.click(prompt, "answer_choice_0")
        report_update(slack_api)
        second.idle()
        ephemeral = slack_api.wait_for("chat.postEphemeral")
        assert "already answered" in ephemeral[0].body["text"]
    assert len(backend.requests) == 1


def test_cancel_stops_the_request(slack_api: SlackApiStandIn, sqlite_store: StateStore) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    with running_bot(slack_api, backend=backend, store=sqlite_store) as bot:
        bot.slack.command("runai workload=segformer-finetune project=vision-lab")
        prompt = prompt_of(slack_api)
        bot.slack.click(prompt, "answer_cancel")
        slack_api.wait_for("chat.update", where=lambda c: "Cancelled" in c.body.get("text", ""))
        bot.idle()
        assert bot.runtime.services.store.get_pending(prompt.json_arg("blocks")[1]["block_id"][9:]) is None
    assert backend.requests == []


def test_a_click_that_beats_the_bot_recording_its_question_is_answered_once_and_not_undone(
    slack_api: SlackApiStandIn, sqlite_store: StateStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The buttons work as soon as the question is posted; the bot records the question's ts just
    after. A click in between must update the question, run the request once, and the late record
    must neither bring the question back nor overwrite the report."""
    backend = ScriptedBackend(
        answer=lambda request: example_diagnosis(OOM),
        known={"cluster_id": [Choice(value=CLUSTER, label="prod-a")]},
    )
    late = threading.Event()
    recorded: list[bool] = []
    replace_pending = sqlite_store.replace_pending

    def slow_record(pending: PendingRequest, **options: Any) -> bool:
        late.wait(20)
        recorded.append(replace_pending(pending, **options))
        return recorded[-1]

    monkeypatch.setattr(sqlite_store, "replace_pending", slow_record)
    with running_bot(slack_api, backend=backend, store=sqlite_store) as bot:
        bot.slack.command("runai workload=segformer-finetune project=vision-lab")
        prompt = prompt_of(slack_api)
        placeholder = slack_api.calls_to("chat.postMessage")[0]
        bot.slack.click(prompt, "answer_choice_0")
        answered = slack_api.wait_for("chat.update", where=lambda c: c.body["ts"] == prompt.response["ts"])[0]
        assert "prod-a" in json.dumps(answered.body["blocks"])
        report_update(slack_api)
        late.set()
        bot.idle()
    assert recorded == [False]
    assert len(backend.requests) == 1
    on_placeholder = [
        c for c in slack_api.calls_to("chat.update") if c.body["ts"] == placeholder.response["ts"]
    ]
    assert "OOM_KILLED" in on_placeholder[-1].body.get("text", ""), "the report stays the last word"
    assert sqlite_store.get_pending(prompt.json_arg("blocks")[1]["block_id"][9:]) is None

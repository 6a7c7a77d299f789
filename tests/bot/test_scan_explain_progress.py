"""Scans, explanations, progress on the placeholder, the per-user rate limit, user groups."""

from __future__ import annotations

import json
import threading

import pytest

from bot.background import Background
from bot.policy import Policy, Rule
from bot.progress import ProgressReporter
from bot.state.store import StateStore
from diagnosis.knowledge.explain import explain
from playground.slack_api import SlackApiStandIn
from tests.bot.examples import OOM, example_diagnosis
from tests.bot.harness import ScriptedBackend, running_bot
from tests.bot.test_bundles_backend import bundles  # noqa: F401  (module fixture)

COMMAND = "runai cluster=4a9e2c17-5b3d-4f80-9c61-2d7be0f4a315 workload=segformer-finetune project=vision-lab"


def test_progress_shows_the_running_step(slack_api: SlackApiStandIn, sqlite_store: StateStore) -> None:
    backend = ScriptedBackend(
        answer=lambda request: example_diagnosis(OOM),
        steps=("list_workloads", "get_workload_status", "get_workload_history"),
        delay=0.3,
    )
    with running_bot(slack_api, backend=backend, store=sqlite_store, progress_interval=0.25) as bot:
        bot.slack.command(COMMAND)
        slack_api.wait_for(
            "chat.update", where=lambda c: "reading the workload history" in json.dumps(c.body.get("blocks"))
        )
        slack_api.wait_for("chat.update", where=lambda c: "OOM_KILLED" in c.body.get("text", ""))
        bot.idle()
    updates = [c for c in slack_api.calls_to("chat.update")]
    assert "OOM_KILLED" in updates[-1].body["text"], "no progress line lands after the report"


class FakeClient:
    def __init__(self) -> None:
        self.updates: list[str] = []
        self.lock = threading.Lock()

    def chat_update(self, **kwargs: object) -> None:
        with self.lock:
            self.updates.append(json.dumps(kwargs.get("blocks")))


def test_progress_updates_are_coalesced() -> None:
    client = FakeClient()
    background = Background()
    clock = [0.0]
    reporter = ProgressReporter(
        client=client,  # type: ignore[arg-type]
        background=background,
        channel="C1",
        ts="1.1",
        what="w",
        user="U1",
        lang="en",
        interval=60.0,
        clock=lambda: clock[0],
    )
    for op in ("list_workloads", "get_workload_status", "get_workload_events", "get_workload_spec"):
        reporter(op)
        clock[0] += 0.1
    background.wait_idle(5)
    assert len(client.updates) == 1, "four steps within the interval make one update"
    clock[0] += 60.0
    reporter("get_workload_pods")
    background.wait_idle(5)
    assert len(client.updates) == 2 and "reading the pods" in client.updates[1]
    reporter.close()
    clock[0] += 120.0
    reporter("get_workload_history")
    background.wait_idle(5)
    assert len(client.updates) == 2, "nothing after close: the report is never overwritten"
    background.shutdown()


def test_scan_from_bundles(slack_api: SlackApiStandIn, sqlite_store: StateStore, bundles) -> None:  # noqa: F811
    with running_bot(slack_api, backend=bundles, store=sqlite_store) as bot:
        bot.slack.command("scan modelarts region=cn-east-3")
        summary = slack_api.wait_for(
            "chat.update", where=lambda c: "共列出 1 个作业" in c.body.get("text", "")
        )[0]
        assert "UNKNOWN" in json.dumps(summary.body["blocks"])
        slack_api.wait_for("files.completeUploadExternal")
        bot.idle()
    upload = next(c for c in slack_api.calls if c.method.startswith("upload/"))
    assert json.loads(upload.raw)["schema"] == "scan/v1"


def test_explain_answers_the_asker(slack_api: SlackApiStandIn, sqlite_store: StateStore) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    with running_bot(slack_api, backend=backend, store=sqlite_store) as bot:
        bot.slack.command("explain 137")
        told = slack_api.wait_for("commands/T0ACME001/1/resp")[0]
        assert "137" in json.dumps(told.body) and told.body["response_type"] == "ephemeral"
        bot.idle()
    assert backend.requests == []


@pytest.mark.parametrize(
    ("typed", "code", "lang"),
    [
        ("explain ImagePullBackOff", "ImagePullBackOff", "en"),
        ("explain APIGW.0301 lang=ja", "APIGW.0301", "ja"),
    ],
)
def test_slack_explains_what_the_cli_explains(
    typed: str, code: str, lang: str, slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    with running_bot(slack_api, backend=backend, store=sqlite_store) as bot:
        bot.slack.command(typed)
        told = slack_api.wait_for("commands/T0ACME001/1/resp")[0]
        bot.idle()
    explanation = explain(code, lang=lang)
    assert explanation is not None
    shown = json.dumps(told.body, ensure_ascii=False)
    assert explanation.title in shown and explanation.meaning[:40] in shown


def test_an_unknown_code_is_said_unknown_as_the_cli_says_it(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    with running_bot(slack_api, backend=backend, store=sqlite_store) as bot:
        bot.slack.command("explain FrobnicateError")
        told = slack_api.wait_for("commands/T0ACME001/1/resp")[0]
        bot.idle()
    assert "is not in the built-in catalogue" in json.dumps(told.body)


def test_per_user_rate_limit(slack_api: SlackApiStandIn, sqlite_store: StateStore) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    policy = Policy.model_validate({"rules": [{}], "rate_limit": {"per_user": 2, "window_seconds": 600}})
    with running_bot(slack_api, backend=backend, store=sqlite_store, policy=policy) as bot:
        for _ in range(3):
            bot.slack.command(COMMAND)
        # The three run side by side: whichever comes third is told, privately.
        slack_api.wait_for("commands/", where=lambda c: "many diagnoses" in str(c.body.get("text")))
        bot.idle()
        told = [c for c in slack_api.calls if c.method.startswith("commands/") and "many" in str(c.body)]
        assert len(told) == 1 and told[0].body.get("response_type") == "ephemeral"
        bot.slack.command(COMMAND, user="U0BOB")
        slack_api.wait_for("files.completeUploadExternal", count=3)
        bot.idle()
    assert len(backend.requests) == 3


def test_user_groups_are_resolved_through_the_web_api(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    slack_api.usergroups["S0MLTEAM"] = ["U0CAROL"]
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    policy = Policy(rules=[Rule(channels=["*"], usergroups=["S0MLTEAM"])])
    with running_bot(slack_api, backend=backend, store=sqlite_store, policy=policy) as bot:
        bot.slack.command(COMMAND, user="U0DAVE")
        slack_api.wait_for("commands/T0ACME001/1/resp")
        bot.slack.command(COMMAND, user="U0CAROL")
        slack_api.wait_for("files.completeUploadExternal")
        bot.idle()
    assert len(backend.requests) == 1
    assert slack_api.calls_to("usergroups.users.list")[0].body["usergroup"] == "S0MLTEAM"

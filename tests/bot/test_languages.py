"""Fixed labels follow the channel's language (the policy's `languages`), as the engine's text does;
an explicit `lang=` wins; channels without a setting keep the platform's default (rulings G9)."""

from __future__ import annotations

import json

import pytest

from bot.policy import Policy
from bot.state.store import StateStore
from tests.bot.examples import OOM, example_diagnosis
from tests.bot.harness import ScriptedBackend, running_bot
from tests.fakes.slack_api import FakeSlackApi

COMMAND = "runai cluster=4a9e2c17-5b3d-4f80-9c61-2d7be0f4a315 workload=segformer-finetune project=vision-lab"
POLICY = Policy.model_validate({"rules": [{}], "languages": {"C0FRANCE": "fr", "C0NIHON": "ja"}})


@pytest.mark.parametrize(
    ("channel", "extra", "placeholder", "report_words", "hint"),
    [
        (
            "C0FRANCE",
            "",
            "Diagnostic de Run:ai workload",
            ("Confiance", "Cause racine"),
            "Répondez dans ce fil",
        ),
        ("C0NIHON", "", "を診断中", ("確信度", "根本原因"), "このスレッドに返信できます"),
        ("C0FRANCE", " lang=ja", "を診断中", ("確信度",), "このスレッドに返信できます"),
        ("C0OTHER", "", "Diagnosing Run:ai workload", ("Confidence", "Root cause"), "Reply in this thread"),
    ],
)
def test_labels_follow_the_channel_language(
    slack_api: FakeSlackApi,
    sqlite_store: StateStore,
    channel: str,
    extra: str,
    placeholder: str,
    report_words: tuple[str, ...],
    hint: str,
) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    with running_bot(slack_api, backend=backend, store=sqlite_store, policy=POLICY) as bot:
        bot.slack.command(COMMAND + extra, channel=channel)
        report = slack_api.wait_for("chat.update", where=lambda c: "OOM_KILLED" in c.body.get("text", ""))[0]
        complete = slack_api.wait_for("files.completeUploadExternal")[0]
        bot.idle()
    posted = slack_api.calls_to("chat.postMessage")[0]
    assert placeholder in json.dumps(posted.body["blocks"], ensure_ascii=False)
    text = json.dumps(report.body["blocks"], ensure_ascii=False)
    for word in report_words:
        assert word in text, word
    assert hint in str(complete.body.get("initial_comment")), "the follow-up hint under the full report"


def test_a_denial_and_the_rate_limit_speak_the_channel_language(
    slack_api: FakeSlackApi, sqlite_store: StateStore
) -> None:
    policy = Policy.model_validate(
        {
            "rules": [{"channels": ["C0FRANCE"]}],
            "languages": {"C0FRANCE": "fr", "C0NIHON": "ja"},
            "rate_limit": {"per_user": 1, "window_seconds": 600},
        }
    )
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    with running_bot(slack_api, backend=backend, store=sqlite_store, policy=policy) as bot:
        bot.slack.command(COMMAND, channel="C0NIHON")
        denied = slack_api.wait_for("commands/T0ACME001/1/resp")[0]
        bot.slack.command(COMMAND, channel="C0FRANCE")
        slack_api.wait_for("files.completeUploadExternal")
        bot.slack.command(COMMAND, channel="C0FRANCE")
        limited = slack_api.wait_for("commands/T0ACME001/3/resp")[0]
        bot.idle()
    assert "この診断を実行できません" in denied.body["text"]
    assert "beaucoup de diagnostics" in limited.body["text"]

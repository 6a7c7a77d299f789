"""Fixed labels follow the channel's language (the policy's `languages`), as the engine's text does;
an explicit `lang=` wins; channels without a setting keep the platform's default (rulings G9)."""

from __future__ import annotations

import asyncio
import json

import pytest

from blocks.labels import label
from bot.backends import BackendUnavailable, BundlesBackend
from bot.failures import failure_reason
from bot.policy import Policy
from bot.state.store import StateStore
from playground.slack_api import SlackApiStandIn
from tests.bot.examples import OOM, example_diagnosis
from tests.bot.harness import ScriptedBackend, running_bot
from tests.conftest import EXAMPLES

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
    slack_api: SlackApiStandIn,
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
    slack_api: SlackApiStandIn, sqlite_store: StateStore
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


LANGUAGES = Policy.model_validate(
    {"rules": [{}], "languages": {"C0FRANCE": "fr", "C0NIHON": "ja", "C0ZHONG": "zh"}}
)


@pytest.mark.parametrize(
    ("channel", "words"),
    [
        ("C0FRANCE", ("diagnostic en lecture seule", "tous les workloads en échec d’un cluster")),
        ("C0NIHON", ("読み取り専用で診断します", "失敗したワークロードをすべて診断")),
        ("C0ZHONG", ("以只读方式诊断失败的训练作业", "诊断集群（或项目）内所有失败的工作负载")),
        ("C0OTHER", ("read-only diagnosis of a failed training job", "every failed workload of a cluster")),
    ],
)
def test_the_help_speaks_the_channel_language_and_shows_the_runai_scan(
    slack_api: SlackApiStandIn, sqlite_store: StateStore, channel: str, words: tuple[str, ...]
) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    with running_bot(slack_api, backend=backend, store=sqlite_store, policy=LANGUAGES) as bot:
        reply = bot.slack.command("help", channel=channel)
        bot.idle()
    help_text = json.dumps(reply.json()["blocks"], ensure_ascii=False)
    assert reply.json()["response_type"] == "ephemeral"
    for word in words:
        assert word in help_text, word
    assert "/diagnose scan runai cluster=&lt;id&gt; [project=" in help_text


def test_a_usage_problem_and_the_mention_help_speak_the_channel_language(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    with running_bot(slack_api, backend=backend, store=sqlite_store, policy=LANGUAGES) as bot:
        unknown = bot.slack.command("runai frobnicate=1", channel="C0NIHON")
        lookback = bot.slack.command("scan runai cluster=c lookback=forever", channel="C0FRANCE")
        bot.slack.mention("bonjour", ts="1767225600.000100", channel="C0ZHONG")
        posted = slack_api.wait_for("chat.postMessage")[0]
        bot.idle()
    assert unknown.json()["text"] == "不明なキー「frobnicate」"
    assert "読み取り専用で診断します" in json.dumps(unknown.json()["blocks"], ensure_ascii=False)
    assert lookback.json()["text"].startswith("lookback=forever n’est pas une durée")
    assert posted.body["thread_ts"] == "1767225600.000100"
    assert "以只读方式诊断失败的训练作业" in json.dumps(posted.body["blocks"], ensure_ascii=False)
    assert backend.requests == [] and backend.scans == []


def test_a_runai_scan_speaks_the_channel_language(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    result = {
        "schema": "scan/v1",
        "platform": "runai",
        "cluster_id": "3f1c-prod-a",
        "project": "ml-team",
        "lookback": "7d",
        "scanned": 2,
        "by_category": {"OOM_KILLED": 2},
        "recurring_causes": [
            {"kind": "node", "value": "gpu-node-7", "count": 2, "workloads": ["train-1", "train-2"]}
        ],
        "results": [example_diagnosis(OOM).to_json_dict() for _ in range(2)],
    }
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM), scan_result=result, scan_jobs=2)
    with running_bot(slack_api, backend=backend, store=sqlite_store, policy=LANGUAGES) as bot:
        bot.slack.command("scan runai cluster=3f1c-prod-a project=ml-team", channel="C0FRANCE")
        slack_api.wait_for("files.completeUploadExternal")
        bot.idle()
    placeholder = slack_api.calls_to("chat.postMessage")[0]
    assert "Liste des workloads en échec" in json.dumps(placeholder.body["blocks"], ensure_ascii=False)
    summary = json.dumps(slack_api.calls_to("chat.update")[-1].body["blocks"], ensure_ascii=False)
    assert "cluster Run:ai 3f1c-prod-a, projet ml-team" in summary
    assert "2 workload(s) en échec diagnostiqué(s)" in summary
    assert "même nœud `gpu-node-7` — 2 jobs\u00a0: train-1, train-2" in summary


def test_a_channel_language_no_catalogue_offers_is_refused_when_the_policy_loads() -> None:
    """A channel set to a language the bot does not speak would otherwise be answered in another."""
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="languages"):
        Policy.model_validate({"rules": [{}], "languages": {"C0DEUTSCH": "de"}})
    accepted = Policy.model_validate(
        {"rules": [{}], "languages": {"C0A": "en", "C0B": "fr", "C0C": "zh", "C0D": "ja"}}
    )
    assert accepted.lang_for("C0C") == "zh"


def test_what_the_backend_cannot_do_is_said_in_the_askers_language() -> None:
    backend = BundlesBackend(EXAMPLES)
    with pytest.raises(BackendUnavailable) as raised:
        asyncio.run(backend.log_url(job_id="x", task_id="worker-0", region=None))
    refusal = raised.value
    # The exception's own text is English (logs); the asker reads it in the channel's language.
    assert str(refusal) == "demo bundles hold no log link: connect ModelArts to get one"
    assert failure_reason(refusal, lang="ja") == label(refusal.key, "ja")
    assert "ModelArts" in failure_reason(refusal, lang="ja") and "demo bundles" not in failure_reason(
        refusal, lang="ja"
    )
    assert failure_reason(refusal, lang="fr").startswith("les bundles de démo")
    # Anything else is named by its exception, whatever the language.
    assert failure_reason(ValueError("bad input"), lang="ja") == "ValueError: bad input"

"""The access policy, unit and end to end: denied channels, the target check, re-checks on clicks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.policy import Policy, PolicyError, Rule, Scope, load_policy
from bot.state.store import StateStore
from playground.slack_api import SlackApiStandIn
from tests.bot.examples import MA_DENIED, OOM, example_diagnosis
from tests.bot.harness import CHANNEL, ScriptedBackend, running_bot

CLUSTER = "4a9e2c17-5b3d-4f80-9c61-2d7be0f4a315"
COMMAND = f"runai cluster={CLUSTER} workload=segformer-finetune project=vision-lab"

POLICY = Policy(
    rules=[
        Rule(channels=[CHANNEL], platforms=["runai"], clusters=[CLUSTER], projects=["vision-lab"]),
        Rule(channels=["C0MLOPS"], users=["U0BOB"], platforms=["modelarts"], regions=["cn-north-4"]),
        Rule(channels=["C0GROUP"], usergroups=["S0MLTEAM"]),
    ]
)


def test_default_policy_is_demo_only_and_open() -> None:
    policy = load_policy(None)
    assert policy.demo_only
    assert policy.decide(Scope(platform="runai"), user="U1", channel="C1").allowed


def test_rules_by_channel_user_platform_and_dimension() -> None:
    runai = Scope(platform="runai", cluster=CLUSTER, project="vision-lab")
    assert POLICY.decide(runai, user="U1", channel=CHANNEL).allowed
    assert not POLICY.decide(runai, user="U1", channel="C0ELSEWHERE").allowed
    assert not POLICY.decide(
        runai.model_copy(update={"project": "other"}), user="U1", channel=CHANNEL
    ).allowed
    ma = Scope(platform="modelarts", region="cn-north-4")
    assert POLICY.decide(ma, user="U0BOB", channel="C0MLOPS").allowed
    assert not POLICY.decide(ma, user="U0EVE", channel="C0MLOPS").allowed
    assert not POLICY.decide(Scope(platform="runai"), user="U0BOB", channel="C0MLOPS").allowed


def test_unknown_dimensions_pass_before_the_run_but_not_on_the_target() -> None:
    by_id = Scope(platform="runai", cluster=CLUSTER)
    assert POLICY.decide(by_id, user="U1", channel=CHANNEL).allowed
    assert not POLICY.decide(by_id, user="U1", channel=CHANNEL, final=True).allowed


def test_user_groups() -> None:
    members = {"S0MLTEAM": {"U0CAROL"}}
    scope = Scope(platform="runai")
    assert POLICY.decide(
        scope, user="U0CAROL", channel="C0GROUP", members=lambda g: members.get(g, set())
    ).allowed
    assert not POLICY.decide(
        scope, user="U0DAVE", channel="C0GROUP", members=lambda g: members.get(g, set())
    ).allowed


def test_policy_files(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text(
        "languages: {C1: zh}\ncluster_aliases: {prod-a: "
        + CLUSTER
        + "}\nrules:\n  - channels: [C1]\n    platforms: [runai]\n",
        encoding="utf-8",
    )
    policy = load_policy(path)
    assert not policy.demo_only and policy.lang_for("C1") == "zh" and policy.cluster_id("prod-a") == CLUSTER
    (tmp_path / "p.json").write_text(json.dumps({"rules": [{"channels": ["C2"]}]}), encoding="utf-8")
    assert load_policy(tmp_path / "p.json").rules[0].channels == ["C2"]
    (tmp_path / "bad.yaml").write_text("rules: [{platforms: [azure]}]", encoding="utf-8")
    with pytest.raises(PolicyError, match="platforms"):
        load_policy(tmp_path / "bad.yaml")
    with pytest.raises(PolicyError, match="cannot read"):
        load_policy(tmp_path / "missing.yaml")


def test_a_denied_channel_is_told_clearly_and_nothing_runs(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    with running_bot(slack_api, backend=backend, store=sqlite_store, policy=POLICY) as bot:
        reply = bot.slack.command(COMMAND, channel="C0RANDOM")
        assert reply.status == 200
        told = slack_api.wait_for("commands/T0ACME001/1/resp")[0]
        assert "may not run this diagnosis" in told.body["text"]
        assert told.body["response_type"] == "ephemeral"
        bot.idle()
    assert backend.requests == []
    assert slack_api.calls_to("chat.postMessage") == []


def test_a_target_outside_the_policy_gets_the_same_denial(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    other = example_diagnosis(OOM)
    other.target.project = "secret-project"
    backend = ScriptedBackend(answer=lambda request: other)
    with running_bot(slack_api, backend=backend, store=sqlite_store, policy=POLICY) as bot:
        bot.slack.command(f"runai id=c3f81d42-7a6e-4b19-8e05-91d2a7c6b038 cluster={CLUSTER}")
        denial = slack_api.wait_for(
            "chat.update", where=lambda c: "may not run this diagnosis" in c.body.get("text", "")
        )[0]
        assert "secret-project" not in json.dumps(denial.body) and "OOM" not in json.dumps(denial.body)
        bot.idle()
    assert len(backend.requests) == 1
    assert slack_api.calls_to("files.completeUploadExternal") == []


def test_follow_ups_and_clicks_are_checked_against_their_channel(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    policy = POLICY.model_copy(deep=True)
    with running_bot(slack_api, backend=backend, store=sqlite_store, policy=policy) as bot:
        bot.slack.command(COMMAND)
        slack_api.wait_for("files.completeUploadExternal")
        thread = str(slack_api.calls_to("chat.postMessage")[0].response["ts"])
        report = slack_api.calls_to("chat.update")[-1]
        bot.idle()
        # The channel loses access (policy changed): follow-ups and the Re-run button are refused.
        policy.rules[0].channels = ["C0OTHER"]
        bot.slack.thread_reply("evidence", ts="1767229000.000001", thread_ts=thread)
        denied = slack_api.wait_for("chat.postEphemeral")[0]
        assert "may not run this diagnosis" in denied.body["text"]
        bot.slack.click(report, "rerun_diagnosis")
        refused = slack_api.wait_for("chat.postEphemeral", count=2)[1]
        assert "may not run this diagnosis" in refused.body["text"]
        bot.idle()
    assert len(backend.requests) == 1


def test_permission_denied_offers_retry_which_runs_again(
    slack_api: SlackApiStandIn, any_store: StateStore
) -> None:
    answers = [example_diagnosis(MA_DENIED), example_diagnosis("modelarts-early-exit-traceback")]
    backend = ScriptedBackend(answer=lambda request: answers.pop(0))
    with running_bot(slack_api, backend=backend, store=any_store) as bot:
        bot.slack.command("modelarts job=a4e7b1c9-0d23-4f6a-8e5b-c19d2f0a7b84 region=cn-southwest-2")
        report = slack_api.wait_for(
            "chat.update", where=lambda c: c.body.get("text", "").startswith(":lock:")
        )[0]
        text = json.dumps(report.body["blocks"])
        assert "modelarts:trainJob:get" in text and "modelarts:trainJob:list" in text
        bot.idle()
        bot.slack.click(report, "retry_diagnosis")
        slack_api.wait_for("chat.update", where=lambda c: "CRASH_APP_ERROR" in c.body.get("text", ""))
        bot.idle()
    assert len(backend.requests) == 2 and backend.requests[1].job_id == "a4e7b1c9-0d23-4f6a-8e5b-c19d2f0a7b84"


def test_named_rules_and_strict_keys(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text("rules:\n  oncall: {channels: [C1], platforms: [runai]}\n", encoding="utf-8")
    assert load_policy(path).rules[0].channels == ["C1"]
    path.write_text("rulez:\n  - channels: [C1]\n", encoding="utf-8")
    with pytest.raises(PolicyError, match="rulez"):
        load_policy(path)
    path.write_text("rules:\n  - chanels: [C1]\n", encoding="utf-8")
    with pytest.raises(PolicyError, match="chanels"):
        load_policy(path)

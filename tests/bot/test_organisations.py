"""People of another Slack organisation (a Slack Connect channel) are refused at every entry point.

The payloads carry the person's workspace where Slack puts it: `team_id` and `enterprise_id` of a
slash command, `user_team` / `source_team` / `team` of an event (the envelope's `team_id` is the
workspace the event is delivered to), `user.team_id` of a click or a modal submission (their
`team` is the app's own workspace: https://github.com/slackapi/java-slack-sdk/issues/1041).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.organisations import Organisation, organisation_of
from bot.policy import Policy, Rule, load_policy
from bot.state.store import StateStore
from playground.slack_api import TEAM_ID, Call, SlackApiStandIn
from tests.bot.examples import MA_TRACEBACK, OOM, example_diagnosis
from tests.bot.harness import CHANNEL, USER, BotUnderTest, ScriptedBackend, running_bot
from tests.bot.slack_connect import (
    FORM,
    PARTNER_TEAM,
    PARTNER_USER,
    REFUSAL,
    command_form,
    partner_click,
    partner_command,
    partner_mention,
    partner_reply,
    refusals_to,
    view_submission,
)

CLUSTER = "4a9e2c17-5b3d-4f80-9c61-2d7be0f4a315"
COMMAND = f"runai cluster={CLUSTER} workload=segformer-finetune project=vision-lab"
OPEN = Policy(rules=[Rule()])


def report_of(
    bot: BotUnderTest, api: SlackApiStandIn, command: str = COMMAND, word: str = "OOM_KILLED"
) -> tuple[Call, str]:
    bot.slack.command(command)
    api.wait_for("chat.update", where=lambda c: word in c.body.get("text", ""))
    bot.idle()
    report = [c for c in api.calls_to("chat.update") if word in c.body.get("text", "")][-1]
    return report, str(api.calls_to("chat.postMessage")[0].response["ts"])


def sent_since(api: SlackApiStandIn, since: int) -> str:
    return json.dumps([c.body for c in api.calls[since:]], ensure_ascii=False)


def test_a_slash_command_from_another_workspace_is_refused_in_its_ack(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    with running_bot(slack_api, backend=backend, store=sqlite_store, policy=OPEN) as bot:
        reply = partner_command(bot, COMMAND)
        bot.idle()
    assert reply.status == 200
    answer = reply.json()
    assert answer["response_type"] == "ephemeral" and REFUSAL in answer["text"]
    assert backend.requests == []
    assert slack_api.calls_to("chat.postMessage") == []


def test_a_mention_from_another_organisation_in_a_shared_channel_is_refused(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    with running_bot(slack_api, backend=backend, store=sqlite_store, policy=OPEN) as bot:
        assert partner_mention(bot, f"diagnose {COMMAND}", ts="1767225600.000100").status == 200
        told = slack_api.wait_for("chat.postEphemeral")[0]
        bot.idle()
    assert told.body["user"] == PARTNER_USER and told.body["channel"] == CHANNEL
    assert told.body["thread_ts"] == "1767225600.000100"
    assert REFUSAL in told.body["text"]
    assert backend.requests == []
    assert slack_api.calls_to("chat.postMessage") == []


def test_a_thread_reply_from_another_organisation_gets_nothing_of_the_report(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    with running_bot(slack_api, backend=backend, store=sqlite_store, policy=OPEN) as bot:
        _report, thread = report_of(bot, slack_api)
        since = len(slack_api.calls)
        for number, word in enumerate(("evidence", "json", "logs")):
            partner_reply(bot, word, ts=f"1767229000.00000{number}", thread_ts=thread)
        slack_api.wait_for("chat.postEphemeral", count=3, where=lambda c: c.body.get("user") == PARTNER_USER)
        bot.idle()
        seen = sent_since(slack_api, since)
    assert all(REFUSAL in call.body["text"] for call in refusals_to(slack_api, PARTNER_USER))
    assert "k8s.read_pod_log" not in seen and "OOM_KILLED" not in seen and "segformer" not in seen
    assert not [c for c in slack_api.calls[since:] if c.method == "files.completeUploadExternal"]


def test_a_click_from_another_organisation_is_refused(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    backend = ScriptedBackend(
        answer=lambda request: example_diagnosis(OOM if request.platform == "runai" else MA_TRACEBACK)
    )
    with running_bot(slack_api, backend=backend, store=sqlite_store, policy=OPEN) as bot:
        runai, _thread = report_of(bot, slack_api)
        modelarts, _thread = report_of(
            bot,
            slack_api,
            "modelarts job=5f0c9a6e-81d2-4b7f-a3e4-6c2d19b8f07a region=cn-north-4",
            word="CRASH_APP_ERROR",
        )
        since = len(slack_api.calls)
        assert partner_click(bot, runai, "rerun_diagnosis").status == 200
        assert partner_click(bot, modelarts, "log_link").status == 200
        slack_api.wait_for("chat.postEphemeral", count=2, where=lambda c: c.body.get("user") == PARTNER_USER)
        bot.idle()
        seen = sent_since(slack_api, since)
    assert len(backend.requests) == 2, "the Re-run did not run"
    assert slack_api.calls_to("views.open") == [], "no modal opened"
    assert "OOM_KILLED" not in seen and backend.log_urls == []
    assert all(REFUSAL in call.body["text"] for call in refusals_to(slack_api, PARTNER_USER))


def test_a_modal_submission_from_another_organisation_is_refused_in_the_modal(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    with running_bot(slack_api, backend=backend, store=sqlite_store, policy=OPEN) as bot:
        bot.slack.command("runai workload=segformer-finetune project=vision-lab")
        prompt = slack_api.wait_for(
            "chat.postMessage", where=lambda c: "question|" in json.dumps(c.body.get("blocks"))
        )[0]
        bot.slack.click(prompt, "answer_other")
        view = slack_api.wait_for("views.open")[0].body["view"]
        payload = view_submission(view, CLUSTER, user=PARTNER_USER, team=PARTNER_TEAM)
        reply = bot.slack.interaction(payload)
        bot.idle()
    answer = reply.json()
    assert answer["response_action"] == "errors"
    assert REFUSAL in next(iter(answer["errors"].values()))
    assert backend.requests == []


def test_partner_workspaces_and_grid_orgs_are_admitted_when_listed(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    policy = Policy(teams=[TEAM_ID, PARTNER_TEAM], enterprises=["E0ACMEORG"], rules=[Rule()])
    with running_bot(slack_api, backend=backend, store=sqlite_store, policy=policy) as bot:
        partner = partner_command(bot, COMMAND)
        sibling = bot.slack.post(
            command_form(slack_api, COMMAND, team="T0ACMEEU", enterprise="E0ACMEORG", user="U0SIBLING"), FORM
        )
        stranger = bot.slack.post(
            command_form(slack_api, COMMAND, team="T0STRANGER", enterprise="E0OTHERORG", user="U0STRANGER"),
            FORM,
        )
        slack_api.wait_for("files.completeUploadExternal", count=2)
        bot.idle()
    assert partner.body == "" and sibling.body == ""
    assert REFUSAL in stranger.json()["text"]
    assert len(backend.requests) == 2


def test_the_installing_workspace_comes_from_auth_test_by_default(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    with running_bot(slack_api, backend=backend, store=sqlite_store, policy=OPEN) as bot:
        own = bot.slack.command(COMMAND, user=USER)
        slack_api.wait_for("files.completeUploadExternal")
        bot.idle()
    assert own.status == 200 and own.body == ""
    assert slack_api.calls_to("auth.test"), "the bot asked Slack which workspace its token belongs to"
    assert len(backend.requests) == 1


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # Slash command: the invoker's workspace and org.
        ({"command": "/diagnose", "team_id": "T1", "enterprise_id": "E1", "user_id": "U1"}, ({"T1"}, {"E1"})),
        # Event in a Slack Connect channel: the event's user_team (may be an org id), not the envelope.
        (
            {
                "type": "event_callback",
                "team_id": "T0HOME",
                "enterprise_id": "E0HOME",
                "is_ext_shared_channel": True,
                "event": {"type": "app_mention", "user": "U1", "user_team": "E9", "team": "E9"},
            },
            (set(), {"E9"}),
        ),
        (
            {
                "type": "event_callback",
                "team_id": "T0HOME",
                "event": {
                    "type": "message",
                    "user": "U1",
                    "user_team": "T9",
                    "source_team": "T9",
                    "team": "T9",
                },
            },
            ({"T9"}, set()),
        ),
        # A click or a submission: the person's workspace is user.team_id; `team` and `enterprise`
        # are the app's own (they only count when the person is of that same workspace).
        (
            {
                "type": "block_actions",
                "user": {"id": "U1", "team_id": "T9"},
                "team": {"id": "T0HOME"},
                "enterprise": {"id": "E0HOME"},
            },
            ({"T9"}, set()),
        ),
        (
            {
                "type": "view_submission",
                "user": {"id": "U1", "team_id": "T0HOME"},
                "team": {"id": "T0HOME", "enterprise_id": "E0HOME"},
                "enterprise": {"id": "E0HOME"},
            },
            ({"T0HOME"}, {"E0HOME"}),
        ),
    ],
)
def test_where_slack_names_the_persons_organisation(
    body: dict[str, Any], expected: tuple[set[str], set[str]]
) -> None:
    found = organisation_of(body)
    assert found is not None
    assert (set(found.teams), set(found.enterprises)) == expected


def test_an_event_with_no_person_is_not_checked_and_a_shared_one_without_teams_is_refused() -> None:
    assert organisation_of({"type": "event_callback", "event": {"type": "channel_shared"}}) is None
    unknown = organisation_of(
        {
            "type": "event_callback",
            "team_id": "T0HOME",
            "is_ext_shared_channel": True,
            "event": {"user": "U1"},
        }
    )
    assert unknown == Organisation(user="U1", channel="", teams=frozenset(), enterprises=frozenset())
    assert not OPEN.admits_organisation(unknown, installed_team="T0HOME").allowed
    internal = organisation_of({"type": "event_callback", "team_id": "T0HOME", "event": {"user": "U1"}})
    assert internal is not None and OPEN.admits_organisation(internal, installed_team="T0HOME").allowed


def test_policy_files_name_teams_and_enterprises(tmp_path: Any) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text(
        "teams: [T0ACME001, T0PARTNER]\nenterprises: [E0ACMEORG]\nrules: [{}]\n", encoding="utf-8"
    )
    policy = load_policy(path)
    assert policy.teams == ["T0ACME001", "T0PARTNER"] and policy.enterprises == ["E0ACMEORG"]
    assert load_policy(None).teams is None, "default: the installing workspace only"
    anyone = Policy(teams=["*"], rules=[Rule()])
    stranger = Organisation(user="U1", channel="C1", teams=frozenset({"T0X"}), enterprises=frozenset())
    assert anyone.admits_organisation(stranger, installed_team="T0ACME001").allowed
    assert not OPEN.admits_organisation(stranger, installed_team="T0ACME001").allowed
    assert not OPEN.admits_organisation(stranger, installed_team=None).allowed, "no installed team: closed"

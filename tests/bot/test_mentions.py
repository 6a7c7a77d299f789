from __future__ import annotations

import pytest

from bot.commands import DiagnoseCommand, ExplainCommand, HelpCommand, RequestDraft
from bot.mentions import FollowUp, parse_follow_up, parse_mention, strip_mentions


def draft_of(text: str) -> RequestDraft:
    command = parse_mention(text)
    assert isinstance(command, DiagnoseCommand), command
    return command.draft


def test_issue_sentence_pulls_out_every_identifier() -> None:
    text = strip_mentions("<@U0DIAGBOT> why did train-42 in ml-team fail on cluster prod-a?", "U0DIAGBOT")
    assert draft_of(text) == RequestDraft(
        platform="runai", workload_name="train-42", project="ml-team", cluster_id="prod-a"
    )


def test_crash_loop_wording_asks_for_the_active_path_and_guesses_nothing_else() -> None:
    draft = draft_of("is train-42 crash-looping?")
    assert draft.workload_name == "train-42" and draft.intent == "active"
    assert draft.platform is None and draft.cluster_id is None and draft.project is None
    assert draft.missing() == ["platform"]


def test_modelarts_sentence_and_region() -> None:
    draft = draft_of("what happened to job dish-classifier-vit-b16 in cn-north-4")
    assert (draft.platform, draft.job_name, draft.region) == (
        "modelarts",
        "dish-classifier-vit-b16",
        "cn-north-4",
    )


def test_ids_and_lookback() -> None:
    draft = draft_of(
        "check 2e6b8f31-d4a0-4c97-95e2-a13f7b0c8d46 on cluster 91c0d5e8-2f47-4a3b-b6e1-7c8a0f2d4e59 over the last 3 days"
    )
    assert draft.workload_id == "2e6b8f31-d4a0-4c97-95e2-a13f7b0c8d46"
    assert draft.cluster_id == "91c0d5e8-2f47-4a3b-b6e1-7c8a0f2d4e59"
    assert draft.lookback == "3d"


def test_keys_work_in_mentions_too() -> None:
    assert draft_of("runai cluster=c workload=w project=p").cluster_id == "c"
    assert parse_mention("explain 137") == ExplainCommand(code="137")
    assert parse_mention("explain OOMKilled") == ExplainCommand(code="OOMKilled")
    assert parse_mention("") == HelpCommand()


def test_small_talk_is_not_a_request() -> None:
    assert parse_mention("hello there") is None
    assert parse_mention("thanks!") is None


def test_a_reply_that_does_not_address_the_bot_never_names_a_job_after_a_word() -> None:
    # Addressed to the bot, the subject of the question is the job asked about.
    assert isinstance(parse_mention("what about the weather?"), DiagnoseCommand)
    # Not addressed to it: only explicit identifiers make a request.
    assert parse_mention("what about the weather?", guess_subject=False) is None
    assert parse_mention("why did train-42 fail?", guess_subject=False) is None
    assert parse_mention("and the weather in london, or in cn-north-4?", guess_subject=False) is None
    found = parse_mention("what about job dish-classifier in cn-north-4?", guess_subject=False)
    assert isinstance(found, DiagnoseCommand) and found.draft.job_name == "dish-classifier"


def test_mentions_of_others_do_not_become_identifiers() -> None:
    text = strip_mentions("<@U0DIAGBOT> <@U0ALICE|alice> says hi", "U0DIAGBOT")
    assert text == "alice says hi"
    assert parse_mention(text) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("evidence", FollowUp(kind="evidence")),
        ("Evidence please", FollowUp(kind="evidence")),
        ("history", FollowUp(kind="history")),
        ("logs", FollowUp(kind="logs")),
        ("json", FollowUp(kind="json")),
        ("rerun", FollowUp(kind="rerun")),
        ("why?", FollowUp(kind="why")),
        ("explain 137", FollowUp(kind="explain", code="137")),
        ("explain OOMKilled", FollowUp(kind="explain", code="OOMKilled")),
        ("explain ModelArts.2775 lang=zh", FollowUp(kind="explain", code="ModelArts.2775", lang="zh")),
        ("explain", None),
        ("looks like a config problem to me", None),
        ("why did train-43 fail on cluster prod-b in ml-team and what should we do", None),
    ],
)
def test_follow_ups(text: str, expected: FollowUp | None) -> None:
    assert parse_follow_up(text) == expected

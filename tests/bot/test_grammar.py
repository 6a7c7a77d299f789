from __future__ import annotations

import pytest

from bot.commands import DiagnoseCommand, ExplainCommand, HelpCommand, RequestDraft, ScanCommand, UsageProblem
from bot.grammar import parse_command

WID = "2e6b8f31-d4a0-4c97-95e2-a13f7b0c8d46"
CID = "91c0d5e8-2f47-4a3b-b6e1-7c8a0f2d4e59"


def draft_of(text: str) -> RequestDraft:
    command = parse_command(text)
    assert isinstance(command, DiagnoseCommand), command
    return command.draft


def test_runai_option_b() -> None:
    draft = draft_of("runai cluster=prod-a workload=train-42 project=ml-team lookback=3d intent=active")
    assert draft == RequestDraft(
        platform="runai",
        cluster_id="prod-a",
        workload_name="train-42",
        project="ml-team",
        lookback="3d",
        intent="active",
    )
    assert draft.missing() == []
    request = draft.to_request()
    assert request.platform == "runai" and request.lookback == "3d"


def test_runai_option_a_by_id() -> None:
    draft = draft_of(f"runai id={WID} cluster={CID}")
    assert draft.workload_id == WID and draft.cluster_id == CID and draft.missing() == []


def test_modelarts_job_is_id_or_name() -> None:
    assert draft_of(f"modelarts job={WID} region=cn-north-4").job_id == WID
    by_name = draft_of("modelarts job=dish-classifier region=cn-north-4")
    assert by_name.job_name == "dish-classifier" and by_name.region == "cn-north-4"
    assert draft_of("modelarts dish-classifier").job_name == "dish-classifier"


def test_forgiving_spelling() -> None:
    draft = draft_of("Run:ai  Cluster=<prod-a> workload-name=train-42 PROJECT=ml-team")
    assert (draft.platform, draft.cluster_id, draft.workload_name, draft.project) == (
        "runai",
        "prod-a",
        "train-42",
        "ml-team",
    )
    # The platform follows from the keys when it is not named.
    assert draft_of("job=abc region=cn-east-3").platform == "modelarts"


def test_missing_identifiers_are_listed_in_asking_order() -> None:
    assert draft_of("runai workload=train-42").missing() == ["cluster_id", "project"]
    assert draft_of("runai cluster=c").missing() == ["workload_name"]
    assert draft_of("modelarts region=cn-east-3").missing() == ["job"]
    assert RequestDraft(workload_name="train-42").missing() == ["platform"]


def test_platform_answer_moves_a_bare_name_to_the_right_field() -> None:
    draft = RequestDraft(workload_name="dish")
    assert draft.with_answer("platform", "modelarts").job_name == "dish"
    assert draft.with_answer("platform", "runai").workload_name == "dish"
    assert draft.with_answer("platform", "runai").with_answer("cluster_id", "c1").cluster_id == "c1"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", HelpCommand()),
        ("help", HelpCommand()),
        ("explain 137", ExplainCommand(code="137")),
        # What `diagnose explain` takes: reasons, API and Ascend codes, with lang= as the help says.
        ("explain ImagePullBackOff", ExplainCommand(code="ImagePullBackOff")),
        ("explain APIGW.0301 lang=fr", ExplainCommand(code="APIGW.0301", lang="fr")),
        ("explain lang=ja `-9`", ExplainCommand(code="-9", lang="ja")),
        ("scan modelarts region=cn-north-4", ScanCommand(platform="modelarts", region="cn-north-4")),
        ("scan modelarts", ScanCommand(platform="modelarts")),
        (
            "scan runai cluster=prod-a project=ml-team lookback=3d lang=fr",
            ScanCommand(platform="runai", cluster_id="prod-a", project="ml-team", lookback="3d", lang="fr"),
        ),
        ("scan run:ai cluster_id=<prod-a>", ScanCommand(platform="runai", cluster_id="prod-a")),
        # The cluster is asked in the thread, never guessed.
        ("scan runai", ScanCommand(platform="runai")),
    ],
)
def test_other_commands(text: str, expected: object) -> None:
    assert parse_command(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "runai frobnicate=1",
        "explain",
        "explain 137 139",
        "explain 137 lang=de",
        "explain a;b",
        "scan",
        "scan runai region=cn-north-4",
        "scan runai cluster=c lookback=forever",
        "scan runai cluster=a,b",
        "scan modelarts cluster=c",
        "scan runai workload=w cluster=c",
        "runai cluster=a workload=b project=c lookback=forever",
        "runai intent=sometimes cluster=a",
        "runai cluster=a b c d",
        "runai cluster=a region=cn-north-4",
        "workload=x region=cn-north-4",
        "runai cluster=<!channel>;rm",
        "modelarts job='a b'",
    ],
)
def test_unknown_or_bad_words_give_usage_not_an_error(text: str) -> None:
    command = parse_command(text)
    assert isinstance(command, UsageProblem)
    assert command.problem


def test_describe_is_plain_text() -> None:
    assert (
        draft_of("runai cluster=c workload=w project=p").describe()
        == "Run:ai workload w (project p, cluster c)"
    )
    assert draft_of("modelarts job=j region=r").describe() == "ModelArts job j (region r)"


def test_engine_question_answers_go_into_the_request() -> None:
    draft = RequestDraft(platform="runai", cluster_id="c", workload_name="train-42", project="p")
    by_id = draft.with_answer("past_run", "2e6b8f31-d4a0-4c97-95e2-a13f7b0c8d46")
    assert by_id.workload_id == "2e6b8f31-d4a0-4c97-95e2-a13f7b0c8d46" and by_id.workload_name == "train-42"
    assert draft.with_answer("past_run", "train-41").workload_name == "train-41"
    assert draft.with_answer("workload_id", "w1").workload_id == "w1"
    ma = RequestDraft(platform="modelarts", job_name="dish")
    assert ma.with_answer("job_id", "j1").job_id == "j1"
    assert ma.with_answer("job", "dish-2").job_name == "dish-2"

"""Failures are not diagnoses: an unreachable control plane and rejected credentials have their own
outcomes and next steps; a deadline that cut evidence off is named; caps are said."""

from __future__ import annotations

from typing import Any

import pytest

from blocks.report import report_message
from cli.main import exit_status
from diagnosis.evidence.answer import Answer
from diagnosis.evidence.failures import ErrorKind
from diagnosis.models import DiagnoseRequest, Diagnosis
from diagnosis.runai.workflow import diagnose
from diagnosis.runai.workflow.option_b import MAX_CANDIDATES
from tests.runai.scenarios import T

OPTION_A = DiagnoseRequest(platform="runai", cluster_id="c1", workload_id="w1")
OPTION_B = DiagnoseRequest(
    platform="runai", cluster_id="c1", workload_name="train", project="p", intent="active"
)


class Source:
    """Answers by op; `failing` answers one op with a failure."""

    base_url = "https://runai.example.com"
    deadline_seconds = 40.0

    def __init__(
        self, answers: dict[str, Answer | dict[str, Any]], *, deadline_reached: bool = False
    ) -> None:
        self.answers = answers
        self.calls: list[str] = []
        self.deadline_reached = deadline_reached

    async def fetch(self, op: str, /, *, variant: str | None = None, **args: Any) -> Answer:
        self.calls.append(op)
        answer = self.answers.get(op, {})
        if isinstance(answer, Answer):
            return answer.model_copy(update={"args": args})
        return Answer(op=op, args=args, status=200, body=answer)


def failure(op: str, *, status: int | None = None, kind: ErrorKind | None = None) -> Answer:
    error = None if status is not None else f"{kind} error"
    body = {"code": status, "message": "Issuer is not familiar."} if status else None
    return Answer(op=op, args={}, status=status, body=body, error=error, error_kind=kind)


async def run(request: DiagnoseRequest, source: Source, *, lang: str = "en") -> Diagnosis:
    return await diagnose(request, source, now=T, lang=lang)


@pytest.mark.parametrize("kind", ["connection", "dns", "tls", "timeout", "deadline"])
async def test_an_unreachable_control_plane_is_no_diagnosis(kind: ErrorKind) -> None:
    source = Source({"get_workload_status": failure("get_workload_status", kind=kind)})
    result = await run(OPTION_A, source)
    assert result.outcome == "unreachable"
    assert result.category is None and result.confidence is None and not result.recommendations
    assert any("RUNAI_URL (https://runai.example.com)" in step for step in result.next_steps)
    assert any("proxy" in step for step in result.next_steps)
    assert exit_status(result) == 3
    assert result.calls[0] == "get_workload_status"


async def test_rejected_credentials_are_auth_failed_not_a_missing_grant() -> None:
    source = Source({"get_workload_status": failure("get_workload_status", status=401)})
    result = await run(OPTION_A, source, lang="fr")
    assert result.outcome == "auth_failed" and result.permissions == [] and exit_status(result) == 3
    assert any("RUNAI_CLIENT_SECRET" in step for step in result.next_steps)
    assert any("NTP" in step for step in result.next_steps)
    assert "identifiants" in result.root_cause


async def test_a_403_stays_permission_denied() -> None:
    source = Source({"get_workload_status": failure("get_workload_status", status=403)})
    result = await run(OPTION_A, source)
    assert result.outcome == "permission_denied" and result.permissions and exit_status(result) == 0


async def test_an_unreachable_listing_is_no_question() -> None:
    source = Source({"list_workloads": failure("list_workloads", kind="timeout")})
    result = await run(OPTION_B, source)
    assert result.outcome == "unreachable" and not result.questions


async def test_a_deadline_after_the_status_is_a_named_limitation() -> None:
    status = {"id": "w1", "clusterId": "c1", "phase": "Failed", "type": "Training", "projectName": "p"}
    cut = failure("get_workload_spec", kind="deadline")
    source = Source({"get_workload_status": status, "get_workload_spec": cut}, deadline_reached=True)
    result = await run(OPTION_A, source)
    assert result.outcome == "diagnosed"
    assert any("deadline (40 s) ran out" in text for text in result.limitations)


async def test_many_same_named_candidates_are_capped_and_said() -> None:
    workloads = [
        {"id": f"w{index}", "name": "train", "projectName": "p", "clusterId": "c1", "phase": "Running"}
        for index in range(30)
    ]
    source = Source({"list_workloads": {"workloads": workloads}})
    result = await run(OPTION_B, source)
    assert source.calls.count("get_workload_status") == MAX_CANDIDATES
    assert any(f"only the newest {MAX_CANDIDATES} were checked" in text for text in result.limitations)


async def test_a_page_with_more_items_than_asked_is_cut_and_said() -> None:
    workloads = [
        {"id": f"w{index}", "name": "train", "projectName": "p", "clusterId": "c1", "phase": "Failed"}
        for index in range(2000)
    ]
    source = Source({"list_workloads": {"workloads": workloads, "next": 100}})
    failure_request = OPTION_B.model_copy(update={"intent": "failure"})
    result = await run(failure_request, source)
    assert any("only the first 100 of 2000" in text for text in result.limitations)


@pytest.mark.parametrize("lang", ["en", "fr", "zh", "ja"])
async def test_slack_says_it_plainly_and_shows_no_diagnosis(lang: str) -> None:
    source = Source({"get_workload_status": failure("get_workload_status", kind="connection")})
    result = await run(OPTION_A, source)
    message = report_message(result, lang=lang)
    text = str(message.blocks)
    assert "Run:ai" in message.blocks[0]["text"]["text"]
    assert "RUNAI_URL" in text
    # Nothing that reads as a diagnosis: no confidence field, no evidence or recommendation section.
    for word in ("Confidence", "Evidence", "Recommendations", "UNKNOWN"):
        assert word not in text

"""Time, size and trust limits of the evidence layer, against real sockets where timing matters:
a token endpoint that never answers, a server that trickles its body, a Retry-After of an hour,
an answer too large, a bundle nested too deeply; and how a failed call is classified."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from cli.main import main as cli_main
from diagnosis.evidence.answer import Answer
from diagnosis.evidence.bundles import MAX_NESTING_DEPTH, BundleUnsafe, load_bundle
from diagnosis.evidence.http.retrying import Retrying, RetryPolicy
from diagnosis.evidence.http.transport import real_transport
from diagnosis.evidence.routes import Route, RouteTable
from diagnosis.evidence.source import HttpSource
from tests.safety import deadlines

ROUTES = RouteTable([Route("get_thing", "GET", "/api/v1/things/{thingId}")])


async def test_a_token_endpoint_that_never_answers_times_out() -> None:
    result = await deadlines.token_endpoint_never_answers()
    (answer,) = result.answers
    assert result.seconds < deadlines.BOUND_SECONDS
    assert answer.status is None and answer.error_kind == "timeout" and answer.unreachable


async def test_a_trickling_server_is_cut_off_at_the_requests_total_time() -> None:
    result = await deadlines.trickle_past_the_exchange_time()
    (answer,) = result.answers
    assert result.seconds < deadlines.BOUND_SECONDS
    assert answer.status is None and answer.error_kind == "timeout"


async def test_a_trickling_server_is_cut_off_at_the_diagnosis_deadline() -> None:
    result = await deadlines.trickle_past_the_diagnosis_deadline()
    answer, later = result.answers
    assert answer.error_kind == "deadline" and later.error_kind == "deadline"


async def test_retry_after_an_hour_does_not_hold_the_shared_throttle() -> None:
    result = await deadlines.retry_after_an_hour()
    assert result.answers[0].status == 429 and result.throttle_free


async def test_every_deadline_case_ends_in_time() -> None:
    assert await deadlines.run_all() == dict.fromkeys(deadlines.CASES, True)


async def test_an_answer_larger_than_the_cap_is_unreadable_not_held() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=b'{"items": "' + b"x" * 50_000 + b'"}')

    transport = Retrying(httpx.MockTransport(handler), policy=RetryPolicy(max_answer_bytes=10_000))
    async with httpx.AsyncClient(transport=transport) as client:
        source = HttpSource(routes=ROUTES, client=client, base_url="http://x")
        answer = await source.fetch("get_thing", thingId="a")
    assert answer.status is None and answer.error_kind == "unreadable"
    assert "larger than" in (answer.error or "") and answer.failure_class() == "failed"


async def test_connection_refused_is_unreachable() -> None:
    async with deadlines.tcp_server(b"") as base:
        pass  # closed again: nothing listens on that port any more
    transport = Retrying(real_transport(), policy=RetryPolicy(attempts=1))
    async with httpx.AsyncClient(transport=transport, timeout=2.0) as client:
        source = HttpSource(routes=ROUTES, client=client, base_url=base)
        answer = await source.fetch("get_thing", thingId="a")
    assert answer.error_kind == "connection" and answer.failure_class() == "unreachable"


@pytest.mark.parametrize(
    ("status", "error_kind", "expected"),
    [
        (None, "timeout", "unreachable"),
        (None, "dns", "unreachable"),
        (None, "tls", "unreachable"),
        (None, "deadline", "unreachable"),
        (None, "not_recorded", "failed"),
        (401, None, "auth_failed"),
        (403, None, "permission_denied"),
        (404, None, "not_found"),
        (500, None, "failed"),
        (200, None, None),
    ],
)
def test_failed_calls_are_classified_the_same_way_for_every_platform(
    status: int | None, error_kind: str | None, expected: str | None
) -> None:
    answer = Answer.model_validate({"op": "x", "args": {}, "status": status, "error_kind": error_kind})
    assert answer.failure_class() == expected


def test_a_documented_missing_grant_401_is_permission_denied() -> None:
    answer = Answer(op="x", args={}, status=401, body={"error_code": "GRANT.1"})
    assert answer.failure_class(missing_grant=lambda a: a.error_code() == "GRANT.1") == "permission_denied"
    assert answer.failure_class() == "auth_failed"


def _deep_bundle(depth: int) -> str:
    body = "[" * depth + "]" * depth
    return (
        '{"schema": "evidence-bundle/v1", "platform": "runai", "captured_at": "2026-05-06T08:00:00Z",'
        f' "request": {{}}, "exchanges": [{{"op": "get_workload_status", "args": {{}}, "status": 200,'
        f' "body": {body}}}]}}'
    )


@pytest.mark.parametrize("depth", [MAX_NESTING_DEPTH + 5, 5000])
def test_a_bundle_nested_too_deeply_is_refused_at_load(tmp_path: Path, depth: int) -> None:
    path = tmp_path / "deep.bundle.json"
    path.write_text(_deep_bundle(depth))
    with pytest.raises(BundleUnsafe, match="nested more than"):
        load_bundle(path)


def test_replay_of_a_bundle_nested_5000_deep_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "deep.bundle.json"
    path.write_text(_deep_bundle(5000))
    assert cli_main(["replay", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and "nested more than" in captured.err
    assert cli_main(["sim", "--bundles", str(tmp_path)]) == 2
    assert "nested more than" in capsys.readouterr().err


def test_an_ordinary_bundle_is_not_too_deep(tmp_path: Path) -> None:
    path = tmp_path / "ok.bundle.json"
    path.write_text(_deep_bundle(30))
    assert load_bundle(path).exchanges

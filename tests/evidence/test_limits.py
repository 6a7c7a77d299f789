"""Time, size and trust limits of the evidence layer, against real sockets where timing matters:
a token endpoint that never answers, a server that trickles its body, a Retry-After of an hour,
an answer too large, a bundle nested too deeply; and how a failed call is classified."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest

from cli.main import main as cli_main
from diagnosis.evidence.bundles import MAX_NESTING_DEPTH, BundleUnsafe, load_bundle, parse_bundle
from diagnosis.evidence.http import Retrying, RetryPolicy, Throttle, real_transport
from diagnosis.evidence.routes import Route, RouteTable
from diagnosis.evidence.source import Answer, HttpSource
from diagnosis.runai.auth import RunaiTokenAuth

ROUTES = RouteTable([Route("get_thing", "GET", "/api/v1/things/{thingId}")])
# Each case must end well within this; a regression hangs for the deadline or forever instead.
BOUND_SECONDS = 8.0


@asynccontextmanager
async def tcp_server(reply: bytes | None, *, trickle_seconds: float = 0.0) -> AsyncIterator[str]:
    """A loopback server that reads a request, then sends `reply` (byte by byte when trickling),
    or never answers (`reply=None`)."""
    stop = asyncio.Event()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await reader.readuntil(b"\r\n\r\n")
            if reply is None:
                await stop.wait()
            elif trickle_seconds:
                for index in range(len(reply)):
                    writer.write(reply[index : index + 1])
                    await writer.drain()
                    await asyncio.sleep(trickle_seconds)
            else:
                writer.write(reply)
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop.set()
        server.close()


async def test_a_token_endpoint_that_never_answers_times_out() -> None:
    """The token request is built by the auth flow, not the client: it still gets the client's
    timeouts, so it cannot hold a diagnosis (or a bot slot) forever."""
    async with tcp_server(None) as base:
        auth = RunaiTokenAuth(base_url=base, client_id="c", client_secret="s3cr3t")
        transport = Retrying(real_transport(), policy=RetryPolicy(attempts=1, deadline=60))
        async with httpx.AsyncClient(transport=transport, auth=auth, timeout=0.5) as client:
            source = HttpSource(routes=ROUTES, client=client, base_url=base, deadline_seconds=60)
            started = time.monotonic()
            answer = await asyncio.wait_for(source.fetch("get_thing", thingId="a"), BOUND_SECONDS)
    assert time.monotonic() - started < BOUND_SECONDS
    assert answer.status is None and answer.error_kind == "timeout" and answer.unreachable


async def test_a_trickling_server_is_cut_off_at_the_requests_total_time() -> None:
    """One byte every 0.2 s never trips httpx's per-read timeout; the total time of the exchange does."""
    body = b"x" * 200
    reply = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n" + body
    async with tcp_server(reply, trickle_seconds=0.2) as base:
        transport = Retrying(real_transport(), policy=RetryPolicy(attempts=1, deadline=1.0))
        async with httpx.AsyncClient(transport=transport, timeout=5.0) as client:
            source = HttpSource(routes=ROUTES, client=client, base_url=base, deadline_seconds=60)
            started = time.monotonic()
            answer = await asyncio.wait_for(source.fetch("get_thing", thingId="a"), BOUND_SECONDS)
    assert time.monotonic() - started < BOUND_SECONDS
    assert answer.status is None and answer.error_kind == "timeout"


async def test_a_trickling_server_is_cut_off_at_the_diagnosis_deadline() -> None:
    body = b"x" * 200
    reply = b"HTTP/1.1 200 OK\r\nContent-Length: 200\r\n\r\n" + body
    async with tcp_server(reply, trickle_seconds=0.2) as base:
        transport = Retrying(real_transport(), policy=RetryPolicy(attempts=1, deadline=60))
        async with httpx.AsyncClient(transport=transport, timeout=5.0) as client:
            source = HttpSource(routes=ROUTES, client=client, base_url=base, deadline_seconds=1.0)
            answer = await asyncio.wait_for(source.fetch("get_thing", thingId="a"), BOUND_SECONDS)
            later = await source.fetch("get_thing", thingId="b")
    assert answer.error_kind == "deadline" and later.error_kind == "deadline" and source.deadline_reached


async def test_retry_after_an_hour_does_not_hold_the_shared_throttle() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(429, headers={"Retry-After": "3600"}, json={"code": 429})

    throttle = Throttle()
    transport = Retrying(httpx.MockTransport(handler), policy=RetryPolicy(deadline=1.0), throttle=throttle)
    async with httpx.AsyncClient(transport=transport) as client:
        response = await asyncio.wait_for(client.get("http://x/api/v1/things/a"), BOUND_SECONDS)
    assert response.status_code == 429 and throttle.pauses >= 1
    # Another request of the same scan gets its slot within the time that was left, not in an hour.
    await asyncio.wait_for(throttle.acquire(), 2.0)


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
    async with tcp_server(b"") as base:
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


def test_an_ordinary_bundle_is_not_too_deep() -> None:
    data = json.loads(_deep_bundle(30))
    assert parse_bundle(data).exchanges

"""Deadline cases against real loopback sockets: each hostile or stuck server must be let go of
within a bound, whatever it does. Shared by the tests and `make safety` (figure: deadline cases
run / ended in time)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

import httpx

from diagnosis.evidence.answer import Answer
from diagnosis.evidence.http.retrying import Retrying, RetryPolicy
from diagnosis.evidence.http.throttle import Throttle
from diagnosis.evidence.http.transport import real_transport
from diagnosis.evidence.routes import Route, RouteTable
from diagnosis.evidence.source import HttpSource
from diagnosis.runai.auth import RunaiTokenAuth

ROUTES = RouteTable([Route("get_thing", "GET", "/api/v1/things/{thingId}")])
# Each case must end well within this; a regression hangs for the deadline or forever instead.
BOUND_SECONDS = 8.0
TRICKLED = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n" + b"x" * 200


@dataclass
class CaseResult:
    seconds: float
    answers: list[Answer]
    throttle_free: bool = True


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


async def token_endpoint_never_answers() -> CaseResult:
    """The token request is built by the auth flow, not the client: it still gets the client's
    timeouts (0.5 s here), with a 60 s deadline and a 60 s exchange budget."""
    async with tcp_server(None) as base:
        auth = RunaiTokenAuth(base_url=base, client_id="c", client_secret="s3cr3t")
        transport = Retrying(real_transport(), policy=RetryPolicy(attempts=1, deadline=60))
        async with httpx.AsyncClient(transport=transport, auth=auth, timeout=0.5) as client:
            source = HttpSource(routes=ROUTES, client=client, base_url=base, deadline_seconds=60)
            started = time.monotonic()
            answer = await asyncio.wait_for(source.fetch("get_thing", thingId="a"), BOUND_SECONDS)
    return CaseResult(time.monotonic() - started, [answer])


async def trickle_past_the_exchange_time() -> CaseResult:
    """One byte every 0.2 s never trips httpx's 5 s per-read timeout; the exchange's 1 s total does."""
    async with tcp_server(TRICKLED, trickle_seconds=0.2) as base:
        transport = Retrying(real_transport(), policy=RetryPolicy(attempts=1, deadline=1.0))
        async with httpx.AsyncClient(transport=transport, timeout=5.0) as client:
            source = HttpSource(routes=ROUTES, client=client, base_url=base, deadline_seconds=60)
            started = time.monotonic()
            answer = await asyncio.wait_for(source.fetch("get_thing", thingId="a"), BOUND_SECONDS)
    return CaseResult(time.monotonic() - started, [answer])


async def trickle_past_the_diagnosis_deadline() -> CaseResult:
    """The same trickle under a 1 s diagnosis deadline: the call is cut, the next one not made."""
    async with tcp_server(TRICKLED, trickle_seconds=0.2) as base:
        transport = Retrying(real_transport(), policy=RetryPolicy(attempts=1, deadline=60))
        async with httpx.AsyncClient(transport=transport, timeout=5.0) as client:
            source = HttpSource(routes=ROUTES, client=client, base_url=base, deadline_seconds=1.0)
            started = time.monotonic()
            answer = await asyncio.wait_for(source.fetch("get_thing", thingId="a"), BOUND_SECONDS)
            later = await source.fetch("get_thing", thingId="b")
    return CaseResult(time.monotonic() - started, [answer, later])


async def retry_after_an_hour() -> CaseResult:
    """A 429 with `Retry-After: 3600` on a 1 s exchange budget: the shared throttle is free again
    within the time that was left."""

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(429, headers={"Retry-After": "3600"}, json={"code": 429})

    throttle = Throttle()
    transport = Retrying(httpx.MockTransport(handler), policy=RetryPolicy(deadline=1.0), throttle=throttle)
    started = time.monotonic()
    async with httpx.AsyncClient(transport=transport) as client:
        source = HttpSource(routes=ROUTES, client=client, base_url="http://x", deadline_seconds=60)
        answer = await asyncio.wait_for(source.fetch("get_thing", thingId="a"), BOUND_SECONDS)
    try:
        await asyncio.wait_for(throttle.acquire(), 2.0)
        free = True
    except TimeoutError:
        free = False
    return CaseResult(time.monotonic() - started, [answer], throttle_free=free)


CASES: dict[str, Callable[[], Awaitable[CaseResult]]] = {
    "token endpoint never answers": token_endpoint_never_answers,
    "trickle past the exchange time": trickle_past_the_exchange_time,
    "trickle past the diagnosis deadline": trickle_past_the_diagnosis_deadline,
    "Retry-After: 3600": retry_after_an_hour,
}


def ended_in_time(name: str, result: CaseResult) -> bool:
    """Within the bound, with no answer pretending the platform answered, and the throttle free."""
    answered = any(answer.ok for answer in result.answers)
    return result.seconds < BOUND_SECONDS and not answered and result.throttle_free


async def run_all() -> dict[str, bool]:
    ended: dict[str, bool] = {}
    for name, case in CASES.items():
        try:
            ended[name] = ended_in_time(name, await case())
        except TimeoutError:
            ended[name] = False
    return ended

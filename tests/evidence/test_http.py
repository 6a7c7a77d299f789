"""Core HTTP stack: route mapping, replay matching, read-only guard, retries."""

from __future__ import annotations

import httpx
import pytest

from diagnosis.evidence.bundles import BundleTransport
from diagnosis.evidence.http.readonly import AllowedPost, MutatingRequestRefused, ReadOnlyGuard
from diagnosis.evidence.http.retrying import Retrying, RetryPolicy
from diagnosis.evidence.http.throttle import Throttle
from diagnosis.evidence.matching import find_exchange
from diagnosis.evidence.routes import Route, RouteTable
from diagnosis.evidence.source import HttpSource
from diagnosis.models import Exchange

ROUTES = RouteTable(
    [
        Route("list_things", "GET", "/api/v1/things"),
        Route("get_thing_pods", "GET", "/api/v1/things/{thingId}/pods"),
        Route("get_thing", "GET", "/api/v1/things/{thingId}"),
        Route("read_log", "GET", "/logs/{name}", text_answer=True),
    ]
)


def test_matching_follows_the_contract_rules() -> None:
    exchanges = [
        Exchange(op="list_things", args={"filterBy": "name==a,clusterId==c"}, status=200, body={"n": 1}),
        Exchange(
            op="list_things",
            args={"filterBy": "name==a,clusterId==c", "offset": 50},
            status=200,
            body={"n": 2},
        ),
        Exchange(op="get_thing", args={"thingId": "x", "previous": True}, status=200, body={"n": 3}),
    ]
    # recorded set contained in the called set; more keys in the call are fine
    first = find_exchange(
        exchanges, "list_things", {"filterBy": "clusterId==c,name==a,projectName==p", "limit": 50}
    )
    assert first is not None and first.body == {"n": 1}
    # most equal keys wins
    paged = find_exchange(exchanges, "list_things", {"filterBy": "name==a,clusterId==c", "offset": "50"})
    assert paged is not None and paged.body == {"n": 2}
    # booleans compare by their string form
    flag = find_exchange(exchanges, "get_thing", {"thingId": "x", "previous": "true"})
    assert flag is not None and flag.body == {"n": 3}
    assert find_exchange(exchanges, "get_thing", {"thingId": "y", "previous": "true"}) is None


def test_timestamps_match_as_instants() -> None:
    exchanges = [Exchange(op="list_things", args={"since": "2026-03-19T08:30:00Z"}, status=200, body={})]
    assert find_exchange(exchanges, "list_things", {"since": "2026-03-19T09:30:00+01:00"}) is not None


async def test_replay_serves_the_real_paths_and_records_calls_once() -> None:
    exchanges = [
        Exchange(op="get_thing", args={"thingId": "t1"}, status=200, body={"phase": "Failed"}),
        Exchange(op="read_log", args={"name": "p"}, status=200, text="Traceback ...\nValueError: x"),
        Exchange(
            op="get_thing_pods", args={"thingId": "t1"}, status=500, body={"code": 500, "message": "boom"}
        ),
    ]
    transport = ReadOnlyGuard(BundleTransport(ROUTES, exchanges))
    async with httpx.AsyncClient(transport=transport) as client:
        source = HttpSource(routes=ROUTES, client=client, base_url="http://replay")
        thing = await source.fetch("get_thing", thingId="t1")
        again = await source.fetch("get_thing", thingId="t1")
        log = await source.fetch("read_log", name="p")
        pods = await source.fetch("get_thing_pods", thingId="t1")
        missing = await source.fetch("list_things", filterBy="name==zzz")
    assert thing.ok and thing.body == {"phase": "Failed"} and again.body == thing.body
    assert log.text is not None and log.text.endswith("ValueError: x")
    assert pods.status == 500 and pods.describe_failure() == "HTTP 500: boom"
    assert missing.status is None and missing.error == "not recorded in the bundle"
    assert source.calls == ["get_thing", "read_log", "get_thing_pods", "list_things"]


async def test_guard_refuses_every_method_but_get_and_named_posts() -> None:
    sent: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request.method)
        return httpx.Response(200, json={})

    guard = ReadOnlyGuard(
        httpx.MockTransport(handler), allowed_posts=[AllowedPost(r"/v2/[^/]+/searches", "search")]
    )
    async with httpx.AsyncClient(transport=guard, base_url="http://x") as client:
        assert (await client.get("/a")).status_code == 200
        assert (await client.post("/v2/p/searches", json={})).status_code == 200
        for method in ("PUT", "PATCH", "DELETE", "POST"):
            with pytest.raises(MutatingRequestRefused):
                await client.request(method, "/v2/p/training-jobs/j")
    assert sent == ["GET", "POST"]


async def test_retry_honours_retry_after_then_succeeds() -> None:
    statuses = iter([429, 503, 200])
    slept: list[float] = []

    def handler(request: httpx.Request) -> httpx.Response:
        status = next(statuses)
        headers = {"Retry-After": "2"} if status == 429 else {}
        return httpx.Response(status, headers=headers, json={"ok": status == 200})

    async def fake_sleep(seconds: float) -> None:
        slept.append(seconds)

    throttle = Throttle()
    transport = Retrying(httpx.MockTransport(handler), throttle=throttle, sleep=fake_sleep)
    async with httpx.AsyncClient(transport=transport) as client:
        response = await client.get("http://x/a")
    assert response.status_code == 200
    assert slept[0] == 2.0 and len(slept) == 2
    assert throttle.pauses == 1


async def test_retry_gives_up_within_its_budget() -> None:
    calls = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        return httpx.Response(502, json={})

    async def no_sleep(seconds: float) -> None:
        return None

    transport = Retrying(httpx.MockTransport(handler), policy=RetryPolicy(attempts=3), sleep=no_sleep)
    async with httpx.AsyncClient(transport=transport) as client:
        response = await client.get("http://x/a")
    assert response.status_code == 502 and calls == 3


async def test_a_spent_deadline_stops_calls_and_names_them() -> None:
    async def slow(request: httpx.Request) -> httpx.Response:
        import asyncio

        await asyncio.sleep(5)
        return httpx.Response(200, json={})

    async with httpx.AsyncClient(transport=httpx.MockTransport(slow)) as client:
        source = HttpSource(routes=ROUTES, client=client, base_url="http://x", deadline_seconds=0.2)
        first = await source.fetch("get_thing", thingId="a")
        second = await source.fetch("get_thing", thingId="b")
    # The first call was cut off by the deadline, the second never started: both say so.
    assert first.status is None and first.error_kind == "deadline" and "deadline" in (first.error or "")
    assert second.status is None and second.error is not None and "deadline" in second.error
    assert first.unreachable and second.failure_class() == "unreachable"
    assert source.deadline_reached
    assert source.calls == ["get_thing", "get_thing"]

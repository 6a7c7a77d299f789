"""Run:ai token auth: client credentials, cached until shortly before expiry, one refresh on 401,
and the read-only guard that lets only the token POST through."""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import httpx
import pytest

from diagnosis.evidence.http.readonly import MutatingRequestRefused, ReadOnlyGuard
from diagnosis.evidence.source import HttpSource
from diagnosis.runai.auth import GrantSetting, RunaiTokenAuth, TokenFailureTransport, jwt_expiry
from diagnosis.runai.client import TOKEN_POST
from diagnosis.runai.routes import ROUTES

BASE = "http://runai.test"


def jwt(exp: float) -> str:
    def part(data: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")

    return f"{part({'alg': 'RS256'})}.{part({'exp': exp, 'sub': 'svc'})}.sig"


class FakeRunai:
    """A control plane: issues tokens, answers 401 for tokens it no longer accepts."""

    def __init__(
        self,
        *,
        expires_in: int | None = 3600,
        token_status: int = 200,
        now: float = 1000.0,
        grants: tuple[str, ...] = ("client_credentials", "app_token"),
    ) -> None:
        self.expires_in = expires_in
        self.token_status = token_status
        # The grant types this plane knows (2.18 and 2.19 know no client_credentials).
        self.grants = grants
        self.now = now
        self.token_bodies: list[dict[str, Any]] = []
        self.issued = 0
        self.accepted: set[str] = set()
        self.seen: list[tuple[str, str, str | None]] = []

    def clock(self) -> float:
        return self.now

    def handler(self, request: httpx.Request) -> httpx.Response:
        self.seen.append((request.method, request.url.path, request.headers.get("Authorization")))
        if request.url.path == "/api/v1/token":
            body = json.loads(request.content)
            self.token_bodies.append(body)
            if body.get("grantType") not in self.grants:
                return httpx.Response(400, json={"code": 400, "message": "grantType: value is not allowed"})
            if self.token_status != 200:
                return httpx.Response(
                    self.token_status,
                    json={"code": self.token_status, "message": "Client authentication failed"},
                )
            self.issued += 1
            token = jwt(self.now + 7200) + f".{self.issued}"
            self.accepted = {token}
            body: dict[str, Any] = {"accessToken": token, "idToken": ""}
            if self.expires_in is not None:
                body["expiresIn"] = self.expires_in
            return httpx.Response(200, json=body)
        header = request.headers.get("Authorization", "")
        if header.removeprefix("Bearer ") not in self.accepted:
            return httpx.Response(401, json={"code": 401, "message": "Issuer is not familiar."})
        return httpx.Response(200, json={"id": "w1", "phase": "Failed"})


def client_for(fake: FakeRunai, *, grant: GrantSetting = "auto") -> httpx.AsyncClient:
    auth = RunaiTokenAuth(
        base_url=BASE, client_id="svc-diag", client_secret="s3cr3t-value", grant=grant, clock=fake.clock
    )
    transport = ReadOnlyGuard(
        TokenFailureTransport(httpx.MockTransport(fake.handler)), allowed_posts=[TOKEN_POST]
    )
    return httpx.AsyncClient(transport=transport, auth=auth, base_url=BASE)


async def test_client_credentials_body_and_bearer_header() -> None:
    fake = FakeRunai()
    async with client_for(fake) as client:
        response = await client.get("/api/v1/workloads/w1")
    assert response.status_code == 200
    assert fake.token_bodies == [
        {"grantType": "client_credentials", "clientID": "svc-diag", "clientSecret": "s3cr3t-value"}
    ]
    assert fake.seen[-1][2] is not None and fake.seen[-1][2].startswith("Bearer ")


async def test_token_is_cached_until_60s_before_expiry() -> None:
    fake = FakeRunai(expires_in=600)
    async with client_for(fake) as client:
        for _ in range(3):
            await client.get("/api/v1/workloads/w1")
        assert fake.issued == 1
        fake.now += 600 - 61
        await client.get("/api/v1/workloads/w1")
        assert fake.issued == 1
        fake.now += 2  # fewer than 60 s left
        await client.get("/api/v1/workloads/w1")
        assert fake.issued == 2


async def test_jwt_exp_is_used_when_expires_in_is_absent() -> None:
    fake = FakeRunai(expires_in=None)
    async with client_for(fake) as client:
        await client.get("/api/v1/workloads/w1")
        fake.now += 7200 - 100
        await client.get("/api/v1/workloads/w1")
        assert fake.issued == 1
        fake.now += 50
        await client.get("/api/v1/workloads/w1")
        assert fake.issued == 2
    assert jwt_expiry(jwt(12345)) == 12345 and jwt_expiry("not-a-jwt") is None


async def test_a_401_refreshes_once_and_retries_once() -> None:
    fake = FakeRunai()
    async with client_for(fake) as client:
        await client.get("/api/v1/workloads/w1")
        fake.accepted = set()  # the server forgets the token (rotated keys, foreign issuer)
        response = await client.get("/api/v1/workloads/w1")
    assert response.status_code == 200 and fake.issued == 2


async def test_a_persistent_401_is_returned_after_one_retry() -> None:
    fake = FakeRunai()

    def always_401(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/v1/token":
            return fake.handler(request)
        fake.seen.append((request.method, request.url.path, None))
        return httpx.Response(401, json={"code": 401, "message": "Issuer is not familiar."})

    auth = RunaiTokenAuth(base_url=BASE, client_id="a", client_secret="b", clock=fake.clock)
    async with httpx.AsyncClient(
        transport=httpx.MockTransport(always_401), auth=auth, base_url=BASE
    ) as client:
        response = await client.get("/api/v1/workloads/w1")
    assert response.status_code == 401 and fake.issued == 2
    assert [path for _m, path, _a in fake.seen].count("/api/v1/workloads/w1") == 2


async def test_concurrent_requests_share_one_token_request() -> None:
    fake = FakeRunai()
    async with client_for(fake) as client:
        await asyncio.gather(*(client.get("/api/v1/workloads/w1") for _ in range(8)))
    assert fake.issued == 1


@pytest.mark.parametrize("status", [400, 401, 403, 404])
async def test_a_refused_token_request_becomes_an_authentication_answer(status: int) -> None:
    fake = FakeRunai(token_status=status)
    async with client_for(fake) as client:
        source = HttpSource(routes=ROUTES, client=client, base_url=BASE)
        answer = await source.fetch("get_workload_status", workloadId="w1")
    assert answer.status == 401 and answer.denied
    assert "RUNAI_CLIENT_ID" in answer.describe_failure() and "s3cr3t" not in answer.describe_failure()
    assert source.calls == ["get_workload_status"]
    # The request that had no token was never sent; a refusal (not a 404) asked the older grant too.
    tried = ["client_credentials", "app_token"] if status != 404 else ["client_credentials"]
    assert [body["grantType"] for body in fake.token_bodies] == tried
    assert [path for _m, path, _a in fake.seen] == ["/api/v1/token"] * len(tried)
    if status != 404:
        assert "grants tried: client_credentials, app_token" in answer.describe_failure()


async def test_a_plane_before_2_20_gets_the_application_grant_and_keeps_it() -> None:
    fake = FakeRunai(grants=("app_token", "refresh_token", "exchange_token", "password"), expires_in=30)
    async with client_for(fake) as client:
        assert (await client.get("/api/v1/workloads/w1")).status_code == 200
        # The token expires within the refresh margin: the next request asks the kept grant only.
        assert (await client.get("/api/v1/workloads/w1")).status_code == 200
    assert [body["grantType"] for body in fake.token_bodies] == [
        "client_credentials",
        "app_token",
        "app_token",
    ]
    assert fake.token_bodies[1] == {
        "grantType": "app_token",
        "appID": "svc-diag",
        "appSecret": "s3cr3t-value",
    }


async def test_a_current_plane_gets_client_credentials_with_the_spec_field_names() -> None:
    fake = FakeRunai()
    async with client_for(fake) as client:
        assert (await client.get("/api/v1/workloads/w1")).status_code == 200
    assert fake.token_bodies == [
        {"grantType": "client_credentials", "clientID": "svc-diag", "clientSecret": "s3cr3t-value"}
    ]


async def test_a_configured_grant_is_the_only_one_asked() -> None:
    fake = FakeRunai(grants=("client_credentials",))
    async with client_for(fake, grant="app_token") as client:
        assert (await client.get("/api/v1/workloads/w1")).status_code == 401
    assert [body["grantType"] for body in fake.token_bodies] == ["app_token"]


async def test_a_failing_token_endpoint_is_no_answer() -> None:
    fake = FakeRunai(token_status=503)
    async with client_for(fake) as client:
        source = HttpSource(routes=ROUTES, client=client, base_url=BASE)
        answer = await source.fetch("get_workload_status", workloadId="w1")
    assert answer.status == 503 and "HTTP 503 from /api/v1/token" in answer.describe_failure()


async def test_the_guard_allows_only_the_token_post() -> None:
    fake = FakeRunai()
    async with client_for(fake) as client:
        for method, path in (
            ("POST", "/api/v1/workloads/trainings"),
            ("DELETE", "/api/v1/workloads/w1"),
            ("PUT", "/api/v1/workloads/w1"),
            ("PATCH", "/api/v1/workloads/w1"),
            ("POST", "/api/v1/workloads/w1/suspend"),
            ("POST", "/api/v1/token/extra"),
        ):
            with pytest.raises(MutatingRequestRefused):
                await client.request(method, path)
    assert all(method in ("GET", "POST") for method, _p, _a in fake.seen)
    assert all(path == "/api/v1/token" for method, path, _a in fake.seen if method == "POST")

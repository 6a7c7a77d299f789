"""Run:ai bearer-token authentication, cached until shortly before expiry.

`POST /api/v1/token` answers `{"accessToken", "expiresIn"?}`. The body depends on the control
plane's release (NVIDIA's generated client, runapy, shows the `TokenRequest` of each):
- from 2.20 on, a service account or access key: `{"grantType": "client_credentials", "clientID",
  "clientSecret"}` (the current documentation's grant);
- before 2.20 (2.18, 2.19) an application: `{"grantType": "app_token", "appID", "appSecret"}`; the
  grant type `client_credentials` and the field `clientSecret` do not exist there.
`RUNAI_TOKEN_GRANT` names the grant; by default (`auto`) the client-credentials grant is asked
first and, when the token endpoint refuses it (400, 401 or 403), the application grant with the
same id and secret; the grant that worked is kept for every later token. Field names are the
spec's (`clientID`, `appID`); the server matches them case-insensitively (runapy itself sends
`AppId`).

Older control planes omit `expiresIn`: the JWT's `exp` claim is used instead (runapy does the
same). The token is refreshed when fewer than 60 s remain, and once more (with one retry of the
request) when the API answers 401. Token expiry always uses the real clock, never the diagnosis'
"now".
"""

from __future__ import annotations

import asyncio
import base64
import json
import time
from collections.abc import AsyncGenerator, Callable, Generator
from typing import Any, Literal

import httpx

from diagnosis.evidence.http.deadline import DEADLINE_EXTENSION
from diagnosis.runai.routes import TOKEN_PATH

REFRESH_MARGIN_SECONDS = 60.0
# Request extensions the token request takes from the request it is made for: httpx's timeouts
# and the diagnosis deadline.
_INHERITED = frozenset({"timeout", DEADLINE_EXTENSION})
# When neither `expiresIn` nor a JWT `exp` says how long a token lives: assume a short life.
ASSUMED_LIFETIME_SECONDS = 300.0

Grant = Literal["client_credentials", "app_token"]
GrantSetting = Literal["auto", "client_credentials", "app_token"]
# In `auto`, the order grants are asked in; a refusal of one (these statuses) asks the next.
AUTO_GRANTS: tuple[Grant, ...] = ("client_credentials", "app_token")
_REFUSED = frozenset({400, 401, 403})


def token_body(grant: Grant, client_id: str, client_secret: str) -> dict[str, str]:
    """The `TokenRequest` of a grant, with the spec's field names."""
    if grant == "app_token":
        return {"grantType": "app_token", "appID": client_id, "appSecret": client_secret}
    return {"grantType": "client_credentials", "clientID": client_id, "clientSecret": client_secret}


# Request extension set by the auth flow when no token could be had; TokenFailureTransport then
# answers that request itself, with the token endpoint's failure, without sending it.
TOKEN_FAILURE = "runai_token_failure"


class TokenRequestFailed(Exception):
    """The token endpoint refused or failed; carries the answer the request should get instead."""

    def __init__(self, message: str, *, status: int, body: Any) -> None:
        super().__init__(message)
        self.status = status
        self.body = body


def jwt_expiry(token: str) -> float | None:
    """The `exp` claim (epoch seconds) of a JWT, or None when the token is not a readable JWT."""
    parts = token.split(".")
    if len(parts) < 2:
        return None
    payload = parts[1] + "=" * (-len(parts[1]) % 4)
    try:
        claims = json.loads(base64.urlsafe_b64decode(payload.encode("ascii")))
    except (ValueError, UnicodeError):
        return None
    exp = claims.get("exp") if isinstance(claims, dict) else None
    return float(exp) if isinstance(exp, int | float) and not isinstance(exp, bool) else None


class RunaiTokenAuth(httpx.Auth):
    def __init__(
        self,
        *,
        base_url: str,
        client_id: str,
        client_secret: str,
        grant: GrantSetting = "auto",
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._token_url = base_url.rstrip("/") + TOKEN_PATH
        self._client_id = client_id
        self._client_secret = client_secret
        # The grant in use: the configured one, or in `auto` the one that last worked.
        self.grant: Grant | None = None if grant == "auto" else grant
        self._clock = clock
        self._token: str | None = None
        self._expires_at = 0.0
        self._lock: asyncio.Lock | None = None
        self.token_requests = 0

    def _needs_refresh(self) -> bool:
        return self._token is None or self._clock() >= self._expires_at - REFRESH_MARGIN_SECONDS

    def _grants(self) -> tuple[Grant, ...]:
        return (self.grant,) if self.grant is not None else AUTO_GRANTS

    def _token_request(self, request: httpx.Request, grant: Grant | None = None) -> httpx.Request:
        """The token request, with the timeouts and the diagnosis deadline of the request that
        needs it: built here rather than by the client, it would otherwise get neither."""
        self.token_requests += 1
        body = token_body(grant or self._grants()[0], self._client_id, self._client_secret)
        extensions = {key: value for key, value in request.extensions.items() if key in _INHERITED}
        return httpx.Request(
            "POST", self._token_url, json=body, headers={"Accept": "application/json"}, extensions=extensions
        )

    def _store(self, response: httpx.Response, *, tried: tuple[Grant, ...] = ()) -> None:
        """Keep the token from a token answer, or raise TokenRequestFailed saying what went wrong."""
        try:
            data = response.json()
        except ValueError:
            data = None
        if response.status_code != 200 or not isinstance(data, dict):
            detail = ""
            if isinstance(data, dict):
                message = data.get("message") or data.get("error_description") or data.get("error")
                detail = f": {message}" if isinstance(message, str) and message else ""
            status = response.status_code
            reported = 401 if 400 <= status < 500 else None
            grants = f" (grants tried: {', '.join(tried)})" if len(tried) > 1 else ""
            message = (
                f"Run:ai token request failed (HTTP {status} from {TOKEN_PATH}{detail}){grants}; "
                "check RUNAI_URL, RUNAI_CLIENT_ID and RUNAI_CLIENT_SECRET"
            )
            # 4xx: the credentials (or RUNAI_URL) are wrong -> an authentication refusal (401).
            # Otherwise the platform is failing -> 503, like the control plane's own transient errors.
            raise TokenRequestFailed(
                message, status=reported or 503, body={"code": reported or 503, "message": message}
            )
        token = data.get("accessToken") or data.get("access_token")
        if not isinstance(token, str) or not token:
            message = "Run:ai token answer holds no accessToken"
            raise TokenRequestFailed(message, status=503, body={"code": 503, "message": message})
        expires_in = data.get("expiresIn", data.get("expires_in"))
        now = self._clock()
        if isinstance(expires_in, int | float) and not isinstance(expires_in, bool) and expires_in > 0:
            self._expires_at = now + float(expires_in)
        else:
            exp = jwt_expiry(token)
            self._expires_at = exp if exp is not None else now + ASSUMED_LIFETIME_SECONDS
        self._token = token

    async def _granted(self, response: httpx.Response, grant: Grant) -> bool:
        """True when the answer held a token (kept, with its grant); False when the grant was
        refused and another is left to try; TokenRequestFailed otherwise."""
        await response.aread()  # async_auth_flow is ours: httpx does not read bodies for us here
        grants = self._grants()
        position = grants.index(grant)
        if response.status_code in _REFUSED and position + 1 < len(grants):
            return False
        self._store(response, tried=grants[: position + 1])
        self.grant = grant
        return True

    def sync_auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        raise RuntimeError("RunaiTokenAuth is used with httpx.AsyncClient only")

    async def async_auth_flow(self, request: httpx.Request) -> AsyncGenerator[httpx.Request, httpx.Response]:
        if self._lock is None:
            self._lock = asyncio.Lock()
        try:
            if self._needs_refresh():
                async with self._lock:
                    if self._needs_refresh():
                        for grant in self._grants():
                            if await self._granted((yield self._token_request(request, grant)), grant):
                                break
            used = self._token
            request.headers["Authorization"] = f"Bearer {used}"
            response = yield request
            if response.status_code != 401 or TOKEN_FAILURE in response.extensions:
                return
            # Expired or unknown to the issuer: one refresh (shared with concurrent requests), one retry.
            async with self._lock:
                if self._token == used:
                    for grant in self._grants():
                        if await self._granted((yield self._token_request(request, grant)), grant):
                            break
            request.headers["Authorization"] = f"Bearer {self._token}"
            yield request
        except TokenRequestFailed as failure:
            request.headers.pop("Authorization", None)
            request.extensions = {**request.extensions, TOKEN_FAILURE: failure}
            yield request


class TokenFailureTransport(httpx.AsyncBaseTransport):
    """Answers a request that could get no token with the token failure, without sending it."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self._inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        failure = request.extensions.get(TOKEN_FAILURE)
        if isinstance(failure, TokenRequestFailed):
            return httpx.Response(
                failure.status, json=failure.body, request=request, extensions={TOKEN_FAILURE: True}
            )
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()

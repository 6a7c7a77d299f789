"""AK/SK request signing for Huawei Cloud APIs (`SDK-HMAC-SHA256`).

`AkSkAuth` is an `httpx.Auth`: it puts the query string in canonical order and encoding (so the
query on the wire is exactly the one signed, as the official SDK does), adds the headers the API
gateway expects (`X-Sdk-Date`, `X-Project-Id`, `Content-Type`, `X-Security-Token`) and the
`Authorization` header. `signature_check.verify_request` recomputes a signature on the receiving
side.

The secret key is only ever used as an HMAC key: it is never put in a header, a log or an error.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

import httpx

from diagnosis.modelarts.canonical import (
    DATE_FORMAT,
    SIGNED_HEADER_NAMES,
    UNSIGNED_PAYLOAD,
    authorization,
    canonical_query,
    canonical_request,
    header_value,
    parse_query,
    signature,
    string_to_sign,
)


@dataclass(frozen=True)
class SignedParts:
    """What a signature was computed over (for tests and for debugging a signer mismatch)."""

    canonical_request: str
    string_to_sign: str
    authorization: str


def sign_parts(
    *,
    method: str,
    path: str,
    query: str,
    headers: Mapping[str, str],
    body: bytes,
    access_key: str,
    secret_key: str,
) -> SignedParts:
    """Sign a fully prepared request: every header of SIGNED_HEADER_NAMES present is signed."""
    sdk_date = header_value(headers, "x-sdk-date")
    if not sdk_date:
        raise ValueError("X-Sdk-Date is required to sign a request")
    present = {key.lower() for key in headers}
    names = [name for name in SIGNED_HEADER_NAMES if name in present]
    canonical = canonical_request(
        method=method, path=path, query=query, headers=headers, signed_headers=names, body=body
    )
    to_sign = string_to_sign(sdk_date, canonical)
    return SignedParts(
        canonical_request=canonical,
        string_to_sign=to_sign,
        authorization=authorization(access_key, names, signature(secret_key, to_sign)),
    )


@dataclass(repr=False)
class AkSkAuth(httpx.Auth):
    """`httpx.Auth` that signs every request with a permanent or temporary AK/SK.

    `repr` is disabled so that the keys never end up in a traceback or a log line by accident.
    """

    access_key: str
    secret_key: str
    project_id: str | None = None
    security_token: str | None = None
    clock: Callable[[], datetime] = field(default=lambda: datetime.now(UTC))

    requires_request_body = True

    def __repr__(self) -> str:
        return "AkSkAuth(access_key=[MASKED:ak], secret_key=[MASKED:sk])"

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        self.sign(request)
        yield request

    def sign(self, request: httpx.Request) -> None:
        # The wire query must equal the signed one: rewrite it in canonical form first.
        query = canonical_query(parse_query(request.url.query.decode("ascii", errors="replace")))
        request.url = request.url.copy_with(query=query.encode("ascii") if query else None)
        headers = request.headers
        if "content-type" not in headers:
            # The SDK sends a JSON content type even on GETs without a body.
            headers["Content-Type"] = "application/json"
        content_type = headers["content-type"].lower()
        if not content_type.startswith(("application/json", "application/bson")):
            headers["X-Sdk-Content-Sha256"] = UNSIGNED_PAYLOAD
        if self.project_id:
            headers["X-Project-Id"] = self.project_id
        if self.security_token:
            headers["X-Security-Token"] = self.security_token
        if "x-sdk-date" not in headers:
            headers["X-Sdk-Date"] = self.clock().astimezone(UTC).strftime(DATE_FORMAT)
        parts = sign_parts(
            method=request.method,
            # The raw path, as sent: `url.path` is already percent-decoded, and decoding it again
            # would sign a different path than the gateway sees.
            path=raw_path(request.url),
            query=query,
            headers=dict(headers.items()),
            body=request.content,
            access_key=self.access_key,
            secret_key=self.secret_key,
        )
        headers["Authorization"] = parts.authorization


def raw_path(url: httpx.URL) -> str:
    """The path of a URL exactly as it is written on the wire (percent-encoding kept, no query)."""
    return url.raw_path.split(b"?", 1)[0].decode("ascii")

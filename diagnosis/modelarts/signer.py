"""AK/SK request signing for Huawei Cloud APIs (`SDK-HMAC-SHA256`, modelarts-api.md section 5).

`AkSkAuth` is an `httpx.Auth`: it puts the query string in canonical order and encoding (so the
query on the wire is exactly the one signed, as the official SDK does), adds the headers the API
gateway expects (`X-Sdk-Date`, `X-Project-Id`, `Content-Type`, `X-Security-Token`) and the
`Authorization` header. `verify_request` recomputes a signature on the receiving side; the
simulator uses it to answer `401 APIGW.0301` like the real gateway when a signature is wrong.

The secret key is only ever used as an HMAC key: it is never put in a header, a log or an error.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Callable, Generator, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from urllib.parse import quote, unquote

import httpx

ALGORITHM = "SDK-HMAC-SHA256"
DATE_FORMAT = "%Y%m%dT%H%M%SZ"
EMPTY_BODY_SHA256 = hashlib.sha256(b"").hexdigest()
UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD"

# The gateway refuses a request whose X-Sdk-Date is more than 15 minutes from its clock.
MAX_CLOCK_SKEW = timedelta(minutes=15)

# Headers this client signs when present (the SDK signs User-Agent too; fewer is allowed as long
# as every listed header is sent byte-identical).
SIGNED_HEADER_NAMES = (
    "content-type",
    "host",
    "x-project-id",
    "x-sdk-content-sha256",
    "x-sdk-date",
    "x-security-token",
)

_AUTHORIZATION = re.compile(
    r"^SDK-HMAC-SHA256\s+Access=(?P<access>[^,\s]+),\s*SignedHeaders=(?P<signed>[^,\s]+),\s*Signature=(?P<signature>[0-9a-fA-F]+)\s*$"
)


def _encode(text: str) -> str:
    """Percent-encode everything but the unreserved characters `A-Z a-z 0-9 - _ . ~`."""
    return quote(text, safe="-_.~")


def canonical_uri(path: str) -> str:
    """The path as sent, decoded once, split on `/`, each segment re-encoded, ending with `/`.

    This is the official SDK's rule (and the gateway's): decoding comes before the split, so an
    encoded `%2F` inside a path parameter counts as a separator; the path must be the raw one
    sent on the wire (a literal `%` in a parameter arrives as `%25` and is decoded exactly once).
    The request itself is sent without the trailing `/`.
    """
    segments = [_encode(segment) for segment in unquote(path).split("/")]
    uri = "/".join(segments)
    return uri if uri.endswith("/") else uri + "/"


def canonical_query(pairs: Iterable[tuple[str, str]]) -> str:
    """Pairs sorted by raw key then raw value, each side encoded like a path segment."""
    return "&".join(f"{_encode(key)}={_encode(value)}" for key, value in sorted(pairs))


def parse_query(raw_query: str) -> list[tuple[str, str]]:
    """The (key, value) pairs of a raw query string, percent-decoded; blank values kept."""
    pairs: list[tuple[str, str]] = []
    for part in raw_query.split("&"):
        if not part:
            continue
        key, _, value = part.partition("=")
        pairs.append((unquote(key.replace("+", "%20")), unquote(value.replace("+", "%20"))))
    return pairs


def payload_hash(body: bytes, headers: Mapping[str, str]) -> str:
    if not body:
        return EMPTY_BODY_SHA256
    unsigned = _header(headers, "x-sdk-content-sha256")
    if unsigned:
        return unsigned
    return hashlib.sha256(body).hexdigest()


def _header(headers: Mapping[str, str], name: str) -> str | None:
    for key, value in headers.items():
        if key.lower() == name:
            return value
    return None


def canonical_request(
    *,
    method: str,
    path: str,
    query: str,
    headers: Mapping[str, str],
    signed_headers: Iterable[str],
    body: bytes,
) -> str:
    names = sorted(name.lower() for name in signed_headers)
    header_block = "".join(f"{name}:{(_header(headers, name) or '').strip()}\n" for name in names)
    return "\n".join(
        [
            method.upper(),
            canonical_uri(path),
            canonical_query(parse_query(query)),
            header_block,
            ";".join(names),
            payload_hash(body, headers),
        ]
    )


def string_to_sign(sdk_date: str, canonical: str) -> str:
    digest = hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    return f"{ALGORITHM}\n{sdk_date}\n{digest}"


def signature(secret_key: str, text_to_sign: str) -> str:
    return hmac.new(secret_key.encode("utf-8"), text_to_sign.encode("utf-8"), hashlib.sha256).hexdigest()


def authorization(access_key: str, signed_headers: Iterable[str], signature_hex: str) -> str:
    names = ";".join(sorted(name.lower() for name in signed_headers))
    return f"{ALGORITHM} Access={access_key}, SignedHeaders={names}, Signature={signature_hex}"


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
    sdk_date = _header(headers, "x-sdk-date")
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


def verify_request(
    *,
    method: str,
    path: str,
    query: str,
    headers: Mapping[str, str],
    body: bytes,
    access_key: str,
    secret_key: str,
    now: datetime | None = None,
) -> bool:
    """Whether a received request carries a valid signature by this AK/SK (as the API gateway checks).

    `path` is the request path as received (percent-encoded or not), `query` the raw query string.
    With `now`, an `X-Sdk-Date` more than 15 minutes away is refused too.
    """
    found = _AUTHORIZATION.match(_header(headers, "authorization") or "")
    if found is None or not hmac.compare_digest(found.group("access"), access_key):
        return False
    sdk_date = _header(headers, "x-sdk-date")
    if not sdk_date:
        return False
    if now is not None:
        try:
            signed_at = datetime.strptime(sdk_date, DATE_FORMAT).replace(tzinfo=UTC)
        except ValueError:
            return False
        if abs(now - signed_at) > MAX_CLOCK_SKEW:
            return False
    signed = [name for name in found.group("signed").split(";") if name]
    if any(_header(headers, name) is None for name in signed):
        return False
    canonical = canonical_request(
        method=method, path=path, query=query, headers=headers, signed_headers=signed, body=body
    )
    expected = signature(secret_key, string_to_sign(sdk_date, canonical))
    return hmac.compare_digest(expected, found.group("signature").lower())

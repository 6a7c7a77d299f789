"""The canonical request and string to sign of Huawei Cloud's `SDK-HMAC-SHA256` signature
(https://support.huaweicloud.com/intl/en-us/devg-apisign/api-sign-algorithm-002.html)."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Mapping
from urllib.parse import quote, unquote

ALGORITHM = "SDK-HMAC-SHA256"
DATE_FORMAT = "%Y%m%dT%H%M%SZ"
UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD"

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
EMPTY_BODY_SHA256 = hashlib.sha256(b"").hexdigest()


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
    unsigned = header_value(headers, "x-sdk-content-sha256")
    if unsigned:
        return unsigned
    return hashlib.sha256(body).hexdigest()


def header_value(headers: Mapping[str, str], name: str) -> str | None:
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
    header_block = "".join(f"{name}:{(header_value(headers, name) or '').strip()}\n" for name in names)
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

"""A received request's signature checked as the API gateway checks it (the simulator answers
`401 APIGW.0301` to a wrong one)."""

from __future__ import annotations

import hmac
import re
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta

from diagnosis.modelarts.canonical import (
    DATE_FORMAT,
    canonical_request,
    header_value,
    signature,
    string_to_sign,
)

# The gateway refuses a request whose X-Sdk-Date is more than 15 minutes from its clock.
MAX_CLOCK_SKEW = timedelta(minutes=15)

_AUTHORIZATION = re.compile(
    r"^SDK-HMAC-SHA256\s+Access=(?P<access>[^,\s]+),\s*SignedHeaders=(?P<signed>[^,\s]+),\s*Signature=(?P<signature>[0-9a-fA-F]+)\s*$"
)


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
    found = _AUTHORIZATION.match(header_value(headers, "authorization") or "")
    if found is None or not hmac.compare_digest(found.group("access"), access_key):
        return False
    sdk_date = header_value(headers, "x-sdk-date")
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
    if any(header_value(headers, name) is None for name in signed):
        return False
    canonical = canonical_request(
        method=method, path=path, query=query, headers=headers, signed_headers=signed, body=body
    )
    expected = signature(secret_key, string_to_sign(sdk_date, canonical))
    return hmac.compare_digest(expected, found.group("signature").lower())

"""What a failed call means, the same way for every platform.

A call that got no answer carries an `ErrorKind` (why); `FailureClass` is what the workflows act
on: `unreachable` and `auth_failed` end a diagnosis with their own outcome, `permission_denied`
names the grant, `not_found` the id, and any other failure becomes a limitation.
"""

from __future__ import annotations

import socket
import ssl
from typing import Literal

from diagnosis.evidence.http.size_cap import AnswerTooLarge

# Why a call got no answer at all (`Answer.error_kind`).
ErrorKind = Literal[
    "deadline",  # the diagnosis' overall deadline ran out before or while the call ran
    "timeout",  # the platform did not answer in time (connect, read, or the request's total)
    "connection",  # refused, reset, unreachable network
    "dns",  # the host name does not resolve
    "tls",  # the TLS handshake or the certificate check failed
    "not_recorded",  # replay: the bundle holds no answer for this call
    "refused",  # the read-only guard refused a request that would change something
    "unreadable",  # an answer too large or too deeply nested to read
    "client",  # a failure on this side, neither the network's nor the platform's
]
# The kinds that mean the platform could not be reached.
UNREACHABLE_KINDS: frozenset[ErrorKind] = frozenset({"deadline", "timeout", "connection", "dns", "tls"})

# What a failed call means for the diagnosis, the same way for every platform:
# - `unreachable`: no answer (connection refused, DNS, TLS, timeout, the deadline);
# - `auth_failed`: the platform rejected the credentials themselves (HTTP 401 that is not a
#   documented missing grant): a bad token or key, a bad signature, clock skew;
# - `permission_denied`: the credentials are fine but lack a grant (403, or a documented 401);
# - `not_found`: 404;
# - `failed`: any other failure (5xx, 400, an unreadable answer, a call not recorded).
FailureClass = Literal["unreachable", "auth_failed", "permission_denied", "not_found", "failed"]


def transport_error_kind(exc: BaseException) -> ErrorKind:
    """`dns`, `tls` or `connection` for a transport error, from the errors that caused it."""
    seen: BaseException | None = exc
    for _ in range(10):
        if seen is None:
            break
        if isinstance(seen, socket.gaierror):
            return "dns"
        if isinstance(seen, ssl.SSLError | ssl.CertificateError):
            return "tls"
        if isinstance(seen, AnswerTooLarge):
            return "unreadable"
        seen = seen.__cause__ or seen.__context__
    text = str(exc).lower()
    if "name or service not known" in text or "nodename nor servname" in text or "getaddrinfo" in text:
        return "dns"
    if "certificate" in text or "ssl" in text or "tls" in text:
        return "tls"
    return "connection"

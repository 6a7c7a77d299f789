"""Slack's requests, checked before Bolt reads them: size, signature headers, signature, replays.

Bolt reads and parses the whole body before its verification middleware runs, and slack_sdk's
verifier calls `int()` on the timestamp header: a 400 MB body with a bad signature is read and
parsed first, a JSON body of 200,000 `[` raises RecursionError and `X-Slack-Request-Timestamp: abc`
raises ValueError, each a 500 with a traceback, unauthenticated. This layer answers those itself:

- 413 for a body over MAX_BODY_BYTES, refused from its Content-Length before it is read (the HTTP
  server refuses it first: bot.server), and a capped read when there is no Content-Length;
- 401 for a missing or malformed timestamp or signature, a timestamp outside the replay window, or
  a signature that does not match, checked as Slack documents with slack_sdk's SignatureVerifier
  (HMAC-SHA256 over `v0:<timestamp>:<body>`):
  https://api.slack.com/authentication/verifying-requests-from-slack
- a request already seen (same timestamp and signature, so the same bytes) within the window is
  answered 200 and not run again: a replay within the window would otherwise run a second diagnosis.

Only then does Bolt get the request; it does not verify it again (bot.app.build_app).
"""

from __future__ import annotations

import io
import logging
import re
import time
from collections.abc import Callable, Iterable
from typing import Any

from slack_sdk.signature import SignatureVerifier

from bot.state.store import StateStore
from diagnosis.masking import mask

log = logging.getLogger("diagnose.bot")

# Slack's own requests are far smaller: a slash command is about 1 KB, an event a few KB, and the
# largest the bot reads, a click on one of its reports (the message comes with it, at most 12,000
# characters of blocks and a 4,000-character fallback: about 140 KB form-encoded in CJK), stays well
# under this. A message event at Slack's 40,000-character limit fits in ASCII.
MAX_BODY_BYTES = 256 * 1024
# Slack signs each request with its time; older or newer than this is refused (Slack's advice).
REPLAY_WINDOW_SECONDS = 300
# A replayed request can be valid until its timestamp is REPLAY_WINDOW_SECONDS in the past, and its
# timestamp may be that far in the future: remembered for both, and a minute of clock skew.
SEEN_TTL_SECONDS = 2 * REPLAY_WINDOW_SECONDS + 60

_TIMESTAMP = re.compile(r"[0-9]{1,12}")
_SIGNATURE = re.compile(r"v0=[0-9a-f]{64}")

StartResponse = Callable[..., Any]
WsgiApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]


def answer(start_response: StartResponse, status: str, body: bytes = b"") -> list[bytes]:
    headers = [("Content-Length", str(len(body)))]
    if body:
        headers.append(("Content-Type", "application/json"))
    start_response(status, headers)
    return [body]


def _read_body(environ: dict[str, Any]) -> bytes | None:
    """The body, or None when it is over the limit. A Content-Length over the limit is refused
    without reading; without one, at most one byte over the limit is read."""
    stream = environ["wsgi.input"]
    declared = str(environ.get("CONTENT_LENGTH") or "").strip()
    if declared:
        if not declared.isdigit() or len(declared) > 12 or int(declared) > MAX_BODY_BYTES:
            return None
        return bytes(stream.read(int(declared)))
    body = bytes(stream.read(MAX_BODY_BYTES + 1))
    return None if len(body) > MAX_BODY_BYTES else body


def signed_by_slack(
    verifier: SignatureVerifier, body: bytes, timestamp: str, signature: str, *, now: float
) -> bool:
    if not _TIMESTAMP.fullmatch(timestamp) or not _SIGNATURE.fullmatch(signature):
        return False
    if abs(now - int(timestamp)) > REPLAY_WINDOW_SECONDS:
        return False
    return bool(verifier.is_valid(body=body, timestamp=timestamp, signature=signature))


def guarded(
    slack: WsgiApp,
    *,
    signing_secret: str,
    store: StateStore,
    clock: Callable[[], float] = time.time,
) -> WsgiApp:
    """`slack` (Bolt's WSGI adapter) behind the checks above."""
    verifier = SignatureVerifier(signing_secret)

    def application(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        body = _read_body(environ)
        if body is None:
            return answer(start_response, "413 Content Too Large", b'{"error": "body too large"}')
        timestamp = str(environ.get("HTTP_X_SLACK_REQUEST_TIMESTAMP") or "")
        signature = str(environ.get("HTTP_X_SLACK_SIGNATURE") or "")
        if not signed_by_slack(verifier, body, timestamp, signature, now=clock()):
            return answer(start_response, "401 Unauthorized", b'{"error": "invalid request signature"}')
        try:
            first = store.claim(f"request:{signature}", ttl_seconds=SEEN_TTL_SECONDS)
        except Exception as exc:
            log.error("state store unavailable: %s", mask(f"{type(exc).__name__}: {exc}"))
            return answer(start_response, "503 Service Unavailable", b'{"error": "try again"}')
        if not first:
            log.info("a request seen already (same signature) was answered without running it again")
            return answer(start_response, "200 OK")
        environ["wsgi.input"] = io.BytesIO(body)
        environ["CONTENT_LENGTH"] = str(len(body))
        try:
            return slack(environ, start_response)
        except Exception as exc:  # a signed body Bolt cannot parse: Slack's own bug, or ours
            log.error("could not read a signed request: %s", type(exc).__name__)
            return answer(start_response, "400 Bad Request", b'{"error": "unreadable request"}')

    return application

"""A local stand-in for the Slack Web API over a real loopback socket (the bot's `SLACK_API_URL`).

`ThreadingHTTPServer` on 127.0.0.1; it parses what slack_sdk sends (JSON bodies for `chat.*` and
`views.*`, form bodies for `files.*` and `reactions.*`, query strings for GET methods), checks the
bot token, answers as Slack does (https://docs.slack.dev/reference/methods) and applies each call
to a `Workspace` (messages, threads, files, modals), which the playground's page shows live.

Every request is recorded as a `Call` (method or path, parsed body, headers, what was answered).
Tests make a method answer `{"ok": false, "error": …}` or 429 with Retry-After a number of times,
hold calls unanswered, and wait (with a deadline) for calls to arrive. `commands/…` and
`actions/…` paths are response_url webhooks; `upload/…` receives the bytes of a file upload.

`strict=False` (tests that play Slack's side themselves, with their own trigger ids and response
URLs): a reference the workspace never issued is answered `ok` as a bare recording stand-in would.
`strict=True` (the playground): it is answered with Slack's own error (`invalid_trigger_id`,
`message_not_found`, …), so the page shows what a real workspace would.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

from playground.web_api import METHOD_ANSWERS
from playground.workspace import BOT_ID, BOT_USER_ID, TEAM_ID, SlackError, Workspace

__all__ = [
    "BOT_ID",
    "BOT_USER_ID",
    "TEAM_ID",
    "Call",
    "Hold",
    "SlackApiStandIn",
    "Upload",
    "running_slack_api",
]

# A body larger than this is refused (Slack's own limits are far lower for everything but uploads).
MAX_BODY_BYTES = 64 * 1024 * 1024
WEBHOOK_PREFIXES = ("commands/", "actions/")


@dataclass
class Call:
    method: str
    body: dict[str, Any]
    headers: dict[str, str]
    raw: bytes = b""
    at: float = field(default_factory=time.monotonic)
    # What the stand-in answered (e.g. the `ts` of a posted message).
    response: dict[str, Any] = field(default_factory=dict)

    def json_arg(self, name: str) -> Any:
        """Form bodies carry lists/objects as JSON strings (e.g. `files`, `blocks`)."""
        value = self.body.get(name)
        if isinstance(value, str):
            try:
                return json.loads(value)
            except ValueError:
                return value
        return value


@dataclass
class Upload:
    """One file as it reached Slack: getUploadURLExternal → upload → completeUploadExternal."""

    file_id: str
    filename: str
    title: str
    data: bytes
    channel: str
    thread_ts: str | None
    comment: str | None = None


@dataclass
class _Fault:
    error: str | None = None
    status: int = 200
    retry_after: int | None = None
    times: int = 1


@dataclass
class Hold:
    """Calls matching `where` get no answer until `released` is set, and are not recorded (as if
    they never reached Slack: the caller's process is killed meanwhile). `applied`: they reach
    Slack and take effect (recorded, the message created), and only the answer is held back (the
    caller is killed before it reads what Slack made)."""

    where: Callable[[Call], bool]
    released: threading.Event = field(default_factory=threading.Event)
    times: int = 1
    held: int = 0
    arrived: threading.Event = field(default_factory=threading.Event)
    applied: bool = False


class SlackApiStandIn:
    def __init__(
        self, *, workspace: Workspace | None = None, strict: bool = False, host: str = "127.0.0.1"
    ) -> None:
        self.workspace = workspace or Workspace()
        self.strict = strict
        self.calls: list[Call] = []
        self._faults: dict[str, list[_Fault]] = {}
        self._holds: list[Hold] = []
        self._cond = threading.Condition()
        self.usergroups: dict[str, list[str]] = {}
        # Thread histories a test sets directly (else conversations.replies reads the workspace).
        self.thread_messages: dict[tuple[str, str], list[dict[str, Any]]] = {}
        # What apps.connections.open answers (a Socket Mode stand-in's URL).
        self.socket_mode_url: str | None = None
        self.server = ThreadingHTTPServer((host, 0), _handler_for(self))
        self.server.daemon_threads = True
        self.port: int = self.server.server_address[1]
        self.url = f"http://{host}:{self.port}/"
        self._thread = threading.Thread(target=self.server.serve_forever, name="slack-api", daemon=True)

    # ---- lifecycle -----------------------------------------------------------------------------

    def start(self) -> SlackApiStandIn:
        self._thread.start()
        return self

    def stop(self) -> None:
        for hold in self._holds:
            hold.released.set()
        self.server.shutdown()
        self.server.server_close()

    # ---- fault injection -----------------------------------------------------------------------

    def fail(self, method: str, error: str, *, times: int = 1) -> None:
        """The next `times` calls of `method` answer `{"ok": false, "error": error}` (HTTP 200)."""
        self._faults.setdefault(method, []).append(_Fault(error=error, times=times))

    def rate_limit(self, method: str, *, retry_after: int = 1, times: int = 1) -> None:
        """The next `times` calls answer 429 with Retry-After and `{"ok": false, "error": "ratelimited"}`."""
        self._faults.setdefault(method, []).append(
            _Fault(error="ratelimited", status=429, retry_after=retry_after, times=times)
        )

    def hold(self, where: Callable[[Call], bool], *, times: int = 1, applied: bool = False) -> Hold:
        """The next `times` calls matching `where` hang unanswered and unrecorded until
        `.released.set()`; `.arrived` is set when the first comes. `applied=True`: applied and
        recorded first, only their answer held back."""
        hold = Hold(where=where, times=times, applied=applied)
        with self._cond:
            self._holds.append(hold)
        return hold

    # ---- inspection ----------------------------------------------------------------------------

    def calls_to(self, method: str) -> list[Call]:
        with self._cond:
            return [call for call in self.calls if call.method == method]

    def wait_for(
        self,
        method: str,
        *,
        count: int = 1,
        where: Callable[[Call], bool] | None = None,
        timeout: float = 15.0,
    ) -> list[Call]:
        """Wait until `count` calls of `method` (a method name, or a path prefix ending in `/` such as
        `commands/` for response URLs) matching `where` arrived; fail with what did arrive."""

        def wanted(call: Call) -> bool:
            named = call.method.startswith(method) if method.endswith("/") else call.method == method
            return named and (where is None or where(call))

        return self.wait_until(wanted, count=count, timeout=timeout, what=f"{count} x {method}")

    def wait_until(
        self, where: Callable[[Call], bool], *, count: int = 1, timeout: float = 15.0, what: str = "calls"
    ) -> list[Call]:
        deadline = time.monotonic() + timeout

        def matching() -> list[Call]:
            return [c for c in self.calls if where(c)]

        with self._cond:
            while len(matching()) < count:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    seen = [c.method for c in self.calls]
                    raise AssertionError(f"waited {timeout}s for {what}; calls so far: {seen}")
                self._cond.wait(remaining)
            return matching()

    def methods(self) -> list[str]:
        with self._cond:
            return [call.method for call in self.calls]

    def uploads(self) -> list[Upload]:
        """Every completed files_upload_v2: name, bytes, channel and thread (in completion order)."""
        with self._cond:
            calls = list(self.calls)
        names = {
            str(call.response.get("file_id")): str(call.body.get("filename"))
            for call in calls
            if call.method == "files.getUploadURLExternal" and call.response.get("ok")
        }
        data = {
            call.method.removeprefix("upload/"): call.raw
            for call in calls
            if call.method.startswith("upload/")
        }
        found: list[Upload] = []
        for call in calls:
            if call.method != "files.completeUploadExternal":
                continue
            for item in call.json_arg("files") or []:
                file_id = str(item.get("id"))
                found.append(
                    Upload(
                        file_id=file_id,
                        filename=names.get(file_id, ""),
                        title=str(item.get("title") or ""),
                        data=data.get(file_id, b""),
                        channel=str(call.body.get("channel_id") or ""),
                        thread_ts=call.body.get("thread_ts"),
                        comment=call.body.get("initial_comment"),
                    )
                )
        return found

    def uploaded(self, file_id: str) -> bytes:
        for call in self.calls_to(f"upload/{file_id}"):
            return call.raw
        raise AssertionError(f"no upload for {file_id}")

    # ---- behaviour -----------------------------------------------------------------------------

    def handle(
        self, method: str, body: dict[str, Any], headers: dict[str, str], raw: bytes
    ) -> tuple[int, dict[str, Any], dict[str, str]]:
        call = Call(method=method, body=body, headers=headers, raw=raw)
        with self._cond:
            hold = next((h for h in self._holds if h.held < h.times and h.where(call)), None)
            if hold is not None:
                hold.held += 1
        if hold is not None and not hold.applied:
            hold.arrived.set()
            hold.released.wait(120)
            return 200, {"ok": False, "error": "held"}, {}
        status, payload, extra = self._decide(call)
        call.response = payload
        with self._cond:
            self.calls.append(call)
            self._cond.notify_all()
        if hold is not None:
            hold.arrived.set()
            hold.released.wait(120)
        return status, payload, extra

    def _decide(self, call: Call) -> tuple[int, dict[str, Any], dict[str, str]]:
        with self._cond:
            faults = self._faults.get(call.method) or []
            if faults:
                fault = faults[0]
                fault.times -= 1
                if fault.times <= 0:
                    faults.pop(0)
                extra = {"Retry-After": str(fault.retry_after)} if fault.retry_after is not None else {}
                return fault.status, {"ok": False, "error": fault.error}, extra
        api_method = not call.method.startswith((*WEBHOOK_PREFIXES, "upload/"))
        auth = call.headers.get("Authorization") or call.headers.get("authorization") or ""
        if (
            api_method
            and not auth.startswith(("Bearer xoxb-", "Bearer xapp-"))
            and not call.body.get("token")
        ):
            return 200, {"ok": False, "error": "not_authed"}, {}
        try:
            return 200, self._payload(call), {}
        except SlackError as exc:
            return 200, {"ok": False, "error": exc.code}, {}

    def _payload(self, call: Call) -> dict[str, Any]:
        method, body = call.method, call.body
        space = self.workspace
        if method.startswith(WEBHOOK_PREFIXES):
            return self._webhook(method, body)
        if method.startswith("upload/"):
            file_id = method.removeprefix("upload/")
            self.known(lambda: space.store_upload(file_id, call.raw))
            return {"ok": True}
        channel = str(body.get("channel") or body.get("channel_id") or "C0INC0042")
        answer = METHOD_ANSWERS.get(method)
        return answer(self, call, channel) if answer is not None else {"ok": True}

    def _webhook(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        """A response_url POST (Slack answers a plain `ok`; errors come as HTTP 404 with text)."""
        self.known(lambda: self.workspace.respond(path, body))
        return {"ok": True}

    def known(self, apply: Callable[[], Any]) -> Any:
        """Apply a call to the workspace; an unknown reference is Slack's error when strict."""
        try:
            return apply()
        except SlackError:
            if self.strict:
                raise
            return None


def _handler_for(api: SlackApiStandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_GET(self) -> None:
            parsed = urlparse(self.path)
            body = {k: v[0] for k, v in parse_qs(parsed.query).items()}
            self._answer(parsed.path, body, b"")

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY_BYTES:
                self._send(413, {"ok": False, "error": "request_too_large"}, {})
                self.close_connection = True
                return
            raw = self.rfile.read(length) if length else b""
            ctype = self.headers.get("Content-Type", "")
            body: dict[str, Any] = {}
            parsed = urlparse(self.path)
            try:
                if parsed.path.startswith("/upload/"):
                    pass  # the file's raw bytes (a PNG is not a form), kept in `Call.raw`
                elif "application/json" in ctype and raw:
                    loaded = json.loads(raw)
                    body = loaded if isinstance(loaded, dict) else {}
                elif "x-www-form-urlencoded" in ctype and raw:
                    body = {k: v[0] for k, v in parse_qs(raw.decode()).items()}
            except (ValueError, UnicodeDecodeError):
                self._send(200, {"ok": False, "error": "invalid_json"}, {})
                return
            body.update({k: v[0] for k, v in parse_qs(parsed.query).items()})
            self._answer(parsed.path, body, raw)

        def _answer(self, path: str, body: dict[str, Any], raw: bytes) -> None:
            method = path.strip("/")
            status, payload, headers = api.handle(method, body, dict(self.headers.items()), raw)
            self._send(status, payload, headers)

        def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

    return Handler


@contextmanager
def running_slack_api(
    *, strict: bool = False, workspace: Workspace | None = None
) -> Iterator[SlackApiStandIn]:
    api = SlackApiStandIn(strict=strict, workspace=workspace).start()
    try:
        yield api
    finally:
        api.stop()

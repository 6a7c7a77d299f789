"""The playground's web page and its small JSON API, served on loopback only.

    GET  /                     the page (plain HTML; its script and styles are files of this package)
    GET  /static/NAME          playground.js, playground.css, blocks.css (the preview renderer's styles)
    GET  /api/setup            people, channels, page labels, where the CLI's simulator is
    GET  /api/channel          the channel as one person sees it (?channel=&user=)
    GET  /api/events           Server-Sent Events: `change` whenever the workspace changes
    GET  /files/ID             a file the bot uploaded (shown inline: PNG charts, the report)
    POST /api/send             what the person typed: a slash command or a message
    POST /api/action           a click on a button or a choice in a select
    POST /api/submit           a modal's submit; /api/close closes it

POSTs take JSON only and the Host must be this loopback address: a page elsewhere in the browser
cannot make the playground send anything to the bot (no form or simple request reaches it).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx

from blocks.preview.html import STYLE as BLOCK_STYLE
from playground import directory
from playground.labels import LANGUAGES, labels_for
from playground.slack_requests import COMMAND, BotAnswer, SlackToBot
from playground.view import channel_json
from simulator.environment import export_lines

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
STATIC = {
    "playground.js": "text/javascript; charset=utf-8",
    "playground.css": "text/css; charset=utf-8",
}
MAX_POST_BYTES = 64 * 1024
EVENT_WAIT_SECONDS = 15.0


@dataclass
class PageContext:
    """What the page's server needs: the link to the bot, and what to tell about the CLI."""

    slack: SlackToBot
    cli_environment: dict[str, str]


class BadRequest(ValueError):
    pass


def _static(name: str) -> bytes:
    return resources.files("playground").joinpath("static", name).read_bytes()


def _person(payload: dict[str, Any]) -> directory.Person:
    try:
        return directory.person(str(payload.get("user")))
    except KeyError:
        raise BadRequest("unknown user") from None


def _channel(payload: dict[str, Any]) -> directory.Channel:
    try:
        return directory.channel(str(payload.get("channel")))
    except KeyError:
        raise BadRequest("unknown channel") from None


def _answer_json(answer: BotAnswer) -> dict[str, Any]:
    return {"status": answer.status, "seconds": round(answer.seconds, 3), "body": answer.body[:2000]}


class PlaygroundApi:
    """The page's actions, as Slack's client would turn them into requests to the bot."""

    def __init__(self, context: PageContext) -> None:
        self.context = context
        self.slack = context.slack
        self.workspace = context.slack.workspace

    def setup(self, lang: str) -> dict[str, Any]:
        return {
            "people": [{"id": item.user_id, "name": item.name} for item in directory.PEOPLE],
            "channels": [{"id": item.channel_id, "name": item.name} for item in directory.CHANNELS],
            "languages": list(LANGUAGES),
            "labels": labels_for(lang if lang in LANGUAGES else "en"),
            "cli_exports": export_lines(self.context.cli_environment),
        }

    def send(self, payload: dict[str, Any]) -> dict[str, Any]:
        person, channel = _person(payload), _channel(payload)
        text = str(payload.get("text") or "").strip()
        thread_ts = str(payload["thread_ts"]) if payload.get("thread_ts") else None
        if not text:
            raise BadRequest("empty message")
        if text.startswith("/"):
            command, _, rest = text.partition(" ")
            if thread_ts:
                return {"ok": False, "hint": "slash_in_thread"}
            if command != COMMAND:
                return {"ok": False, "hint": "unknown_command", "command": command}
            return {
                "ok": True,
                "bot": _answer_json(self.slack.slash_command(rest.strip(), person=person, channel=channel)),
            }
        posted, answers = self.slack.message(text, person=person, channel=channel, thread_ts=thread_ts)
        return {"ok": True, "ts": posted.ts, "bot": [_answer_json(item) for item in answers]}

    def action(self, payload: dict[str, Any]) -> dict[str, Any]:
        person, channel = _person(payload), _channel(payload)
        message = self.workspace.get(channel.channel_id, str(payload.get("message_ts") or ""))
        if message is None or not message.seen_by(person.user_id):
            raise BadRequest("no such message")
        action = payload.get("action")
        if not isinstance(action, dict) or not action.get("action_id"):
            raise BadRequest("no action")
        answer = self.slack.block_action(person=person, channel=channel, message=message, action=action)
        return {"ok": True, "bot": _answer_json(answer)}

    def submit(self, payload: dict[str, Any]) -> dict[str, Any]:
        person = _person(payload)
        opened = self.workspace.views.get(str(payload.get("view_id") or ""))
        if opened is None or opened.user != person.user_id:
            raise BadRequest("no such modal")
        values = payload.get("values")
        if not isinstance(values, dict):
            raise BadRequest("no values")
        answer = self.slack.view_submission(person=person, opened=opened, values=values)
        found = answer.json() if answer.status == 200 else None
        reply: dict[str, Any] = found if isinstance(found, dict) else {}
        action = reply.get("response_action")
        if action == "errors":
            return {"ok": True, "errors": reply.get("errors") or {}, "bot": _answer_json(answer)}
        if action in ("update", "push") and isinstance(reply.get("view"), dict):
            self.workspace.update_view(view_id=opened.view_id, view=reply["view"])
            return {"ok": True, "bot": _answer_json(answer)}
        if answer.status == 200:
            self.workspace.close_view(opened.view_id)
        return {"ok": answer.status == 200, "bot": _answer_json(answer)}

    def close(self, payload: dict[str, Any]) -> dict[str, Any]:
        person = _person(payload)
        opened = self.workspace.views.get(str(payload.get("view_id") or ""))
        if opened is not None and opened.user == person.user_id:
            self.workspace.close_view(opened.view_id)
        return {"ok": True}


def _handler_for(
    api: PlaygroundApi, allowed_hosts: Callable[[], set[str]], stopping: threading.Event
) -> type[BaseHTTPRequestHandler]:
    posts: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
        "/api/send": api.send,
        "/api/action": api.action,
        "/api/submit": api.submit,
        "/api/close": api.close,
    }

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "diagnose-playground/1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def _host_ok(self) -> bool:
            return (self.headers.get("Host") or "") in allowed_hosts()

        def do_GET(self) -> None:
            if not self._host_ok():
                self._send(421, b"wrong host", "text/plain; charset=utf-8")
                return
            parts = urlsplit(self.path)
            query = {key: values[0] for key, values in parse_qs(parts.query).items()}
            path = parts.path
            if path == "/":
                self._send(200, _static("index.html"), "text/html; charset=utf-8")
            elif path == "/favicon.ico":
                self._send(204, b"", "image/x-icon")
            elif path.startswith("/static/"):
                name = path.removeprefix("/static/")
                if name == "blocks.css":
                    self._send(200, BLOCK_STYLE.encode("utf-8"), "text/css; charset=utf-8")
                elif name in STATIC:
                    self._send(200, _static(name), STATIC[name])
                else:
                    self._send(404, b"not found", "text/plain; charset=utf-8")
            elif path == "/api/setup":
                self._json(200, api.setup(query.get("lang", "en")))
            elif path == "/api/channel":
                self._json(
                    200,
                    channel_json(api.workspace, channel=query.get("channel", ""), user=query.get("user", "")),
                )
            elif path == "/api/events":
                self._events()
            elif path.startswith("/files/"):
                stored = api.workspace.files.get(path.removeprefix("/files/"))
                if stored is None or not stored.shared:
                    self._send(404, b"not found", "text/plain; charset=utf-8")
                else:
                    mimetype = (
                        stored.mimetype if stored.mimetype == "image/png" else "text/plain; charset=utf-8"
                    )
                    self._send(200, stored.data, mimetype)
            else:
                self._send(404, b"not found", "text/plain; charset=utf-8")

        def do_POST(self) -> None:
            if not self._host_ok():
                self._send(421, b"wrong host", "text/plain; charset=utf-8")
                return
            handler = posts.get(urlsplit(self.path).path)
            length = int(self.headers.get("Content-Length") or 0)
            if handler is None:
                self._json(404, {"ok": False, "error": "not found"})
                return
            if "application/json" not in (self.headers.get("Content-Type") or "") or length > MAX_POST_BYTES:
                self._json(415, {"ok": False, "error": "JSON bodies only, at most 64 KiB"})
                self.close_connection = True
                return
            try:
                payload = json.loads(self.rfile.read(length) or b"{}")
                if not isinstance(payload, dict):
                    raise BadRequest("a JSON object is expected")
                self._json(200, handler(payload))
            except (BadRequest, ValueError) as exc:
                self._json(400, {"ok": False, "error": str(exc)})
            except httpx.HTTPError as exc:
                self._json(200, {"ok": False, "hint": "bot_unreachable", "error": type(exc).__name__})

        def _events(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Security-Policy", CSP)
            self.end_headers()
            self.close_connection = True
            version = -1
            try:
                while not stopping.is_set():
                    current = api.workspace.wait_for_change(version, timeout=EVENT_WAIT_SECONDS)
                    if current != version:
                        version = current
                        self.wfile.write(f"event: change\ndata: {version}\n\n".encode())
                    else:
                        self.wfile.write(b": still here\n\n")
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                return

        def _json(self, status: int, data: Any) -> None:
            self._send(
                status,
                json.dumps(data, ensure_ascii=False).encode("utf-8"),
                "application/json; charset=utf-8",
            )

        def _send(self, status: int, payload: bytes, content_type: str) -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(payload)))
                self.send_header("Content-Security-Policy", CSP)
                self.send_header("X-Content-Type-Options", "nosniff")
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True

    return Handler


class PageServer:
    """The page on 127.0.0.1 (`port=0`: a free one), in a daemon thread."""

    def __init__(self, context: PageContext, *, port: int = 0) -> None:
        self._stopping = threading.Event()
        self.api = PlaygroundApi(context)
        self._server = ThreadingHTTPServer(
            ("127.0.0.1", port), _handler_for(self.api, self._hosts, self._stopping)
        )
        self._server.daemon_threads = True
        self.port = int(self._server.server_address[1])
        self.url = f"http://127.0.0.1:{self.port}/"
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="playground-page", daemon=True
        )

    def _hosts(self) -> set[str]:
        return {f"127.0.0.1:{self.port}", f"localhost:{self.port}"}

    def start(self) -> PageServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()

"""HTTP mode: `POST /slack/events` (commands, events, interactivity) and `GET /healthz`, on waitress.

waitress (https://docs.pylonsproject.org/projects/waitress/) reads every request in its own I/O
loop and hands it to a request thread only once it is complete, so clients that send headers and
then hold the body never occupy a request thread; it refuses a body whose Content-Length is over
the limit before reading it (413), and counts a chunked body as it comes. On top of its settings
(connection limit, idle timeout), each request must arrive whole within REQUEST_READ_SECONDS, so
that a client trickling a byte at a time cannot hold a connection forever. Slack sends each
request at once, in well under a second.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from slack_bolt import App
from slack_bolt.adapter.wsgi import SlackRequestHandler
from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from waitress.parser import HTTPRequestParser
from waitress.server import TcpWSGIServer
from waitress.task import ThreadedTaskDispatcher

from bot.ingress import MAX_BODY_BYTES, StartResponse, WsgiApp, answer, guarded
from bot.state.store import StateStore

log = logging.getLogger("diagnose.bot")

EVENTS_PATH = "/slack/events"
HEALTH_PATH = "/healthz"
# A whole request (headers and body) within this; an idle kept-alive connection closed after it.
REQUEST_READ_SECONDS = 10
# Open connections at most; more wait in the listen backlog until one closes.
CONNECTION_LIMIT = 512
LISTEN_BACKLOG = 1024
MAX_HEADER_BYTES = 32 * 1024


def wsgi_app(
    app: App, *, signing_secret: str, store: StateStore, ready: Callable[[], dict[str, bool]]
) -> WsgiApp:
    """Slack's POSTs through bot.ingress to Bolt; `/healthz` reports readiness (its checks)."""
    slack = guarded(SlackRequestHandler(app), signing_secret=signing_secret, store=store)

    def application(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        method = environ.get("REQUEST_METHOD", "GET")
        if path == EVENTS_PATH and method == "POST":
            return slack(environ, start_response)
        if path == HEALTH_PATH and method in ("GET", "HEAD"):
            return health(start_response, ready())
        return answer(start_response, "404 Not Found", b'{"error": "not found"}')

    return application


def health(start_response: StartResponse, checks: dict[str, bool]) -> list[bytes]:
    healthy = all(checks.values())
    body = json.dumps({"ok": healthy, "checks": checks}).encode()
    return answer(start_response, "200 OK" if healthy else "503 Service Unavailable", body)


class _TimedParser(HTTPRequestParser):  # type: ignore[misc]
    """A request being read, with the time its first bytes came."""

    def __init__(self, adj: Adjustments) -> None:
        super().__init__(adj)
        self.started = time.time()


class _Channel(HTTPChannel):  # type: ignore[misc]
    parser_class = _TimedParser

    def writable(self) -> bool:
        """Not while a request thread holds the output lock, writing its response.

        waitress's loop asks every connection `writable()` on each turn, and a connection with
        output is writable, but while its request thread holds the output lock (it sends the
        response itself, the interpreter lock released during the send) the loop can only try the
        lock and fail: poll() returns at once, the loop turns again, holding the interpreter lock
        and walking every open connection each time, until that thread gets the interpreter lock
        back. Under a burst (200 connections open) that spin took most of the process's CPU. The
        thread wakes the loop itself when it is done or could not send everything (waitress pulls
        its trigger in both cases), so nothing waits for the loop's next timeout."""
        if self.requests and not self.will_close:
            if not self.outbuf_lock.acquire(False):
                return False
            self.outbuf_lock.release()
        return bool(super().writable())


class _Server(TcpWSGIServer):  # type: ignore[misc]
    channel_class = _Channel
    read_seconds: float = REQUEST_READ_SECONDS

    def maintenance(self, now: float) -> None:
        """waitress closes connections idle for `channel_timeout`; also close those whose current
        request has been arriving for longer than `read_seconds`."""
        super().maintenance(now)
        for channel in list(self.active_channels.values()):
            reading = channel.request
            if reading is not None and now - getattr(reading, "started", now) > self.read_seconds:
                channel.will_close = True


class HttpServer:
    """The WSGI app on waitress, bound at once (port 0: any free port); `serve_forever()` in this
    thread, or `start()` in a thread of its own."""

    def __init__(
        self,
        application: WsgiApp,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        threads: int = 8,
        connection_limit: int = CONNECTION_LIMIT,
        read_seconds: float = REQUEST_READ_SECONDS,
    ) -> None:
        adjustments = Adjustments(
            host=host,
            port=port,
            threads=threads,
            connection_limit=connection_limit,
            backlog=LISTEN_BACKLOG,
            channel_timeout=max(1, int(read_seconds)),
            cleanup_interval=1,
            max_request_body_size=MAX_BODY_BYTES,
            max_request_header_size=MAX_HEADER_BYTES,
            asyncore_use_poll=True,
            expose_tracebacks=False,
            ident="diagnose-bot",
        )
        self._map: dict[int, Any] = {}
        dispatcher = ThreadedTaskDispatcher()
        dispatcher.set_thread_count(threads)
        self.server = _Server(application, map=self._map, dispatcher=dispatcher, adj=adjustments)
        self.server.read_seconds = read_seconds
        self.host = host
        self.port: int = int(self.server.effective_port)
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def serve_forever(self) -> None:
        self.server.run()

    def start(self) -> HttpServer:
        self._thread = threading.Thread(target=self.serve_forever, name="bot-http", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Close the listening socket and every connection; the request threads finish."""
        from waitress import wasyncore

        self.server.task_dispatcher.shutdown(cancel_pending=False, timeout=5)
        wasyncore.close_all(self._map)
        if self._thread is not None:
            self._thread.join(timeout=5)


def prepare_worker_process() -> None:
    """Import the charting library once at start-up: its ~0.6 s import, holding the interpreter
    lock, would otherwise land on the first OOM report."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot
    except ImportError:
        pass

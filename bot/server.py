"""HTTP mode: `POST /slack/events` (commands, events, interactivity) and `GET /healthz`.

Production runs the WSGI app under gunicorn (gthread workers, a deep listen backlog) so bursts of
Slack requests are accepted; `ThreadedServer` is the same WSGI app on a stdlib threading server
with a deep backlog, for tests and single-process use. Bolt verifies every signature (v0 HMAC,
300 s window) and answers 401 to a bad one.
"""

from __future__ import annotations

import json
import socketserver
import threading
from collections.abc import Callable, Iterable
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from slack_bolt import App
from slack_bolt.adapter.wsgi import SlackRequestHandler

EVENTS_PATH = "/slack/events"
HEALTH_PATH = "/healthz"
LISTEN_BACKLOG = 1024

StartResponse = Callable[..., Any]
WsgiApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]


def wsgi_app(app: App, *, ready: Callable[[], dict[str, bool]]) -> WsgiApp:
    """Route Slack's POSTs to Bolt; `/healthz` reports liveness and readiness (state store reachable)."""
    slack = SlackRequestHandler(app)

    def application(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        method = environ.get("REQUEST_METHOD", "GET")
        if path == EVENTS_PATH and method == "POST":
            return slack(environ, start_response)
        if path == HEALTH_PATH and method in ("GET", "HEAD"):
            checks = ready()
            healthy = all(checks.values())
            body = json.dumps({"ok": healthy, "checks": checks}).encode()
            status = "200 OK" if healthy else "503 Service Unavailable"
            start_response(status, [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
            return [body]
        body = b'{"error": "not found"}'
        start_response(
            "404 Not Found", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))]
        )
        return [body]

    return application


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # request bodies never reach the log
        return


class _ThreadingWSGIServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True
    request_queue_size = LISTEN_BACKLOG
    allow_reuse_address = True


class ThreadedServer:
    """The WSGI app on a threading HTTP server: one thread per request, deep listen backlog."""

    def __init__(self, application: WsgiApp, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self.httpd = make_server(
            host, port, application, server_class=_ThreadingWSGIServer, handler_class=_QuietHandler
        )
        self.port: int = self.httpd.server_address[1]
        self.host = host
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> ThreadedServer:
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="bot-http", daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self.httpd.serve_forever()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)


def prepare_worker_process() -> None:
    """Import the charting library once at start-up: its ~0.6 s import, holding the interpreter
    lock, would otherwise land on the first OOM report and stall every ack behind it."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot
    except ImportError:
        pass


def run_gunicorn(
    load: Callable[[], WsgiApp],
    *,
    host: str,
    port: int,
    threads: int = 32,
    workers: int = 1,
    on_ready: Callable[[str], None] | None = None,
) -> None:
    """gunicorn with gthread workers; `load` builds the app inside each worker (after the fork)."""
    from gunicorn.app.base import BaseApplication

    class _Server(BaseApplication):  # type: ignore[misc]
        def load_config(self) -> None:
            self.cfg.set("bind", f"{host}:{port}")
            self.cfg.set("worker_class", "gthread")
            self.cfg.set("workers", workers)
            self.cfg.set("threads", threads)
            self.cfg.set("backlog", LISTEN_BACKLOG)
            self.cfg.set("timeout", 60)
            self.cfg.set("graceful_timeout", 30)
            self.cfg.set("keepalive", 5)
            self.cfg.set("accesslog", None)
            # No runtime control socket: nothing outside the process manages this server.
            if "control_socket_disable" in self.cfg.settings:
                self.cfg.set("control_socket_disable", True)
            if on_ready is not None:

                def when_ready(server: Any) -> None:
                    for listener in server.LISTENERS:
                        on_ready(str(listener))

                self.cfg.set("when_ready", when_ready)

        def load(self) -> WsgiApp:
            prepare_worker_process()
            return load()

    _Server().run()

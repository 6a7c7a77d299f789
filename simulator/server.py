"""`diagnose sim`: a local stand-in for Run:ai, Kubernetes and ModelArts that speaks their wire format.

It serves a folder of bundles (their exchanges merged, matched by op and args exactly as replay
does) at the platforms' real paths, with the Run:ai token endpoint, optional latency per call and
injected faults per op (status codes with or without Retry-After, timeouts, connection resets,
truncated bodies). Used by `make demo`, the end-to-end tests and the benchmarks.
"""

from __future__ import annotations

import base64
import json
import socket
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from diagnosis.bundle import Bundle
from diagnosis.evidence.bundles import BundleError, BundleUnsafe, load_bundle
from diagnosis.evidence.matching import find_exchange
from diagnosis.evidence.routes import Route, RouteTable
from diagnosis.models import Exchange
from simulator.listings import SIMULATOR_PROJECT_ID, modelarts_job_projects, synthesised_listing
from simulator.runai_planes import Plane

TOKEN_PATH = "/api/v1/token"


@dataclass
class Fault:
    """One injected failure for an op. `times=-1` keeps failing."""

    status: int | None = None
    retry_after: float | None = None
    timeout: bool = False
    reset: bool = False
    truncate: bool = False
    times: int = 1


@dataclass
class _PlatformTable:
    platform: str
    routes: RouteTable
    exchanges: list[Exchange] = field(default_factory=list)


def _routes_for(platform: str) -> RouteTable:
    from diagnosis import engine

    return engine.backend(platform).routes


@dataclass(frozen=True)
class Skipped:
    """A file of the folder that is not served, and why (the loader's one-line reason)."""

    path: Path
    reason: str


def load_bundles_reporting(directory: str | Path) -> tuple[list[tuple[Path, Bundle]], list[Skipped]]:
    """Every `*.json` evidence bundle under a folder (recursively), in a stable order, with its path,
    and every other `*.json` file with the reason it is not one (diagnoses, goldens, a broken file).

    A file built to exhaust the reader (BundleUnsafe: nested too deeply, too large) stops the load
    with its reason.
    """
    pairs: list[tuple[Path, Bundle]] = []
    skipped: list[Skipped] = []
    for path in sorted(Path(directory).rglob("*.json")):
        try:
            pairs.append((path, load_bundle(path)))
        except BundleUnsafe:
            raise
        except BundleError as exc:
            skipped.append(Skipped(path, str(exc)))
    return pairs, skipped


def load_bundle_pairs(directory: str | Path) -> list[tuple[Path, Bundle]]:
    """The bundles of `load_bundles_reporting`, without the files skipped."""
    return load_bundles_reporting(directory)[0]


def load_bundle_dir(directory: str | Path) -> list[Bundle]:
    return [bundle for _path, bundle in load_bundle_pairs(directory)]


def _fake_jwt(lifetime_seconds: int) -> str:
    def part(data: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")

    payload = {"sub": "sim-client", "exp": int(time.time()) + lifetime_seconds, "iss": "diagnose-sim"}
    return f"{part({'alg': 'none', 'typ': 'JWT'})}.{part(payload)}.c2lt"


@dataclass
class Received:
    """One request as the sim received it, and what it answered (for benchmarks and tests)."""

    op: str
    args: dict[str, str]
    status: int | None = None
    answer: str = ""
    # The request as sent: method, path with its query, and body (the token request's).
    method: str = ""
    target: str = ""
    body: str = ""


class SimServer:
    def __init__(
        self,
        bundles: Iterable[Bundle],
        *,
        latency: dict[str, float] | None = None,
        default_latency: float = 0.0,
        token_latency: float = 0.0,
        faults: dict[str, list[Fault]] | None = None,
        modelarts_keys: tuple[str, str] | None = None,
        token_lifetime_seconds: int = 3600,
        timeout_hold_seconds: float = 60.0,
        host: str = "127.0.0.1",
        port: int = 0,
        route_tables: dict[str, RouteTable] | None = None,
        runai_plane: Plane | None = None,
        listings: bool = False,
    ) -> None:
        def routes_for(platform: str) -> RouteTable:
            if route_tables is not None and platform in route_tables:
                return route_tables[platform]
            return _routes_for(platform)

        self.tables: dict[str, _PlatformTable] = {}
        for bundle in bundles:
            table = self.tables.get(bundle.platform)
            if table is None:
                table = self.tables[bundle.platform] = _PlatformTable(
                    bundle.platform, routes_for(bundle.platform)
                )
            table.exchanges.extend(bundle.exchanges)
        for platform in ("modelarts", "runai"):
            if platform not in self.tables:
                self.tables[platform] = _PlatformTable(platform, routes_for(platform))
        self.latency = dict(latency or {})
        self.default_latency = default_latency
        # The Run:ai token endpoint is no op of the route tables: its latency is set on its own.
        self.token_latency = token_latency
        self.faults: dict[str, list[Fault]] = {op: list(items) for op, items in (faults or {}).items()}
        self.modelarts_keys = modelarts_keys
        self.token_lifetime_seconds = token_lifetime_seconds
        self.timeout_hold_seconds = timeout_hold_seconds
        self.requests: list[tuple[str, str]] = []
        self.ops: list[str] = []
        self.received: list[Received] = []
        self.tokens_issued = 0
        # A Run:ai release to answer as (token grants, refused parameters, fields): simulator/runai_planes.py.
        self.runai_plane = runai_plane
        # Listings no bundle recorded, built from the jobs the bundles hold (simulator/listings.py),
        # and the one project that holds every ModelArts scenario.
        self.listings = listings
        self.modelarts_job_projects = modelarts_job_projects(self.tables["modelarts"].exchanges)
        self._lock = threading.Lock()
        self._stop_holding = threading.Event()
        self._server = _Server((host, port), _handler_for(self))
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        address = self._server.server_address
        return f"http://{address[0]!s}:{address[1]}"

    def start(self) -> SimServer:
        self._thread = threading.Thread(target=self._server.serve_forever, name="diagnose-sim", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop_holding.set()
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> SimServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def op_count(self, op: str) -> int:
        with self._lock:
            return self.ops.count(op)

    def _take_fault(self, op: str) -> Fault | None:
        with self._lock:
            queue = self.faults.get(op)
            if not queue:
                return None
            fault = queue[0]
            if fault.times > 0:
                fault.times -= 1
                if fault.times == 0:
                    queue.pop(0)
            return fault

    def _in_recorded_project(self, args: dict[str, Any]) -> dict[str, Any]:
        """A call about a job in SIMULATOR_PROJECT_ID, as the job's own recorded project."""
        job_id = args.get("training_job_id")
        if args.get("project_id") != SIMULATOR_PROJECT_ID or not job_id:
            return args
        recorded = self.modelarts_job_projects.get(str(job_id))
        return {**args, "project_id": recorded} if recorded else args

    def _resolve(
        self, method: str, path: str, query: str, body: bytes
    ) -> tuple[_PlatformTable, Route, dict[str, Any]] | None:
        order = ("modelarts", "runai") if path.startswith("/v2/") else ("runai", "modelarts")
        for platform in order:
            table = self.tables[platform]
            resolved = table.routes.resolve(method, path, query, body)
            if resolved is not None:
                return table, resolved[0], resolved[1]
        return None


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256
    allow_reuse_address = True


EVENTS = "ListTrainingJobEvents"
USER_DIAGNOSIS = "ShowTrainingJobUserDiagnosis"
DEFAULT_EVENTS_LIMIT = 50  # the API's default page size; at most 100


def _known_job(exchanges: Iterable[Exchange], args: dict[str, Any]) -> bool:
    job = args.get("training_job_id")
    return any(
        item.op == "ShowTrainingJobDetails" and item.args.get("training_job_id") == job for item in exchanges
    )


def _event_page(body: Any, args: dict[str, Any]) -> Any:
    """A recorded list of events served the way ModelArts pages it: `offset` is a page index
    (0 = the first page), `limit` its size (default 50, at most 100); `total` counts them all."""
    if not isinstance(body, dict) or not isinstance(body.get("events"), list):
        return body
    try:
        limit = min(100, max(1, int(args.get("limit") or DEFAULT_EVENTS_LIMIT)))
        page = max(0, int(args.get("offset") or 0))
    except ValueError:
        return body
    events = body["events"]
    recorded_total = body.get("total")
    total = recorded_total if isinstance(recorded_total, int) else len(events)
    return {
        **body,
        "total": max(total, len(events)),
        "limit": limit,
        "offset": page,
        "events": events[page * limit : (page + 1) * limit],
    }


def _not_found_body(platform: str, route: Route | None) -> dict[str, Any]:
    if route is not None and route.op.startswith("k8s."):
        return {
            "kind": "Status",
            "apiVersion": "v1",
            "status": "Failure",
            "reason": "NotFound",
            "code": 404,
            "message": "the server could not find the requested resource",
        }
    if platform == "modelarts":
        return {"error_code": "ModelArts.2775", "error_msg": "The training job does not exist."}
    return {"code": 404, "message": "Resource id not found."}


def _error_body(platform: str, route: Route | None, status: int) -> dict[str, Any]:
    if route is not None and route.op.startswith("k8s."):
        reason = {401: "Unauthorized", 403: "Forbidden", 429: "TooManyRequests"}.get(status, "InternalError")
        return {
            "kind": "Status",
            "apiVersion": "v1",
            "status": "Failure",
            "reason": reason,
            "code": status,
            "message": f"simulated {status}",
        }
    if platform == "modelarts":
        codes = {401: "APIGW.0301", 403: "APIGW.0306", 429: "APIGW.0308"}
        code = codes.get(status, "ModelArts.0010")
        return {"error_code": code, "error_msg": f"simulated HTTP {status}", "request_id": "sim-request"}
    messages = {
        401: "Issuer is not familiar.",
        403: "You do not have sufficient permissions.",
        429: "Too many requests.",
        503: "Please try again in few minutes.",
    }
    return {"code": status, "message": messages.get(status, "Something went wrong.")}


def _handler_for(sim: SimServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "diagnose-sim/1"
        # Headers and body go out in two writes: without TCP_NODELAY, Nagle and the client's
        # delayed ACK add ~40 ms to some answers, which real API gateways do not.
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_GET(self) -> None:
            self._handle()

        def do_POST(self) -> None:
            self._handle()

        def do_PUT(self) -> None:
            self._handle()

        def do_PATCH(self) -> None:
            self._handle()

        def do_DELETE(self) -> None:
            self._handle()

        def _handle(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            parts = urlsplit(self.path)
            with sim._lock:
                sim.requests.append((self.command, parts.path))
            self._received: Received | None = None
            sent_body = body.decode("utf-8", "replace")

            def received(op: str, args: dict[str, str]) -> Received:
                return Received(op, args, method=self.command, target=self.path, body=sent_body)

            if parts.path == TOKEN_PATH and self.command == "POST":
                with sim._lock:
                    sim.tokens_issued += 1
                    self._received = received("token", {})
                    sim.received.append(self._received)
                if sim.token_latency:
                    time.sleep(sim.token_latency)
                if sim.runai_plane is not None:
                    token = _fake_jwt(sim.token_lifetime_seconds)
                    self._json(
                        *sim.runai_plane.token_answer(
                            body, token=token, lifetime_seconds=sim.token_lifetime_seconds
                        )
                    )
                    return
                self._json(
                    200,
                    {
                        "accessToken": _fake_jwt(sim.token_lifetime_seconds),
                        "idToken": "",
                        "expiresIn": sim.token_lifetime_seconds,
                    },
                )
                return
            resolved = sim._resolve(self.command, parts.path, parts.query, body)
            if resolved is None:
                self._json(404, {"code": 404, "message": f"no such path {parts.path}"})
                return
            table, route, args = resolved
            with sim._lock:
                sim.ops.append(route.op)
                self._received = received(route.op, {key: str(value) for key, value in args.items()})
                sim.received.append(self._received)
            delay = sim.latency.get(route.op, sim.default_latency)
            if delay:
                time.sleep(delay)
            if table.platform == "modelarts" and sim.modelarts_keys and not self._signature_ok(parts, body):
                self._json(
                    401,
                    {
                        "error_code": "APIGW.0301",
                        "error_msg": "Incorrect IAM authentication information: verify aksk signature fail",
                        "request_id": "sim-request",
                    },
                )
                return
            fault = sim._take_fault(route.op)
            if fault is not None and self._apply_fault(fault, table.platform, route):
                return
            plane = sim.runai_plane if table.platform == "runai" and not route.op.startswith("k8s.") else None
            refusal = plane.refusal(route.op, dict(parse_qsl(parts.query))) if plane is not None else None
            if refusal is not None:
                self._json(400, refusal)
                return
            if sim.listings and table.platform == "modelarts":
                args = sim._in_recorded_project(args)
            exchange = find_exchange(table.exchanges, route.op, args)
            if exchange is None and sim.listings:
                listing = synthesised_listing(table.platform, route.op, table.exchanges, args)
                if listing is not None:
                    self._json(200, plane.shaped(route.op, listing) if plane is not None else listing)
                    return
            if exchange is None and plane is not None:
                exchange = find_exchange(table.exchanges, route.op, plane.recorded_args(route.op, args))
            if exchange is None and route.op == USER_DIAGNOSIS and _known_job(table.exchanges, args):
                # A job the platform found nothing wrong with has a diagnosis without conclusions.
                self._json(200, {"status": "Completed", "conclusions": []})
                return
            if exchange is None:
                self._json(404, _not_found_body(table.platform, route))
                return
            if route.op == EVENTS and exchange.status == 200 and "offset" not in exchange.args:
                self._json(200, _event_page(exchange.body, args))
                return
            if exchange.text is not None and exchange.body is None:
                self._send(exchange.status, exchange.text.encode("utf-8"), "text/plain; charset=utf-8")
            elif exchange.body is None:
                self._send(exchange.status, b"", "application/json")
            else:
                answer = plane.shaped(route.op, exchange.body) if plane is not None else exchange.body
                self._json(exchange.status, answer)

        def _signature_ok(self, parts: Any, body: bytes) -> bool:
            from diagnosis.modelarts.signature_check import verify_request

            assert sim.modelarts_keys is not None
            access_key, secret_key = sim.modelarts_keys
            return bool(
                verify_request(
                    method=self.command,
                    path=parts.path,
                    query=parts.query,
                    headers={key: value for key, value in self.headers.items()},
                    body=body,
                    access_key=access_key,
                    secret_key=secret_key,
                    # The gateway refuses an X-Sdk-Date more than 15 minutes from its clock.
                    now=datetime.now(UTC),
                )
            )

        def _apply_fault(self, fault: Fault, platform: str, route: Route) -> bool:
            if fault.timeout:
                sim._stop_holding.wait(sim.timeout_hold_seconds)
                self.close_connection = True
                return True
            if fault.reset:
                self._reset()
                return True
            if fault.truncate:
                payload = json.dumps({"truncated": "x" * 200}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload) * 2))
                self.end_headers()
                self.wfile.write(payload[: len(payload) // 2])
                self.wfile.flush()
                self._reset()
                return True
            if fault.status is not None:
                headers = {"Retry-After": f"{fault.retry_after:g}"} if fault.retry_after is not None else {}
                self._json(fault.status, _error_body(platform, route, fault.status), headers=headers)
                return True
            return False

        def _reset(self) -> None:
            self.close_connection = True
            try:
                self.connection.setsockopt(
                    socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00"
                )
                self.connection.close()
            except OSError:
                pass

        def _json(self, status: int, data: Any, *, headers: dict[str, str] | None = None) -> None:
            self._send(
                status,
                json.dumps(data, ensure_ascii=False).encode("utf-8"),
                "application/json",
                headers=headers,
            )

        def _send(
            self, status: int, payload: bytes, content_type: str, *, headers: dict[str, str] | None = None
        ) -> None:
            received = getattr(self, "_received", None)
            if received is not None:
                received.status = status
                received.answer = payload[:1_000_000].decode("utf-8", errors="replace")
            try:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(payload)))
                self.send_header("X-Request-Id", "sim-request")
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True

    return Handler


def parse_fault(text: str) -> tuple[str, Fault]:
    """`op=503`, `op=429:2` (Retry-After 2 s), `op=timeout`, `op=reset`, `op=truncate`, `op=503x3`."""
    op, _, spec = text.partition("=")
    if not op or not spec:
        raise ValueError(
            f"invalid --fault {text!r}: use OP=STATUS[:RETRY_AFTER][xTIMES], OP=timeout, OP=reset"
        )
    times = 1
    if "x" in spec and spec.rsplit("x", 1)[1].isdigit():
        spec, times_text = spec.rsplit("x", 1)
        times = int(times_text)
    if spec in ("timeout", "reset", "truncate"):
        return op, Fault(
            timeout=spec == "timeout", reset=spec == "reset", truncate=spec == "truncate", times=times
        )
    status_text, _, retry_text = spec.partition(":")
    if not status_text.isdigit():
        raise ValueError(f"invalid --fault {text!r}: status must be a number")
    return op, Fault(
        status=int(status_text), retry_after=float(retry_text) if retry_text else None, times=times
    )

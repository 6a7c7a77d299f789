"""The MCP server: the six tools on the official SDK's `MCPServer`, over stdio or streamable HTTP."""

from __future__ import annotations

import logging
import sys
from importlib import metadata

import uvicorn
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from diagnosis import engine
from diagnosis.masking import MaskingFilter
from mcp_face.access import Caller, Policy
from mcp_face.audit import AuditLog
from mcp_face.calls import CallRunner
from mcp_face.outbound import mask_outbound
from mcp_face.settings import McpSettings, current_time
from mcp_face.tokens import PolicyTokenVerifier, http_caller, local_caller
from mcp_face.tools import register
from mcp_face.tools.common import Runtime

SERVER_NAME = "diagnose"
MCP_PATH = "/mcp"
INSTRUCTIONS = (
    "Read-only diagnosis of failed machine-learning training jobs on NVIDIA Run:ai and Huawei Cloud "
    "ModelArts: the deterministic engine of the `diagnose` tool, its verdicts with quoted, masked "
    "evidence and a confidence. No tool changes anything. When a result asks for input "
    "(outcome needs_input), put its questions to the user instead of guessing identifiers."
)


def _version() -> str:
    try:
        return metadata.version("diagnose-bot")
    except metadata.PackageNotFoundError:
        return "0"


def configure_logging() -> None:
    """Log lines on standard error (stdout carries the protocol over stdio), masked."""
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(MaskingFilter())
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers = [handler]
    root.setLevel(logging.WARNING)


def build_server(
    runtime: Runtime, *, policy: Policy | None = None, issuer_url: str | None = None
) -> MCPServer:
    """With a policy, every HTTP request needs a bearer token the policy knows (checked by the
    SDK's bearer middleware). The tokens are the operator's own (no OAuth authorization server), so
    no protected-resource metadata is published: `issuer_url` is only this server's own address."""
    options = {}
    if policy is not None:
        options = {
            "token_verifier": PolicyTokenVerifier(policy),
            "auth": AuthSettings(issuer_url=issuer_url or "http://127.0.0.1", resource_server_url=None),
        }
    server: MCPServer = MCPServer(
        SERVER_NAME,
        title="diagnose: failed ML training jobs (read-only)",
        instructions=INSTRUCTIONS,
        version=_version(),
        log_level="WARNING",
        middleware=[mask_outbound],
        **options,  # type: ignore[arg-type]
    )
    register(server, runtime)
    return server


def _runner(settings: McpSettings) -> CallRunner:
    current_time()  # an unreadable DIAGNOSE_NOW stops the server at start, not at each call
    # The live clients' imports now: a tool call's deadline counts from its first request.
    engine.warm_up()
    return CallRunner(audit=AuditLog.open(settings.audit), timeout_seconds=settings.timeout)


def serve_stdio(settings: McpSettings) -> None:
    configure_logging()
    caller = local_caller()

    def identify(_context: Context) -> Caller:
        return caller

    runner = _runner(settings)
    try:
        build_server(Runtime(runner=runner, identify=identify)).run("stdio")
    finally:
        runner.audit.close()


class RefusalAudit:
    """ASGI middleware: an audit line for each request the SDK's bearer middleware refuses (no
    token, or one no client holds), which never reaches a tool."""

    def __init__(self, app: ASGIApp, audit: AuditLog) -> None:
        self.app = app
        self.audit = audit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def watch(event: Message) -> None:
            if event["type"] == "http.response.start" and event["status"] in (401, 403):
                client = scope.get("client")
                self.audit.write(
                    {
                        "event": "http_refused",
                        "status": event["status"],
                        "method": scope.get("method"),
                        "path": scope.get("path"),
                        "remote": client[0] if client else None,
                    }
                )
            await send(event)

        await self.app(scope, receive, watch)


def serve_http(settings: McpSettings, policy: Policy, *, host: str, port: int) -> None:
    configure_logging()

    def identify(context: Context) -> Caller:
        return http_caller(policy, context)

    runner = _runner(settings)
    base_url = f"http://{host}:{port}"
    server = build_server(Runtime(runner=runner, identify=identify), policy=policy, issuer_url=base_url)

    @server.custom_route("/healthz", methods=["GET"])
    async def healthz(_request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    app = RefusalAudit(server.streamable_http_app(streamable_http_path=MCP_PATH, host=host), runner.audit)
    print(
        f"serving MCP over streamable HTTP at {base_url}{MCP_PATH} for {len(policy.clients)} client(s)",
        file=sys.stderr,
        flush=True,
    )
    try:
        uvicorn.run(app, host=host, port=port, log_level="warning", lifespan="on")
    finally:
        runner.audit.close()

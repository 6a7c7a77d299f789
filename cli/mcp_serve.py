"""`diagnose mcp`: serve the diagnoses as read-only tools for AI assistants (Model Context Protocol).

    diagnose mcp [--audit FILE] [--timeout SECONDS]                  stdio, the local user's identity
    diagnose mcp --http [--host H] [--port N] --policy FILE [...]    streamable HTTP, bearer tokens

The MCP face lives in `mcp_face/`; it (and the MCP SDK under it) is imported only when the server
starts, so `diagnose --help` does not pay for it.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from cli.main import ArgumentsError, UsageError
from cli.messages import say

DEFAULT_PORT = 8765

EPILOG = """\
Over stdio (for a local assistant) every call runs with the local user's own platform
configuration (RUNAI_URL…, HUAWEICLOUD_SDK_*…). Over HTTP each client sends a bearer token that
the access policy maps to the Run:ai clusters and projects and the ModelArts regions and projects
it may diagnose. Audit lines (JSON, one per call) go to --audit FILE or standard error.
See docs/mcp.md for client configuration.
"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "mcp",
        help="serve the diagnoses as read-only tools for AI assistants (Model Context Protocol)",
        description="Serve diagnose_runai, diagnose_modelarts, scan_runai, scan_modelarts, replay_bundle "
        "and explain_code as Model Context Protocol tools, over stdio or streamable HTTP. Read-only.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--http", action="store_true", help="serve over streamable HTTP instead of stdio")
    parser.add_argument(
        "--host", default="127.0.0.1", help="HTTP: the address to listen on (default 127.0.0.1)"
    )
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"HTTP: the port (default {DEFAULT_PORT})"
    )
    parser.add_argument(
        "--policy",
        metavar="FILE",
        help="HTTP: the access policy (tokens to scopes; also DIAGNOSE_MCP_POLICY)",
    )
    parser.add_argument(
        "--audit", metavar="FILE", help="append the audit lines to FILE (also DIAGNOSE_MCP_AUDIT)"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        metavar="SECONDS",
        help="stop a tool call after this long (default 45; also DIAGNOSE_MCP_TIMEOUT)",
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from mcp_face.access import PolicyError, load_policy
    from mcp_face.settings import McpSettings, SettingsError

    try:
        settings = McpSettings()
    except ValidationError as exc:
        first = exc.errors()[0]
        raise UsageError(
            say("error.mcp_setting", name=str(first["loc"][0]).upper(), reason=first["msg"])
        ) from None
    overrides: dict[str, Any] = {}
    if args.policy:
        overrides["policy"] = Path(args.policy)
    if args.audit:
        overrides["audit"] = Path(args.audit)
    if args.timeout is not None:
        if args.timeout <= 0:
            raise ArgumentsError(say("error.mcp_timeout"))
        overrides["timeout"] = args.timeout
    settings = settings.model_copy(update=overrides)
    if not 0 < args.port < 65536:
        raise ArgumentsError(say("error.port_range", port=args.port))

    from mcp_face import server  # the MCP SDK, only now

    try:
        if args.http:
            try:
                policy = load_policy(path=settings.policy, inline=settings.policy_json)
            except PolicyError as exc:
                raise UsageError(str(exc)) from None
            server.serve_http(settings, policy, host=args.host, port=args.port)
        else:
            server.serve_stdio(settings)
    except SettingsError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(say("error.cannot_serve", reason=exc.strerror or exc)) from None
    return 0

"""The six tools, one module per kind; `register(server, runtime)` adds them all."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

from mcp_face.tools import explain, modelarts, replay, runai
from mcp_face.tools.common import Runtime

TOOL_MODULES = (runai, modelarts, replay, explain)


def register(server: MCPServer, runtime: Runtime) -> None:
    for module in TOOL_MODULES:
        module.register(server, runtime)

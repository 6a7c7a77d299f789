"""The protocol edge: every tool result and every error leaving the server goes through the one
masking function, including the ones the SDK writes itself (an argument that fails the input
schema is echoed back in the SDK's own error text)."""

from __future__ import annotations

from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, TextContent

from diagnosis.masking import mask, mask_obj


def masked_result(result: CallToolResult) -> CallToolResult:
    content = [
        block.model_copy(update={"text": mask(block.text)}) if isinstance(block, TextContent) else block
        for block in result.content
    ]
    structured = mask_obj(result.structured_content) if result.structured_content is not None else None
    return result.model_copy(update={"content": content, "structured_content": structured})


async def mask_outbound(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
    """Server middleware (`MCPServer(middleware=[…])`) for `tools/call`."""
    if ctx.method != "tools/call":
        return await call_next(ctx)
    try:
        result = await call_next(ctx)
    except MCPError as error:
        raise MCPError(
            code=error.error.code, message=mask(error.error.message), data=mask_obj(error.error.data)
        ) from None
    if isinstance(result, CallToolResult):
        return masked_result(result)
    if isinstance(result, dict):
        masked: dict[str, Any] = mask_obj(result)
        return masked
    return result

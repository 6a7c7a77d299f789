"""One tool call, bounded and accounted for: the caller's deadline, the audit line, and the way
each ending reaches the client.

- a refusal of the access policy: an MCP error (`ACCESS_DENIED`) with the reason;
- the deadline passed: a tool error saying so (the engine's work is cancelled, no result kept);
- bad input or a platform not configured: a tool error with the one-line reason;
- the client cancelled: the engine's work is cancelled where it stands, no further platform call;
- anything unexpected: a tool error naming only the exception's type.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult

from mcp_face.access import Caller, Refusal
from mcp_face.audit import AuditLog
from mcp_face.messages import message
from mcp_face.outputs import tool_error

# Implementation-defined JSON-RPC server error (the -32000..-32099 range), clear of the SDK's own.
ACCESS_DENIED = -32003

logger = logging.getLogger("diagnose.mcp")


class ToolInputError(Exception):
    """Input the engine cannot use, or configuration that is missing: `text` says which."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


@dataclass(frozen=True)
class Answer:
    """A tool's result and what the audit line records of it."""

    result: CallToolResult
    outcome: str
    details: dict[str, Any] = field(default_factory=dict)


@dataclass
class CallRunner:
    audit: AuditLog
    timeout_seconds: float

    async def run(
        self,
        tool: str,
        *,
        identify: Callable[[], Caller],
        arguments: dict[str, Any],
        work: Callable[[Caller], Awaitable[Answer]],
    ) -> CallToolResult:
        """`work` for the caller `identify` finds (a Refusal when there is none)."""
        started = time.monotonic()
        record: dict[str, Any] = {"event": "tool_call", "tool": tool, "client": None, "transport": None}

        def finish(outcome: str, **details: Any) -> None:
            elapsed_ms = round((time.monotonic() - started) * 1000)
            line = {
                **record,
                "arguments": arguments,
                "outcome": outcome,
                **details,
                "duration_ms": elapsed_ms,
            }
            self.audit.write(line)

        try:
            async with asyncio.timeout(self.timeout_seconds):
                caller = identify()
                record.update(client=caller.name, transport=caller.transport)
                answer = await work(caller)
        except Refusal as refusal:
            finish("refused", reason=refusal.detail)
            raise MCPError(
                code=ACCESS_DENIED, message=refusal.reason, data={"reason": refusal.reason}
            ) from None
        except TimeoutError:
            finish("timeout", timeout_seconds=self.timeout_seconds)
            return tool_error(message("error.timeout", tool=tool, seconds=self.timeout_seconds))
        except ToolInputError as bad:
            finish("bad_input", reason=bad.text)
            return tool_error(bad.text)
        except asyncio.CancelledError:
            finish("cancelled")
            raise
        except Exception as exc:  # the client gets a tool error, never a traceback
            logger.exception("tool %s failed", tool)
            finish("error", error=type(exc).__name__)
            return tool_error(message("error.internal", tool=tool, error=type(exc).__name__))
        finish(answer.outcome, **answer.details)
        return answer.result

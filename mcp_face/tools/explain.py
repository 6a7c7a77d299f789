"""`explain_code`: the built-in catalogue of codes, as `diagnose explain` reads it."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from diagnosis.knowledge.explain import (
    SCHEMA,
    explain,
    normalize_code,
    render_explanation_markdown,
    unknown_message,
)
from diagnosis.masking import mask
from diagnosis.render.i18n import Language
from mcp_face.access import Caller
from mcp_face.calls import Answer
from mcp_face.messages import message
from mcp_face.outputs import ExplanationReport, tool_result
from mcp_face.tools.common import OFFLINE, Runtime

ExplainLang = Language
MAX_CODE_LENGTH = 200


def explanation(code: str, *, lang: str) -> tuple[dict[str, Any], str]:
    """explain/v1 and its Markdown; an unknown code is said to be unknown, never guessed."""
    found = explain(code, lang=lang)
    if found is None:
        shown = mask(code)  # echoed back: whatever was pasted is masked
        text = unknown_message(shown, lang=lang)
        return {"schema": SCHEMA, "known": False, "code": normalize_code(shown), "message": text}, text
    return {"schema": SCHEMA, "known": True, **found.model_dump(mode="json")}, render_explanation_markdown(
        found
    )


def register(server: MCPServer, runtime: Runtime) -> None:
    async def explain_code(
        context: Context,
        code: Annotated[
            str, Field(min_length=1, max_length=MAX_CODE_LENGTH, description=message("arg.code"))
        ],
        lang: Annotated[ExplainLang | None, Field(description=message("arg.lang"))] = None,
    ) -> Annotated[CallToolResult, ExplanationReport]:
        async def work(caller: Caller) -> Answer:
            data, markdown = explanation(code, lang=lang or "en")
            return Answer(
                result=tool_result(data, markdown),
                outcome="known" if data["known"] else "unknown",
                details={"code": data["code"]},
            )

        return await runtime.run("explain_code", context, arguments={"code": code}, work=work)

    server.add_tool(
        explain_code,
        name="explain_code",
        title=message("tool.explain_code.title"),
        description=message("tool.explain_code.description"),
        annotations=OFFLINE,
        structured_output=True,
    )

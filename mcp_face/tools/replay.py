"""`replay_bundle`: the same diagnosis offline from an evidence bundle, as `diagnose replay` runs it."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from diagnosis import engine
from diagnosis.evidence.bundles import BundleError, parse_bundle
from diagnosis.models import Diagnosis
from diagnosis.render.i18n import Language
from mcp_face.access import Caller
from mcp_face.calls import Answer, ToolInputError
from mcp_face.messages import message
from mcp_face.tools.common import OFFLINE, Runtime, diagnosis_answer

ReplayLang = Language


def register(server: MCPServer, runtime: Runtime) -> None:
    async def replay_bundle(
        context: Context,
        bundle: Annotated[dict[str, Any], Field(description=message("arg.bundle"))],
        lang: Annotated[ReplayLang | None, Field(description=message("arg.lang"))] = None,
    ) -> Annotated[CallToolResult, Diagnosis]:
        summary = {
            "platform": bundle.get("platform"),
            "captured_at": bundle.get("captured_at"),
            "exchanges": len(bundle["exchanges"]) if isinstance(bundle.get("exchanges"), list) else None,
        }

        async def work(caller: Caller) -> Answer:
            # Offline, from what the caller sent: no platform is read, so no scope to check.
            try:
                parsed = parse_bundle(bundle)
            except BundleError as exc:
                raise ToolInputError(message("error.bundle", reason=str(exc))) from None
            language = engine.resolve_lang(parsed.platform, lang)
            diagnosis = await engine.replay(parsed, lang=language)
            return diagnosis_answer(diagnosis, lang=language)

        return await runtime.run("replay_bundle", context, arguments={"bundle": summary}, work=work)

    server.add_tool(
        replay_bundle,
        name="replay_bundle",
        title=message("tool.replay_bundle.title"),
        description=message("tool.replay_bundle.description"),
        annotations=OFFLINE,
        structured_output=True,
    )

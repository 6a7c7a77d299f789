"""`diagnose_modelarts` and `scan_modelarts`: the ModelArts runbook, as `diagnose modelarts` and
`diagnose modelarts scan` run it."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from diagnosis import engine
from diagnosis.models import DiagnoseRequest, Diagnosis
from diagnosis.render.i18n import Language
from diagnosis.scan import ScanScope
from mcp_face.access import Caller, Scope
from mcp_face.calls import Answer
from mcp_face.messages import message
from mcp_face.outputs import ScanReport
from mcp_face.tools.common import (
    LIVE,
    Runtime,
    ask_for_identifiers,
    check_target,
    diagnosis_answer,
    given,
    live_source,
    now,
    scan_answer,
    scanned,
    source_scope,
)

ModelArtsLang = Language


async def diagnose(request: DiagnoseRequest, caller: Caller, *, lang: str) -> Diagnosis:
    asked = Scope(platform="modelarts", region=request.region)
    caller.check(asked, final=False)
    at = now()
    if not (request.job_id or request.job_name):
        return await ask_for_identifiers(request, lang=lang, at=at)
    async with live_source("diagnose_modelarts", request) as source:
        # The credentials name the region and project before any call: a project the token may
        # not diagnose is refused without reading anything.
        asked = source_scope(source, asked)
        caller.check(asked, final=False)
        diagnosis = await engine.diagnose_with(request, source, now=at, lang=lang)
    check_target(caller, diagnosis, asked)
    return diagnosis


def register(server: MCPServer, runtime: Runtime) -> None:
    async def diagnose_modelarts(
        context: Context,
        job_id: Annotated[str | None, Field(description=message("arg.job_id"))] = None,
        job_name: Annotated[str | None, Field(description=message("arg.job_name"))] = None,
        region: Annotated[str | None, Field(description=message("arg.region"))] = None,
        lang: Annotated[ModelArtsLang | None, Field(description=message("arg.lang"))] = None,
    ) -> Annotated[CallToolResult, Diagnosis]:
        arguments = given(job_id=job_id, job_name=job_name, region=region)

        async def work(caller: Caller) -> Answer:
            request = DiagnoseRequest(
                platform="modelarts",
                job_id=job_id or None,
                job_name=job_name or None,
                region=(region or "").strip() or None,
            )
            language = engine.resolve_lang("modelarts", lang)
            diagnosis = await diagnose(request, caller, lang=language)
            return diagnosis_answer(diagnosis, lang=language)

        return await runtime.run("diagnose_modelarts", context, arguments=arguments, work=work)

    async def scan_modelarts(
        context: Context,
        region: Annotated[str | None, Field(description=message("arg.region"))] = None,
        lang: Annotated[ModelArtsLang | None, Field(description=message("arg.lang"))] = None,
    ) -> Annotated[CallToolResult, ScanReport]:
        arguments = given(region=region)

        async def work(caller: Caller) -> Answer:
            chosen = (region or "").strip() or None
            asked = Scope(platform="modelarts", region=chosen)
            caller.check(asked, final=False)
            # The region and project the credentials resolve, checked before the listing.
            async with live_source(
                "scan_modelarts", DiagnoseRequest(platform="modelarts", region=chosen)
            ) as source:
                asked = source_scope(source, asked)
            caller.check(asked, final=False)
            language = engine.resolve_lang("modelarts", lang)
            scope = ScanScope(platform="modelarts", region=asked.region)
            result = await scanned("scan_modelarts", scope, context, lang=language)
            for item in result.results:
                check_target(caller, item, asked)
            return scan_answer(result, lang=language)

        return await runtime.run("scan_modelarts", context, arguments=arguments, work=work)

    server.add_tool(
        diagnose_modelarts,
        name="diagnose_modelarts",
        title=message("tool.diagnose_modelarts.title"),
        description=message("tool.diagnose_modelarts.description"),
        annotations=LIVE,
        structured_output=True,
    )
    server.add_tool(
        scan_modelarts,
        name="scan_modelarts",
        title=message("tool.scan_modelarts.title"),
        description=message("tool.scan_modelarts.description"),
        annotations=LIVE,
        structured_output=True,
    )

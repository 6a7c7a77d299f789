"""`diagnose_runai` and `scan_runai`: the Run:ai runbook, as `diagnose runai` and `diagnose runai scan` run it."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from diagnosis import engine
from diagnosis.models import DiagnoseRequest, Diagnosis
from diagnosis.render.i18n import Language
from diagnosis.scan import ScanScope
from diagnosis.timeutil import parse_duration
from mcp_face.access import Caller, Scope
from mcp_face.calls import Answer, ToolInputError
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
)

RunaiLang = Language
DEFAULT_LOOKBACK = "7d"


def _usable_lookback(tool: str, lookback: str) -> str:
    try:
        parse_duration(lookback)
    except ValueError as exc:
        raise ToolInputError(message("error.cannot_run", tool=tool, reason=f"lookback: {exc}")) from None
    return lookback


def identifies_a_workload(request: DiagnoseRequest) -> bool:
    """A cluster id, and a workload id or a name with its project (the runbook's options A and B)."""
    return bool(request.cluster_id and (request.workload_id or (request.workload_name and request.project)))


async def diagnose(request: DiagnoseRequest, caller: Caller, *, lang: str) -> Diagnosis:
    asked = Scope(platform="runai", cluster=request.cluster_id, project=request.project)
    caller.check(asked, final=False)
    at = now()
    if not identifies_a_workload(request):
        return await ask_for_identifiers(request, lang=lang, at=at)
    async with live_source("diagnose_runai", request) as source:
        diagnosis = await engine.diagnose_with(request, source, now=at, lang=lang)
    check_target(caller, diagnosis, asked)
    return diagnosis


def register(server: MCPServer, runtime: Runtime) -> None:
    async def diagnose_runai(
        context: Context,
        cluster_id: Annotated[str | None, Field(description=message("arg.cluster_id"))] = None,
        workload_id: Annotated[str | None, Field(description=message("arg.workload_id"))] = None,
        workload_name: Annotated[str | None, Field(description=message("arg.workload_name"))] = None,
        project: Annotated[str | None, Field(description=message("arg.project"))] = None,
        lookback: Annotated[str, Field(description=message("arg.lookback"))] = DEFAULT_LOOKBACK,
        intent: Annotated[Literal["failure", "active"], Field(description=message("arg.intent"))] = "failure",
        lang: Annotated[RunaiLang | None, Field(description=message("arg.lang"))] = None,
    ) -> Annotated[CallToolResult, Diagnosis]:
        arguments = given(
            cluster_id=cluster_id,
            workload_id=workload_id,
            workload_name=workload_name,
            project=project,
            lookback=lookback,
            intent=intent,
        )

        async def work(caller: Caller) -> Answer:
            request = DiagnoseRequest(
                platform="runai",
                cluster_id=cluster_id or None,
                workload_id=workload_id or None,
                workload_name=workload_name or None,
                project=project or None,
                lookback=_usable_lookback("diagnose_runai", lookback),
                intent=intent,
            )
            language = engine.resolve_lang("runai", lang)
            diagnosis = await diagnose(request, caller, lang=language)
            return diagnosis_answer(diagnosis, lang=language)

        return await runtime.run("diagnose_runai", context, arguments=arguments, work=work)

    async def scan_runai(
        context: Context,
        cluster_id: Annotated[str, Field(min_length=1, description=message("arg.cluster_id"))],
        project: Annotated[str | None, Field(description=message("arg.scan_project"))] = None,
        lookback: Annotated[str, Field(description=message("arg.scan_lookback"))] = DEFAULT_LOOKBACK,
        lang: Annotated[RunaiLang | None, Field(description=message("arg.lang"))] = None,
    ) -> Annotated[CallToolResult, ScanReport]:
        arguments = given(cluster_id=cluster_id, project=project, lookback=lookback)

        async def work(caller: Caller) -> Answer:
            asked = Scope(platform="runai", cluster=cluster_id, project=project or None)
            caller.require(asked, dimension="project")
            caller.check(asked, final=False)
            scope = ScanScope(
                platform="runai",
                cluster_id=cluster_id,
                project=project or None,
                lookback=_usable_lookback("scan_runai", lookback),
            )
            language = engine.resolve_lang("runai", lang)
            result = await scanned("scan_runai", scope, context, lang=language)
            for item in result.results:
                check_target(caller, item, asked)
            return scan_answer(result, lang=language)

        return await runtime.run("scan_runai", context, arguments=arguments, work=work)

    server.add_tool(
        diagnose_runai,
        name="diagnose_runai",
        title=message("tool.diagnose_runai.title"),
        description=message("tool.diagnose_runai.description"),
        annotations=LIVE,
        structured_output=True,
    )
    server.add_tool(
        scan_runai,
        name="scan_runai",
        title=message("tool.scan_runai.title"),
        description=message("tool.scan_runai.description"),
        annotations=LIVE,
        structured_output=True,
    )

"""`diagnose_modelarts` and `scan_modelarts`: the ModelArts runbook, as `diagnose modelarts` and
`diagnose modelarts scan` run it."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from diagnosis import engine
from diagnosis.evidence.http import Throttle
from diagnosis.modelarts.backend import BACKEND, ConfigError
from diagnosis.modelarts.credentials import default_region
from diagnosis.modelarts.scan import (
    DEFAULT_CONCURRENCY,
    DEFAULT_FILTER,
    DEFAULT_RATE_PER_SECOND,
    ScanProgress,
    render_scan_markdown,
    run_scan,
)
from diagnosis.models import DiagnoseRequest, Diagnosis
from mcp_face.access import Caller, Scope
from mcp_face.calls import Answer, ToolInputError
from mcp_face.messages import message
from mcp_face.outputs import ScanReport, tool_result
from mcp_face.tools.common import (
    LIVE,
    Runtime,
    ask_for_identifiers,
    check_target,
    diagnosis_answer,
    given,
    now,
    relayed_progress,
)

ModelArtsLang = Literal["zh", "en", "ja"]


def _not_configured(exc: ConfigError) -> ToolInputError:
    return ToolInputError(message("error.not_configured", platform="ModelArts", reason=str(exc)))


def _region(region: str | None) -> str:
    """The region asked for, else the configured default (the KooCLI profile's, else cn-north-4)."""
    if region:
        return region.strip()
    try:
        return str(default_region())
    except ConfigError as exc:
        raise _not_configured(exc) from None


def _project_id(source: Any) -> str | None:
    """The project id the credentials resolved for the region (sources carry it as a fixed argument)."""
    fixed = getattr(source, "fixed_args", None) or {}
    value = fixed.get("project_id")
    return str(value) if value else None


async def diagnose(request: DiagnoseRequest, caller: Caller, *, lang: str) -> Diagnosis:
    asked = Scope(platform="modelarts", region=request.region)
    caller.check(asked, final=False)
    at = now()
    if not (request.job_id or request.job_name):
        return await ask_for_identifiers(request, lang=lang, at=at)
    try:
        async with engine.live(request) as (source, _recorder):
            # The credentials name the project before any call: a project the token may not
            # diagnose is refused without reading anything.
            asked = Scope(platform="modelarts", region=request.region, project=_project_id(source))
            caller.check(asked, final=False)
            diagnosis = await engine.diagnose_with(request, source, now=at, lang=lang)
    except ConfigError as exc:
        raise _not_configured(exc) from None
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
                platform="modelarts", job_id=job_id or None, job_name=job_name or None, region=_region(region)
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
            chosen = _region(region)
            caller.check(Scope(platform="modelarts", region=chosen), final=False)
            language = engine.resolve_lang("modelarts", lang)
            try:
                async with (
                    BACKEND.live_sources(
                        region=chosen, throttle=Throttle(DEFAULT_RATE_PER_SECOND)
                    ) as make_source,
                    relayed_progress(context) as progress,
                ):
                    asked = Scope(platform="modelarts", region=chosen, project=_project_id(make_source))
                    caller.check(asked, final=False)

                    def each(update: ScanProgress) -> None:
                        progress(update.done, update.total)

                    result = await run_scan(
                        make_source,
                        region=chosen,
                        now=now(),
                        lang=language,
                        concurrency=DEFAULT_CONCURRENCY,
                        job_filter=DEFAULT_FILTER,
                        progress=each,
                    )
            except ConfigError as exc:
                raise _not_configured(exc) from None
            for item in result.results:
                check_target(caller, item, asked)
            return Answer(
                result=tool_result(result.to_json_dict(), render_scan_markdown(result, lang=language)),
                outcome="scanned" if result.failure is None else result.failure.outcome,
                details={"scanned": result.scanned, "by_category": result.by_category()},
            )

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

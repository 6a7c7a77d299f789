"""What the tools share: the runtime they run in, their annotations, diagnoses as tool results,
progress relayed to the client, and the check of a resolved target."""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult, ToolAnnotations

from diagnosis import engine
from diagnosis.bundle import Bundle
from diagnosis.evidence.source import Source
from diagnosis.models import DiagnoseRequest, Diagnosis
from diagnosis.render import render_markdown, render_scan_markdown
from diagnosis.scan import ScanProgress, ScanResultBase, ScanScope
from mcp_face.access import Caller, Scope, target_scope
from mcp_face.calls import Answer, CallRunner, ToolInputError
from mcp_face.messages import message
from mcp_face.outputs import tool_result
from mcp_face.settings import SettingsError, current_time

# Every tool only reads. The live ones reach the platforms (an open world); replay and explain
# answer from what they are given and the built-in catalogue.
LIVE = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=True
)
OFFLINE = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)


@dataclass(frozen=True)
class Runtime:
    """How a tool call finds its caller and is run (deadline, audit)."""

    runner: CallRunner
    identify: Callable[[Context], Caller]

    async def run(
        self,
        tool: str,
        context: Context,
        *,
        arguments: dict[str, Any],
        work: Callable[[Caller], Awaitable[Answer]],
    ) -> CallToolResult:
        return await self.runner.run(
            tool, identify=lambda: self.identify(context), arguments=arguments, work=work
        )


def now() -> datetime:
    try:
        return current_time()
    except SettingsError as exc:
        raise ToolInputError(str(exc)) from None


def given(**values: Any) -> dict[str, Any]:
    """The arguments a caller gave, for the audit line."""
    return {key: value for key, value in values.items() if value is not None}


def diagnosis_answer(diagnosis: Diagnosis, *, lang: str) -> Answer:
    target = diagnosis.target.model_dump(exclude_none=True)
    return Answer(
        result=tool_result(diagnosis.to_json_dict(), render_markdown(diagnosis, lang=lang)),
        outcome=diagnosis.outcome,
        details=given(
            category=diagnosis.category,
            confidence=diagnosis.confidence,
            target=target,
            calls=len(diagnosis.calls),
        ),
    )


async def ask_for_identifiers(request: DiagnoseRequest, *, lang: str, at: datetime) -> Diagnosis:
    """The engine's own `needs_input` answer for a request that lacks an identifier: the workflow
    asks before its first call, so it runs on no evidence at all (no credentials, no network)."""
    empty = Bundle(platform=request.platform, captured_at=at, request=request.identifiers(), exchanges=[])
    asked = await engine.replay(empty, lang=lang)
    # Nothing was read, so no project is known (replay would name a placeholder project id).
    asked.target.project_id = None
    return asked


def check_target(caller: Caller, diagnosis: Diagnosis, asked: Scope) -> None:
    """After the call: what the diagnosis resolved, each dimension it leaves empty taken from the
    request (a not-found workload resolves no project)."""
    resolved = target_scope(diagnosis)
    merged = Scope(
        platform=asked.platform,
        cluster=resolved.cluster or asked.cluster,
        project=resolved.project or asked.project,
        region=resolved.region or asked.region,
    )
    caller.check(merged, final=True)


@asynccontextmanager
async def live_source(tool: str, request: DiagnoseRequest) -> AsyncIterator[Source]:
    """The engine's live source for `request`; a platform that is not configured (or a value it
    cannot use, such as an unknown region) is a tool error naming what is missing."""
    async with contextlib.AsyncExitStack() as stack:
        try:
            source, _recorder = await stack.enter_async_context(engine.live(request))
        except ValueError as exc:
            raise ToolInputError(message("error.cannot_run", tool=tool, reason=str(exc))) from None
        yield source


def source_scope(source: Source, asked: Scope) -> Scope:
    """What a live source is bound to before any call (a ModelArts source carries the region and
    the project id its credentials resolved), over what was asked."""
    fixed = getattr(source, "fixed_args", None) or {}
    region, project = fixed.get("region"), fixed.get("project_id")
    return asked.model_copy(
        update={
            "region": str(region) if region else asked.region,
            "project": str(project) if project else asked.project,
        }
    )


async def scanned(tool: str, scope: ScanScope, context: Context, *, lang: str) -> ScanResultBase:
    """The engine's scan of `scope`, its progress relayed to the client."""
    try:
        async with relayed_progress(context) as progress:

            def observe(update: ScanProgress) -> None:
                progress(update.done, update.total)

            return await engine.backend(scope.platform).scan(scope, now=now(), lang=lang, progress=observe)
    except ValueError as exc:  # not configured, or a scope the platform cannot scan
        raise ToolInputError(message("error.cannot_run", tool=tool, reason=str(exc))) from None


def scan_answer(result: ScanResultBase, *, lang: str) -> Answer:
    return Answer(
        result=tool_result(result.to_json_dict(), render_scan_markdown(result, lang=lang)),
        outcome="scanned" if result.failure is None else result.failure.outcome,
        details={"scanned": result.scanned, "by_category": result.by_category()},
    )


@asynccontextmanager
async def relayed_progress(context: Context) -> AsyncIterator[Callable[[int, int], None]]:
    """A `progress(done, total)` callback for the scans, relayed in order as MCP progress
    notifications (a no-op when the client asked for none). Values only ever increase, as the
    protocol requires; the messages are fixed text, never a job's name. The relay never stands
    in the scan's way: its own failure ends the relay, the scan's failure cancels it."""
    send, receive = anyio.create_memory_object_stream[tuple[int, int]](max_buffer_size=math.inf)

    async def pump(updates: MemoryObjectReceiveStream[tuple[int, int]]) -> None:
        last: int | None = None
        async with updates:
            async for done, total in updates:
                if last is not None and done <= last:
                    continue
                last = done
                try:
                    await context.report_progress(
                        done, total, message("progress.done", done=done, total=total)
                    )
                except Exception:  # progress is a courtesy: a client gone away must not fail the scan
                    return

    def report(done: int, total: int) -> None:
        send.send_nowait((done, total))

    relay = asyncio.create_task(pump(receive))
    try:
        yield report
    except BaseException:
        relay.cancel()
        raise
    finally:
        send.close()
        with contextlib.suppress(asyncio.CancelledError):
            await relay

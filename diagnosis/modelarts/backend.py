"""ModelArts plugged into the engine (diagnosis.engine): routes, workflow, sources and scans."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Unpack

from diagnosis.bundle import Bundle
from diagnosis.engine import LiveOptions, PlatformBackend
from diagnosis.evidence.makers import accepted_options, single_source
from diagnosis.evidence.routes import RouteTable
from diagnosis.evidence.source import HttpSource, Recorder, Source
from diagnosis.modelarts import client
from diagnosis.modelarts.messages import LANGUAGES
from diagnosis.modelarts.routes import ROUTES
from diagnosis.modelarts.workflow import diagnose as run_workflow
from diagnosis.models import DiagnoseRequest, Diagnosis, Exchange, Platform

if TYPE_CHECKING:
    from diagnosis.evidence.series import SeriesReading
    from diagnosis.modelarts.scan import ScanResult
    from diagnosis.scan import DiagnosedJob, ScanObserver, ScanScope

__all__ = ["BACKEND", "ModelArtsBackend"]


class ModelArtsBackend:
    name: Platform = "modelarts"
    routes: RouteTable = ROUTES
    languages: tuple[str, ...] = LANGUAGES

    async def diagnose(
        self, request: DiagnoseRequest, source: Source, *, now: datetime, lang: str
    ) -> Diagnosis:
        return await run_workflow(request, source, now=now, lang=lang)

    def live_source(
        self, request: DiagnoseRequest, *, recorder: Recorder | None = None, **options: Unpack[LiveOptions]
    ) -> AbstractAsyncContextManager[HttpSource]:
        """One signed live source for the request's region."""
        chosen = {**accepted_options(client.live_sources, options), "region": request.region}
        return single_source(client.live_sources(recorder=recorder, **chosen))

    def replay_source(self, bundle: Bundle) -> AbstractAsyncContextManager[HttpSource]:
        return single_source(client.replay_sources(bundle))

    async def scan(
        self,
        scope: ScanScope,
        *,
        now: datetime,
        lang: str,
        progress: ScanObserver | None = None,
        rate_per_second: float | None = None,
    ) -> ScanResult:
        from diagnosis.modelarts import scan as modelarts_scan  # only for a scan

        async with client.live_sources(region=scope.region) as make_source:
            return await modelarts_scan.run_scan(
                make_source, region=scope.region, now=now, lang=lang, progress=progress
            )

    async def replay_scan(
        self, capture: Bundle, scope: ScanScope, *, lang: str, progress: ScanObserver | None = None
    ) -> ScanResult:
        from diagnosis.modelarts import scan as modelarts_scan  # only for a scan

        async with client.replay_sources(capture) as make_source:
            return await modelarts_scan.run_scan(
                make_source,
                region=str(make_source.fixed_args.get("region") or "") or None,
                now=capture.captured_at,
                lang=lang,
                progress=progress,
            )

    def scan_of(self, scope: ScanScope, jobs: Sequence[DiagnosedJob]) -> ScanResult:
        from diagnosis.modelarts import scan as modelarts_scan  # only for a scan

        return modelarts_scan.result_of(scope, jobs)

    async def log_link(self, *, job_id: str, task_id: str, region: str | None) -> str:
        from diagnosis.modelarts.logurl import fetch_log_url  # the keys' sources: only for a link

        return await fetch_log_url(job_id=job_id, task_id=task_id, region=region)

    def load_live_clients(self) -> None:
        from diagnosis.modelarts import logurl, project, scan, settings, temporary_keys  # noqa: F401

    def memory_series(self, exchanges: Sequence[Exchange]) -> SeriesReading:
        from diagnosis.modelarts import series  # only for a chart

        return series.memory_series(exchanges)


BACKEND: PlatformBackend = ModelArtsBackend()

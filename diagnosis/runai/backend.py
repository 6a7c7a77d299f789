"""Run:ai plugged into the engine (diagnosis.engine): routes, workflow, sources and scans."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Unpack

from diagnosis.bundle import Bundle
from diagnosis.engine import LiveOptions, NotOffered, PlatformBackend
from diagnosis.evidence.makers import accepted_options, single_source
from diagnosis.evidence.routes import RouteTable
from diagnosis.evidence.source import Recorder, Source
from diagnosis.models import DiagnoseRequest, Diagnosis, Exchange, Platform
from diagnosis.runai import client, workflow
from diagnosis.runai.defaults import DEFAULT_LOOKBACK, DEFAULT_RATE_PER_SECOND
from diagnosis.runai.messages import LANGUAGES
from diagnosis.runai.routes import ROUTES
from diagnosis.runai.source import RunaiSource

if TYPE_CHECKING:
    from diagnosis.evidence.series import SeriesReading
    from diagnosis.runai.scan.result import ScanResult
    from diagnosis.scan import DiagnosedJob, ScanObserver, ScanScope

__all__ = ["BACKEND", "RunaiBackend"]


class RunaiBackend:
    name: Platform = "runai"
    routes: RouteTable = ROUTES
    languages: tuple[str, ...] = LANGUAGES

    async def diagnose(
        self, request: DiagnoseRequest, source: Source, *, now: datetime, lang: str
    ) -> Diagnosis:
        return await workflow.diagnose(
            request,
            source,
            now=now,
            lang=lang,
            tier2_available=bool(getattr(source, "tier2_available", False)),
            tier2_unavailable_reason=getattr(source, "tier2_unavailable_reason", None),
        )

    def live_source(
        self, request: DiagnoseRequest, *, recorder: Recorder | None = None, **options: Unpack[LiveOptions]
    ) -> AbstractAsyncContextManager[RunaiSource]:
        """One live source: the environment, not the request, names the control plane."""
        return single_source(
            client.live_sources(
                recorder=recorder,
                cluster_id=request.cluster_id,
                **accepted_options(client.live_sources, options),
            )
        )

    def replay_source(self, bundle: Bundle) -> AbstractAsyncContextManager[RunaiSource]:
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
        from diagnosis.runai.scan import run as scan_run  # the scan's modules, only for a scan

        if not scope.cluster_id:
            raise ValueError("a Run:ai scan needs its cluster")
        return await scan_run.run_scan(
            cluster_id=scope.cluster_id,
            project=scope.project,
            lookback=scope.lookback or DEFAULT_LOOKBACK,
            now=now,
            rate_per_second=rate_per_second or DEFAULT_RATE_PER_SECOND,
            progress=scan_run.counts_to(progress),
            lang=lang,
        )

    async def replay_scan(
        self, capture: Bundle, scope: ScanScope, *, lang: str, progress: ScanObserver | None = None
    ) -> ScanResult:
        from diagnosis.runai.scan import run as scan_run

        recorded = capture.request
        async with client.replay_sources(capture) as make_source:
            return await scan_run.scan_with(
                make_source,
                cluster_id=str(recorded.get("cluster_id") or scope.cluster_id),
                project=recorded.get("project") or None,
                # The recorded pages answer the recorded filter only: the capture's own lookback.
                lookback=str(recorded.get("lookback") or scope.lookback or DEFAULT_LOOKBACK),
                now=capture.captured_at,
                lang=lang,
                progress=scan_run.counts_to(progress),
            )

    def scan_of(self, scope: ScanScope, jobs: Sequence[DiagnosedJob]) -> ScanResult:
        from diagnosis.runai.scan import result as scan_result

        return scan_result.result_of(scope, jobs)

    async def log_link(self, *, job_id: str, task_id: str, region: str | None) -> str:
        raise NotOffered("Run:ai offers no log link: the logs are read through Kubernetes")

    def load_live_clients(self) -> None:
        from diagnosis.runai import contexts, k8s, settings  # noqa: F401
        from diagnosis.runai.scan import run  # noqa: F401

    def memory_series(self, exchanges: Sequence[Exchange]) -> SeriesReading:
        from diagnosis.runai import series  # only for a chart

        return series.memory_series(exchanges)


BACKEND: PlatformBackend = RunaiBackend()

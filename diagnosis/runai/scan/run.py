"""The scan: list the failed workloads, then diagnose each by id (Option A) with its own call log.

Every workload's diagnosis shares the clients, so one token and one `ScanThrottle` serve the whole
scan: a 429 pauses every request, not just the one that got it, and halves the scan's rate."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

from diagnosis import engine
from diagnosis.evidence.http.retrying import RetryPolicy
from diagnosis.evidence.http.throttle import Throttle
from diagnosis.evidence.source import Recorder
from diagnosis.models import DiagnoseRequest, Diagnosis, Exchange, Target
from diagnosis.render.i18n import Translator
from diagnosis.runai import client, parse
from diagnosis.runai.client import DEFAULT_TIMEOUT_SECONDS, SourceMaker
from diagnosis.runai.defaults import DEFAULT_CONCURRENCY, DEFAULT_LOOKBACK, DEFAULT_RATE_PER_SECOND
from diagnosis.runai.messages import CATALOGUE
from diagnosis.runai.scan.failure import listing_failure
from diagnosis.runai.scan.listing import list_failed, list_filter
from diagnosis.runai.scan.result import ScanResult, images_of, nodes_of
from diagnosis.runai.scan.throttle import ScanThrottle
from diagnosis.runai.settings import RunaiSettings
from diagnosis.scan import ScanObserver, ScanProgress, diagnose_each
from diagnosis.scan.recurring import ScanMember
from diagnosis.timeutil import parse_duration

Progress = Callable[[int, int], None]


def counts_to(progress: ScanObserver | None) -> Progress | None:
    """The scan's `(done, total)` callback, as a `ScanProgress` observer hears it."""
    if progress is None:
        return None

    def heard(done: int, total: int) -> None:
        progress(ScanProgress(done=done, total=total, job_name=None))

    return heard


# --- the scan ---------------------------------------------------------------------------------------


async def scan_with(
    make_source: SourceMaker,
    *,
    cluster_id: str,
    project: str | None = None,
    lookback: str = DEFAULT_LOOKBACK,
    now: datetime,
    concurrency: int = DEFAULT_CONCURRENCY,
    progress: Progress | None = None,
    lang: str = "en",
    throttle: Throttle | None = None,
    recorder: Recorder | None = None,
) -> ScanResult:
    """List, then diagnose every failed workload; `make_source` gives each its own call log over
    the shared clients. ValueError for a lookback or filter value that cannot be used.
    `recorder` keeps every answer of the scan (the listing's, then each workload's: a capture)."""
    t = Translator(CATALOGUE, lang)
    now = now if now.tzinfo else now.replace(tzinfo=UTC)
    since = now - parse_duration(lookback)
    list_filter(cluster_id=cluster_id, project=project, since=since)  # a comma fails before any call
    result = ScanResult(cluster_id=cluster_id, project=project, lookback=lookback)

    def note(text: str) -> None:
        if text not in result.limitations:
            result.limitations.append(text)

    listing_source = make_source(recorder=recorder)
    listing = await list_failed(
        listing_source, cluster_id=cluster_id, project=project, since=since, t=t, note=note
    )
    result.scanned = listing.listed
    if listing.failure is not None:
        result.failure = listing_failure(
            listing.failure, cluster_id=cluster_id, project=project, t=t, calls=listing_source.calls
        )
        return _finish(result, throttle, t)

    async def one(workload: parse.Workload) -> tuple[Diagnosis, ScanMember]:
        diagnosis, exchanges = await _diagnose_one(
            make_source, workload, cluster_id=cluster_id, lookback=lookback, now=now, lang=lang, t=t
        )
        if recorder is not None:
            for exchange in exchanges:
                recorder.keep(exchange)
        member = ScanMember(
            name=diagnosis.target.name or diagnosis.target.workload_id or "?",
            outcome=diagnosis.outcome,
            signature=diagnosis.signature,
            images=images_of(workload, exchanges),
            nodes=nodes_of(exchanges),
        )
        return diagnosis, member

    def report(done: int, total: int, _workload: parse.Workload | None) -> None:
        if progress is not None:
            progress(done, total)

    diagnosed = await diagnose_each(
        listing.workloads, one, concurrency=concurrency, progress=report if progress is not None else None
    )
    result.results = [diagnosis for diagnosis, _member in diagnosed]
    result.members = [member for _diagnosis, member in diagnosed]
    return _finish(result, throttle, t)


async def _diagnose_one(
    make_source: SourceMaker,
    workload: parse.Workload,
    *,
    cluster_id: str,
    lookback: str,
    now: datetime,
    lang: str,
    t: Translator,
) -> tuple[Diagnosis, list[Exchange]]:
    """Option A with the listed id; an unexpected error ends this workload's diagnosis only."""
    recorder = Recorder()
    # A RunaiSource: the HttpSource-compatible object the engine's backends hand out.
    source: Any = make_source(recorder=recorder)
    request = DiagnoseRequest(
        platform="runai", cluster_id=cluster_id, workload_id=workload.id, lookback=lookback, intent="failure"
    )
    try:
        diagnosis = await engine.diagnose_with(request, source, now=now, lang=lang)
    except Exception as exc:  # one workload must not cost the scan its other results
        diagnosis = Diagnosis(
            platform="runai",
            target=Target(workload_id=workload.id, cluster_id=cluster_id),
            outcome="diagnosed",
            category="UNKNOWN",
            confidence="LOW",
            root_cause=t("scan.rc_crashed"),
            limitations=[t("scan.lim_crashed", error=type(exc).__name__)],
            calls=list(source.calls),
        )
    # A workload whose status could not be read is still named by the list answer.
    target = diagnosis.target
    target.name = target.name or workload.name
    target.project = target.project or workload.projectName
    target.type = target.type or workload.type
    target.phase = target.phase or workload.phase
    return diagnosis, recorder.exchanges


def _finish(result: ScanResult, throttle: Throttle | None, t: Translator) -> ScanResult:
    if throttle is not None and throttle.pauses:
        result.throttled = throttle.pauses
        rate = throttle.rate_per_second
        shown = f"{rate:g}" if rate else "?"
        result.limitations.append(t("scan.lim_throttled", count=throttle.pauses, rate=shown))
    return result


@asynccontextmanager
async def live_scan_sources(
    *,
    rate_per_second: float = DEFAULT_RATE_PER_SECOND,
    retry_policy: RetryPolicy | None = None,
    timeout: float = DEFAULT_TIMEOUT_SECONDS,
    settings: RunaiSettings | None = None,
    cluster_id: str | None = None,
) -> AsyncIterator[tuple[SourceMaker, ScanThrottle]]:
    """Live clients for a scan, opened once, under one ScanThrottle (ConfigError when unset);
    Tier 2 through the kubeconfig context that serves `cluster_id`."""
    throttle = ScanThrottle(rate_per_second)
    async with client.live_sources(
        throttle=throttle,
        retry_policy=retry_policy,
        timeout=timeout,
        settings=settings,
        cluster_id=cluster_id,
    ) as make_source:
        yield make_source, throttle


async def run_scan(
    *,
    cluster_id: str,
    project: str | None = None,
    lookback: str = DEFAULT_LOOKBACK,
    now: datetime,
    concurrency: int = DEFAULT_CONCURRENCY,
    rate_per_second: float = DEFAULT_RATE_PER_SECOND,
    progress: Progress | None = None,
    lang: str = "en",
    retry_policy: RetryPolicy | None = None,
    timeout: float = DEFAULT_TIMEOUT_SECONDS,
    settings: RunaiSettings | None = None,
) -> ScanResult:
    """Scan live, configured from the environment (RUNAI_URL, RUNAI_CLIENT_ID, RUNAI_CLIENT_SECRET,
    KUBECONFIG). Raises ConfigError when Run:ai is not configured, ValueError for unusable input."""
    parse_duration(lookback)
    if concurrency < 1 or rate_per_second <= 0:
        raise ValueError("the concurrency must be at least 1 and the rate above 0")
    async with live_scan_sources(
        rate_per_second=rate_per_second,
        retry_policy=retry_policy,
        timeout=timeout,
        settings=settings,
        cluster_id=cluster_id,
    ) as (make_source, throttle):
        return await scan_with(
            make_source,
            cluster_id=cluster_id,
            project=project,
            lookback=lookback,
            now=now,
            concurrency=concurrency,
            progress=progress,
            lang=lang,
            throttle=throttle,
        )

"""`diagnose runai scan`: every failed workload of a cluster (or one project) within the lookback,
each diagnosed through the normal workflow, concurrently, under one request-rate limit.

The list (runai-api.md §3, §5.1): `GET /api/v1/workloads` with
`filterBy=clusterId==<c>[,projectName==<p>],phase==Failed,phaseUpdatedAt>=<now - lookback>`,
`sortBy=phaseUpdatedAt`, `sortOrder=desc`, every page. Older control planes do not know
`phaseUpdatedAt` as a filter or sort field and answer 400: the list is then asked again without it
and the lookback applied here. The server filter is trusted only as far as it agrees: an item is
kept when its phase is `Failed` (or the runbook's `Crashed`, which some clusters answer with), its
cluster and project are the ones asked for and its phase changed within the lookback.

Every kept workload is then diagnosed by id (Option A) with its own call log; all of them share the
clients, so one token and one `ScanThrottle` serve the whole scan: a 429 pauses every request, not
just the one that got it, and halves the scan's rate. The result is scan/v1 (rulings M13) with a
`recurring_causes` list: the images, nodes and error signatures two or more workloads share.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, ClassVar

from diagnosis import engine
from diagnosis.evidence.http import RetryPolicy, Throttle
from diagnosis.evidence.source import Answer, Recorder
from diagnosis.masking import mask
from diagnosis.models import DiagnoseRequest, Diagnosis, Evidence, Exchange, Outcome, Platform, Target
from diagnosis.render.i18n import Translator
from diagnosis.runai import client, parse
from diagnosis.runai.client import DEFAULT_TIMEOUT_SECONDS, SourceMaker
from diagnosis.runai.messages import CATALOGUE
from diagnosis.runai.paging import Paged, read_pages
from diagnosis.runai.phases import FAILED, FAILING_POD_PHASES, lowered
from diagnosis.runai.settings import RunaiSettings
from diagnosis.runai.signals import quote
from diagnosis.scan import DiagnosedJob, ScanObserver, ScanProgress, ScanResultBase, ScanScope, diagnose_each
from diagnosis.scan.recurring import ScanMember, cell
from diagnosis.timeutil import iso, parse_duration, parse_instant

DEFAULT_LOOKBACK = "7d"
DEFAULT_CONCURRENCY = 8
# Run:ai documents no rate limit (runai-api.md §4); this keeps a scan of thousands polite.
DEFAULT_RATE_PER_SECOND = 10.0
MIN_RATE_PER_SECOND = 0.5
LIST_PAGE_SIZE = 500  # the API's maximum `limit`
MAX_NAMES_IN_CELL = 8

Progress = Callable[[int, int], None]


class ScanThrottle(Throttle):
    """The scan's one request-rate limit. A 429 pauses every request (Throttle) and halves the rate
    for the rest of the scan, down to MIN_RATE_PER_SECOND; 429s that arrive together (the requests
    in flight when the platform started refusing) slow it once."""

    def __init__(
        self,
        rate_per_second: float,
        *,
        min_rate_per_second: float = MIN_RATE_PER_SECOND,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(rate_per_second, clock=clock)
        self.initial_rate_per_second = rate_per_second
        self.min_rate_per_second = min(min_rate_per_second, rate_per_second)
        self._now = clock
        self._slowed_until = 0.0

    def pause(self, seconds: float) -> None:
        now = self._now()
        if now >= self._slowed_until and self.rate_per_second:
            self.rate_per_second = max(self.min_rate_per_second, self.rate_per_second / 2)
        self._slowed_until = max(self._slowed_until, now + seconds)
        super().pause(seconds)


@dataclass
class ScanResult(ScanResultBase):
    platform: ClassVar[Platform] = "runai"

    cluster_id: str
    project: str | None = None
    lookback: str = DEFAULT_LOOKBACK
    throttled: int = field(default=0, kw_only=True)

    def scope_json(self) -> dict[str, Any]:
        return {"cluster_id": self.cluster_id, "project": self.project, "lookback": self.lookback}


@dataclass
class Listing:
    workloads: list[parse.Workload] = field(default_factory=list)
    listed: int = 0
    failure: Answer | None = None


def list_filter(*, cluster_id: str, project: str | None, since: datetime | None) -> str:
    """The `filterBy` value; a comma inside a value cannot be expressed (runai-api.md §3)."""
    for label, value in (("cluster id", cluster_id), ("project", project or "")):
        if "," in value:
            raise ValueError(
                f"the {label} {value!r} contains a comma, which the Run:ai filter cannot express"
            )
    parts = [f"clusterId=={cluster_id}"]
    if project:
        parts.append(f"projectName=={project}")
    parts.append("phase==Failed")
    if since is not None:
        parts.append(f"phaseUpdatedAt>={iso(since)}")
    return ",".join(parts)


def _updated_at(workload: parse.Workload) -> datetime | None:
    return parse_instant(workload.phaseUpdatedAt) or parse_instant(workload.completedAt)


def keep_failed(
    paged: Paged, *, cluster_id: str, project: str | None, since: datetime
) -> list[parse.Workload]:
    """Failed (or Crashed) workloads of the asked cluster and project, changed since the cut,
    once each, newest first. A workload without a readable time is kept: the server filtered it."""
    kept: dict[str, parse.Workload] = {}
    for _where, item in paged.items:
        workload, _problem = parse.view(parse.Workload, item)
        if workload is None or not workload.id or workload.id in kept:
            continue
        if lowered(workload.phase) not in FAILED:
            continue
        if workload.clusterId and workload.clusterId.lower() != cluster_id.lower():
            continue
        if project and workload.projectName and workload.projectName != project:
            continue
        moment = _updated_at(workload)
        if moment is not None and moment < since:
            continue
        kept[workload.id] = workload
    epoch = datetime.min.replace(tzinfo=UTC)
    return sorted(kept.values(), key=lambda w: _updated_at(w) or epoch, reverse=True)


async def list_failed(
    source: Any,
    *,
    cluster_id: str,
    project: str | None,
    since: datetime,
    t: Translator,
    note: Callable[[str], None],
) -> Listing:
    """Every page of the failed workloads; on a 400 (an older control plane), once more without
    the phaseUpdatedAt filter and sort."""

    async def pages(*, with_time: bool) -> Paged:
        sort: dict[str, Any] = {"sortBy": "phaseUpdatedAt", "sortOrder": "desc"} if with_time else {}
        return await read_pages(
            source,
            "list_workloads",
            "workloads",
            t=t,
            note=note,
            page_size=LIST_PAGE_SIZE,
            filterBy=list_filter(cluster_id=cluster_id, project=project, since=since if with_time else None),
            **sort,
        )

    paged = await pages(with_time=True)
    if paged.failure is not None and paged.failure.status == 400 and not paged.items:
        note(t("scan.lim_filter_fallback", failure=paged.failure.describe_failure()))
        paged = await pages(with_time=False)
    listing = Listing(listed=len(paged.items), failure=paged.failure if not paged.items else None)
    if paged.failure is not None and paged.items:
        note(t("scan.lim_list_partial", failure=describe_list_failure(paged.failure)))
    listing.workloads = keep_failed(paged, cluster_id=cluster_id, project=project, since=since)
    return listing


def describe_list_failure(answer: Answer) -> str:
    """`HTTP 503: …`, `timeout`; a 2xx answer that holds no `workloads` list says so."""
    if answer.ok:
        return f"HTTP {answer.status} without a `workloads` list"
    return answer.describe_failure()


# --- what a workload is made of, from the answers its diagnosis read ------------------------------


def images_of(workload: parse.Workload, exchanges: Sequence[Exchange]) -> tuple[str, ...]:
    """`images[]` of the list item and of the status, `spec.image` of the type-specific spec."""
    found = list(workload.images)
    for exchange in exchanges:
        if not 200 <= exchange.status < 300:
            continue
        if exchange.op == "get_workload_status":
            status, _problem = parse.view(parse.Workload, exchange.body)
            found += status.images if status is not None else []
        elif exchange.op == "get_workload_spec":
            spec, _problem = parse.view(parse.WorkloadSpec, exchange.body)
            if spec is not None and spec.spec is not None and spec.spec.image:
                found.append(spec.spec.image)
    return tuple(dict.fromkeys(image.strip() for image in found if image and image.strip()))


def nodes_of(exchanges: Sequence[Exchange]) -> tuple[str, ...]:
    """`nodeName` of the failing pods (k8sPhase Error/OOMKilled/Failed), else of every pod listed."""
    pods: list[parse.Pod] = []
    for exchange in exchanges:
        if exchange.op == "get_workload_pods" and 200 <= exchange.status < 300:
            listed, _problem = parse.view(parse.PodList, exchange.body)
            pods += listed.pods if listed is not None else []
    failing = [pod for pod in pods if lowered(pod.k8sPhase) in FAILING_POD_PHASES]
    return tuple(dict.fromkeys(pod.nodeName for pod in failing or pods if pod.nodeName))


def result_of(scope: ScanScope, jobs: Sequence[DiagnosedJob]) -> ScanResult:
    """scan/v1 of workloads diagnosed one by one (each listed once): their images and nodes come
    from the answers each diagnosis read."""
    members = [
        ScanMember(
            name=job.diagnosis.target.name or job.diagnosis.target.workload_id or "?",
            outcome=job.diagnosis.outcome,
            signature=job.diagnosis.signature,
            images=images_of(parse.Workload(), job.exchanges),
            nodes=nodes_of(job.exchanges),
        )
        for job in jobs
    ]
    return ScanResult(
        cluster_id=scope.cluster_id or "?",
        project=scope.project,
        lookback=scope.lookback or DEFAULT_LOOKBACK,
        scanned=len(jobs),
        results=[job.diagnosis for job in jobs],
        members=members,
    )


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
) -> ScanResult:
    """List, then diagnose every failed workload; `make_source` gives each its own call log over
    the shared clients. ValueError for a lookback or filter value that cannot be used."""
    t = Translator(CATALOGUE, lang)
    now = now if now.tzinfo else now.replace(tzinfo=UTC)
    since = now - parse_duration(lookback)
    list_filter(cluster_id=cluster_id, project=project, since=since)  # a comma fails before any call
    result = ScanResult(cluster_id=cluster_id, project=project, lookback=lookback)

    def note(text: str) -> None:
        if text not in result.limitations:
            result.limitations.append(text)

    listing_source = make_source()
    listing = await list_failed(
        listing_source, cluster_id=cluster_id, project=project, since=since, t=t, note=note
    )
    result.scanned = listing.listed
    if listing.failure is not None:
        result.failure = _listing_failure(
            listing.failure, cluster_id=cluster_id, project=project, t=t, calls=listing_source.calls
        )
        return _finish(result, throttle, t)

    async def one(workload: parse.Workload) -> tuple[Diagnosis, ScanMember]:
        diagnosis, exchanges = await _diagnose_one(
            make_source, workload, cluster_id=cluster_id, lookback=lookback, now=now, lang=lang, t=t
        )
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


def _listing_failure(
    answer: Answer, *, cluster_id: str, project: str | None, t: Translator, calls: list[str]
) -> Diagnosis:
    """No answer is `unreachable` and a rejected credential (401) `auth_failed`, each with what to
    check; a 403 is permission_denied naming the access needed; anything else an UNKNOWN, LOW
    diagnosis saying what failed and to retry."""
    target = Target(cluster_id=cluster_id, project=project)
    evidence = [
        Evidence(source=answer.op, field=None, text=quote(describe_list_failure(answer)), value=answer.status)
    ]
    kind = answer.failure_class()
    if kind in ("unreachable", "auth_failed"):
        return _not_reached(answer, kind, target=target, evidence=evidence, t=t, calls=calls)
    if answer.denied:
        permission = (
            t("perm.viewer_project", project=project, cluster=cluster_id)
            if project
            else t("perm.viewer_cluster", cluster=cluster_id)
        )
        return Diagnosis(
            platform="runai",
            target=target,
            outcome="permission_denied",
            confidence="LOW",
            root_cause=t("rc.permission_denied", call=answer.op, failure=describe_list_failure(answer)),
            evidence=evidence,
            next_steps=[t("next.grant_and_rerun")],
            permissions=[permission],
            calls=list(calls),
        )
    failure = describe_list_failure(answer)
    return Diagnosis(
        platform="runai",
        target=target,
        outcome="diagnosed",
        category="UNKNOWN",
        confidence="LOW",
        root_cause=t("scan.rc_list_failed", failure=failure),
        evidence=evidence if answer.retrieved else [],
        limitations=[t("lim.call_failed", call=answer.op, failure=failure)],
        next_steps=[t("scan.next_retry")],
        calls=list(calls),
    )


def _not_reached(
    answer: Answer,
    kind: str,
    *,
    target: Target,
    evidence: list[Evidence],
    t: Translator,
    calls: list[str],
) -> Diagnosis:
    failure = describe_list_failure(answer)
    if kind == "unreachable":
        steps = [t("next.unreachable_endpoint", url="RUNAI_URL"), t("next.unreachable_network")]
        outcome: Outcome = "unreachable"
    else:
        steps = [t("next.auth_credentials"), t("next.auth_token", url="RUNAI_URL"), t("next.auth_clock")]
        outcome = "auth_failed"
    return Diagnosis(
        platform="runai",
        target=target,
        outcome=outcome,
        root_cause=t(f"rc.{kind}", call=answer.op, failure=failure),
        evidence=evidence,
        next_steps=steps,
        calls=list(calls),
    )


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


# --- Markdown ---------------------------------------------------------------------------------------


def render_scan_markdown(result: ScanResult, *, lang: str) -> str:
    """One table per category (most frequent first), then the causes that recur, then limitations."""
    t = Translator(CATALOGUE, lang)
    project = t("scan.title_project", project=result.project) if result.project else ""
    lines = [t("scan.title", cluster=result.cluster_id, project=project, lookback=result.lookback), ""]
    if result.failure is not None:
        from diagnosis.runai.report import render_markdown

        lines += [t("scan.failed"), "", render_markdown(result.failure, lang=lang)]
        lines += _limitations(result, t)
        return mask("\n".join(lines))
    lines.append(
        t("scan.summary", listed=result.scanned, failed=len(result.results), lookback=result.lookback)
    )
    if not result.results:
        lines += ["", t("scan.none", lookback=result.lookback)]
    for group, items in result.groups():
        lines += ["", f"### {group} ({len(items)})", "", t("scan.table_head")]
        for item in items:
            target = item.target
            name = f"`{cell(target.name, 80)}`" if target.name else "?"
            summary = item.signature or item.root_cause
            lines.append(
                f"| {name} (`{target.workload_id or '?'}`) | `{target.phase or '?'}` "
                f"| {item.confidence or '-'} | {cell(summary)} |"
            )
    causes = result.recurring_causes()
    if result.results:
        lines += ["", t("scan.recurring"), ""]
        if not causes:
            lines.append(t("scan.recurring_none"))
        else:
            lines.append(t("scan.recurring_head"))
            for cause in causes:
                lines.append(
                    f"| {t('scan.kind.' + cause.kind)} | `{cell(cause.value, 120)}` | {cause.count} "
                    f"| {_names(cause.workloads, t)} |"
                )
    lines += _limitations(result, t)
    return mask("\n".join(lines))


def _names(names: Sequence[str], t: Translator) -> str:
    shown = ", ".join(cell(name, 60) for name in names[:MAX_NAMES_IN_CELL])
    hidden = len(names) - MAX_NAMES_IN_CELL
    return f"{shown}, {t('scan.more', count=hidden)}" if hidden > 0 else shown


def _limitations(result: ScanResult, t: Translator) -> list[str]:
    if not result.limitations:
        return []
    return ["", t("scan.limitations"), "", *(f"- {text}" for text in result.limitations)]

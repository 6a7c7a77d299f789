"""Where diagnoses come from: the live clouds through the engine, or recorded bundles (demo).

`diagnose bot --bundles DIR` answers from the bundles in DIR: a request matches a bundle when every
identifier it gives equals the bundle's `request` value (ids exact, names exact); the replay then
uses the bundle's own request and `captured_at`, exactly as `diagnose replay` would.

Scans: live, the engine's ModelArts scan (a region) or Run:ai scan (a cluster, optionally one
project, within a lookback). In demo mode a recorded scan (a bundle that names no job and holds the
listing) is replayed through the same engine code; without one, every job bundle of the region or
cluster counts as one listed job.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol, Unpack

from blocks.labels import label
from bot.commands import IDENTIFIER_KEYS, RequestDraft
from diagnosis import engine
from diagnosis.bundle import Bundle
from diagnosis.engine import LiveOptions
from diagnosis.evidence.bundles import BundleError, BundleUnsafe, load_bundle
from diagnosis.models import Choice, DiagnoseRequest, Diagnosis, Exchange
from diagnosis.scan import DiagnosedJob, ScanObserver, ScanProgress, ScanScope

__all__ = ["ScanObserver", "ScanProgress", "ScanScope"]

Observer = Callable[[str], None]
log = logging.getLogger("diagnose.bot")

# A scan capture: a bundle that names no job and records the listing (`diagnose modelarts scan
# --capture`, or a Run:ai scan recorded with its `filterBy` pages); `/diagnose scan …` replays it
# as the live scan would run.
SCAN_LISTING_OPS: dict[str, str] = {"modelarts": "ListTrainingJobs", "runai": "list_workloads"}
JOB_KEYS: dict[str, tuple[str, ...]] = {
    "modelarts": ("job_id", "job_name"),
    "runai": ("workload_id", "workload_name"),
}


@dataclass
class DiagnosisRun:
    """A diagnosis and the exchanges it was read from (the pictures are drawn from these only).

    The exchanges stay in memory for the thread's pictures: they are never stored or logged."""

    diagnosis: Diagnosis
    exchanges: list[Exchange] = field(default_factory=list)


class BackendUnavailable(RuntimeError):
    """The backend cannot do this (e.g. a log link in demo mode); the message is shown to the user,
    in their language: `key` is its label in the Slack catalogue (the exception's text is English)."""

    def __init__(self, key: str, **values: str) -> None:
        self.key = key
        self.values = values
        super().__init__(label(key, "en", **values))


class NoMatchingBundle(LookupError):
    """Demo mode: no bundle answers this request. `available` lists what the bundles do answer."""

    def __init__(self, available: list[RequestDraft]) -> None:
        super().__init__("no bundle matches")
        self.available = available


class DiagnosisBackend(Protocol):
    name: str
    demo: bool

    async def diagnose(
        self, request: DiagnoseRequest, *, lang: str | None, observer: Observer | None, now: datetime
    ) -> DiagnosisRun: ...

    def suggestions(self, draft: RequestDraft, key: str) -> list[Choice]:
        """Known values for a missing identifier (buttons); empty when only free text can answer."""
        ...

    async def scan(
        self,
        scope: ScanScope,
        *,
        lang: str | None,
        now: datetime,
        progress: ScanObserver | None = None,
    ) -> dict[str, Any]:
        """scan/v1 for a region or a cluster; `progress` hears jobs done / total."""
        ...

    async def log_url(self, *, job_id: str, task_id: str, region: str | None) -> str: ...


class ObservedSource:
    """A source that tells the observer each op before fetching it (replay sources have no observer
    of their own); every other attribute is the wrapped source's."""

    def __init__(self, inner: Any, observer: Observer) -> None:
        self._inner = inner
        self._observer = observer

    @property
    def calls(self) -> list[str]:
        calls: list[str] = self._inner.calls
        return calls

    async def fetch(self, op: str, /, *, variant: str | None = None, **args: Any) -> Any:
        self._observer(op)
        return await self._inner.fetch(op, variant=variant, **args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class LiveBackend:
    """The real platform APIs, read-only, through the engine."""

    name = "live"
    demo = False

    def __init__(self, *, scan_rate_per_second: float | None = None, **options: Unpack[LiveOptions]) -> None:
        """`options` go to the engine's live clients; a Run:ai scan's request rate defaults to the
        engine's (a 429 halves it for the rest of the scan)."""
        self.options = options
        self.scan_rate_per_second = scan_rate_per_second

    async def diagnose(
        self, request: DiagnoseRequest, *, lang: str | None, observer: Observer | None, now: datetime
    ) -> DiagnosisRun:
        # Captured so that the thread gets its pictures (memory vs limit) from what was read.
        options: LiveOptions = {**self.options, "observer": observer}
        async with engine.live(request, capture=True, **options) as (source, recorder):
            diagnosis = await engine.diagnose_with(request, source, now=now, lang=lang)
        return DiagnosisRun(diagnosis, list(recorder.exchanges) if recorder is not None else [])

    def suggestions(self, draft: RequestDraft, key: str) -> list[Choice]:
        return []

    async def scan(
        self,
        scope: ScanScope,
        *,
        lang: str | None,
        now: datetime,
        progress: ScanObserver | None = None,
    ) -> dict[str, Any]:
        if scope.platform == "runai" and not scope.cluster_id:
            raise BackendUnavailable("unavailable.scan_needs_cluster")
        result = await engine.backend(scope.platform).scan(
            scope,
            now=now,
            lang=engine.resolve_lang(scope.platform, lang),
            progress=progress,
            rate_per_second=self.scan_rate_per_second,
        )
        return result.to_json_dict()

    async def log_url(self, *, job_id: str, task_id: str, region: str | None) -> str:
        return await engine.backend("modelarts").log_link(job_id=job_id, task_id=task_id, region=region)


class BundlesBackend:
    """Recorded bundles in a directory (searched recursively); nothing leaves the machine.

    Job bundles answer requests; scan captures (a bundle naming no job, with the listing) answer
    `/diagnose scan modelarts` for their region and `/diagnose scan runai` for their cluster."""

    name = "bundles"
    demo = True

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        self.bundles: list[Bundle] = []
        self.scan_bundles: list[Bundle] = []
        for path in sorted(self.directory.rglob("*.json")):
            if path.name.endswith(".diagnosis.json"):
                continue
            try:
                bundle = load_bundle(path)
            except BundleUnsafe:
                raise
            except BundleError as exc:
                log.info("skipping %s: %s", path.name, exc)
                continue
            (self.scan_bundles if is_scan_capture(bundle) else self.bundles).append(bundle)

    def drafts(self) -> list[RequestDraft]:
        return [_draft_of(bundle) for bundle in self.bundles]

    def matches(self, draft: RequestDraft) -> list[Bundle]:
        given = draft.identifiers()
        # An id wins over a name: a name given alongside an id does not have to match.
        if given.get("workload_id"):
            given.pop("workload_name", None)
        if given.get("job_id"):
            given.pop("job_name", None)
        found = []
        for bundle in self.bundles:
            if draft.platform is not None and bundle.platform != draft.platform:
                continue
            recorded = {
                k: str(v) for k, v in bundle.request.items() if k in IDENTIFIER_KEYS and v is not None
            }
            if given and all(recorded.get(key) == value for key, value in given.items()):
                found.append(bundle)
        return found

    async def diagnose(
        self, request: DiagnoseRequest, *, lang: str | None, observer: Observer | None, now: datetime
    ) -> DiagnosisRun:
        draft = RequestDraft.model_validate(request.model_dump())
        matched = self.matches(draft)
        if len(matched) != 1:
            raise NoMatchingBundle(self.drafts())
        bundle = matched[0]
        async with engine.backend(bundle.platform).replay_source(bundle) as source:
            observed: Any = ObservedSource(source, observer) if observer is not None else source
            # The bundle's own moment and request: a replay gives the recorded answer, whatever today is.
            diagnosis = await engine.diagnose_with(
                engine.request_from_bundle(bundle), observed, now=bundle.captured_at, lang=lang
            )
        return DiagnosisRun(diagnosis, list(bundle.exchanges))

    def suggestions(self, draft: RequestDraft, key: str) -> list[Choice]:
        candidates = [_draft_of(bundle) for bundle in self.bundles]
        given = draft.identifiers()
        choices: dict[str, str] = {}
        for candidate in candidates:
            if draft.platform is not None and candidate.platform != draft.platform:
                continue
            known = candidate.identifiers()
            # Only bundles that answer what was already given (each given identifier recorded, equal).
            if any(known.get(k) != v for k, v in given.items()):
                continue
            value = _value_for(candidate, key)
            if value and value not in choices:
                choices[value] = _choice_label(candidate, key, value)
        return [Choice(value=value, label=label) for value, label in choices.items()]

    async def scan(
        self,
        scope: ScanScope,
        *,
        lang: str | None,
        now: datetime,
        progress: ScanObserver | None = None,
    ) -> dict[str, Any]:
        captures = [bundle for bundle in self.scan_bundles if _capture_answers(bundle, scope)]
        if captures:
            return await _replay_scan(captures[0], scope, lang=lang, progress=progress)
        return await self._scan_job_bundles(scope, lang=lang, progress=progress)

    async def _scan_job_bundles(
        self, scope: ScanScope, *, lang: str | None, progress: ScanObserver | None
    ) -> dict[str, Any]:
        """No scan capture: every job bundle of the region (or cluster and project) counts as one
        listed job, diagnosed from its bundle at its own moment."""
        chosen = [bundle for bundle in self.bundles if _bundle_in_scope(bundle, scope)]
        runs: list[DiagnosisRun] = []
        if progress is not None:
            progress(ScanProgress(done=0, total=len(chosen), job_name=None))
        for done, bundle in enumerate(chosen, start=1):
            async with engine.backend(bundle.platform).replay_source(bundle) as source:
                diagnosis = await engine.diagnose_with(
                    engine.request_from_bundle(bundle), source, now=bundle.captured_at, lang=lang
                )
            runs.append(DiagnosisRun(diagnosis, list(bundle.exchanges)))
            if progress is not None:
                progress(ScanProgress(done=done, total=len(chosen), job_name=diagnosis.target.name))
        return _scan_json(scope, runs)

    async def log_url(self, *, job_id: str, task_id: str, region: str | None) -> str:
        raise BackendUnavailable("unavailable.demo_log_link")


def is_scan_capture(bundle: Bundle) -> bool:
    """A bundle that names no job and holds the platform's listing: a recorded scan."""
    names_a_job = any(bundle.request.get(key) for key in JOB_KEYS.get(bundle.platform, ()))
    listing = SCAN_LISTING_OPS.get(bundle.platform)
    return not names_a_job and any(exchange.op == listing for exchange in bundle.exchanges)


def _capture_answers(bundle: Bundle, scope: ScanScope) -> bool:
    """Whether a recorded scan is the one asked for: same platform and region, or same cluster,
    project and (when one is asked) lookback: the recorded listing answers only its own filter."""
    if bundle.platform != scope.platform:
        return False
    recorded = bundle.request
    if scope.platform == "modelarts":
        return not scope.region or recorded.get("region") == scope.region
    return (
        recorded.get("cluster_id") == scope.cluster_id
        and (recorded.get("project") or None) == (scope.project or None)
        and (not scope.lookback or (recorded.get("lookback") or None) in (None, scope.lookback))
    )


def _bundle_in_scope(bundle: Bundle, scope: ScanScope) -> bool:
    if bundle.platform != scope.platform:
        return False
    recorded = bundle.request
    if scope.platform == "modelarts":
        return not scope.region or recorded.get("region") == scope.region
    return recorded.get("cluster_id") == scope.cluster_id and (
        not scope.project or recorded.get("project") == scope.project
    )


async def _replay_scan(
    bundle: Bundle, scope: ScanScope, *, lang: str | None, progress: ScanObserver | None
) -> dict[str, Any]:
    """The engine's scan over a recorded capture, at the capture's moment (as `--bundle` does)."""
    result = await engine.backend(bundle.platform).replay_scan(
        bundle, scope, lang=engine.resolve_lang(bundle.platform, lang), progress=progress
    )
    return result.to_json_dict()


def _scan_json(scope: ScanScope, runs: list[DiagnosisRun]) -> dict[str, Any]:
    """scan/v1 of job bundles replayed one by one, built by the platform's own scan result (counts
    by category, recurring causes: signatures, and Run:ai images and nodes from the answers)."""
    jobs = [DiagnosedJob(run.diagnosis, tuple(run.exchanges)) for run in runs]
    return engine.backend(scope.platform).scan_of(scope, jobs).to_json_dict()


def _draft_of(bundle: Bundle) -> RequestDraft:
    fields = {k: v for k, v in bundle.request.items() if k in RequestDraft.model_fields and v is not None}
    return RequestDraft.model_validate({**fields, "platform": bundle.platform})


def _value_for(draft: RequestDraft, key: str) -> str | None:
    if key == "platform":
        return draft.platform
    if key == "job":
        return draft.job_id or draft.job_name
    value = getattr(draft, key, None)
    return str(value) if value is not None else None


def _choice_label(draft: RequestDraft, key: str, value: str) -> str:
    if key == "platform":
        return "Run:ai" if value == "runai" else "ModelArts"
    context = draft.workload_name or draft.job_name or draft.workload_id or draft.job_id
    return f"{value} ({context})" if context and context != value else value

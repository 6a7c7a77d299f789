"""The engine's single entry point for every face (CLI, Slack bot, tests, scans).

A platform plugs in through `PlatformBackend`: its route table, its workflow, how to build a live
source and a replay source, and its scans (live, replayed from a capture, or assembled from jobs
diagnosed one by one). The faces reach a platform only through this protocol. The engine masks
every diagnosis before handing it out.
"""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Protocol, TypedDict, Unpack

from diagnosis.bundle import Bundle
from diagnosis.evidence.routes import RouteTable
from diagnosis.evidence.source import Recorder, Source
from diagnosis.masking import mask_diagnosis
from diagnosis.models import DiagnoseRequest, Diagnosis, Exchange, Platform
from diagnosis.render.i18n import check_language

if TYPE_CHECKING:
    from pydantic_settings import BaseSettings  # a live source's settings; never loaded for a replay

    from diagnosis.evidence.http.retrying import RetryPolicy
    from diagnosis.evidence.http.throttle import Throttle
    from diagnosis.evidence.series import SeriesReading
    from diagnosis.scan import DiagnosedJob, ScanObserver, ScanResultBase, ScanScope

DEFAULT_LANG: dict[str, str] = {"modelarts": "zh", "runai": "en"}


class LiveOptions(TypedDict, total=False):
    """What a face may ask of the live clients; each platform takes the ones it has a use for."""

    observer: Callable[[str], None] | None  # told each op before it is fetched (progress)
    timeout: float
    retry_policy: RetryPolicy | None
    throttle: Throttle | None  # one request-rate limit shared by several diagnoses
    deadline_seconds: float | None
    profile: str | None  # ModelArts: the KooCLI profile to read region and project id from
    settings: BaseSettings | None  # a platform's settings instead of the environment's


class PlatformBackend(Protocol):
    name: Platform
    routes: RouteTable
    languages: tuple[str, ...]

    async def diagnose(
        self, request: DiagnoseRequest, source: Source, *, now: datetime, lang: str
    ) -> Diagnosis: ...

    def live_source(
        self, request: DiagnoseRequest, *, recorder: Recorder | None = None, **options: Unpack[LiveOptions]
    ) -> AbstractAsyncContextManager[Source]:
        """One live source; `options` a platform has no use for are ignored."""
        ...

    def replay_source(self, bundle: Bundle) -> AbstractAsyncContextManager[Source]: ...

    async def scan(
        self,
        scope: ScanScope,
        *,
        now: datetime,
        lang: str,
        progress: ScanObserver | None = None,
        rate_per_second: float | None = None,
    ) -> ScanResultBase:
        """Every failed job of the scope, live (ConfigError when the platform is not configured,
        ValueError for a scope it cannot scan); `rate_per_second` None is the platform's default."""
        ...

    async def replay_scan(
        self, capture: Bundle, scope: ScanScope, *, lang: str, progress: ScanObserver | None = None
    ) -> ScanResultBase:
        """The scan a capture recorded (a bundle naming no job, with the listing), at its moment."""
        ...

    def scan_of(self, scope: ScanScope, jobs: Sequence[DiagnosedJob]) -> ScanResultBase:
        """scan/v1 of jobs diagnosed one by one: counts, and the causes they share."""
        ...

    async def log_link(self, *, job_id: str, task_id: str, region: str | None) -> str:
        """A short-lived link to a task's full log; NotOffered where the platform has none."""
        ...

    def memory_series(self, exchanges: Sequence[Exchange]) -> SeriesReading:
        """Memory use over time (and the kills it caused) read from a diagnosis' recorded answers,
        for the memory-vs-limit chart; or why there is none."""
        ...

    def load_live_clients(self) -> None:
        """Import what a live diagnosis, a scan and a log link need (settings, credentials, the
        Kubernetes client), which the engine otherwise imports on first use."""
        ...


class NotOffered(LookupError):
    """The platform offers no such thing (a log link on Run:ai); the message says so."""


_BACKEND_MODULES: dict[str, str] = {
    "runai": "diagnosis.runai.backend",
    "modelarts": "diagnosis.modelarts.backend",
}


def backend(platform: str) -> PlatformBackend:
    """`diagnosis.<platform>.backend.BACKEND`."""
    if platform not in _BACKEND_MODULES:
        raise ValueError(f"unknown platform {platform!r}: use runai or modelarts")
    module = importlib.import_module(_BACKEND_MODULES[platform])
    found: PlatformBackend = module.BACKEND
    return found


def warm_up(*platforms: str) -> None:
    """In a process that serves many live diagnoses under deadlines (the MCP server, the bot's
    worker), what a first diagnosis would otherwise do within its deadline, done now: the imports
    of the live clients (the Kubernetes client alone takes a second on a busy machine), the
    pydantic models built, the masking rules compiled, the log scanner's Hyperscan database
    built. A command that runs once does none of it."""
    from pydantic import BaseModel

    from diagnosis.logs.scan.engines import warm_up as build_scan_engine
    from diagnosis.masking import compile_rules

    importlib.import_module("httpcore")  # httpx's transport layer, loaded when a first client opens
    for platform in platforms or tuple(_BACKEND_MODULES):
        backend(platform).load_live_clients()
    models: list[type[BaseModel]] = [BaseModel]
    while models:
        model = models.pop()
        models.extend(model.__subclasses__())
        if model.__module__.startswith("diagnosis.") and not model.__pydantic_complete__:
            model.model_rebuild()
    compile_rules()
    build_scan_engine()


def resolve_lang(platform: str, lang: str | None) -> str:
    """The language asked for, else the platform's default; a language the platform does not
    offer raises UnsupportedLanguage (a report is never silently given in another language)."""
    return check_language(lang or DEFAULT_LANG[platform], backend(platform).languages)


async def diagnose_with(
    request: DiagnoseRequest, source: Source, *, now: datetime, lang: str | None = None
) -> Diagnosis:
    """Run the platform workflow on a source and mask the result."""
    platform = backend(request.platform)
    diagnosis = await platform.diagnose(request, source, now=now, lang=resolve_lang(request.platform, lang))
    diagnosis.calls = list(source.calls)
    return mask_diagnosis(diagnosis)


async def replay(bundle: Bundle, *, lang: str | None = None) -> Diagnosis:
    """Re-run a diagnosis offline from a bundle; "now" is the bundle's `captured_at`."""
    request = request_from_bundle(bundle)
    async with backend(bundle.platform).replay_source(bundle) as source:
        return await diagnose_with(request, source, now=bundle.captured_at, lang=lang)


def request_from_bundle(bundle: Bundle) -> DiagnoseRequest:
    known = set(DiagnoseRequest.model_fields) - {"platform"}
    fields = {key: value for key, value in bundle.request.items() if key in known and value is not None}
    return DiagnoseRequest(platform=bundle.platform, **fields)


@asynccontextmanager
async def live(
    request: DiagnoseRequest, *, capture: bool = False, **options: Unpack[LiveOptions]
) -> AsyncIterator[tuple[Source, Recorder | None]]:
    recorder = Recorder() if capture else None
    async with backend(request.platform).live_source(request, recorder=recorder, **options) as source:
        yield source, recorder

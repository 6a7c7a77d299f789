"""The engine's single entry point for every face (CLI, Slack bot, tests, scans).

A platform plugs in through `PlatformBackend`: its route table, its workflow, how to build a live
source and a replay source. The engine masks every diagnosis before handing it out.
"""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any, Protocol

from diagnosis.evidence.routes import RouteTable
from diagnosis.evidence.source import HttpSource, Recorder
from diagnosis.masking import mask_diagnosis
from diagnosis.models import Bundle, DiagnoseRequest, Diagnosis, Platform

DEFAULT_LANG: dict[str, str] = {"modelarts": "zh", "runai": "en"}


class PlatformBackend(Protocol):
    name: Platform
    routes: RouteTable
    languages: tuple[str, ...]

    async def diagnose(
        self, request: DiagnoseRequest, source: HttpSource, *, now: datetime, lang: str
    ) -> Diagnosis: ...

    def live_source(
        self, request: DiagnoseRequest, *, recorder: Recorder | None = None, **options: Any
    ) -> AsyncIteratorContext: ...

    def replay_source(self, bundle: Bundle) -> AsyncIteratorContext: ...


class AsyncIteratorContext(Protocol):
    async def __aenter__(self) -> HttpSource: ...

    async def __aexit__(self, *exc: object) -> bool | None: ...


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


def resolve_lang(platform: str, lang: str | None) -> str:
    chosen = lang or DEFAULT_LANG[platform]
    languages = backend(platform).languages
    return chosen if chosen in languages else DEFAULT_LANG[platform]


async def diagnose_with(
    request: DiagnoseRequest, source: HttpSource, *, now: datetime, lang: str | None = None
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
    request: DiagnoseRequest, *, capture: bool = False, **options: Any
) -> AsyncIterator[tuple[HttpSource, Recorder | None]]:
    recorder = Recorder() if capture else None
    async with backend(request.platform).live_source(request, recorder=recorder, **options) as source:
        yield source, recorder

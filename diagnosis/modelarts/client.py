"""The ModelArts client: every request signed and read-only, live or answered by a bundle.

Live: credentials, region and project id resolved as the Huawei tools do (credentials.py), the
endpoint from settings.py, every request signed (signer.py) and sent through
ReadOnlyGuard(Retrying(httpx transport)): GET only, plus the read-only job search.
Replay: the same client code, signing with dummy keys, answered by the bundle's exchanges.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

import httpx

from diagnosis.bundle import Bundle
from diagnosis.evidence.http.readonly import ReadOnlyGuard
from diagnosis.evidence.http.retrying import Retrying, RetryPolicy
from diagnosis.evidence.http.throttle import Throttle
from diagnosis.evidence.http.transport import real_transport
from diagnosis.evidence.makers import replay_client
from diagnosis.evidence.source import HttpSource, Recorder
from diagnosis.modelarts.defaults import DEFAULT_REGION
from diagnosis.modelarts.routes import READ_ONLY_POSTS, ROUTES
from diagnosis.modelarts.signer import AkSkAuth

__all__ = ["SourceMaker", "build_client", "live_sources", "replay_sources"]

DEFAULT_TIMEOUT = httpx.Timeout(30.0, connect=5.0)
REPLAY_ACCESS_KEY = "REPLAYACCESSKEY00000"
REPLAY_SECRET_KEY = "replay-secret-key"
UNKNOWN_PROJECT = "project-id-not-recorded"


def bundle_project_id(bundle: Bundle) -> str | None:
    for exchange in bundle.exchanges:
        value = exchange.args.get("project_id")
        if value:
            return str(value)
    return None


def build_client(
    *,
    auth: AkSkAuth,
    transport: httpx.AsyncBaseTransport | None = None,
    timeout: httpx.Timeout | float = DEFAULT_TIMEOUT,
    retry_policy: RetryPolicy | None = None,
    throttle: Throttle | None = None,
    verify: bool = True,
) -> httpx.AsyncClient:
    """A signed client whose transport refuses everything but reads and retries throttling/5xx."""
    inner = transport or real_transport(verify=verify)
    stack = ReadOnlyGuard(
        Retrying(inner, policy=retry_policy, throttle=throttle), allowed_posts=READ_ONLY_POSTS
    )
    return httpx.AsyncClient(transport=stack, auth=auth, timeout=timeout)


@dataclass(frozen=True)
class SourceMaker:
    """Fresh sources (each with its own `calls`) over one shared, signed, rate-limited client."""

    client: httpx.AsyncClient
    base_url: str
    fixed_args: dict[str, str]
    recorder: Recorder | None = None
    observer: Callable[[str], None] | None = None
    deadline_seconds: float | None = None

    def __call__(self) -> HttpSource:
        return HttpSource(
            routes=ROUTES,
            client=self.client,
            base_url=self.base_url,
            recorder=self.recorder,
            fixed_args=self.fixed_args,
            observer=self.observer,
            deadline_seconds=self.deadline_seconds,
        )


@asynccontextmanager
async def live_sources(
    *,
    region: str | None,
    recorder: Recorder | None = None,
    observer: Callable[[str], None] | None = None,
    timeout: httpx.Timeout | float = DEFAULT_TIMEOUT,
    retry_policy: RetryPolicy | None = None,
    throttle: Throttle | None = None,
    profile: str | None = None,
    deadline_seconds: float | None = None,
) -> AsyncIterator[SourceMaker]:
    """Signed live sources for a region; ConfigError names what is missing."""
    # The keys' sources and the settings (pydantic-settings) only for a live diagnosis.
    from diagnosis.modelarts import project, temporary_keys
    from diagnosis.modelarts.settings import endpoint_for

    found = await temporary_keys.resolve_with_temporary(region, profile=profile)
    base_url = endpoint_for(found.region)
    found = await project.with_project(found)
    auth = AkSkAuth(
        found.access_key,
        found.secret_key,
        project_id=found.project,
        security_token=found.security_token,
    )
    async with build_client(
        auth=auth, timeout=timeout, retry_policy=retry_policy, throttle=throttle
    ) as client:
        yield SourceMaker(
            client=client,
            base_url=base_url,
            fixed_args={"project_id": found.project, "region": found.region},
            recorder=recorder,
            observer=observer,
            deadline_seconds=deadline_seconds,
        )


@asynccontextmanager
async def replay_sources(bundle: Bundle) -> AsyncIterator[SourceMaker]:
    """Sources answered by a bundle's exchanges through the same signed client code."""
    project_id = bundle_project_id(bundle) or UNKNOWN_PROJECT
    region = str(bundle.request.get("region") or DEFAULT_REGION)
    auth = AkSkAuth(REPLAY_ACCESS_KEY, REPLAY_SECRET_KEY, project_id=project_id)
    async with replay_client(ROUTES, bundle, allowed_posts=READ_ONLY_POSTS, auth=auth) as client:
        yield SourceMaker(
            client=client,
            base_url=f"https://modelarts.{region}.myhuaweicloud.com",
            fixed_args={"project_id": project_id, "region": region},
        )

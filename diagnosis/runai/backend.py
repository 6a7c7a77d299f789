"""Run:ai platform plug-in for the engine: routes, workflow, live and replay sources."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any

import httpx

from diagnosis.http import AllowedPost, ReadOnlyGuard, Retrying, RetryPolicy, Throttle, real_transport
from diagnosis.models import Bundle, DiagnoseRequest, Diagnosis, Platform
from diagnosis.replay import BundleTransport
from diagnosis.routes import RouteTable
from diagnosis.runai import workflow
from diagnosis.runai.auth import RunaiTokenAuth, TokenFailureTransport
from diagnosis.runai.k8s import KubeAccess, KubeUnavailable, load_kube_access
from diagnosis.runai.messages import LANGUAGES
from diagnosis.runai.routes import ROUTES, TOKEN_PATH, is_k8s_op
from diagnosis.runai.settings import ConfigError, RunaiSettings
from diagnosis.runai.source import RunaiSource
from diagnosis.source import CallLog, HttpSource, Recorder

DEFAULT_TIMEOUT_SECONDS = 20.0
TOKEN_POST = AllowedPost(re.escape(TOKEN_PATH), "Run:ai token request (client credentials)")
REPLAY_BASE_URL = "http://replay.invalid"

__all__ = ["BACKEND", "ConfigError", "RunaiBackend"]


def _transport(
    *, verify: Any = True, retry_policy: RetryPolicy | None, throttle: Throttle | None, allow_token_post: bool
) -> httpx.AsyncBaseTransport:
    """ReadOnlyGuard(Retrying(real transport)): the only POST allowed is the Run:ai token request.

    On the Run:ai side a request that could get no token is answered with the token failure just
    above the retries (TokenFailureTransport), so it is neither sent nor retried.
    """
    inner: httpx.AsyncBaseTransport = Retrying(
        real_transport(verify=verify), policy=retry_policy, throttle=throttle
    )
    if allow_token_post:
        inner = TokenFailureTransport(inner)
    return ReadOnlyGuard(inner, allowed_posts=[TOKEN_POST] if allow_token_post else [])


class RunaiBackend:
    name: Platform = "runai"
    routes: RouteTable = ROUTES
    languages: tuple[str, ...] = LANGUAGES

    async def diagnose(self, request: DiagnoseRequest, source: Any, *, now: datetime, lang: str) -> Diagnosis:
        return await workflow.diagnose(
            request,
            source,
            now=now,
            lang=lang,
            tier2_available=bool(getattr(source, "tier2_available", False)),
            tier2_unavailable_reason=getattr(source, "tier2_unavailable_reason", None),
        )

    @asynccontextmanager
    async def live_source(
        self,
        request: DiagnoseRequest,
        *,
        recorder: Recorder | None = None,
        observer: Callable[[str], None] | None = None,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        retry_policy: RetryPolicy | None = None,
        throttle: Throttle | None = None,
        deadline_seconds: float | None = None,
        settings: RunaiSettings | None = None,
        **_ignored: Any,
    ) -> AsyncIterator[RunaiSource]:
        """Live clients from the environment; ConfigError names a missing variable.

        Tier 2 is available when kubeconfig or in-cluster credentials load (rulings G2); when they
        do not, the reason is kept for the limitation the workflow reports if Tier 2 is needed.
        """
        settings = settings or RunaiSettings()
        url, client_id, client_secret = settings.require_control_plane()
        throttle = throttle or Throttle()
        log = CallLog()
        auth = RunaiTokenAuth(base_url=url, client_id=client_id, client_secret=client_secret)
        access: KubeAccess | None = None
        unavailable: str | None = None
        try:
            access = load_kube_access(settings.kubeconfig)
        except KubeUnavailable as exc:
            unavailable = str(exc)
        async with httpx.AsyncClient(
            transport=_transport(retry_policy=retry_policy, throttle=throttle, allow_token_post=True),
            auth=auth,
            timeout=timeout,
        ) as runai_client:
            control = HttpSource(
                routes=ROUTES,
                client=runai_client,
                base_url=url,
                recorder=recorder,
                call_log=log,
                observer=observer,
                deadline_seconds=deadline_seconds,
            )
            if access is None:
                yield RunaiSource(
                    control_plane=control, kubernetes=None, tier2_unavailable_reason=unavailable
                )
                return
            async with httpx.AsyncClient(
                transport=_transport(
                    verify=access.verify, retry_policy=retry_policy, throttle=throttle, allow_token_post=False
                ),
                auth=access.auth,
                timeout=timeout,
            ) as kube_client:
                kubernetes = HttpSource(
                    routes=ROUTES,
                    client=kube_client,
                    base_url=access.host,
                    recorder=recorder,
                    call_log=log,
                    observer=observer,
                    deadline_seconds=deadline_seconds,
                )
                yield RunaiSource(control_plane=control, kubernetes=kubernetes)

    @asynccontextmanager
    async def replay_source(self, bundle: Bundle) -> AsyncIterator[RunaiSource]:
        """Bundle answers at the real paths under the read-only guard; Tier 2 iff the bundle holds a
        `k8s.*` exchange (rulings G2)."""
        transport = ReadOnlyGuard(BundleTransport(ROUTES, bundle.exchanges))
        log = CallLog()
        async with httpx.AsyncClient(transport=transport) as client:
            control = HttpSource(routes=ROUTES, client=client, base_url=REPLAY_BASE_URL, call_log=log)
            has_k8s = any(is_k8s_op(exchange.op) for exchange in bundle.exchanges)
            kubernetes = (
                HttpSource(routes=ROUTES, client=client, base_url=REPLAY_BASE_URL, call_log=log)
                if has_k8s
                else None
            )
            yield RunaiSource(
                control_plane=control,
                kubernetes=kubernetes,
                tier2_unavailable_reason=None if has_k8s else "the bundle holds no Kubernetes answers",
            )


BACKEND = RunaiBackend()

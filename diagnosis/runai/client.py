"""The Run:ai clients: the control plane (token auth) and optional Tier-2 Kubernetes, read-only.

`live_sources` opens them once from the environment and `replay_sources` from a bundle; both yield a
`SourceMaker` that hands out fresh sources (each with its own call log) over the shared clients.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx

from diagnosis.bundle import Bundle
from diagnosis.evidence.http.readonly import AllowedPost, ReadOnlyGuard
from diagnosis.evidence.http.retrying import Retrying, RetryPolicy
from diagnosis.evidence.http.throttle import Throttle
from diagnosis.evidence.http.transport import environment_proxy, real_transport
from diagnosis.evidence.makers import replay_client
from diagnosis.evidence.source import CallLog, HttpSource, Recorder
from diagnosis.runai.auth import RunaiTokenAuth, TokenFailureTransport
from diagnosis.runai.routes import ROUTES, TOKEN_PATH, is_k8s_op
from diagnosis.runai.source import RunaiSource
from diagnosis.runai.tier2_reasons import Tier2Reason, Tier2Unavailable, Unmapped

if TYPE_CHECKING:
    from diagnosis.runai.k8s import KubeAccess
    from diagnosis.runai.settings import RunaiSettings

DEFAULT_TIMEOUT_SECONDS = 20.0
TOKEN_POST = AllowedPost(re.escape(TOKEN_PATH), "Run:ai token request (client credentials)")
REPLAY_BASE_URL = "http://replay.invalid"

__all__ = ["SourceMaker", "live_sources", "replay_sources"]


def _transport(
    *,
    verify: Any = True,
    proxy: httpx.Proxy | None = None,
    retry_policy: RetryPolicy | None,
    throttle: Throttle | None,
    allow_token_post: bool,
) -> httpx.AsyncBaseTransport:
    """ReadOnlyGuard(Retrying(real transport)): the only POST allowed is the Run:ai token request.

    On the Run:ai side a request that could get no token is answered with the token failure just
    above the retries (TokenFailureTransport), so it is neither sent nor retried.
    """
    inner: httpx.AsyncBaseTransport = Retrying(
        real_transport(verify=verify, proxy=proxy), policy=retry_policy, throttle=throttle
    )
    if allow_token_post:
        inner = TokenFailureTransport(inner)
    return ReadOnlyGuard(inner, allowed_posts=[TOKEN_POST] if allow_token_post else [])


@dataclass(frozen=True)
class SourceMaker:
    """Fresh sources (each with its own `calls`) over clients opened once: a scan diagnoses many
    workloads with one token, one throttle and one connection pool."""

    control_client: httpx.AsyncClient
    control_base_url: str
    kube_client: httpx.AsyncClient | None = None
    kube_base_url: str | None = None
    tier2_unavailable_reason: Tier2Unavailable | None = None
    recorder: Recorder | None = None
    observer: Callable[[str], None] | None = None
    deadline_seconds: float | None = None

    def __call__(self, *, recorder: Recorder | None = None) -> RunaiSource:
        """A source with its own call log; `recorder` (else the maker's) keeps its answers."""
        log = CallLog()
        keep = recorder or self.recorder

        def http_source(client: httpx.AsyncClient, base_url: str) -> HttpSource:
            return HttpSource(
                routes=ROUTES,
                client=client,
                base_url=base_url,
                recorder=keep,
                call_log=log,
                observer=self.observer,
                deadline_seconds=self.deadline_seconds,
            )

        kubernetes = (
            http_source(self.kube_client, self.kube_base_url)
            if self.kube_client is not None and self.kube_base_url is not None
            else None
        )
        return RunaiSource(
            control_plane=http_source(self.control_client, self.control_base_url),
            kubernetes=kubernetes,
            tier2_unavailable_reason=None if kubernetes is not None else self.tier2_unavailable_reason,
        )


@asynccontextmanager
async def live_sources(
    *,
    recorder: Recorder | None = None,
    observer: Callable[[str], None] | None = None,
    timeout: float = DEFAULT_TIMEOUT_SECONDS,
    retry_policy: RetryPolicy | None = None,
    throttle: Throttle | None = None,
    deadline_seconds: float | None = None,
    settings: RunaiSettings | None = None,
    cluster_id: str | None = None,
) -> AsyncIterator[SourceMaker]:
    """Live clients from the environment, opened once; ConfigError names a missing variable.

    Every source made shares the clients, so one token and one throttle serve a whole scan.
    Tier 2 is available when kubeconfig or in-cluster credentials load for the context that
    serves `cluster_id` (diagnosis.runai.contexts); when they do not, or no context serves that
    cluster, the reason is kept for the limitation the workflow reports if Tier 2 is needed.
    """
    # The settings from the environment and the Kubernetes client (kubeconfig, in-cluster
    # credentials) only for a live diagnosis: a replay needs neither.
    from diagnosis.runai.contexts import tier2_context
    from diagnosis.runai.k8s import KubeUnavailable, load_kube_access
    from diagnosis.runai.settings import load_settings

    settings = settings or load_settings()
    url, client_id, client_secret = settings.require_control_plane()
    throttle = throttle or Throttle()
    auth = RunaiTokenAuth(
        base_url=url, client_id=client_id, client_secret=client_secret, grant=settings.runai_token_grant
    )
    access: KubeAccess | None = None
    unavailable: Tier2Unavailable | None = None
    context = tier2_context(settings, cluster_id)
    if isinstance(context, Unmapped):
        unavailable = context
    else:
        try:
            access = load_kube_access(settings.kubeconfig, context=context)
        except KubeUnavailable as exc:
            unavailable = exc.reason
    async with AsyncExitStack() as stack:
        runai_client = await stack.enter_async_context(
            httpx.AsyncClient(
                transport=_transport(
                    proxy=environment_proxy(url),
                    retry_policy=retry_policy,
                    throttle=throttle,
                    allow_token_post=True,
                ),
                auth=auth,
                timeout=timeout,
            )
        )
        kube_client: httpx.AsyncClient | None = None
        if access is not None:
            kube_client = await stack.enter_async_context(
                httpx.AsyncClient(
                    transport=_transport(
                        verify=access.verify,
                        proxy=access.proxy,
                        retry_policy=retry_policy,
                        throttle=throttle,
                        allow_token_post=False,
                    ),
                    auth=access.auth,
                    timeout=timeout,
                )
            )
        yield SourceMaker(
            control_client=runai_client,
            control_base_url=url,
            kube_client=kube_client,
            kube_base_url=access.host if access is not None else None,
            tier2_unavailable_reason=unavailable,
            recorder=recorder,
            observer=observer,
            deadline_seconds=deadline_seconds,
        )


@asynccontextmanager
async def replay_sources(bundle: Bundle) -> AsyncIterator[SourceMaker]:
    """Bundle answers at the real paths under the read-only guard; Tier 2 iff the bundle holds a
    `k8s.*` exchange."""
    has_k8s = any(is_k8s_op(exchange.op) for exchange in bundle.exchanges)
    async with replay_client(ROUTES, bundle) as client:
        yield SourceMaker(
            control_client=client,
            control_base_url=REPLAY_BASE_URL,
            kube_client=client if has_k8s else None,
            kube_base_url=REPLAY_BASE_URL if has_k8s else None,
            tier2_unavailable_reason=None if has_k8s else Tier2Reason("word.tier2_no_bundle_answers"),
        )

"""Offline sources built the way the backends build them, over a transport the suite controls.

`RawBytesTransport` answers from a bundle at the real paths, sending text answers as the raw bytes
they stand for; `replay_over` runs a diagnosis through the product's HTTP stack (read-only guard,
source, masking) with an optional outer transport (e.g. one that records every request).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import httpx

from diagnosis import engine
from diagnosis.bundle import Bundle
from diagnosis.evidence.http.readonly import AllowedPost, ReadOnlyGuard
from diagnosis.evidence.matching import find_exchange
from diagnosis.evidence.routes import RouteTable
from diagnosis.evidence.source import CallLog, HttpSource, NotRecorded
from diagnosis.modelarts.client import bundle_project_id
from diagnosis.modelarts.routes import READ_ONLY_POSTS
from diagnosis.modelarts.settings import DEFAULT_REGION
from diagnosis.models import Diagnosis
from diagnosis.runai.source import RunaiSource

Wrap = Callable[[httpx.AsyncBaseTransport], httpx.AsyncBaseTransport]


class RawBytesTransport(httpx.AsyncBaseTransport):
    """Bundle answers at the real paths; a text holding `surrogateescape` characters goes out as the
    raw bytes it was decoded from, and a body marked `{"__raw__": "…"}` as those bytes verbatim."""

    def __init__(self, routes: RouteTable, bundle: Bundle) -> None:
        self.routes = routes
        self.exchanges = bundle.exchanges

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await request.aread()
        resolved = self.routes.resolve_request(request)
        exchange = None if resolved is None else find_exchange(self.exchanges, resolved[0].op, resolved[1])
        if exchange is None:
            raise NotRecorded("not recorded", request=request)
        if exchange.text is not None and exchange.body is None:
            content = exchange.text.encode("utf-8", errors="surrogateescape")
        elif isinstance(exchange.body, dict) and isinstance(exchange.body.get("__raw__"), str):
            content = exchange.body["__raw__"].encode("utf-8", errors="surrogateescape")
        else:
            content = json.dumps(exchange.body).encode("utf-8")
        return httpx.Response(exchange.status, content=content, request=request)


def allowed_posts(platform: str) -> Sequence[AllowedPost]:
    return READ_ONLY_POSTS if platform == "modelarts" else ()


async def replay_over(bundle: Bundle, *, outer: Wrap | None = None) -> Diagnosis:
    """The bundle's diagnosis through ReadOnlyGuard(RawBytesTransport), wrapped in `outer`."""
    platform = engine.backend(bundle.platform)
    transport: httpx.AsyncBaseTransport = ReadOnlyGuard(
        RawBytesTransport(platform.routes, bundle), allowed_posts=allowed_posts(bundle.platform)
    )
    if outer is not None:
        transport = outer(transport)
    request = engine.request_from_bundle(bundle)
    async with httpx.AsyncClient(transport=transport) as client:
        source: Any
        if bundle.platform == "runai":
            log = CallLog()

            def half() -> HttpSource:
                return HttpSource(
                    routes=platform.routes, client=client, base_url="http://raw.invalid", call_log=log
                )

            has_k8s = any(exchange.op.startswith("k8s.") for exchange in bundle.exchanges)
            source = RunaiSource(control_plane=half(), kubernetes=half() if has_k8s else None)
        else:
            region = str(bundle.request.get("region") or DEFAULT_REGION)
            source = HttpSource(
                routes=platform.routes,
                client=client,
                base_url=f"https://modelarts.{region}.myhuaweicloud.com",
                fixed_args={"project_id": bundle_project_id(bundle) or "0" * 32, "region": region},
            )
        return await engine.diagnose_with(request, source, now=bundle.captured_at)

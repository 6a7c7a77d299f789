"""What the platform backends share around their source makers.

A backend opens its clients once (`live_sources`, `replay_sources`) and yields a maker that hands
out fresh sources over them, each with its own `calls`: a scan diagnoses many jobs that way. The
engine's `live_source` and `replay_source` are the one-job case: one source from such a maker.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, TypeVar

import httpx

from diagnosis.bundle import Bundle
from diagnosis.evidence.bundles import BundleTransport
from diagnosis.evidence.http.readonly import AllowedPost, ReadOnlyGuard
from diagnosis.evidence.routes import RouteTable

SourceT = TypeVar("SourceT")

__all__ = ["accepted_options", "replay_client", "single_source"]


@asynccontextmanager
async def single_source(makers: AbstractAsyncContextManager[Callable[[], SourceT]]) -> AsyncIterator[SourceT]:
    """One source from a context that opens the clients and yields a source maker."""
    async with makers as make_source:
        yield make_source()


def accepted_options(opener: Callable[..., Any], options: Mapping[str, Any]) -> dict[str, Any]:
    """The options `opener` takes by keyword: the engine hands one set of live options (the bot's
    observer, a benchmark's retry policy, a ModelArts profile…) to every platform, and each
    platform ignores those it has no use for."""
    keywords = {
        name
        for name, parameter in inspect.signature(opener).parameters.items()
        if parameter.kind in (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    }
    return {name: value for name, value in options.items() if name in keywords}


def replay_client(
    routes: RouteTable,
    bundle: Bundle,
    *,
    allowed_posts: Iterable[AllowedPost] = (),
    auth: httpx.Auth | None = None,
) -> httpx.AsyncClient:
    """A client answered by the bundle's exchanges at the real HTTP paths, under the same read-only
    guard as live: replay runs the platform's own client code."""
    transport = ReadOnlyGuard(BundleTransport(routes, bundle.exchanges), allowed_posts=allowed_posts)
    return httpx.AsyncClient(transport=transport, auth=auth)

"""The read-only guard: every method but GET refused before a byte leaves the process, except POSTs
to endpoints named as read-only (a search, a token request)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import httpx


class MutatingRequestRefused(httpx.TransportError):
    """Raised before any byte leaves the process when a request is not a read."""


@dataclass(frozen=True)
class AllowedPost:
    """A POST that only reads (a search, a token request), named by a path pattern."""

    path_pattern: str
    reason: str

    def matches(self, path: str) -> bool:
        return re.fullmatch(self.path_pattern, path) is not None


class ReadOnlyGuard(httpx.AsyncBaseTransport):
    """Refuses every method but GET, and POST to the named read-only endpoints."""

    def __init__(self, inner: httpx.AsyncBaseTransport, *, allowed_posts: Iterable[AllowedPost] = ()) -> None:
        self._inner = inner
        self._allowed_posts = tuple(allowed_posts)

    def is_allowed(self, method: str, path: str) -> bool:
        method = method.upper()
        if method == "GET":
            return True
        return method == "POST" and any(rule.matches(path) for rule in self._allowed_posts)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if not self.is_allowed(request.method, request.url.path):
            raise MutatingRequestRefused(
                f"refused {request.method} {request.url.path}: this tool only reads", request=request
            )
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()

"""The largest answer body read: past it the read stops with AnswerTooLarge, before holding it all."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx


class AnswerTooLarge(httpx.TransportError):
    """An answer body larger than any platform answer this tool reads (a hostile or broken server)."""

    def __init__(self, limit: int, *, request: httpx.Request) -> None:
        # The cap in words (`32 MB`), for the report's reason in any language.
        self.shown = f"{limit / (1024 * 1024):g} MB" if limit >= 1024 * 1024 else f"{limit} bytes"
        super().__init__(f"answer larger than {self.shown}", request=request)


# The largest answer body read (the biggest real answers are log previews of a few MB).
MAX_ANSWER_BYTES = 32 * 1024 * 1024


class _CappedStream(httpx.AsyncByteStream):
    """A response body that stops with AnswerTooLarge past `limit` bytes, before holding them all."""

    def __init__(self, inner: httpx.AsyncByteStream, limit: int, request: httpx.Request) -> None:
        self._inner = inner
        self._limit = limit
        self._request = request

    async def __aiter__(self) -> AsyncIterator[bytes]:
        size = 0
        async for chunk in self._inner:
            size += len(chunk)
            if size > self._limit:
                raise AnswerTooLarge(self._limit, request=self._request)
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


async def read_capped(response: httpx.Response, *, limit: int, request: httpx.Request) -> None:
    """The body read, at most `limit` bytes of it (AnswerTooLarge past that)."""
    try:
        size = len(response.content)  # a stand-in's answer may come already read
    except httpx.ResponseNotRead:
        response.stream = _CappedStream(response.stream, limit, request)  # type: ignore[arg-type]
    else:
        if size > limit:
            await response.aclose()
            raise AnswerTooLarge(limit, request=request)
        return
    try:
        await response.aread()
    except BaseException:
        await response.aclose()
        raise

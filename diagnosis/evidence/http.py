"""The HTTP stack every platform client uses: read-only guard, retries with backoff, a shared throttle.

Order on the way out: ReadOnlyGuard -> Retrying -> the real (or replay) transport.
"""

from __future__ import annotations

import asyncio
import functools
import math
import os
import random
import re
import ssl
import time
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime

import httpx


@functools.cache
def default_ssl_context() -> ssl.SSLContext:
    """httpx's default certificate verification (certifi's CA bundle, SSL_CERT_FILE/DIR honoured),
    built once per process: loading the CA bundle takes ~75 ms of CPU, which every new client (one
    per diagnosis) would otherwise pay before its first request. Client contexts are safe to share."""
    return httpx.create_ssl_context()


def real_transport(
    *, verify: ssl.SSLContext | bool = True, proxy: httpx.Proxy | None = None
) -> httpx.AsyncHTTPTransport:
    """The socket-level transport; `verify=True` uses the shared default context; `proxy` routes
    every request through that proxy (a CONNECT tunnel for https)."""
    return httpx.AsyncHTTPTransport(verify=default_ssl_context() if verify is True else verify, proxy=proxy)


def environment_proxy(url: str) -> httpx.Proxy | None:
    """The proxy the environment names for `url` (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY, NO_PROXY,
    as curl and httpx read them). A client built on its own transport gets no environment proxy
    from httpx, so the clients that honour the environment ask here."""
    import urllib.request
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    proxies = urllib.request.getproxies_environment()
    chosen = proxies.get(parts.scheme) or proxies.get("all")
    if not chosen or not parts.hostname:
        return None
    if urllib.request.proxy_bypass_environment(parts.hostname, proxies):  # type: ignore[attr-defined]
        return None
    return httpx.Proxy(chosen if "://" in chosen else f"http://{chosen}")


class MutatingRequestRefused(httpx.TransportError):
    """Raised before any byte leaves the process when a request is not a read."""


class AnswerTooLarge(httpx.TransportError):
    """An answer body larger than any platform answer this tool reads (a hostile or broken server)."""


# Request extension: the monotonic time by which the whole diagnosis must be done. Set by the
# evidence source; the retries never wait (Retry-After, backoff, a shared pause) past it.
DEADLINE_EXTENSION = "diagnosis_deadline"
# Every diagnosis ends within this many seconds, whatever the platform does (a face may set its
# own; `DIAGNOSE_DEADLINE_SECONDS` sets it for every face). Calls that would start later are not
# made; the diagnosis says which evidence the deadline cut off.
DEFAULT_DEADLINE_SECONDS = 40.0
DEADLINE_VARIABLE = "DIAGNOSE_DEADLINE_SECONDS"


def configured_deadline_seconds() -> float:
    """`DIAGNOSE_DEADLINE_SECONDS` when it holds a positive number of seconds, else the default."""
    raw = os.environ.get(DEADLINE_VARIABLE, "").strip()
    try:
        value = float(raw) if raw else DEFAULT_DEADLINE_SECONDS
    except ValueError:
        return DEFAULT_DEADLINE_SECONDS
    return value if 0 < value < float("inf") else DEFAULT_DEADLINE_SECONDS


# The largest answer body read (the biggest real answers are log previews of a few MB).
MAX_ANSWER_BYTES = 32 * 1024 * 1024


def _too_large(limit: int) -> str:
    shown = f"{limit / (1024 * 1024):g} MB" if limit >= 1024 * 1024 else f"{limit} bytes"
    return f"answer larger than {shown}"


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
                raise AnswerTooLarge(_too_large(self._limit), request=self._request)
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


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


class Throttle:
    """A request-rate limit shared by every request of a client (or of a whole scan).

    A 429 pauses everyone, not just the request that got it: the platform's limit is per account.
    """

    def __init__(
        self, rate_per_second: float | None = None, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate_per_second = rate_per_second
        self._clock = clock
        self._next_slot = 0.0
        self._paused_until = 0.0
        self._lock = asyncio.Lock()
        self.pauses = 0

    async def acquire(self) -> None:
        while True:
            async with self._lock:
                now = self._clock()
                start = max(now, self._next_slot, self._paused_until)
                if self.rate_per_second:
                    self._next_slot = start + 1.0 / self.rate_per_second
                wait = start - now
                pauses_seen = self.pauses
            if wait > 0:
                await asyncio.sleep(wait)
            # A 429 that came while this request waited for its slot holds it back too: requests
            # already queued must not go out during the pause (they would only earn more 429s).
            if self.pauses == pauses_seen or self._clock() >= self._paused_until:
                return

    def pause(self, seconds: float) -> None:
        self.pauses += 1
        self._paused_until = max(self._paused_until, self._clock() + seconds)


@dataclass
class RetryPolicy:
    """`deadline` bounds one exchange (every attempt, its body and the waits between them): httpx's
    own timeouts count per read, so a server trickling a byte at a time would never trip them."""

    attempts: int = 4
    base_delay: float = 0.25
    max_delay: float = 8.0
    deadline: float = 30.0
    max_answer_bytes: int = MAX_ANSWER_BYTES
    retry_statuses: frozenset[int] = field(default_factory=lambda: frozenset({429, 500, 502, 503, 504}))


def retry_after_seconds(response: httpx.Response) -> float | None:
    value = response.headers.get("Retry-After")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        return max(0.0, when.timestamp() - time.time())


async def _read_or_close(response: httpx.Response, *, limit: int, request: httpx.Request) -> None:
    """The body read, at most `limit` bytes of it (AnswerTooLarge past that)."""
    try:
        size = len(response.content)  # a stand-in's answer may come already read
    except httpx.ResponseNotRead:
        response.stream = _CappedStream(response.stream, limit, request)  # type: ignore[arg-type]
    else:
        if size > limit:
            await response.aclose()
            raise AnswerTooLarge(_too_large(limit), request=request)
        return
    try:
        await response.aread()
    except BaseException:
        await response.aclose()
        raise


class ExchangeTimeout(httpx.TimeoutException):
    """One exchange ran past its total time (or the diagnosis deadline), whatever httpx's per-read
    timeouts said."""


class Retrying(httpx.AsyncBaseTransport):
    """Retries 429/5xx, resets and timeouts with capped exponential backoff and jitter.

    `Retry-After` is honoured (and pauses the shared throttle). A total deadline bounds the whole
    exchange so that a diagnosis never hangs past it; the last answer (or error) is returned.
    """

    def __init__(
        self,
        inner: httpx.AsyncBaseTransport,
        *,
        policy: RetryPolicy | None = None,
        throttle: Throttle | None = None,
        sleep: Callable[[float], object] | None = None,
    ) -> None:
        self._inner = inner
        self.policy = policy or RetryPolicy()
        self.throttle = throttle or Throttle()
        self._sleep = sleep or asyncio.sleep

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        # The diagnosis deadline bounds everything, the wait for a rate-limit slot included; the
        # exchange's own budget starts once it first got a slot (a queue behind a slow rate limit
        # is not the platform's slowness).
        deadline = request.extensions.get(DEADLINE_EXTENSION)
        hard_end = float(deadline) if isinstance(deadline, int | float) else math.inf
        ends_at: float | None = None
        attempt = 0
        body = request.content  # buffered so a retry can resend it
        while True:
            attempt += 1
            retry_request = httpx.Request(
                request.method,
                request.url,
                headers=request.headers,
                content=body,
                extensions=request.extensions,
            )
            await self._slot(retry_request, hard_end)
            if ends_at is None:
                ends_at = min(time.monotonic() + self.policy.deadline, hard_end)
            try:
                response = await self._attempt(retry_request, ends_at)
            except (MutatingRequestRefused, AnswerTooLarge, ExchangeTimeout):
                raise
            except (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError):
                if not self._may_retry(attempt, ends_at, 0.0):
                    raise
                await self._pause(self._backoff(attempt))
                continue
            if response.status_code not in self.policy.retry_statuses:
                return response
            hinted = retry_after_seconds(response)
            delay = hinted if hinted is not None else self._backoff(attempt)
            if response.status_code == 429:
                # Everyone waits, but never past this exchange's time left: a `Retry-After: 3600`
                # must not hold the shared throttle for an hour.
                self.throttle.pause(max(0.0, min(delay, ends_at - time.monotonic())))
            if not self._may_retry(attempt, ends_at, delay):
                await _read_or_close(response, limit=self.policy.max_answer_bytes, request=request)
                return response
            await _read_or_close(response, limit=self.policy.max_answer_bytes, request=request)
            await response.aclose()
            await self._pause(delay)

    async def _slot(self, request: httpx.Request, hard_end: float) -> None:
        """A rate-limit slot, waited for no later than the diagnosis deadline."""
        if hard_end == math.inf:
            await self.throttle.acquire()
            return
        try:
            async with asyncio.timeout(max(0.0, hard_end - time.monotonic())):
                await self.throttle.acquire()
        except TimeoutError:
            raise ExchangeTimeout("the deadline came while waiting for a slot", request=request) from None

    async def _attempt(self, request: httpx.Request, ends_at: float) -> httpx.Response:
        """One attempt, its body included, within the time left."""
        left = ends_at - time.monotonic()
        if left <= 0:
            raise ExchangeTimeout("no time left for the request", request=request)
        try:
            async with asyncio.timeout(left):
                response = await self._inner.handle_async_request(request)
                if response.status_code not in self.policy.retry_statuses:
                    # Read inside the retries: a body cut short by a reset is retried like a reset.
                    await _read_or_close(response, limit=self.policy.max_answer_bytes, request=request)
                return response
        except TimeoutError:
            raise ExchangeTimeout("the request ran past its total time", request=request) from None

    def _backoff(self, attempt: int) -> float:
        ceiling = min(self.policy.max_delay, self.policy.base_delay * (2 ** (attempt - 1)))
        return ceiling / 2 + random.uniform(0, ceiling / 2)

    def _may_retry(self, attempt: int, ends_at: float, delay: float) -> bool:
        if attempt >= self.policy.attempts:
            return False
        return time.monotonic() + delay < ends_at

    async def _pause(self, seconds: float) -> None:
        result = self._sleep(seconds)
        if asyncio.iscoroutine(result):
            await result

    async def aclose(self) -> None:
        await self._inner.aclose()

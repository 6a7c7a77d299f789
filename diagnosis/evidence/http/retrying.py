"""Retries of 429/5xx, resets and timeouts with capped exponential backoff and jitter, within the
exchange's total time and the diagnosis deadline."""

from __future__ import annotations

import asyncio
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime

import httpx

from diagnosis.evidence.http.deadline import DEADLINE_EXTENSION
from diagnosis.evidence.http.readonly import MutatingRequestRefused
from diagnosis.evidence.http.size_cap import MAX_ANSWER_BYTES, AnswerTooLarge, read_capped
from diagnosis.evidence.http.throttle import Throttle


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
                await read_capped(response, limit=self.policy.max_answer_bytes, request=request)
                return response
            await read_capped(response, limit=self.policy.max_answer_bytes, request=request)
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
                    await read_capped(response, limit=self.policy.max_answer_bytes, request=request)
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

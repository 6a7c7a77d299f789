"""One request-rate limit shared by every client of a diagnosis or a scan."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable


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

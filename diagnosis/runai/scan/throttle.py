"""The one request-rate limit that every request of a scan shares."""

from __future__ import annotations

import time
from collections.abc import Callable

from diagnosis.evidence.http.throttle import Throttle

MIN_RATE_PER_SECOND = 0.5


class ScanThrottle(Throttle):
    """The scan's one request-rate limit. A 429 pauses every request (Throttle) and halves the rate
    for the rest of the scan, down to MIN_RATE_PER_SECOND; 429s that arrive together (the requests
    in flight when the platform started refusing) slow it once."""

    def __init__(
        self,
        rate_per_second: float,
        *,
        min_rate_per_second: float = MIN_RATE_PER_SECOND,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(rate_per_second, clock=clock)
        self.initial_rate_per_second = rate_per_second
        self.min_rate_per_second = min(min_rate_per_second, rate_per_second)
        self._now = clock
        self._slowed_until = 0.0

    def pause(self, seconds: float) -> None:
        now = self._now()
        if now >= self._slowed_until and self.rate_per_second:
            self.rate_per_second = max(self.min_rate_per_second, self.rate_per_second / 2)
        self._slowed_until = max(self._slowed_until, now + seconds)
        super().pause(seconds)

"""Measurement series a platform reads from its answers, for the pictures: memory use over time and
the times the job was killed for it. Every value was read from a recorded answer, none estimated.

A platform's backend gives a `SeriesReading`: the series, or the one-line reason there is none.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from diagnosis.models import Exchange

NO_METRICS_RECORDED = "no memory metrics were recorded"
NO_SAMPLES = "no memory samples were recorded"


@dataclass(frozen=True)
class MemorySample:
    at: datetime  # aware, UTC
    used_bytes: int


# The name of a series the platform does not name itself (a Run:ai measurement is named by its
# labels, `memory used (pod=…)`); the charts say it in the report's language.
MEMORY_USED = "memory used"


@dataclass(frozen=True)
class MemoryTrace:
    """One recorded series (a Run:ai measurement, a ModelArts metric), oldest sample first."""

    name: str
    samples: tuple[MemorySample, ...]


@dataclass(frozen=True)
class MemorySeries:
    traces: tuple[MemoryTrace, ...]
    source: str  # the op whose answer held the samples
    kill_times: tuple[datetime, ...] = ()

    @property
    def samples(self) -> tuple[MemorySample, ...]:
        return tuple(sample for trace in self.traces for sample in trace.samples)

    @property
    def peak_bytes(self) -> int:
        return max(sample.used_bytes for sample in self.samples)

    @property
    def first_at(self) -> datetime:
        return min(sample.at for sample in self.samples)

    @property
    def last_at(self) -> datetime:
        return max(sample.at for sample in self.samples)


@dataclass(frozen=True)
class SeriesReading:
    """The series, or why there is none."""

    series: MemorySeries | None
    reason: str | None = None


def metrics_call_failed(exchanges: Sequence[Exchange]) -> str | None:
    """Why there is no series when every metrics call failed (`… failed (HTTP 500, 503)`), else None."""
    if all(exchange.status >= 400 for exchange in exchanges):
        statuses = ", ".join(sorted({str(exchange.status) for exchange in exchanges}))
        return f"the memory metrics call failed (HTTP {statuses})"
    return None


def byte_count(value: str | float | None) -> int | None:
    """A byte count as the platforms send it (a number, or a string such as `"16903045120"` or
    `"1.69e10"`); junk, negatives, NaN and infinities are no sample."""
    if isinstance(value, bool) or value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    if math.isnan(number) or number < 0 or math.isinf(number):
        return None
    return round(number)

"""Timestamps as ModelArts writes them: with an offset, without one, or as epoch numbers."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from diagnosis.timeutil import has_offset, parse_instant

CHINA_OFFSET = timedelta(hours=8)
# A reading this far after now is impossible (clocks of nodes and of this machine may differ a little).
FUTURE_TOLERANCE = timedelta(minutes=5)


@dataclass(frozen=True)
class TimeReading:
    """A timestamp as written, with the instants it may stand for.

    A time without an offset is read both as UTC and as UTC+8: containers and the console often
    write China Standard Time without saying so.
    """

    text: str
    readings: tuple[datetime, ...]

    @property
    def ambiguous(self) -> bool:
        return len(self.readings) > 1

    def age(self, now: datetime, *, threshold: timedelta) -> tuple[timedelta, bool] | None:
        """Readings more than 5 minutes after now are impossible and dropped; the smallest
        remaining age counts; doubtful when readings fall on both sides of `threshold`."""
        ages = [now - instant for instant in self.readings if instant - now <= FUTURE_TOLERANCE]
        if not ages:
            return None
        doubtful = len(ages) > 1 and min(ages) <= threshold < max(ages)
        return max(min(ages), timedelta(0)), doubtful


def read_time(value: Any) -> TimeReading | None:
    if value is None or isinstance(value, bool | dict | list):
        return None
    text = str(value).strip()
    if not text:
        return None
    if isinstance(value, int | float) or text.isdigit():
        instant = parse_instant(int(float(text)))
        return TimeReading(text, (instant,)) if instant else None
    instant = parse_instant(text)
    if instant is None:
        return None
    if has_offset(text):
        return TimeReading(text, (instant,))
    # Naive: as UTC, and as China time (the same wall clock, 8 hours earlier in UTC).
    return TimeReading(text, (instant, instant - CHINA_OFFSET))

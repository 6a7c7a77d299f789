"""Instants, durations and lookback windows. The engine never reads the wall clock itself."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

_DURATION = re.compile(r"^\s*(\d+)\s*([smhdw])\s*$")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_duration(text: str) -> timedelta:
    """`7d`, `36h`, `90m`, `2w`, `30s`; anything else raises ValueError with the accepted form."""
    match = _DURATION.match(text or "")
    if not match:
        raise ValueError(f"invalid duration {text!r}: use a number and one of s, m, h, d, w (e.g. 7d)")
    return timedelta(seconds=int(match.group(1)) * _UNIT_SECONDS[match.group(2)])


def parse_instant(value: object, *, assume_utc: bool = True) -> datetime | None:
    """ISO-8601 with `T` or a space, `Z` or an offset, or epoch seconds/milliseconds; None if unreadable."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        seconds = value / 1000 if value > 10**11 else value
        try:
            return datetime.fromtimestamp(seconds, tz=UTC)
        except (OverflowError, OSError, ValueError):
            return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    text = str(value).strip()
    if not text:
        return None
    if text.isdigit():
        return parse_instant(int(text))
    candidate = text.replace(" ", "T", 1)
    if candidate.endswith(("Z", "z")):
        candidate = candidate[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(candidate)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        if not assume_utc:
            return parsed
        parsed = parsed.replace(tzinfo=UTC)
    return parsed


def pinned_now(text: str) -> datetime:
    """The moment `--as-of` or `DIAGNOSE_NOW` pins "now" to; ValueError naming the accepted form."""
    instant = parse_instant(text)
    if instant is None:
        raise ValueError(
            f"cannot read --as-of / DIAGNOSE_NOW {text!r}: use ISO-8601, e.g. 2026-11-28T09:00:00Z"
        )
    return instant


def has_offset(text: str) -> bool:
    """Whether an ISO timestamp names its zone (Z or ±hh:mm)."""
    stripped = text.strip()
    return stripped.endswith(("Z", "z")) or bool(re.search(r"[+-]\d{2}:?\d{2}$", stripped))


def iso(instant: datetime) -> str:
    return instant.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def human_duration(delta: timedelta) -> str:
    seconds = int(delta.total_seconds())
    if seconds < 0:
        seconds = 0
    hours, rest = divmod(seconds, 3600)
    minutes = rest // 60
    if hours >= 48:
        return f"{hours // 24}d {hours % 24}h"
    if hours:
        return f"{hours}h {minutes:02d}m"
    return f"{minutes}m"


# A log time written without an offset is in the zone its container logs in: UTC, or often China
# time (UTC+8) on ModelArts and on clusters in China. A reading later than the moment the log was
# read, or than its container finished, by more than a clock's skew is impossible.
CHINA_OFFSET = timedelta(hours=8)
CLOCK_SKEW = timedelta(minutes=5)


def naive_log_instant(wall_clock: datetime, *, not_after: datetime | None) -> datetime:
    """A log time without an offset as an instant: read as UTC (the containers of one job log in
    one zone, so their order holds), unless that reading is impossible (later than `not_after` by
    more than CLOCK_SKEW) and the China-time reading is not."""
    as_utc = wall_clock.replace(tzinfo=UTC)
    if not_after is None or as_utc - not_after <= CLOCK_SKEW:
        return as_utc
    as_china_time = as_utc - CHINA_OFFSET
    return as_china_time if as_china_time - not_after <= CLOCK_SKEW else as_utc

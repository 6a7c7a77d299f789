"""Times read from log lines: ISO 8601 and glog/torch C++ logger prefixes."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

from diagnosis.logs.scan.limits import _TIMESTAMP_HEAD_CHARS
from diagnosis.logs.scan.results import TimestampReading

_ISO_TS = re.compile(
    r"(?<![0-9])(?P<y>[12][0-9]{3})-(?P<mo>[01][0-9])-(?P<d>[0-3][0-9])[T _-]"
    r"(?P<h>[0-2][0-9]):(?P<mi>[0-5][0-9]):(?P<s>[0-6][0-9])"
    r"(?:[.,:](?P<frac>[0-9]{1,9})(?:\.[0-9]{1,6})*)?"
    r"(?P<tz>[Zz](?![A-Za-z0-9])|\s?[+-][0-2][0-9]:?[0-5][0-9](?![0-9]))?"
)
# glog `I0512 05:00:12.123456` and torch's C++ logger `[W512 05:00:12.123456 …]` (month*100+day).
_GLOG_TS = re.compile(
    r"(?:^|[\[\]\s:])(?P<lvl>[IWEF])(?P<md>[0-9]{3,4}) (?P<h>[0-2][0-9]):(?P<mi>[0-5][0-9]):(?P<s>[0-6][0-9])"
    r"(?:\.(?P<frac>[0-9]{1,9}))?(?![0-9])"
)
_ISO_MAX_START = 48
_GLOG_MAX_START = 24


def _microseconds(frac: str | None) -> int:
    if not frac:
        return 0
    return int((frac + "000000")[:6])


def _zone(tz: str) -> timezone:
    text = tz.strip()
    if text in ("Z", "z"):
        return UTC
    sign = -1 if text[0] == "-" else 1
    digits = text[1:].replace(":", "")
    return timezone(sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:4])))


def parse_timestamp(line: str, *, year_hint: int | None = None) -> TimestampReading | None:
    """The time at the start of a log line (ISO forms with or without offset, `[…]`-wrapped,
    Ascend `2026-05-12-05:00:12.123.456`, glog/torch `I0512 05:00:12`); None if unreadable.
    glog/torch times carry no year: they are read only with `year_hint` (from the same log)."""
    head = line[:_TIMESTAMP_HEAD_CHARS]
    match = _ISO_TS.search(head)
    if match and match.start() <= _ISO_MAX_START:
        tz = match.group("tz")
        try:
            value = datetime(
                int(match.group("y")),
                int(match.group("mo")),
                int(match.group("d")),
                int(match.group("h")),
                int(match.group("mi")),
                min(int(match.group("s")), 59),
                _microseconds(match.group("frac")),
                tzinfo=_zone(tz) if tz else None,
            )
        except ValueError:
            return None
        return TimestampReading(text=match.group(0).strip(), value=value, has_offset=bool(tz))
    if year_hint is None:
        return None
    glog = _GLOG_TS.search(head)
    if glog is None or glog.start() > _GLOG_MAX_START:
        return None
    month, day = divmod(int(glog.group("md")), 100)
    try:
        value = datetime(
            year_hint,
            month,
            day,
            int(glog.group("h")),
            int(glog.group("mi")),
            min(int(glog.group("s")), 59),
            _microseconds(glog.group("frac")),
        )
    except ValueError:
        return None
    text = glog.group(0).lstrip("[] :\t")
    return TimestampReading(text=text, value=value, has_offset=False)

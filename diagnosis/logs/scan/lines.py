"""One matched line decoded, cut to size and keyed so that repeats fold together."""

from __future__ import annotations

import re

from diagnosis.logs.scan.limits import MAX_LINE_CHARS
from diagnosis.logs.scan.tracebacks import _split_leading_ts

_DIGITS = re.compile(r"[0-9]+")


def _dedupe_key(rule: str, text: str) -> tuple[str, str]:
    _, body = _split_leading_ts(text)
    return rule, _DIGITS.sub("#", body.strip()[:300])


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")


def _cut_line(raw: bytes, offset: int) -> str:
    """Decode one line; a line holding carriage returns keeps the segment with the match, and a
    line longer than MAX_LINE_CHARS keeps a window around the match."""
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    if b"\r" in raw:
        start = raw.rfind(b"\r", 0, max(offset, 0)) + 1
        stop = raw.find(b"\r", max(offset, start))
        raw = raw[start : stop if stop >= 0 else len(raw)]
        offset -= start
    if len(raw) <= MAX_LINE_CHARS:
        return _decode(raw)
    begin = max(0, min(offset - MAX_LINE_CHARS // 4, len(raw) - MAX_LINE_CHARS))
    window = _decode(raw[begin : begin + MAX_LINE_CHARS])
    return ("…" if begin > 0 else "") + window + ("…" if begin + MAX_LINE_CHARS < len(raw) else "")


def _count_newlines(buf: bytes, start: int, end: int) -> int:
    return buf.count(b"\n", start, end)

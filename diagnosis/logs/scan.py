"""Find the lines that explain a failed training job in its log, as a stream with bounded memory.

The scanner reads raw bytes in large chunks (4 MiB), carries the partial last line over to the
next chunk and runs ONE precompiled combined pattern set (`SCAN_PATTERNS`, see diagnosis.logs.rules,
plain ERE that `grep -E` reads the same way) over each chunk. Engines, all with the same results:
Hyperscan (SIMD, one call per chunk; installed on x86-64), else google-re2 (a DFA; a runtime
dependency), else the standard `re` module. Only lines that match are decoded and classified
(RE2::Set tells which patterns a line matched, then the table's first matching row wins); lines
equal but for their digits are classified once. A Python traceback is followed line by line from
its header to its final `Name: message` line, keeping only a small ring of its innermost frames.
Memory stays bounded by the chunk size whatever the log size.

Findings are ordered most diagnostic first: real failures before consequences
(collective-communication timeouts, launcher wrappers such as torchrun's `ChildFailedError`),
direct signals before generic `ERROR` lines, and among equals the earliest line first. Identical
lines (e.g. the same CUDA OOM printed by eight ranks) fold into one finding with `occurrences`.

Finding lines are verbatim log text: mask them (diagnosis.masking) before they leave the engine.
"""

from __future__ import annotations

import importlib
import io
import re
import threading
from bisect import bisect_left
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from enum import Enum
from typing import IO, Any, Protocol

from diagnosis.logs.rules import (
    DIRECT,
    GENERIC,
    LINE_RULES,
    NEVER_FAILURE,
    RULES_FOR_PATTERN,
    SCAN_PATTERNS,
    FindingKind,
    LineRule,
)

__all__ = [
    "DEFAULT_CHUNK_BYTES",
    "SCAN_PATTERNS",
    "Finding",
    "FindingKind",
    "Frame",
    "LogFindings",
    "LogScanner",
    "TimestampReading",
    "Traceback",
    "parse_timestamp",
    "parse_traceback",
    "scan_lines",
    "scan_stream",
    "scan_text",
]

DEFAULT_CHUNK_BYTES = 4 * 1024 * 1024
MAX_FINDINGS = 40  # distinct findings kept (best first); the rest are counted in `findings_dropped`
MAX_LINE_CHARS = 2000  # a kept line longer than this is cut around the match
MAX_CONTEXT_LINES = 6
MAX_FRAMES = 8  # innermost frames kept per traceback
MAX_CONTINUATION_LINES = 40  # lines of a multi-line exception message followed (a few are kept)
MAX_FOREIGN_LINES = 20  # interleaved lines from other processes tolerated inside a traceback
CONSEQUENCE_WINDOW_LINES = 50
_TAIL_LINES = 64  # lines read back from the end of each chunk for the newest timestamp
_PARTIAL_OVERLAP = 4096  # bytes of an unfinished very long line kept to catch matches across reads
_TIMESTAMP_HEAD_CHARS = 120
_CLASS_CACHE_SIZE = 4096  # line shapes remembered (lines equal but for their digits)
_DIGIT_BYTES = b"0123456789"


# --------------------------------------------------------------------------------------------
# Result types
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TimestampReading:
    """A time read from a log line: `value` is naive when the line gave no offset (zone unknown)."""

    text: str
    value: datetime
    has_offset: bool

    def sort_key(self) -> datetime:
        """Comparable instant: offset-aware readings in UTC, naive ones as written."""
        if self.value.tzinfo is not None:
            return self.value.astimezone(UTC).replace(tzinfo=None)
        return self.value


@dataclass(frozen=True, slots=True)
class Frame:
    file: str
    line: int | None
    function: str | None
    code: str | None = None


@dataclass(slots=True)
class Traceback:
    """A Python traceback. For chained tracebacks ("During handling of the above exception…",
    "The above exception was the direct cause…") `final_line` is the LAST one, the cause that
    ended the process; the earlier final lines are in `chained`."""

    final_line: str | None
    exception_name: str | None
    message: str | None
    frames: list[Frame] = field(default_factory=list)
    chained: list[str] = field(default_factory=list)
    continuation: list[str] = field(default_factory=list)
    truncated: bool = False


@dataclass(slots=True)
class Finding:
    kind: FindingKind
    rule: str
    line: str
    line_number: int
    timestamp: TimestampReading | None = None
    exception_name: str | None = None
    context: list[str] = field(default_factory=list)
    is_consequence: bool = False
    tier: int = DIRECT
    code: str | None = None
    exit_code: int | None = None
    occurrences: int = 1
    traceback: Traceback | None = None

    def sort_key(self) -> tuple[bool, int, int]:
        return (self.is_consequence, self.tier, self.line_number)


@dataclass(slots=True)
class LogFindings:
    findings: list[Finding]
    lines_scanned: int
    bytes_scanned: int
    candidate_lines: int
    latest_timestamp: TimestampReading | None
    findings_dropped: int = 0
    kind_counts: dict[str, int] = field(default_factory=dict)

    def primary(self) -> Finding | None:
        """The most diagnostic finding (a consequence only when nothing else was found)."""
        return self.findings[0] if self.findings else None

    def of_kind(self, *kinds: str) -> list[Finding]:
        return [finding for finding in self.findings if finding.kind in kinds]

    def root_causes(self) -> list[Finding]:
        """Findings that are not consequences of another failure, best first."""
        return [finding for finding in self.findings if not finding.is_consequence]


# --------------------------------------------------------------------------------------------
# Timestamps
# --------------------------------------------------------------------------------------------

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


# --------------------------------------------------------------------------------------------
# The combined candidate regex
# --------------------------------------------------------------------------------------------


class _Engine(Protocol):
    name: str

    def find(self, buf: bytes, pos: int, end: int) -> int: ...

    def matches(self, line: bytes) -> bool: ...

    def pattern_hits(self, line: bytes) -> list[int]: ...

    def candidate_positions(self, buf: bytes, begin: int, end: int) -> list[int] | None: ...


class _Re2Engine:
    name = "re2"

    def __init__(self, pattern: bytes, module: Any) -> None:
        options = module.Options()
        options.encoding = module.Options.Encoding.LATIN1  # bytes semantics, like `LC_ALL=C grep`
        options.never_capture = True
        self._regex = module.compile(pattern, options=options)
        # The wrapper's search() builds a match object per call; the underlying RE2 call does not.
        self._raw = getattr(self._regex, "_regexp", None)
        self._unanchored = getattr(getattr(module, "_Anchor", None), "UNANCHORED", None)
        if self._raw is None or self._unanchored is None:
            self._raw = None
        # One pass over a candidate line tells which scan patterns it matched (RE2::Set).
        self._set = module.Set.SearchSet(options)
        for scan_pattern in SCAN_PATTERNS:
            self._set.Add(scan_pattern.encode("ascii"))
        self._set.Compile()

    def find(self, buf: bytes, pos: int, end: int) -> int:
        if self._raw is not None:
            return int(self._raw.Match(self._unanchored, buf, pos, end)[0][0])
        match = self._regex.search(buf, pos, end)
        return -1 if match is None else int(match.start())

    def matches(self, line: bytes) -> bool:
        return self.find(line, 0, len(line)) >= 0

    def pattern_hits(self, line: bytes) -> list[int]:
        hits = self._set.Match(line)  # None when nothing matched
        return list(hits) if hits else []

    def candidate_positions(self, buf: bytes, begin: int, end: int) -> list[int] | None:
        return None  # searched match by match with find()


class _ReEngine:
    name = "re"

    def __init__(self, pattern: bytes) -> None:
        self._regex = re.compile(pattern)
        self._each = [re.compile(scan_pattern.encode("ascii")) for scan_pattern in SCAN_PATTERNS]

    def find(self, buf: bytes, pos: int, end: int) -> int:
        match = self._regex.search(buf, pos, end)
        return -1 if match is None else match.start()

    def matches(self, line: bytes) -> bool:
        return self._regex.search(line) is not None

    def pattern_hits(self, line: bytes) -> list[int]:
        return [index for index, regex in enumerate(self._each) if regex.search(line)]

    def candidate_positions(self, buf: bytes, begin: int, end: int) -> list[int] | None:
        return None


class _HyperscanEngine:
    """Hyperscan (SIMD multi-pattern matching, optional, x86-64) finds every candidate of a block
    in one call; a regex engine still answers the per-line questions."""

    name = "hyperscan"

    def __init__(self, module: Any, lines: _Engine) -> None:
        self._module = module
        self._lines = lines
        database = module.Database(mode=module.HS_MODE_BLOCK)
        expressions = [scan_pattern.encode("ascii") for scan_pattern in SCAN_PATTERNS]
        database.compile(
            expressions=expressions,
            ids=list(range(len(expressions))),
            elements=len(expressions),
            flags=[0] * len(expressions),
        )
        self._database = database
        self._lock = threading.Lock()  # one scratch space per database: one scan at a time

    def find(self, buf: bytes, pos: int, end: int) -> int:
        return self._lines.find(buf, pos, end)

    def matches(self, line: bytes) -> bool:
        return self._lines.matches(line)

    def pattern_hits(self, line: bytes) -> list[int]:
        return self._lines.pattern_hits(line)

    def candidate_positions(self, buf: bytes, begin: int, end: int) -> list[int] | None:
        """The last byte of every match in buf[begin:end], ascending (no pattern spans lines).
        A block with too many matches (a log of nothing but error lines) stops early; the
        scanner then searches the rest of the block with `find()`."""
        positions: list[int] = []
        append = positions.append
        last = begin - 1

        def on_match(_id: int, _start: int, stop: int, _flags: int, _context: object) -> bool:
            append(last + stop)
            return len(positions) >= _MAX_BLOCK_POSITIONS

        with self._lock:
            try:
                self._database.scan(memoryview(buf)[begin:end], match_event_handler=on_match)
            except self._module.ScanTerminated:
                positions.append(_INCOMPLETE)
        positions.sort()
        return positions


def _combined_pattern() -> bytes:
    # Multi-line mode so that `$` ends a line inside a chunk, as it does for grep.
    return ("(?m)" + "|".join(SCAN_PATTERNS)).encode("ascii")


ENGINES = ("auto", "hyperscan", "re2", "re")
_MAX_BLOCK_POSITIONS = 100_000
_INCOMPLETE = -1  # sorts first: marks a position list cut short


def _make_engine(prefer: str = "auto") -> _Engine:
    """`auto`: Hyperscan when installed, else RE2 (a runtime dependency), else the `re` module.
    All give the same results; only their speed differs."""
    if prefer not in ENGINES:
        raise ValueError(f"unknown scan engine {prefer!r}: use one of {', '.join(ENGINES)}")
    pattern = _combined_pattern()
    if prefer == "re":
        return _ReEngine(pattern)
    try:
        import re2  # google-re2: linear-time DFA, several times faster than `re` here
    except ImportError:  # pragma: no cover - google-re2 is a runtime dependency
        lines: _Engine = _ReEngine(pattern)
    else:
        lines = _Re2Engine(pattern, re2)
    if prefer == "re2":
        return lines
    try:
        hyperscan = importlib.import_module("hyperscan")
        return _HyperscanEngine(hyperscan, lines)
    except Exception:  # not installed, or no wheel/CPU support here: the DFA does the work
        if prefer == "hyperscan":
            raise
        return lines


_ENGINES: dict[str, _Engine] = {}


def _engine(name: str) -> _Engine:
    if name not in _ENGINES:
        _ENGINES[name] = _make_engine(name)
    return _ENGINES[name]


# --------------------------------------------------------------------------------------------
# Tracebacks
# --------------------------------------------------------------------------------------------

_HEADER_TEXT = "Traceback (most recent call last):"
_HEADER_BYTES = _HEADER_TEXT.encode("ascii")
_CHAIN_SEPARATORS = (
    "During handling of the above exception, another exception occurred:",
    "The above exception was the direct cause of the following exception:",
)
_FRAME = re.compile(r'^\s*File "(?P<file>[^"]*)", line (?P<line>[0-9]+)(?:, in (?P<func>.*))?\s*$')
_EXCEPTION_LINE = re.compile(
    r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)(?::(?P<msg>.*))?$"
)
_EXCEPTION_SUFFIX = re.compile(
    r"(Error|Exception|Exit|Interrupt|Iteration|Warning|Failure|Fault|Timeout|timeout)$"
)
_CARETS = re.compile(r"^[\s^~]*$")
_LEADING_TS = re.compile(
    r"^\[?[12][0-9]{3}-[01][0-9]-[0-3][0-9][T _-][0-2][0-9]:[0-5][0-9]:[0-6][0-9]"
    r"(?:[.,:][0-9]{1,9}(?:\.[0-9]{1,6})*)?(?:[Zz]|[+-][0-2][0-9]:?[0-5][0-9])?\]?\s?"
)
_EXITCODE_ANY = re.compile(r"exitcode\s*:\s*(-?[0-9]+)")
_SIGNAL_ANY = re.compile(r"Signal ([0-9]+) \(SIG[A-Z]+\) received by PID")
_DECORATION = re.compile(r"^[\s=\-]*$")


def _split_leading_ts(text: str) -> tuple[str, str]:
    match = _LEADING_TS.match(text)
    if match is None:
        return "", text
    return match.group(0), text[match.end() :]


class _Verdict(Enum):
    CONSUMED = 1  # the line belongs to the traceback
    FOREIGN = 2  # an interleaved line from elsewhere: scan it normally, the traceback stays open
    CLOSED = 3  # the traceback ended before this line: scan the line normally


class _TracebackState:
    """Follows one (possibly chained) traceback line by line; holds only a few lines."""

    FRAMES = 1
    AFTER_FINAL = 2
    CHAIN_WAIT = 3

    def __init__(self, header_text: str, line_number: int, timestamp: TimestampReading | None) -> None:
        index = header_text.find(_HEADER_TEXT)
        prefix = header_text[:index] if index > 0 else ""
        self.ts_prefixed = bool(prefix) and bool(_LEADING_TS.match(prefix))
        _, self.prefix = _split_leading_ts(prefix) if self.ts_prefixed else ("", prefix)
        self.header_line = header_text
        self.line_number = line_number
        self.timestamp = timestamp
        self.state = self.FRAMES
        self.frames: deque[Frame] = deque(maxlen=MAX_FRAMES)
        self.frame_lines: deque[str] = deque(maxlen=4)
        self.final: str | None = None
        self.final_line_number: int | None = None
        self.final_timestamp: TimestampReading | None = None
        self.final_adjacent = True
        self.chained: list[str] = []
        self.continuation: list[str] = []
        self.continuation_seen = 0
        self.blank_run = 0
        self.foreign = 0
        self.total = 0

    def _body(self, text: str) -> str | None:
        """The line without its per-line prefix, or None when it comes from another stream."""
        rest = text
        if self.ts_prefixed:
            _, rest = _split_leading_ts(text)
        if self.prefix:
            if not rest.startswith(self.prefix):
                return None
            rest = rest[len(self.prefix) :]
        return rest

    def feed(self, text: str, line_number: int, timestamp: TimestampReading | None) -> _Verdict:
        self.total += 1
        body = self._body(text)
        if body is None:
            if self.state != self.FRAMES:
                return _Verdict.CLOSED
            self.foreign += 1
            return _Verdict.FOREIGN if self.foreign <= MAX_FOREIGN_LINES else _Verdict.CLOSED
        stripped = body.strip()
        if self.state == self.FRAMES:
            return self._feed_frames(body, stripped, line_number, timestamp)
        if self.state == self.AFTER_FINAL:
            return self._feed_after_final(stripped)
        return self._feed_chain_wait(stripped)

    def _feed_frames(
        self, body: str, stripped: str, line_number: int, timestamp: TimestampReading | None
    ) -> _Verdict:
        if not stripped:
            self.blank_run += 1
            return _Verdict.CONSUMED if self.blank_run <= 2 else _Verdict.CLOSED
        if body[0] in " \t":
            self.blank_run = 0
            frame = _FRAME.match(body)
            if frame:
                self.frames.append(
                    Frame(
                        file=frame.group("file"),
                        line=int(frame.group("line")),
                        function=(frame.group("func") or "").strip() or None,
                    )
                )
                self.frame_lines.append(body.rstrip())
            elif not _CARETS.match(body) and not stripped.startswith("[Previous line repeated"):
                if self.frames and self.frames[-1].code is None:
                    last = self.frames[-1]
                    self.frames[-1] = Frame(last.file, last.line, last.function, stripped)
                self.frame_lines.append(body.rstrip())
            self.final_adjacent = True
            return _Verdict.CONSUMED
        if stripped.startswith(_HEADER_TEXT):
            return _Verdict.CLOSED  # another traceback starts: this one was cut off
        exception = _EXCEPTION_LINE.match(stripped)
        if exception and (self.final_adjacent or _EXCEPTION_SUFFIX.search(exception.group("name"))):
            self.final = stripped
            self.final_line_number = line_number
            self.final_timestamp = timestamp
            self.state = self.AFTER_FINAL
            self.blank_run = 0
            return _Verdict.CONSUMED
        self.final_adjacent = False
        self.foreign += 1
        return _Verdict.FOREIGN if self.foreign <= MAX_FOREIGN_LINES else _Verdict.CLOSED

    def _feed_after_final(self, stripped: str) -> _Verdict:
        if not stripped:
            self.blank_run += 1
            return _Verdict.CONSUMED if self.blank_run <= 2 else _Verdict.CLOSED
        if stripped in _CHAIN_SEPARATORS:
            self.state = self.CHAIN_WAIT
            self.blank_run = 0
            return _Verdict.CONSUMED
        if (
            self.blank_run == 0
            and self.continuation_seen < MAX_CONTINUATION_LINES
            and not stripped.startswith(_HEADER_TEXT)
            and not self._starts_new_record(stripped)
        ):
            self.continuation_seen += 1
            if len(self.continuation) < MAX_CONTINUATION_LINES and not _DECORATION.match(stripped):
                self.continuation.append(stripped)
            return _Verdict.CONSUMED
        return _Verdict.CLOSED

    def _starts_new_record(self, stripped: str) -> bool:
        """A line that opens a new log record (its own timestamp) is not part of the message."""
        if self.ts_prefixed:
            return False
        if _LEADING_TS.match(stripped):
            return True
        glog = _GLOG_TS.match(stripped)
        return glog is not None and glog.start() == 0

    def _feed_chain_wait(self, stripped: str) -> _Verdict:
        if not stripped:
            self.blank_run += 1
            return _Verdict.CONSUMED if self.blank_run <= 2 else _Verdict.CLOSED
        if stripped.startswith(_HEADER_TEXT):
            if self.final is not None:
                self.chained.append(self.final)
            self.final = None
            self.final_adjacent = True
            self.frames.clear()
            self.frame_lines.clear()
            self.continuation = []
            self.continuation_seen = 0
            self.blank_run = 0
            self.state = self.FRAMES
            return _Verdict.CONSUMED
        return _Verdict.CLOSED

    def result(self) -> Traceback:
        name: str | None = None
        message: str | None = None
        if self.final is not None:
            match = _EXCEPTION_LINE.match(self.final)
            if match:
                name = match.group("name")
                message = (match.group("msg") or "").strip() or None
        return Traceback(
            final_line=self.final,
            exception_name=name,
            message=message,
            frames=list(self.frames),
            chained=list(self.chained),
            continuation=list(self.continuation),
            truncated=self.final is None,
        )


# --------------------------------------------------------------------------------------------
# The scanner
# --------------------------------------------------------------------------------------------

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


def _group_int(pattern: re.Pattern[str] | None, text: str) -> int | None:
    if pattern is None:
        return None
    match = pattern.search(text)
    if match is None:
        return None
    try:
        return int(match.group(1))
    except (IndexError, TypeError, ValueError):
        return None


def _group_text(pattern: re.Pattern[str] | None, text: str) -> str | None:
    if pattern is None:
        return None
    match = pattern.search(text)
    if match is None:
        return None
    return match.group(1) if match.groups() else match.group(0)


def _count_newlines(buf: bytes, start: int, end: int) -> int:
    return buf.count(b"\n", start, end)


class LogScanner:
    """Incremental scanner: `feed()` bytes as they arrive, `finish()` for the findings."""

    def __init__(self, *, engine: str = "auto") -> None:
        self._engine = _engine(engine)
        self._carry = b""
        self._lines_done = 0
        self._bytes = 0
        self._candidates = 0
        self._partial_line_counted = False
        self._partial_line_started = False
        self._findings: dict[tuple[str, str], Finding] = {}
        self._dropped = 0
        self._kind_counts: dict[str, int] = {}
        self._latest: TimestampReading | None = None
        self._year_hint: int | None = None
        self._last_consequence_line: dict[str, int] = {}
        self._tb: _TracebackState | None = None
        self._shapes: dict[bytes, tuple[LineRule | None, tuple[str, str] | None]] = {}
        self._finished: LogFindings | None = None

    @property
    def engine_name(self) -> str:
        return self._engine.name

    # -- input ---------------------------------------------------------------------------------

    def feed(self, data: bytes) -> None:
        if not data:
            return
        data = bytes(data)
        self._bytes += len(data)
        start = 0
        if self._carry:
            # Finish the carried line with a small copy; the chunk itself is scanned in place.
            newline = data.find(b"\n")
            if newline < 0:
                self._hold(self._carry + data)
                return
            head = self._carry + data[: newline + 1]
            self._carry = b""
            self._scan_block(head, 0, len(head))
            start = newline + 1
        end = data.rfind(b"\n") + 1
        if end <= start:
            self._hold(data[start:])
            return
        self._scan_block(data, start, end)
        self._carry = data[end:]

    def _hold(self, unfinished: bytes) -> None:
        """Keep an unfinished line for the next chunk; a huge one is scanned in parts."""
        if len(unfinished) > DEFAULT_CHUNK_BYTES:
            self._scan_partial(unfinished)
        else:
            self._carry = unfinished

    def finish(self) -> LogFindings:
        if self._finished is not None:
            return self._finished
        if self._carry:
            self._scan_block(self._carry, 0, len(self._carry))
            self._lines_done += 1  # the last line had no newline
            self._carry = b""
        elif self._partial_line_started:
            self._lines_done += 1
        if self._tb is not None:
            self._close_traceback()
        findings = sorted(self._findings.values(), key=Finding.sort_key)
        self._finished = LogFindings(
            findings=findings[:MAX_FINDINGS],
            lines_scanned=self._lines_done,
            bytes_scanned=self._bytes,
            candidate_lines=self._candidates,
            latest_timestamp=self._latest,
            findings_dropped=self._dropped + max(0, len(findings) - MAX_FINDINGS),
            kind_counts=dict(self._kind_counts),
        )
        return self._finished

    # -- blocks of complete lines --------------------------------------------------------------

    def _positions(self, buf: bytes, pos: int, end: int) -> tuple[list[int] | None, bool]:
        """The engine's candidate positions in buf[pos:end], and whether the list is complete."""
        positions = self._engine.candidate_positions(buf, pos, end) if pos < end else []
        if positions and positions[0] == _INCOMPLETE:
            positions.pop(0)
            return positions, False
        return positions, True

    def _next_candidate(
        self, buf: bytes, pos: int, end: int, positions: list[int] | None, index: int, complete: bool
    ) -> tuple[int, list[int] | None, int]:
        """(the next candidate at or after `pos` or -1, the positions still usable, their index)."""
        if positions is not None:
            index = bisect_left(positions, pos, index)
            if index >= len(positions) and not complete:
                positions = None  # the list was cut short: search the rest match by match
        if positions is None:
            return self._engine.find(buf, pos, end), None, index
        return (positions[index] if index < len(positions) else -1), positions, index

    def _count_candidate(self, *, at_block_start: bool, first_line_partial: bool) -> bool:
        """Count a candidate line once; whether the block's first line is still to be seen whole."""
        if at_block_start and first_line_partial:
            # the tail of a very long line already scanned in parts
            if not self._partial_line_counted:
                self._candidates += 1
            return False
        self._candidates += 1
        return first_line_partial

    def _scan_block(self, buf: bytes, begin: int, end: int) -> None:
        """Scan buf[begin:end]: whole lines (the last one may lack its newline at the end of the log)."""
        pos = begin
        first_line_partial = self._partial_line_started
        if self._year_hint is None:
            self._read_head_year(buf, begin, end)
        if self._tb is not None:
            pos = self._walk_traceback(buf, pos, end)
        positions, complete = self._positions(buf, pos, end)
        index = 0
        while pos < end:
            start, positions, index = self._next_candidate(buf, pos, end, positions, index, complete)
            if start < 0:
                break
            newline_before = buf.rfind(b"\n", pos, start)
            line_start = pos if newline_before < 0 else newline_before + 1
            line_end = buf.find(b"\n", start, end)
            if line_end < 0:
                line_end = end
            self._lines_done += _count_newlines(buf, pos, line_start)
            first_line_partial = self._count_candidate(
                at_block_start=line_start == begin, first_line_partial=first_line_partial
            )
            raw = buf[line_start:line_end]
            self._handle_line(raw, start - line_start, self._lines_done + 1)
            pos = line_end + 1
            if pos <= end:
                self._lines_done += 1
            if self._tb is not None:
                pos = self._walk_traceback(buf, pos, end)
        if pos < end:
            self._lines_done += _count_newlines(buf, pos, end)
        self._partial_line_started = False
        self._partial_line_counted = False
        self._read_tail_timestamps(buf, begin, end)

    def _scan_partial(self, buf: bytes) -> None:
        """A line longer than a chunk: scan what we have, keep an overlap, never hold it all."""
        if self._tb is not None:
            self._close_traceback()
        limit = len(buf) - _PARTIAL_OVERLAP
        start = self._engine.find(buf, 0, limit)
        if start >= 0:
            if not self._partial_line_counted:
                self._candidates += 1
                self._partial_line_counted = True
            self._handle_line(
                buf[: start + MAX_LINE_CHARS], start, self._lines_done + 1, open_tracebacks=False
            )
        self._partial_line_started = True
        self._carry = buf[limit:]

    def _walk_traceback(self, buf: bytes, pos: int, end: int) -> int:
        """Follow an open traceback line by line; return where the regex scan resumes."""
        while self._tb is not None and pos < end:
            newline = buf.find(b"\n", pos, end)
            line_end = end if newline < 0 else newline
            raw = buf[pos:line_end]
            line_number = self._lines_done + 1
            text = _cut_line(raw, 0)
            verdict = self._tb.feed(text, line_number, self._timestamp(text))
            if verdict is _Verdict.CLOSED:
                self._close_traceback()
                return pos
            if self._engine.matches(raw):
                self._candidates += 1
                if verdict is _Verdict.FOREIGN:
                    match_at = self._engine.find(raw, 0, len(raw))
                    self._handle_line(raw, max(match_at, 0), line_number, open_tracebacks=False)
            pos = line_end + 1
            if pos <= end:
                self._lines_done += 1
            if self._tb is not None and self._tb.total > 5000:
                self._close_traceback()
        return pos

    # -- single lines --------------------------------------------------------------------------

    def _timestamp(self, text: str) -> TimestampReading | None:
        reading = parse_timestamp(text, year_hint=self._year_hint)
        if reading is not None:
            if reading.text[:1].isdigit() and len(reading.text) >= 10 and reading.text[4] == "-":
                self._year_hint = reading.value.year
            self._note_timestamp(reading)
        return reading

    def _note_timestamp(self, reading: TimestampReading) -> None:
        if self._latest is None or reading.sort_key() > self._latest.sort_key():
            self._latest = reading

    def _handle_line(
        self, raw: bytes, offset: int, line_number: int, *, open_tracebacks: bool = True
    ) -> None:
        # Lines that differ only in their digits (times, ranks, pids, sizes) are one "shape": a
        # shape seen before is neither decoded nor classified again, only counted.
        header = _HEADER_BYTES in raw
        shape = b"" if header else raw.translate(None, _DIGIT_BYTES)
        known = None if header else self._shapes.get(shape)
        if known is not None:
            known_rule, known_key = known
            if known_rule is None or known_key is None:
                return
            is_consequence = known_rule.is_consequence or self._follows_consequence(known_rule, line_number)
            if self._repeat(known_rule.kind, is_consequence, line_number, known_key):
                return
        text = _cut_line(raw, offset)
        if open_tracebacks and _HEADER_TEXT in text:
            self._tb = _TracebackState(text, line_number, self._timestamp(text))
            return
        rule, cacheable = self._classify_line(text)
        key = _dedupe_key(rule.name, text) if rule is not None else None
        if cacheable and not header:
            if len(self._shapes) >= _CLASS_CACHE_SIZE:
                self._shapes.clear()
            self._shapes[shape] = (rule, key)
        if rule is None or key is None:
            return
        is_consequence = rule.is_consequence or self._follows_consequence(rule, line_number)
        if known is None and self._repeat(rule.kind, is_consequence, line_number, key):
            return  # a repeat only counts: no need to read its time or build a finding
        line = text.strip()
        self._add(
            Finding(
                kind=rule.kind,
                rule=rule.name,
                line=line,
                line_number=line_number,
                timestamp=self._timestamp(text),
                context=[line],
                is_consequence=is_consequence,
                tier=rule.tier,
                code=_group_text(rule.compiled_code, text),
                exit_code=_group_int(rule.compiled_exit, text),
            ),
            key,
        )

    def _classify(self, text: str) -> LineRule | None:
        return self._classify_line(text)[0]

    def _classify_line(self, text: str) -> tuple[LineRule | None, bool]:
        """The first row (in table order) among those whose candidate patterns the line matched,
        and whether lines of the same shape (other digits) are sure to be classified alike."""
        if any(never in text for never in NEVER_FAILURE):
            return None, True
        hits = self._engine.pattern_hits(text.encode("utf-8", errors="surrogateescape"))
        rows = sorted({row for hit in hits for row in RULES_FOR_PATTERN[hit]})
        cacheable = not any(LINE_RULES[row].digit_sensitive for row in rows)
        for row in rows:
            if LINE_RULES[row].compiled.search(text):
                return LINE_RULES[row], cacheable
        return None, cacheable

    def _follows_consequence(self, rule: LineRule, line_number: int) -> bool:
        for kind in rule.consequence_after:
            seen = self._last_consequence_line.get(kind)
            if seen is not None and line_number - seen <= CONSEQUENCE_WINDOW_LINES:
                return True
        return False

    def _add_truncated_traceback(self, state: _TracebackState, parsed: Traceback) -> None:
        """A traceback cut before its exception line: kept with its last frame as the key line."""
        key_line = state.frame_lines[-1].strip() if state.frame_lines else _HEADER_TEXT
        finding = Finding(
            kind="traceback",
            rule="python_traceback_truncated",
            line=key_line,
            line_number=state.line_number,
            timestamp=state.timestamp,
            context=[line.rstrip() for line in state.frame_lines][-MAX_CONTEXT_LINES:],
            traceback=parsed,
        )
        self._add(finding, ("python_traceback_truncated", _DIGITS.sub("#", key_line)[:300]), counted=False)

    def _direct_rule(self, final_line: str, continuation: list[str]) -> LineRule | None:
        """The row that names the exception's cause directly: the exception line's, else one of the
        first three lines after it when the exception line's row is generic or absent."""
        rule = self._classify(final_line)
        if rule is None or rule.tier == GENERIC:
            for extra in continuation[:3]:
                candidate = self._classify(extra)
                if candidate is not None and candidate.tier == DIRECT:
                    rule = candidate
                    break
        return rule if rule is not None and rule.tier == DIRECT else None

    def _close_traceback(self) -> None:
        state = self._tb
        self._tb = None
        if state is None:
            return
        parsed = state.result()
        if parsed.final_line is None:
            self._add_truncated_traceback(state, parsed)
            return
        rule = self._direct_rule(parsed.final_line, parsed.continuation)
        exit_code, code = _traceback_codes(rule, parsed.final_line, parsed.continuation)
        line_number = state.final_line_number or state.line_number
        context = [line.rstrip() for line in list(state.frame_lines)[-2:]]
        context.append(parsed.final_line)
        context.extend(parsed.continuation[: MAX_CONTEXT_LINES - len(context)])
        kind: FindingKind = rule.kind if rule is not None else "traceback"
        finding = Finding(
            kind=kind,
            rule=rule.name if rule is not None else "python_traceback",
            line=parsed.final_line,
            line_number=line_number,
            timestamp=state.final_timestamp or state.timestamp,
            exception_name=parsed.exception_name,
            context=context[:MAX_CONTEXT_LINES],
            is_consequence=bool(rule is not None and rule.is_consequence),
            code=code,
            exit_code=exit_code,
            traceback=parsed,
        )
        if rule is not None and not finding.is_consequence:
            finding.is_consequence = self._follows_consequence(rule, line_number)
        self._add(
            finding, ("traceback:" + finding.rule, _DIGITS.sub("#", parsed.final_line)[:300]), counted=False
        )

    def _repeat(self, kind: str, is_consequence: bool, line_number: int, key: tuple[str, str]) -> bool:
        """Count one more line of a kind; True when it repeats a finding already kept."""
        self._kind_counts[kind] = self._kind_counts.get(kind, 0) + 1
        if is_consequence:
            self._last_consequence_line[kind] = line_number
        existing = self._findings.get(key)
        if existing is None:
            return False
        existing.occurrences += 1
        return True

    def _add(self, finding: Finding, key: tuple[str, str], *, counted: bool = True) -> None:
        if not counted and self._repeat(finding.kind, finding.is_consequence, finding.line_number, key):
            return
        self._findings[key] = finding
        if len(self._findings) > 2 * MAX_FINDINGS:
            ranked = sorted(self._findings.items(), key=lambda item: item[1].sort_key())
            self._dropped += len(ranked) - MAX_FINDINGS
            self._findings = dict(ranked[:MAX_FINDINGS])

    def _read_head_year(self, buf: bytes, begin: int, end: int) -> None:
        """glog/torch times have no year: take it from the first dated lines of the log."""
        line_start = begin
        for _ in range(_TAIL_LINES):
            if line_start >= end:
                return
            newline = buf.find(b"\n", line_start, end)
            line_end = end if newline < 0 else newline
            reading = parse_timestamp(
                _decode(buf[line_start : min(line_end, line_start + _TIMESTAMP_HEAD_CHARS)])
            )
            if reading is not None:
                self._year_hint = reading.value.year
                return
            line_start = line_end + 1

    def _read_tail_timestamps(self, buf: bytes, begin: int, end: int) -> None:
        """The newest time of a block: logs are appended in time order, so read its last lines."""
        line_end = end
        found = 0
        for _ in range(_TAIL_LINES):
            if line_end <= begin:
                break
            if buf[line_end - 1 : line_end] == b"\n":
                line_end -= 1
            newline = buf.rfind(b"\n", begin, line_end)
            line_start = begin if newline < 0 else newline + 1
            head = buf[line_start : min(line_end, line_start + _TIMESTAMP_HEAD_CHARS)]
            if head:
                text = _decode(head)
                if "\r" in text:
                    text = text.rsplit("\r", 1)[-1]
                if self._timestamp(text) is not None:
                    found += 1
                    if found >= 2:
                        break
            line_end = line_start
            if line_end == begin:
                break


# --------------------------------------------------------------------------------------------
# Public entry points
# --------------------------------------------------------------------------------------------


def scan_stream(
    stream: IO[bytes] | Any, *, chunk_size: int = DEFAULT_CHUNK_BYTES, engine: str = "auto"
) -> LogFindings:
    """Scan a binary stream (anything with `read(n) -> bytes`) chunk by chunk."""
    scanner = LogScanner(engine=engine)
    read = stream.read
    while True:
        data = read(chunk_size)
        if not data:
            break
        if isinstance(data, str):
            data = data.encode("utf-8", errors="replace")
        scanner.feed(data)
    return scanner.finish()


def scan_text(text: str, *, chunk_size: int = DEFAULT_CHUNK_BYTES, engine: str = "auto") -> LogFindings:
    """Scan a log held in memory (e.g. a ModelArts log preview or a task message)."""
    return scan_stream(io.BytesIO(_encode(text)), chunk_size=chunk_size, engine=engine)


def _encode(text: str) -> bytes:
    try:
        return text.encode("utf-8", errors="surrogateescape")
    except UnicodeEncodeError:  # lone surrogates that did not come from undecodable bytes
        return text.encode("utf-8", errors="replace")


class _LinesReader:
    """A read(n) view over an iterable of lines, so that lines are chunked exactly as a stream."""

    def __init__(self, lines: Iterable[str | bytes]) -> None:
        self._lines: Iterator[str | bytes] = iter(lines)
        self._buffer = bytearray()
        self._exhausted = False

    def read(self, size: int) -> bytes:
        while len(self._buffer) < size and not self._exhausted:
            try:
                line = next(self._lines)
            except StopIteration:
                self._exhausted = True
                break
            raw = line if isinstance(line, bytes) else _encode(line)
            self._buffer += raw
            if not raw.endswith(b"\n"):
                self._buffer += b"\n"
        data = bytes(self._buffer[:size])
        del self._buffer[:size]
        return data


def scan_lines(
    lines: Iterable[str | bytes], *, chunk_size: int = DEFAULT_CHUNK_BYTES, engine: str = "auto"
) -> LogFindings:
    """Scan lines (with or without their line ends) as one log."""
    return scan_stream(_LinesReader(lines), chunk_size=chunk_size, engine=engine)


def parse_traceback(text: str) -> Traceback | None:
    """The most diagnostic Python traceback in a text (e.g. a task message), or None."""
    if not text or _HEADER_TEXT not in text:
        return None
    for finding in scan_text(text).findings:
        if finding.traceback is not None:
            return finding.traceback
    return None


def _traceback_codes(
    rule: LineRule | None, final_line: str, continuation: list[str]
) -> tuple[int | None, str | None]:
    """(exit code, error code) of a traceback: its row's groups on the exception line, then an exit
    code or a signal (as a negative code) named on the lines after it."""
    exit_code = None
    code = None
    if rule is not None:
        exit_code = _group_int(rule.compiled_exit, final_line)
        code = _group_text(rule.compiled_code, final_line)
    for extra in continuation:
        if exit_code is None:
            exit_code = _group_int(_EXITCODE_ANY, extra)
        if exit_code is None:
            signal_number = _group_int(_SIGNAL_ANY, extra)
            exit_code = -signal_number if signal_number is not None else None
    return exit_code, code

"""A Python traceback followed line by line, from its header to the exception that ended it."""

from __future__ import annotations

import re
from collections import deque
from enum import Enum

from diagnosis.logs.rules import LineRule
from diagnosis.logs.scan.limits import MAX_CONTINUATION_LINES, MAX_FOREIGN_LINES, MAX_FRAMES
from diagnosis.logs.scan.results import Frame, TimestampReading, Traceback
from diagnosis.logs.scan.timestamps import _GLOG_TS

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

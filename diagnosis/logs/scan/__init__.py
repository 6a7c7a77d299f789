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

The package: `limits` (the bounds), `results` (what a scan returns), `timestamps`, `engines` (the
combined pattern and its three engines), `tracebacks` (following one traceback), `lines` (decoding
and folding a matched line) and `scanner` (the incremental scanner); this module holds the entry
points.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from typing import IO, Any

from diagnosis.logs.rules import SCAN_PATTERNS, FindingKind
from diagnosis.logs.scan.limits import DEFAULT_CHUNK_BYTES, MAX_FINDINGS, MAX_LINE_CHARS
from diagnosis.logs.scan.results import Finding, Frame, LogFindings, TimestampReading, Traceback
from diagnosis.logs.scan.scanner import LogScanner
from diagnosis.logs.scan.timestamps import parse_timestamp
from diagnosis.logs.scan.tracebacks import _HEADER_TEXT

__all__ = [
    "DEFAULT_CHUNK_BYTES",
    "MAX_FINDINGS",
    "MAX_LINE_CHARS",
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


def scan_stream(
    stream: IO[bytes] | Any,
    *,
    chunk_size: int = DEFAULT_CHUNK_BYTES,
    engine: str = "auto",
    expected_bytes: int | None = None,
) -> LogFindings:
    """Scan a binary stream (anything with `read(n) -> bytes`) chunk by chunk; `expected_bytes`:
    its size, when known beforehand (it only chooses the engine, never the results)."""
    scanner = LogScanner(engine=engine, expected_bytes=expected_bytes)
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
    data = _encode(text)
    return scan_stream(io.BytesIO(data), chunk_size=chunk_size, engine=engine, expected_bytes=len(data))


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

"""The combined candidate pattern, run by Hyperscan, google-re2 or `re` with the same results."""

from __future__ import annotations

import importlib
import re
import threading
from typing import Any, Protocol

from diagnosis.logs.rules import SCAN_PATTERNS


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

# Compiling the Hyperscan database takes about 30 ms, what the line engine needs to scan a few
# hundred KiB: a text known to be shorter than this (a log preview, a task message) is scanned by
# the line engine under `auto`, unless the database is already built (a long-lived process).
SHORT_TEXT_BYTES = 256 * 1024


def _engine(name: str, *, expected_bytes: int | None = None) -> _Engine:
    """The engine `name`, made once per process. `expected_bytes`: how much text it will scan,
    when known beforehand."""
    if (
        name == "auto"
        and name not in _ENGINES
        and expected_bytes is not None
        and expected_bytes < SHORT_TEXT_BYTES
    ):
        name = "re2"  # the line engine Hyperscan itself would use (re2, else `re`)
    if name not in _ENGINES:
        _ENGINES[name] = _make_engine(name)
    return _ENGINES[name]


def warm_up() -> None:
    """Build the `auto` engine now (a process that will scan many logs)."""
    _engine("auto")

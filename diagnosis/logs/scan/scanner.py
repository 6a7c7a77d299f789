"""The incremental scanner: bytes in, chunk by chunk, findings out."""

from __future__ import annotations

from bisect import bisect_left

from diagnosis.logs.rules import (
    DIRECT,
    GENERIC,
    LINE_RULES,
    NEVER_FAILURE,
    RULES_FOR_PATTERN,
    FindingKind,
    LineRule,
)
from diagnosis.logs.scan.engines import _INCOMPLETE, _engine
from diagnosis.logs.scan.limits import (
    _CLASS_CACHE_SIZE,
    _DIGIT_BYTES,
    _PARTIAL_OVERLAP,
    _TAIL_LINES,
    _TIMESTAMP_HEAD_CHARS,
    CONSEQUENCE_WINDOW_LINES,
    DEFAULT_CHUNK_BYTES,
    MAX_CONTEXT_LINES,
    MAX_FINDINGS,
    MAX_LINE_CHARS,
)
from diagnosis.logs.scan.lines import _DIGITS, _count_newlines, _cut_line, _decode, _dedupe_key
from diagnosis.logs.scan.results import Finding, LogFindings, TimestampReading, Traceback
from diagnosis.logs.scan.timestamps import parse_timestamp
from diagnosis.logs.scan.tracebacks import (
    _HEADER_BYTES,
    _HEADER_TEXT,
    _group_int,
    _group_text,
    _traceback_codes,
    _TracebackState,
    _Verdict,
)


class LogScanner:
    """Incremental scanner: `feed()` bytes as they arrive, `finish()` for the findings."""

    def __init__(self, *, engine: str = "auto", expected_bytes: int | None = None) -> None:
        # `expected_bytes`: the size of the whole text, when known before it is fed (a short text
        # is then not worth compiling the Hyperscan database for; see engines.SHORT_TEXT_BYTES).
        self._engine = _engine(engine, expected_bytes=expected_bytes)
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

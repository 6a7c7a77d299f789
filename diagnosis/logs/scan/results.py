"""What a scan finds: findings, tracebacks, frames and the log's timestamps."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from diagnosis.logs.rules import (
    DIRECT,
    FindingKind,
)


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

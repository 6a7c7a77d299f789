"""Shared pieces of the benchmarks: call-round tracking and a strictly sequential source."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from diagnosis.evidence.answer import Answer


@dataclass
class CallSpan:
    op: str
    started: float
    ended: float = 0.0


@dataclass
class RoundTracker:
    """Records when each call starts and ends; a round is a wave of calls that overlap in time.

    A call that starts while no other call is in flight opens a new round, so the count is the
    number of dependent steps the workflow waited through.
    """

    spans: list[CallSpan] = field(default_factory=list)
    in_flight: int = 0
    rounds: int = 0

    def start(self, op: str) -> CallSpan:
        if self.in_flight == 0:
            self.rounds += 1
        self.in_flight += 1
        span = CallSpan(op=op, started=time.perf_counter())
        self.spans.append(span)
        return span

    def end(self, span: CallSpan) -> None:
        span.ended = time.perf_counter()
        self.in_flight -= 1


class TrackedSource:
    """Wraps a source: tracks rounds, and with `sequential=True` lets only one call run at a time."""

    def __init__(self, inner: Any, *, tracker: RoundTracker, sequential: bool = False) -> None:
        self.inner = inner
        self.tracker = tracker
        self._lock = asyncio.Lock() if sequential else None

    @property
    def calls(self) -> list[str]:
        calls: list[str] = self.inner.calls
        return calls

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def fetch(self, op: str, /, *, variant: str | None = None, **args: Any) -> Answer:
        if self._lock is None:
            return await self._tracked(op, variant, args)
        async with self._lock:
            return await self._tracked(op, variant, args)

    async def _tracked(self, op: str, variant: str | None, args: dict[str, Any]) -> Answer:
        span = self.tracker.start(op)
        try:
            answer: Answer = await self.inner.fetch(op, variant=variant, **args)
            return answer
        finally:
            self.tracker.end(span)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


@dataclass(frozen=True)
class Check:
    """One target, measured in this run: `measured` against `limit` (a ceiling unless `at_least`)."""

    name: str
    measured: float
    limit: float
    unit: str = ""
    at_least: bool = False  # the target is a floor (measured >= limit), not a ceiling

    @property
    def passed(self) -> bool:
        return self.measured >= self.limit if self.at_least else self.measured <= self.limit

    def line(self) -> str:
        verdict = "PASS" if self.passed else "MISS"
        unit = f" {self.unit}" if self.unit else ""
        relation = ">=" if self.at_least else "<="
        return (
            f"  [{verdict}] {self.name}: {self.measured:.3g}{unit} (target {relation} {self.limit:.3g}{unit})"
        )


@dataclass
class BenchResult:
    """What one benchmark measured: its printed figures and its target checks."""

    title: str
    checks: list[Check] = field(default_factory=list)
    figures: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(check.passed for check in self.checks)

    def print_checks(self) -> None:
        print(f"\nTargets ({self.title}):")
        for check in self.checks:
            print(check.line())
        for note in self.notes:
            print(f"  note: {note}")


def project_root() -> Path:
    return Path(__file__).resolve().parent.parent


def worked_examples_dir() -> Path:
    """The worked examples of the contracts (bundle, diagnosis and report of each)."""
    return project_root() / "diagnosis" / "schemas" / "examples"

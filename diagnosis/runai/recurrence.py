"""Distinct failures of one category inside the lookback.

Signals of the category read from the workload's events and history are points on a timeline.
Points less than 120 s apart (each within 120 s of the previous) are one occurrence: the
`PhaseUpdate` to a failed/stopped phase, the events of that termination, several pods of one gang.
A failed `PhaseUpdate` only joins an occurrence, it never makes one alone. The same event id seen
in the events endpoint and in history is one event. The current failure counts once: through its
own signals when the current run has some, else as an occurrence of its own (history may lack it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TypeVar

from diagnosis.models import Category
from diagnosis.runai.rules import Signal

CHAIN_GAP = timedelta(seconds=120)
PointT = TypeVar("PointT")
FAILED_PHASES = frozenset({"failed", "crashed", "stopped", "error"})


@dataclass
class Occurrence:
    start: datetime
    end: datetime
    signals: list[Signal] = field(default_factory=list)
    includes_current: bool = False


@dataclass
class RecurrenceCount:
    count: int
    occurrences: list[Occurrence]
    current_inside: bool


@dataclass(frozen=True)
class _Point:
    at: datetime
    maker: bool
    signal: Signal | None


_TIMELINE_SOURCES = ("get_workload_events", "get_workload_history")


def _signal_point(signal: Signal, category: Category, seen_event_ids: set[str]) -> _Point | None:
    """A failed `PhaseUpdate` joins an occurrence; a cause of the category makes one (once per
    event id); anything else is not on the timeline."""
    observation = signal.observation
    if observation.at is None or observation.source not in _TIMELINE_SOURCES:
        return None
    if observation.kind == "phase_update":
        failed = observation.reason.strip().lower() in FAILED_PHASES
        return _Point(observation.at, maker=False, signal=signal) if failed else None
    if signal.category != category or signal.rule.role != "cause":
        return None
    if observation.event_id:
        if observation.event_id in seen_event_ids:
            return None
        seen_event_ids.add(observation.event_id)
    return _Point(observation.at, maker=True, signal=signal)


def _current_point(
    points: list[_Point], current_failure_at: datetime, current_run_start: datetime | None
) -> _Point:
    """The current failure makes an occurrence of its own only when no signal of the category
    belongs to the current run (history may lack it); otherwise it only joins, like the failed
    PhaseUpdate it usually is."""
    in_history = any(
        point.maker
        and (current_run_start is None or point.at >= current_run_start)
        and point.at <= current_failure_at + CHAIN_GAP
        for point in points
    )
    return _Point(current_failure_at, maker=not in_history, signal=None)


def _occurrence(chain: list[_Point], *, cut: datetime, now: datetime) -> Occurrence | None:
    """A chain with a point that makes an occurrence, the first of them inside [cut, now]."""
    makers = [point for point in chain if point.maker]
    if not makers or not cut <= makers[0].at <= now:
        return None
    return Occurrence(
        start=chain[0].at,
        end=chain[-1].at,
        signals=[point.signal for point in chain if point.signal is not None],
        includes_current=any(point.signal is None for point in chain),
    )


def count_failures(
    signals: list[Signal],
    *,
    category: Category,
    current_failure_at: datetime | None,
    current_run_start: datetime | None = None,
    now: datetime,
    lookback: timedelta,
) -> RecurrenceCount:
    """Occurrences of `category` whose failure time falls in [now - lookback, now]."""
    seen_event_ids: set[str] = set()
    # History first: when an event is in both the events endpoint and history, history is cited.
    ordered = sorted(signals, key=lambda signal: signal.observation.source != "get_workload_history")
    points = [
        point for signal in ordered if (point := _signal_point(signal, category, seen_event_ids)) is not None
    ]
    if current_failure_at is not None:
        points.append(_current_point(points, current_failure_at, current_run_start))
    points.sort(key=lambda point: (point.at, not point.maker))

    cut = now - lookback
    occurrences = [
        occurrence
        for chain in chained(points, at=lambda point: point.at)
        if (occurrence := _occurrence(chain, cut=cut, now=now)) is not None
    ]
    current_inside = current_failure_at is None or cut <= current_failure_at <= now
    return RecurrenceCount(count=len(occurrences), occurrences=occurrences, current_inside=current_inside)


def chained(points: Sequence[PointT], *, at: Callable[[PointT], datetime]) -> list[list[PointT]]:
    """Points in time order, grouped into occurrences: each point less than CHAIN_GAP after the
    previous one belongs to the same termination (its events, its PhaseUpdate, a gang's pods)."""
    chains: list[list[PointT]] = []
    for point in points:
        if chains and at(point) - at(chains[-1][-1]) < CHAIN_GAP:
            chains[-1].append(point)
        else:
            chains.append([point])
    return chains

"""Distinct failures of one category inside the lookback (rulings G8, R11).

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
    points: list[_Point] = []
    seen_event_ids: set[str] = set()
    # History first: when an event is in both the events endpoint and history, history is cited.
    ordered = sorted(signals, key=lambda signal: signal.observation.source != "get_workload_history")
    for signal in ordered:
        observation = signal.observation
        if observation.at is None or observation.source not in (
            "get_workload_events",
            "get_workload_history",
        ):
            continue
        if observation.kind == "phase_update":
            if observation.reason.strip().lower() in FAILED_PHASES:
                points.append(_Point(observation.at, maker=False, signal=signal))
            continue
        if signal.category != category or signal.rule.role != "cause":
            continue
        if observation.event_id:
            if observation.event_id in seen_event_ids:
                continue
            seen_event_ids.add(observation.event_id)
        points.append(_Point(observation.at, maker=True, signal=signal))
    if current_failure_at is not None:
        # The current failure makes an occurrence of its own only when no signal of the category
        # belongs to the current run (history may lack it); otherwise it only joins, like the
        # failed PhaseUpdate it usually is.
        in_history = any(
            point.maker
            and (current_run_start is None or point.at >= current_run_start)
            and point.at <= current_failure_at + CHAIN_GAP
            for point in points
        )
        points.append(_Point(current_failure_at, maker=not in_history, signal=None))
    points.sort(key=lambda point: (point.at, not point.maker))

    chains = chained(points, at=lambda point: point.at)

    cut = now - lookback
    occurrences: list[Occurrence] = []
    for chain in chains:
        makers = [point for point in chain if point.maker]
        if not makers or not cut <= makers[0].at <= now:
            continue
        occurrences.append(
            Occurrence(
                start=chain[0].at,
                end=chain[-1].at,
                signals=[point.signal for point in chain if point.signal is not None],
                includes_current=any(point.signal is None for point in chain),
            )
        )
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

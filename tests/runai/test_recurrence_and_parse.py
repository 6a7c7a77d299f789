"""Recurrence counting (G8, R11) and the lenient wire views."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from diagnosis.runai import parse, quantities
from diagnosis.runai.recurrence import count_failures
from diagnosis.runai.rules import classify_all
from diagnosis.runai.signals import Observation

NOW = datetime(2026, 5, 6, 9, 0, tzinfo=UTC)
WEEK = timedelta(days=7)


def oom(at: datetime, *, event_id: str | None = None, source: str = "get_workload_history") -> Observation:
    return Observation(
        source=source,
        field="records[0].spec.event",
        kind="event",
        reason="OOMKilled",
        message="OOMKilled",
        at=at,
        event_id=event_id,
    )


def failed_update(at: datetime) -> Observation:
    return Observation(
        source="get_workload_history",
        field="records[1].spec.phaseUpdate",
        kind="phase_update",
        reason="Failed",
        at=at,
    )


def count(
    observations: list[Observation], *, current: datetime | None = None, run_start: datetime | None = None
) -> int:
    result = count_failures(
        classify_all(observations),
        category="OOM_KILLED",
        current_failure_at=current,
        current_run_start=run_start,
        now=NOW,
        lookback=WEEK,
    )
    return result.count


def test_signals_chained_less_than_120s_apart_are_one_occurrence() -> None:
    base = NOW - timedelta(days=1)
    chained = [oom(base), oom(base + timedelta(seconds=100)), oom(base + timedelta(seconds=210))]
    assert count(chained) == 1
    apart = [oom(base), oom(base + timedelta(seconds=120))]
    assert count(apart) == 2


def test_a_failed_phase_update_joins_but_never_makes_an_occurrence() -> None:
    base = NOW - timedelta(days=2)
    assert count([failed_update(base)]) == 0
    assert count([oom(base), failed_update(base + timedelta(seconds=2))]) == 1


def test_the_same_event_in_events_and_history_is_one_event() -> None:
    base = NOW - timedelta(hours=5)
    both = [
        oom(base, event_id="e1", source="get_workload_events"),
        oom(base + timedelta(minutes=5), event_id="e1"),
    ]
    assert count(both) == 1


def test_only_failures_inside_the_lookback_count() -> None:
    assert count([oom(NOW - timedelta(days=8)), oom(NOW - timedelta(days=1))]) == 1


def test_the_current_failure_counts_once() -> None:
    failure = NOW - timedelta(hours=1)
    # History lacks it: it is an occurrence of its own.
    assert count([oom(NOW - timedelta(days=3))], current=failure, run_start=failure - timedelta(hours=2)) == 2
    # History has it (within the current run): it only joins.
    minutes_before = failure - timedelta(minutes=4)
    assert count([oom(minutes_before)], current=failure, run_start=failure - timedelta(hours=2)) == 1


def test_signals_without_a_time_or_outside_events_and_history_are_not_counted() -> None:
    pod = Observation(
        source="get_workload_pods",
        field="pods[0].k8sPhase",
        kind="pod_phase",
        reason="OOMKilled",
        message="OOMKilled",
        at=NOW,
    )
    untimed = oom(None)  # type: ignore[arg-type]
    assert count([pod, untimed]) == 0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("16Gi", 16 * 2**30),
        ("16G", 16 * 10**9),
        ("16GB", 16 * 10**9),
        ("512Mi", 512 * 2**20),
        ("200M", 200 * 10**6),
        ("0B", 0),
        ("1.5Gi", int(1.5 * 2**30)),
        ("1e9", 10**9),
        (17179869184, 17179869184),
        ("100m", None),
        ("lots", None),
        (None, None),
        (True, None),
    ],
)
def test_memory_quantities(text: object, expected: int | None) -> None:
    assert quantities.parse_bytes(text) == expected


def test_metric_samples_are_strings() -> None:
    assert quantities.parse_sample("16903045120") == 16903045120
    assert quantities.parse_sample("1.69e10") == 16900000000
    assert (
        quantities.parse_sample("NaN") is None
        and quantities.parse_sample("-1") is None
        and quantities.parse_sample(None) is None
    )


def test_views_are_lenient_about_nulls_types_and_unknown_fields() -> None:
    workload, problem = parse.view(
        parse.Workload,
        {
            "id": 42,
            "phase": "failed",
            "conditions": None,
            "pendingSchedulingMessages": ["junk", {"reason": "Non-preemptible over quota"}],
            "podsRequestedResources": {"cpuMemory": {"limit": 17179869184}},
            "brandNewField": {"x": 1},
        },
    )
    assert problem is None and workload is not None
    assert workload.id == "42" and workload.conditions == [] and len(workload.pendingSchedulingMessages) == 1
    assert (
        workload.podsRequestedResources is not None and workload.podsRequestedResources.cpuMemory is not None
    )
    assert quantities.parse_bytes(workload.podsRequestedResources.cpuMemory.limit) == 17179869184
    assert parse.same_phase(workload.phase, "Failed")
    nothing, problem = parse.view(parse.Workload, ["not", "an", "object"])
    assert nothing is None and problem is not None and "expected a JSON object" in problem


def test_events_null_is_reported_as_a_problem() -> None:
    events, problem = parse.events_of({"events": None, "next": None})
    assert events is None and problem is not None and "null" in problem
    events, problem = parse.events_of(
        {"events": [{"reason": "Started", "message": "Started container a"}, 7]}
    )
    assert problem is None and events is not None and len(events) == 1


def test_human_sizes() -> None:
    assert quantities.format_bytes(16 * 2**30) == "16 GiB"
    assert quantities.format_bytes(16903045120) == "16.90 GB"
    assert quantities.format_bytes(512 * 2**20) == "512 MiB"

"""Run:ai memory use over time and the OOM kills, read for the memory-vs-limit chart.

`GET /api/v1/workloads/{id}/metrics` answers `measurements[]`, each `{type, labels, values[]}` with
`values[] = {value: "<string>", timestamp}`; `CPU_MEMORY_USAGE_BYTES` is the memory in use
(https://docs.nvidia.com/run-ai/self-hosted/reference/rest-api/endpoints/workloads). The kills come
from the events, the history, the pod list and the Tier-2 pod statuses; the signals of one
termination are one kill, grouped as the recurrence count groups them (diagnosis.runai.recurrence).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta

from diagnosis.evidence.series import (
    MEMORY_USED,
    NO_METRICS_RECORDED,
    NO_SAMPLES,
    MemorySample,
    MemorySeries,
    MemoryTrace,
    SeriesReading,
    byte_count,
    metrics_call_failed,
)
from diagnosis.models import Exchange
from diagnosis.runai import k8s_views, parse
from diagnosis.runai.recurrence import chained
from diagnosis.timeutil import parse_instant

METRICS_OP = "get_workload_metrics"
MEMORY_METRIC = "CPU_MEMORY_USAGE_BYTES"
EVENTS_OP = "get_workload_events"
HISTORY_OP = "get_workload_history"
PODS_OP = "get_workload_pods"
K8S_POD_OP = "k8s.read_pod"
OOM_REASON = "OOMKilled"

__all__ = ["METRICS_OP", "memory_series"]


def memory_series(exchanges: Sequence[Exchange]) -> SeriesReading:
    """The recorded memory samples with the OOM kills near them, or why there is nothing to draw."""
    metrics = [exchange for exchange in exchanges if exchange.op == METRICS_OP]
    if not metrics:
        return SeriesReading(None, NO_METRICS_RECORDED)
    failure = metrics_call_failed(metrics)
    if failure:
        return SeriesReading(None, failure)
    traces = _traces(metrics)
    if not traces:
        return SeriesReading(None, NO_SAMPLES)
    series = MemorySeries(traces=traces, source=METRICS_OP)
    return SeriesReading(
        MemorySeries(traces=traces, source=METRICS_OP, kill_times=_kill_times(exchanges, series))
    )


def _traces(exchanges: Sequence[Exchange]) -> tuple[MemoryTrace, ...]:
    by_trace: dict[str, dict[datetime, int]] = {}
    for exchange in exchanges:
        metrics, _problem = (
            parse.view(parse.Metrics, exchange.body) if exchange.status < 400 else (None, None)
        )
        for measurement in metrics.measurements if metrics is not None else []:
            if measurement.type != MEMORY_METRIC:
                continue
            points = by_trace.setdefault(_trace_name(measurement.labels), {})
            for value in measurement.values:
                at = parse_instant(value.timestamp)
                used = byte_count(value.value)
                if at is not None and used is not None:
                    points[at.astimezone(UTC)] = used
    return tuple(
        MemoryTrace(name, tuple(MemorySample(at, used) for at, used in sorted(points.items())))
        for name, points in by_trace.items()
        if points
    )


def _trace_name(labels: dict[str, str]) -> str:
    """`memory used`, or the measurement's labels (`pod=…`) when a workload answers several series."""
    if labels:
        return f"{MEMORY_USED} (" + ", ".join(f"{k}={v}" for k, v in sorted(labels.items())) + ")"
    return MEMORY_USED


def _kill_times(exchanges: Sequence[Exchange], series: MemorySeries) -> tuple[datetime, ...]:
    """OOM kills recorded near the samples, one per termination.

    A kill is shown from the first sample on and up to one sample span (at least an hour) after the
    last one: an older kill belongs to a run the samples do not cover.
    """
    seen_ids: set[str] = set()
    found: list[datetime] = []
    for at, event_id in _oom_signals(exchanges):
        if event_id:
            if event_id in seen_ids:
                continue
            seen_ids.add(event_id)
        found.append(at.astimezone(UTC))
    span = max(series.last_at - series.first_at, timedelta(hours=1))
    shown = sorted(at for at in found if series.first_at <= at <= series.last_at + span)
    return tuple(chain[0] for chain in chained(shown, at=lambda moment: moment))


def _oom_signals(exchanges: Sequence[Exchange]) -> Iterator[tuple[datetime, str | None]]:
    for exchange in exchanges:
        if exchange.status >= 400:
            continue
        if exchange.op == EVENTS_OP:
            events, _problem = parse.events_of(exchange.body)
            for event in events or []:
                yield from _oom_event(event, None)
        elif exchange.op == HISTORY_OP:
            history, _problem = parse.view(parse.HistoryPage, exchange.body)
            for record in history.records if history is not None else []:
                if record.spec is not None and record.spec.event is not None:
                    created = record.meta.creationTimestamp if record.meta is not None else None
                    yield from _oom_event(record.spec.event, created)
        elif exchange.op == PODS_OP:
            pods, _problem = parse.view(parse.PodList, exchange.body)
            for pod in pods.pods if pods is not None else []:
                if pod.k8sPhase == OOM_REASON:
                    at = parse_instant(pod.completedAt) or parse_instant(pod.k8sPhaseUpdatedAt)
                    if at is not None:
                        yield at, None
        elif exchange.op == K8S_POD_OP:
            k8s_pod, _problem = parse.view(k8s_views.K8sPod, exchange.body)
            if k8s_pod is not None:
                yield from _k8s_pod_kills(k8s_pod)


def _oom_event(event: parse.Event, fallback: str | None) -> Iterator[tuple[datetime, str | None]]:
    if event.reason != OOM_REASON:
        return
    at = parse_instant(event.createdAt) or parse_instant(fallback)
    if at is not None:
        yield at, event.id or None


def _k8s_pod_kills(pod: k8s_views.K8sPod) -> Iterator[tuple[datetime, str | None]]:
    """`status.containerStatuses[].state|lastState.terminated` with reason OOMKilled → `finishedAt`."""
    for container in pod.status.containerStatuses if pod.status is not None else []:
        for state in (container.state, container.lastState):
            terminated = state.terminated if state is not None else None
            if terminated is not None and terminated.reason == OOM_REASON:
                at = parse_instant(terminated.finishedAt)
                if at is not None:
                    yield at, None

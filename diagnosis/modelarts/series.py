"""ModelArts memory use over time, read for the memory-vs-limit chart.

`ShowTrainingJobMetrics` answers `metrics[] = {metric, value[]}`: one average per minute from the
job's start, -1 where there is no sample. `memUsage` is a percentage, so it cannot be drawn against
a byte limit; a metric whose name says bytes is drawn from `status.start_time` of the job details
(https://support.huaweicloud.com/intl/en-us/api-modelarts/ShowTrainingJobMetrics.html).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from diagnosis.evidence.series import (
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
from diagnosis.timeutil import parse_instant

METRICS_OP = "ShowTrainingJobMetrics"
DETAILS_OP = "ShowTrainingJobDetails"
PERCENT_MEMORY_METRICS = ("memUsage",)
PERCENT_ONLY = (
    "ModelArts reports memory use as a percentage (memUsage), not in bytes, so it cannot be drawn "
    "against the memory limit"
)
NO_START = "the ModelArts byte series has no timestamps and the job's start time was not recorded"

__all__ = ["METRICS_OP", "memory_series"]


def _byte_trace(metric: dict[str, Any], *, task: str, start: datetime) -> MemoryTrace | None:
    """One per-minute byte metric from the job's start; None when it holds no sample."""
    name = str(metric.get("metric") or "")
    samples = []
    for minute, value in enumerate(metric.get("value") or []):
        used = byte_count(value)
        if used is not None:
            samples.append(MemorySample(start + timedelta(minutes=minute), used))
    return MemoryTrace(f"{name} ({task})" if task else name, tuple(samples)) if samples else None


def _metrics_of(metrics: Sequence[Exchange]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(task, metric) of every answered metrics call."""
    for exchange in metrics:
        if exchange.status >= 400 or not isinstance(exchange.body, dict):
            continue
        task = str(exchange.args.get("task_id") or "")
        for metric in _dicts(exchange.body.get("metrics")):
            yield task, metric


def memory_series(exchanges: Sequence[Exchange]) -> SeriesReading:
    """The byte series of the recorded metrics, or why there is nothing to draw."""
    metrics = [exchange for exchange in exchanges if exchange.op == METRICS_OP]
    if not metrics:
        return SeriesReading(None, NO_METRICS_RECORDED)
    failure = metrics_call_failed(metrics)
    if failure:
        return SeriesReading(None, failure)
    start = _job_start(exchanges)
    traces: list[MemoryTrace] = []
    percent_only = False
    for task, metric in _metrics_of(metrics):
        name = str(metric.get("metric") or "")
        if name in PERCENT_MEMORY_METRICS:
            percent_only = True
            continue
        if not name.lower().endswith("bytes"):
            continue
        if start is None:
            return SeriesReading(None, NO_START)
        trace = _byte_trace(metric, task=task, start=start)
        if trace is not None:
            traces.append(trace)
    if traces:
        return SeriesReading(MemorySeries(traces=tuple(traces), source=METRICS_OP))
    return SeriesReading(None, PERCENT_ONLY if percent_only else NO_SAMPLES)


def _job_start(exchanges: Sequence[Exchange]) -> datetime | None:
    """`status.start_time` of the job (epoch ms): the first per-minute average starts there."""
    for exchange in exchanges:
        if exchange.op == DETAILS_OP and isinstance(exchange.body, dict):
            status = exchange.body.get("status")
            if isinstance(status, dict):
                start = parse_instant(status.get("start_time"))
                if start is not None:
                    return start.astimezone(UTC)
    return None


def _dicts(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, list):
        for item in value:
            if isinstance(item, dict):
                yield item

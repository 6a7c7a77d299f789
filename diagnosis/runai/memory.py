"""Memory request, limit and peak, each read from an answer the workflow fetched.

The request and limit come from the failing pod's `requestedResources`, then the workload
status's `podsRequestedResources`, then the submitted spec's `compute.cpuMemoryLimit/Request` (the
most specific answer first). The peak comes from the metrics samples
(`CPU_MEMORY_USAGE_BYTES`), never from a request, limit or allocation: a short job can have an
empty series, and then no peak is named.
"""

from __future__ import annotations

import itertools
import statistics
from dataclasses import dataclass
from datetime import timedelta

from diagnosis.models import Evidence
from diagnosis.runai import parse, quantities
from diagnosis.runai.facts import Context, failing_pod
from diagnosis.timeutil import parse_instant

PODS = "get_workload_pods"
STATUS = "get_workload_status"
SPEC = "get_workload_spec"
METRICS = "get_workload_metrics"


@dataclass
class Quantity:
    bytes: int
    text: str
    source: str
    field: str


@dataclass
class MemoryReading:
    request: Quantity | None = None
    limit: Quantity | None = None
    peak: int | None = None
    peak_at: str | None = None
    peak_field: str | None = None
    samples: int = 0
    spacing: timedelta | None = None
    metrics_read: bool = False


@dataclass
class _Samples:
    usage: list[tuple[int, str | None, str]]
    limits: list[tuple[int, str]]


def format_quantity(value: int) -> str:
    return quantities.format_bytes(value)


def _quantity(raw: str | None, source: str, field_path: str) -> Quantity | None:
    value = quantities.parse_bytes(raw)
    return Quantity(value, str(raw), source, field_path) if value is not None and raw is not None else None


def _pair(
    memory: parse.RequestLimit | None, source: str, prefix: str
) -> tuple[Quantity | None, Quantity | None]:
    if memory is None:
        return None, None
    return _quantity(memory.request, source, f"{prefix}.request"), _quantity(
        memory.limit, source, f"{prefix}.limit"
    )


def memory_request_limit(context: Context) -> tuple[Quantity | None, Quantity | None]:
    """The failing pod's requestedResources, then the status's podsRequestedResources, then the
    spec's compute.cpuMemoryRequest/Limit: each value from the most specific answer that has it."""
    readings: list[tuple[Quantity | None, Quantity | None]] = []
    failing = failing_pod(context)
    if failing is not None:
        where, pod = failing
        memory = pod.requestedResources.cpuMemory if pod.requestedResources else None
        readings.append(_pair(memory, PODS, f"{where}.requestedResources.cpuMemory"))
    resources = context.status.podsRequestedResources
    readings.append(
        _pair(resources.cpuMemory if resources else None, STATUS, "podsRequestedResources.cpuMemory")
    )
    compute = context.submitted.compute if context.submitted else None
    if compute is not None:
        readings.append(
            (
                _quantity(compute.cpuMemoryRequest, SPEC, "spec.compute.cpuMemoryRequest"),
                _quantity(compute.cpuMemoryLimit, SPEC, "spec.compute.cpuMemoryLimit"),
            )
        )
    request = next((found for found, _ in readings if found is not None), None)
    limit = next((found for _, found in readings if found is not None), None)
    return request, limit


def _samples(metrics: parse.Metrics) -> _Samples:
    found = _Samples([], [])
    for m_index, measurement in enumerate(metrics.measurements):
        kind = (measurement.type or "").upper()
        for v_index, sample in enumerate(measurement.values):
            value = quantities.parse_sample(sample.value)
            if value is None:
                continue
            where = f"measurements[{m_index}].values[{v_index}]"
            if kind == "CPU_MEMORY_USAGE_BYTES":
                found.usage.append((value, sample.timestamp, where))
            elif kind == "CPU_MEMORY_LIMIT_BYTES":
                found.limits.append((value, where))
    return found


def _median_spacing(points: list[tuple[int, str | None, str]]) -> timedelta | None:
    times = sorted(moment for moment in (parse_instant(point[1]) for point in points) if moment is not None)
    gaps = [later - earlier for earlier, later in itertools.pairwise(times) if later > earlier]
    return timedelta(seconds=statistics.median(gap.total_seconds() for gap in gaps)) if gaps else None


def read_metrics(
    context: Context, reading: MemoryReading, notes: list[str], evidence: list[Evidence]
) -> None:
    """Peak, sample spacing and (when no answer stated one) the limit, from the metrics answer."""
    t = context.t
    answer = context.metrics_answer
    if answer is None:
        return
    if not answer.ok:
        notes.append(t("lim.call_failed", call=METRICS, failure=answer.describe_failure(lang=t.lang)))
        return
    metrics, problem = parse.view(parse.Metrics, answer.body)
    if metrics is None:
        notes.append(t("lim.shape", call=METRICS, problem=problem))
        return
    reading.metrics_read = True
    if answer.status == 207:
        notes.append(t("lim.metrics_partial"))
    samples = _samples(metrics)
    reading.samples = len(samples.usage)
    if not samples.usage:
        # Short jobs can have an empty series: no peak was observed, and none is invented.
        notes.append(t("lim.no_memory_samples"))
        evidence.append(
            Evidence(source=METRICS, field="measurements", text="CPU_MEMORY_USAGE_BYTES: 0 samples", value=0)
        )
    else:
        reading.peak, reading.peak_at, reading.peak_field = max(samples.usage, key=lambda point: point[0])
        reading.spacing = _median_spacing(samples.usage)
    if reading.limit is None and samples.limits:
        value, where = samples.limits[-1]
        reading.limit = Quantity(value, str(value), METRICS, where)


def memory_evidence(context: Context, reading: MemoryReading) -> list[Evidence]:
    """What quantifies an OOM kill: the submitted request and limit, the pod's phase, the limit
    that applied, the peak."""
    found: list[Evidence] = []
    compute = context.submitted.compute if context.submitted else None
    if compute is not None:
        for raw, field_path in (
            (compute.cpuMemoryRequest, "spec.compute.cpuMemoryRequest"),
            (compute.cpuMemoryLimit, "spec.compute.cpuMemoryLimit"),
        ):
            value = quantities.parse_bytes(raw)
            if raw is not None and value is not None:
                found.append(Evidence(source=SPEC, field=field_path, text=str(raw), value=value))
    failing = failing_pod(context)
    if failing is not None and failing[1].k8sPhase:
        found.append(Evidence(source=PODS, field=f"{failing[0]}.k8sPhase", text=failing[1].k8sPhase))
    limit = reading.limit
    if limit is not None and limit.source != SPEC:
        found.append(Evidence(source=limit.source, field=limit.field, text=limit.text, value=limit.bytes))
    if reading.peak is not None and reading.peak_field is not None:
        found.append(
            Evidence(
                source=METRICS,
                field=reading.peak_field,
                text=f'CPU_MEMORY_USAGE_BYTES "{reading.peak}" at {reading.peak_at or "?"}',
                value=reading.peak,
            )
        )
    return found

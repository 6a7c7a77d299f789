"""Lenient pydantic views of the Run:ai and Kubernetes wire objects.

The API grows every release and old control planes lack fields, so every field is optional,
unknown fields are ignored, scalars are read as text, malformed list items are dropped and phases
compare case-insensitively. A body that is not the expected object at all is reported by `view()`
as a problem string (it becomes a limitation), never an exception.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from diagnosis.evidence.lenient import as_int
from diagnosis.timeutil import parse_instant


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, dict | list):
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _objects(value: Any) -> list[Any]:
    """A list of objects: null -> [], non-list -> [], non-object items dropped."""
    if not isinstance(value, list):
        return []
    return [item for item in value if isinstance(item, dict)]


def _object(value: Any) -> Any:
    return value if isinstance(value, dict) else None


def _strings(value: Any) -> list[str]:
    if not isinstance(value, list):
        return []
    return [str(item) for item in value if isinstance(item, str | int | float) and not isinstance(item, bool)]


Text = Annotated[str | None, BeforeValidator(_text)]
Int = Annotated[int | None, BeforeValidator(as_int)]
Strings = Annotated[list[str], BeforeValidator(_strings)]


_LIST = BeforeValidator(_objects)
_OBJECT = BeforeValidator(_object)


class View(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)


# --- Run:ai control plane -------------------------------------------------------------------------


class Condition(View):
    type: Text = None
    status: Text = None
    reason: Text = None
    message: Text = None
    lastTransitionTime: Text = None


class RequestLimit(View):
    request: Text = None
    limit: Text = None


class RequestedResources(View):
    cpuMemory: Annotated[RequestLimit | None, _OBJECT] = None


class PendingSchedulingMessage(View):
    nodePool: Text = None
    phaseReason: Text = None
    reason: Text = None
    userMessage: Text = None


class Workload(View):
    id: Text = None
    name: Text = None
    type: Text = None
    clusterId: Text = None
    projectName: Text = None
    namespace: Text = None
    phase: Text = None
    phaseMessage: Text = None
    phaseReason: Text = None
    k8sPhase: Text = None
    conditions: Annotated[list[Condition], _LIST] = Field(default_factory=list)
    createdAt: Text = None
    completedAt: Text = None
    deletedAt: Text = None
    phaseUpdatedAt: Text = None
    images: Strings = Field(default_factory=list)
    podsRequestedResources: Annotated[RequestedResources | None, _OBJECT] = None
    workloadRequestedResources: Annotated[RequestedResources | None, _OBJECT] = None
    pendingSchedulingMessages: Annotated[list[PendingSchedulingMessage], _LIST] = Field(default_factory=list)


class WorkloadList(View):
    workloads: Annotated[list[Workload], _LIST] = Field(default_factory=list)
    next: Int = None


class InvolvedObject(View):
    uid: Text = None
    kind: Text = None
    name: Text = None
    namespace: Text = None


class Event(View):
    createdAt: Text = None
    id: Text = None
    type: Text = None
    clusterId: Text = None
    reason: Text = None
    message: Text = None
    source: Text = None
    involvedObject: Annotated[InvolvedObject | None, _OBJECT] = None


class EventList(View):
    next: Int = None


class PhaseUpdate(View):
    phase: Text = None
    phaseMessage: Text = None


class HistoryMeta(View):
    creationTimestamp: Text = None
    type: Text = None


class HistorySpec(View):
    event: Annotated[Event | None, _OBJECT] = None
    phaseUpdate: Annotated[PhaseUpdate | None, _OBJECT] = None


class HistoryRecord(View):
    meta: Annotated[HistoryMeta | None, _OBJECT] = None
    spec: Annotated[HistorySpec | None, _OBJECT] = None


class HistoryPage(View):
    records: Annotated[list[HistoryRecord], _LIST] = Field(default_factory=list)
    next: Int = None


class PodContainer(View):
    name: Text = None
    image: Text = None
    startedAt: Text = None


class Pod(View):
    id: Text = None
    name: Text = None
    nodeName: Text = None
    k8sPhase: Text = None
    k8sPhaseUpdatedAt: Text = None
    createdAt: Text = None
    completedAt: Text = None
    containers: Annotated[list[PodContainer], _LIST] = Field(default_factory=list)
    requestedResources: Annotated[RequestedResources | None, _OBJECT] = None


class PodList(View):
    pods: Annotated[list[Pod], _LIST] = Field(default_factory=list)
    next: Int = None


class Compute(View):
    cpuMemoryRequest: Text = None
    cpuMemoryLimit: Text = None


class NameValue(View):
    name: Text = None
    value: Text = None


class SpecBody(View):
    image: Text = None
    command: Text = None
    args: Text = None
    restartPolicy: Text = None
    backoffLimit: Int = None
    compute: Annotated[Compute | None, _OBJECT] = None
    annotations: Annotated[list[NameValue], _LIST] = Field(default_factory=list)
    environmentVariables: Annotated[list[NameValue], _LIST] = Field(default_factory=list)


class WorkloadSpec(View):
    name: Text = None
    workloadId: Text = None
    desiredPhase: Text = None
    actualPhase: Text = None
    spec: Annotated[SpecBody | None, _OBJECT] = None


class MetricValue(View):
    value: Text = None
    timestamp: Text = None


def _labels(value: Any) -> dict[str, str]:
    return {str(key): str(item) for key, item in value.items()} if isinstance(value, dict) else {}


class Measurement(View):
    type: Text = None
    # What the series is of when a workload answers several (`{"pod": "w-0"}`).
    labels: Annotated[dict[str, str], BeforeValidator(_labels)] = Field(default_factory=dict)
    values: Annotated[list[MetricValue], _LIST] = Field(default_factory=list)


class Metrics(View):
    measurements: Annotated[list[Measurement], _LIST] = Field(default_factory=list)


# --- Kubernetes (Tier 2) --------------------------------------------------------------------------


class ObjectMeta(View):
    name: Text = None
    namespace: Text = None
    uid: Text = None
    creationTimestamp: Text = None


class Terminated(View):
    exitCode: Int = None
    signal: Int = None
    reason: Text = None
    message: Text = None
    startedAt: Text = None
    finishedAt: Text = None


class Waiting(View):
    reason: Text = None
    message: Text = None


class ContainerState(View):
    waiting: Annotated[Waiting | None, _OBJECT] = None
    terminated: Annotated[Terminated | None, _OBJECT] = None
    running: Annotated[dict[str, Any] | None, _OBJECT] = None


class ContainerStatus(View):
    name: Text = None
    restartCount: Int = None
    state: Annotated[ContainerState | None, _OBJECT] = None
    lastState: Annotated[ContainerState | None, _OBJECT] = None


class ContainerSpec(View):
    name: Text = None


class K8sPodSpec(View):
    nodeName: Text = None
    restartPolicy: Text = None
    containers: Annotated[list[ContainerSpec], _LIST] = Field(default_factory=list)
    initContainers: Annotated[list[ContainerSpec], _LIST] = Field(default_factory=list)


class K8sPodStatus(View):
    phase: Text = None
    reason: Text = None
    message: Text = None
    conditions: Annotated[list[Condition], _LIST] = Field(default_factory=list)
    containerStatuses: Annotated[list[ContainerStatus], _LIST] = Field(default_factory=list)
    initContainerStatuses: Annotated[list[ContainerStatus], _LIST] = Field(default_factory=list)


class K8sPod(View):
    metadata: Annotated[ObjectMeta | None, _OBJECT] = None
    spec: Annotated[K8sPodSpec | None, _OBJECT] = None
    status: Annotated[K8sPodStatus | None, _OBJECT] = None


class K8sEvent(View):
    metadata: Annotated[ObjectMeta | None, _OBJECT] = None
    type: Text = None
    reason: Text = None
    message: Text = None
    firstTimestamp: Text = None
    lastTimestamp: Text = None
    eventTime: Text = None
    count: Int = None
    involvedObject: Annotated[InvolvedObject | None, _OBJECT] = None

    def newest_time(self) -> datetime | None:
        """max(lastTimestamp, eventTime, creationTimestamp), as k8s-signals.md advises."""
        candidates = [
            parse_instant(self.lastTimestamp),
            parse_instant(self.eventTime),
            parse_instant(self.metadata.creationTimestamp if self.metadata else None),
            parse_instant(self.firstTimestamp),
        ]
        found = [moment for moment in candidates if moment is not None]
        return max(found) if found else None


class K8sEventList(View):
    items: Annotated[list[K8sEvent], _LIST] = Field(default_factory=list)


class NodeStatus(View):
    conditions: Annotated[list[Condition], _LIST] = Field(default_factory=list)


class Taint(View):
    key: Text = None
    value: Text = None
    effect: Text = None


class NodeSpec(View):
    taints: Annotated[list[Taint], _LIST] = Field(default_factory=list)
    unschedulable: Text = None


class Node(View):
    metadata: Annotated[ObjectMeta | None, _OBJECT] = None
    spec: Annotated[NodeSpec | None, _OBJECT] = None
    status: Annotated[NodeStatus | None, _OBJECT] = None


# --- reading --------------------------------------------------------------------------------------

V = TypeVar("V", bound=View)


def view(model: type[V], body: Any) -> tuple[V | None, str | None]:
    """(the view, None) or (None, a one-line problem) for an unexpected shape."""
    if not isinstance(body, dict):
        kind = "nothing" if body is None else type(body).__name__
        return None, f"unexpected answer shape: expected a JSON object, got {kind}"
    try:
        return model.model_validate(body), None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ()))
        return None, f"unexpected answer shape at {where}: {first.get('msg')}"


def events_of(body: Any) -> tuple[list[Event] | None, str | None]:
    """The `events` list of an events page. `events: null` or a missing key is a retrieval failure."""
    if not isinstance(body, dict):
        return None, "unexpected answer shape: expected a JSON object"
    raw = body.get("events")
    if raw is None:
        return None, "the events answer holds `events: null`"
    if not isinstance(raw, list):
        return None, f"unexpected answer shape: `events` is {type(raw).__name__}"
    return [Event.model_validate(item) for item in raw if isinstance(item, dict)], None


def same_phase(phase: str | None, *names: str) -> bool:
    return phase is not None and phase.strip().lower() in {name.lower() for name in names}


# --- quantities -----------------------------------------------------------------------------------

_BINARY = {"ki": 2**10, "mi": 2**20, "gi": 2**30, "ti": 2**40, "pi": 2**50, "ei": 2**60}
_DECIMAL = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12, "p": 10**15, "e": 10**18}
_QUANTITY = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)\s*([A-Za-z]*)\s*$")


def parse_bytes(value: Any) -> int | None:
    """A memory quantity in bytes: `16Gi`, `16G`, `200M`, `512Mi`, `0B`, `16GB`, 17179869184, "1e9".

    Kubernetes suffixes (binary Ki..Ei, decimal k..E); a trailing `B` is tolerated because Run:ai
    writes `0B`. A lower-case `m` is milli in Kubernetes and makes no sense for memory: rejected.
    """
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return int(value) if value >= 0 else None
    match = _QUANTITY.match(str(value))
    if not match:
        return None
    number, suffix = float(match.group(1)), match.group(2)
    if suffix in ("", "B", "b"):
        return int(number)
    if suffix == "m":
        return None
    key = (
        suffix.lower().removesuffix("b")
        if len(suffix) > 1 and suffix.lower().endswith("b")
        else suffix.lower()
    )
    if key in _BINARY:
        return int(number * _BINARY[key])
    if key in _DECIMAL:
        return int(number * _DECIMAL[key])
    return None


def parse_sample(value: str | None) -> int | None:
    """Metric values are strings (`"16903045120"`, sometimes `"1.69e10"`)."""
    if value is None:
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    if number != number or number < 0:  # NaN or negative: not a sample
        return None
    return int(number)


def format_bytes(value: int) -> str:
    """`16 GiB` for exact binary multiples, else `16.90 GB` (decimal), for people to read."""
    for binary, decimal, size_binary, size_decimal in (
        ("TiB", "TB", 2**40, 10**12),
        ("GiB", "GB", 2**30, 10**9),
        ("MiB", "MB", 2**20, 10**6),
    ):
        if value >= size_binary:
            if value % size_binary == 0:
                return f"{value // size_binary} {binary}"
            return f"{value / size_decimal:.2f} {decimal}"
    if value >= 1000:
        return f"{value / 1000:.2f} kB"
    return f"{value} B"

"""Lenient pydantic views of the Run:ai wire objects (the Kubernetes ones: `k8s_views`).

The API grows every release and old control planes lack fields, so every field is optional,
unknown fields are ignored, scalars are read as text, malformed list items are dropped and phases
compare case-insensitively. A body that is not the expected object at all is reported by `view()`
as a problem string (it becomes a limitation), never an exception.
"""

from __future__ import annotations

from typing import Annotated, Any, TypeVar

from pydantic import BeforeValidator, Field, ValidationError

from diagnosis.evidence.lenient import OBJECT, OBJECTS, Int, Strings, Text, View

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
    cpuMemory: Annotated[RequestLimit | None, OBJECT] = None


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
    conditions: Annotated[list[Condition], OBJECTS] = Field(default_factory=list)
    createdAt: Text = None
    completedAt: Text = None
    deletedAt: Text = None
    phaseUpdatedAt: Text = None
    images: Strings = Field(default_factory=list)
    podsRequestedResources: Annotated[RequestedResources | None, OBJECT] = None
    workloadRequestedResources: Annotated[RequestedResources | None, OBJECT] = None
    pendingSchedulingMessages: Annotated[list[PendingSchedulingMessage], OBJECTS] = Field(
        default_factory=list
    )


class WorkloadList(View):
    workloads: Annotated[list[Workload], OBJECTS] = Field(default_factory=list)
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
    involvedObject: Annotated[InvolvedObject | None, OBJECT] = None


class EventList(View):
    next: Int = None


class PhaseUpdate(View):
    phase: Text = None
    phaseMessage: Text = None


class HistoryMeta(View):
    creationTimestamp: Text = None
    type: Text = None


class HistorySpec(View):
    event: Annotated[Event | None, OBJECT] = None
    phaseUpdate: Annotated[PhaseUpdate | None, OBJECT] = None


class HistoryRecord(View):
    meta: Annotated[HistoryMeta | None, OBJECT] = None
    spec: Annotated[HistorySpec | None, OBJECT] = None


class HistoryPage(View):
    records: Annotated[list[HistoryRecord], OBJECTS] = Field(default_factory=list)
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
    containers: Annotated[list[PodContainer], OBJECTS] = Field(default_factory=list)
    requestedResources: Annotated[RequestedResources | None, OBJECT] = None


class PodList(View):
    pods: Annotated[list[Pod], OBJECTS] = Field(default_factory=list)
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
    compute: Annotated[Compute | None, OBJECT] = None
    annotations: Annotated[list[NameValue], OBJECTS] = Field(default_factory=list)
    environmentVariables: Annotated[list[NameValue], OBJECTS] = Field(default_factory=list)


class WorkloadSpec(View):
    name: Text = None
    workloadId: Text = None
    desiredPhase: Text = None
    actualPhase: Text = None
    spec: Annotated[SpecBody | None, OBJECT] = None


class MetricValue(View):
    value: Text = None
    timestamp: Text = None


def _labels(value: Any) -> dict[str, str]:
    return {str(key): str(item) for key, item in value.items()} if isinstance(value, dict) else {}


class Measurement(View):
    type: Text = None
    # What the series is of when a workload answers several (`{"pod": "w-0"}`).
    labels: Annotated[dict[str, str], BeforeValidator(_labels)] = Field(default_factory=dict)
    values: Annotated[list[MetricValue], OBJECTS] = Field(default_factory=list)


class Metrics(View):
    measurements: Annotated[list[Measurement], OBJECTS] = Field(default_factory=list)


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

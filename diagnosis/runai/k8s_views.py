"""Lenient pydantic views of the Kubernetes objects Tier 2 reads (pods, events, nodes), with the
same tolerance as the Run:ai views: every field optional, malformed list items dropped."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import Field

from diagnosis.evidence.lenient import OBJECT, OBJECTS, Int, Text, View
from diagnosis.runai.parse import Condition, InvolvedObject
from diagnosis.timeutil import parse_instant


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
    waiting: Annotated[Waiting | None, OBJECT] = None
    terminated: Annotated[Terminated | None, OBJECT] = None
    running: Annotated[dict[str, Any] | None, OBJECT] = None


class ContainerStatus(View):
    name: Text = None
    restartCount: Int = None
    state: Annotated[ContainerState | None, OBJECT] = None
    lastState: Annotated[ContainerState | None, OBJECT] = None


class ContainerSpec(View):
    name: Text = None


class K8sPodSpec(View):
    nodeName: Text = None
    restartPolicy: Text = None
    containers: Annotated[list[ContainerSpec], OBJECTS] = Field(default_factory=list)
    initContainers: Annotated[list[ContainerSpec], OBJECTS] = Field(default_factory=list)


class K8sPodStatus(View):
    phase: Text = None
    reason: Text = None
    message: Text = None
    conditions: Annotated[list[Condition], OBJECTS] = Field(default_factory=list)
    containerStatuses: Annotated[list[ContainerStatus], OBJECTS] = Field(default_factory=list)
    initContainerStatuses: Annotated[list[ContainerStatus], OBJECTS] = Field(default_factory=list)


class K8sPod(View):
    metadata: Annotated[ObjectMeta | None, OBJECT] = None
    spec: Annotated[K8sPodSpec | None, OBJECT] = None
    status: Annotated[K8sPodStatus | None, OBJECT] = None


class K8sEvent(View):
    metadata: Annotated[ObjectMeta | None, OBJECT] = None
    type: Text = None
    reason: Text = None
    message: Text = None
    firstTimestamp: Text = None
    lastTimestamp: Text = None
    eventTime: Text = None
    count: Int = None
    involvedObject: Annotated[InvolvedObject | None, OBJECT] = None

    def newest_time(self) -> datetime | None:
        """The latest of lastTimestamp, eventTime, creationTimestamp and firstTimestamp: events.k8s.io
        writers fill eventTime and leave the deprecated timestamps empty, core/v1 writers the reverse
        (https://kubernetes.io/docs/reference/kubernetes-api/cluster-resources/event-v1/)."""
        candidates = [
            parse_instant(self.lastTimestamp),
            parse_instant(self.eventTime),
            parse_instant(self.metadata.creationTimestamp if self.metadata else None),
            parse_instant(self.firstTimestamp),
        ]
        found = [moment for moment in candidates if moment is not None]
        return max(found) if found else None


class K8sEventList(View):
    items: Annotated[list[K8sEvent], OBJECTS] = Field(default_factory=list)


class NodeStatus(View):
    conditions: Annotated[list[Condition], OBJECTS] = Field(default_factory=list)


class Taint(View):
    key: Text = None
    value: Text = None
    effect: Text = None


class NodeSpec(View):
    taints: Annotated[list[Taint], OBJECTS] = Field(default_factory=list)
    unschedulable: Text = None


class Node(View):
    metadata: Annotated[ObjectMeta | None, OBJECT] = None
    spec: Annotated[NodeSpec | None, OBJECT] = None
    status: Annotated[NodeStatus | None, OBJECT] = None

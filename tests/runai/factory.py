"""Builders for Run:ai evidence bundles in the platforms' wire format (the Run:ai REST API and the
Kubernetes core/v1 objects).

The committed bundles (diagnosis/examples/runai/ and tests/runai/bundles/) are data in their own
right, each with its expected verdict; these builders make worlds and variants for the workflow
tests. Ids are derived from the scenario name so that every bundle's ids are distinct (the
simulator serves all demo bundles at once).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

Json = dict[str, Any]


def uid(*parts: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "runai-scenario/" + "/".join(parts)))


def ts(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class Scenario:
    """One workload's world: ids, names and times, plus helpers for its wire objects."""

    def __init__(
        self,
        key: str,
        *,
        name: str,
        project: str,
        captured_at: datetime,
        workload_type: str = "Training",
        cluster: str | None = None,
        namespace: str | None = "default",
        node: str | None = None,
        container: str = "trainer",
        image: str | None = None,
    ) -> None:
        self.key = key
        self.name = name
        self.project = project
        self.captured_at = captured_at
        self.type = workload_type
        self.cluster = cluster or uid(key, "cluster")
        self.workload_id = uid(key, "workload")
        self.namespace = f"runai-{project}" if namespace == "default" else namespace
        self.node = node or f"gpu-node-{key}-01"
        self.container = container
        self.image = image or f"registry.example.com/{project}/{name}:1.0"
        self.pod = f"{name}-0-0"
        self.exchanges: list[Json] = []
        self.request: Json = {"cluster_id": self.cluster, "workload_id": self.workload_id}

    # --- time ---
    def at(self, **delta: float) -> datetime:
        return self.captured_at - timedelta(**delta)

    # --- exchanges ---
    def add(
        self, op: str, args: Json, body: Any = None, *, status: int = 200, text: str | None = None
    ) -> Scenario:
        exchange: Json = {"op": op, "args": args, "status": status}
        if text is not None:
            exchange["text"] = text
        else:
            exchange["body"] = body
        self.exchanges.append(exchange)
        return self

    def bundle(self) -> Json:
        return {
            "schema": "evidence-bundle/v1",
            "platform": "runai",
            "captured_at": ts(self.captured_at),
            "request": self.request,
            "exchanges": self.exchanges,
        }

    # --- Run:ai objects ---
    def workload(
        self,
        *,
        phase: str,
        phase_message: str = "",
        conditions: list[Json] | None = None,
        created: datetime,
        phase_updated: datetime,
        completed: datetime | None = None,
        memory: tuple[str, str] | None = ("16Gi", "16Gi"),
        workload_id: str | None = None,
        workload_type: str | None = None,
        namespace: str | bool | None = True,
        cluster: str | None = None,
        phase_reason: str | None = None,
        pending_messages: list[Json] | None = None,
        name: str | None = None,
        detailed: bool = True,
    ) -> Json:
        body: Json = {
            "id": workload_id or self.workload_id,
            "name": name or self.name,
            "type": workload_type or self.type,
            "source": "CLI",
            "category": "Train",
            "tenantId": 4100,
            "clusterId": cluster or self.cluster,
            "projectId": "31",
            "projectName": self.project,
            "departmentId": "2",
            "departmentName": "research",
            "submittedBy": "researcher@example.com",
            "priority": 50,
            "priorityClassName": "train",
            "preemptible": True,
            "phase": phase,
            "phaseMessage": phase_message,
            "phaseReason": phase_reason,
            "k8sPhase": phase,
            "conditions": conditions or [],
            "createdAt": ts(created),
            "updatedAt": ts(phase_updated),
            "phaseUpdatedAt": ts(phase_updated),
            "k8sPhaseUpdatedAt": ts(phase_updated),
            "completedAt": ts(completed) if completed else None,
            "deletedAt": None,
            "runningPods": 0 if completed else 1,
            "requestedPods": {"number": 1},
            "images": [self.image],
            "requestedNodePools": ["default"],
            "currentNodePools": ["default"],
        }
        if namespace is True:
            body["namespace"] = self.namespace
        elif isinstance(namespace, str):
            body["namespace"] = namespace
        if memory is not None:
            resources = {
                "gpuRequestType": "portion",
                "gpu": {"request": 1},
                "cpuMemory": {"request": memory[0], "limit": memory[1]},
            }
            body["workloadRequestedResources"] = resources
            body["podsRequestedResources"] = resources
        if detailed:
            body["pendingSchedulingMessages"] = pending_messages
        return body

    def event(
        self,
        at: datetime,
        reason: str,
        message: str,
        *,
        event_type: str = "Warning",
        source: str = "kubelet",
        kind: str = "Pod",
        involved: str | None = None,
        event_id: str | None = None,
    ) -> Json:
        return {
            "createdAt": ts(at),
            "id": event_id or uid(self.key, "event", reason, ts(at), message[:40]),
            "type": event_type,
            "clusterId": self.cluster,
            "reason": reason,
            "message": message,
            "source": source,
            "involvedObject": {
                "uid": uid(self.key, "object", involved or self.pod),
                "kind": kind,
                "name": involved or self.pod,
                "namespace": self.namespace or f"runai-{self.project}",
            },
        }

    @staticmethod
    def history_event(event: Json) -> Json:
        return {
            "meta": {"creationTimestamp": event["createdAt"], "type": "Event"},
            "spec": {"event": event, "phaseUpdate": None},
        }

    @staticmethod
    def phase_update(at: datetime, phase: str, message: str = "") -> Json:
        return {
            "meta": {"creationTimestamp": ts(at), "type": "PhaseUpdate"},
            "spec": {"event": None, "phaseUpdate": {"phase": phase, "phaseMessage": message}},
        }

    def pod_object(
        self,
        *,
        k8s_phase: str,
        created: datetime,
        updated: datetime,
        completed: datetime | None = None,
        name: str | None = None,
        node: str | None = None,
        memory: tuple[str, str] | None = ("16Gi", "16Gi"),
    ) -> Json:
        pod: Json = {
            "id": uid(self.key, "pod", name or self.pod),
            "name": name or self.pod,
            "workloadId": self.workload_id,
            "revisionId": None,
            "clusterId": self.cluster,
            "projectId": "31",
            "tenantId": 4100,
            "nodeName": node or self.node,
            "k8sPhase": k8s_phase,
            "k8sPhaseUpdatedAt": ts(updated),
            "createdAt": ts(created),
            "updatedAt": ts(updated),
            "completedAt": ts(completed) if completed else None,
            "deletedAt": None,
            "containers": [{"name": self.container, "image": self.image, "startedAt": ts(created)}],
            "currentNodePool": "default",
            "requestedNodePools": ["default"],
            "allocatedResources": {"gpu": 1, "cpu": 8, "cpuMemory": memory[1] if memory else "0"},
            "priorityClassName": "train",
        }
        if memory is not None:
            pod["requestedResources"] = {
                "gpuRequestType": "portion",
                "gpu": {"request": 1},
                "cpuMemory": {"request": memory[0], "limit": memory[1]},
            }
        return pod

    def spec(
        self,
        *,
        created: datetime,
        actual_phase: str,
        memory: tuple[str, str] | None = ("16Gi", "16Gi"),
        restart_policy: str = "OnFailure",
        env: list[Json] | None = None,
        desired_phase: str = "Running",
        storage: Json | None = None,
    ) -> Json:
        compute: Json = {"cpuCoreRequest": 8, "gpuDevicesRequest": 1, "gpuRequestType": "portion"}
        if memory is not None:
            compute["cpuMemoryRequest"], compute["cpuMemoryLimit"] = memory
        spec: Json = {
            "image": self.image,
            "imagePullPolicy": "IfNotPresent",
            "command": "python",
            "args": "train.py --config configs/base.yaml",
            "environmentVariables": env or [],
            "compute": compute,
            "restartPolicy": restart_policy,
            "backoffLimit": 2,
            "annotations": [],
        }
        if storage is not None:
            spec["storage"] = storage
        return {
            "name": self.name,
            "requestedName": self.name,
            "workloadId": self.workload_id,
            "projectId": "31",
            "departmentId": "2",
            "clusterId": self.cluster,
            "createdBy": "researcher@example.com",
            "createdAt": ts(created),
            "deletedAt": None,
            "desiredPhase": desired_phase,
            "actualPhase": actual_phase,
            "spec": spec,
        }

    # --- common exchanges ---
    def status(self, body: Json, *, status: int = 200, workload_id: str | None = None) -> Scenario:
        return self.add(
            "get_workload_status", {"workloadId": workload_id or self.workload_id}, body, status=status
        )

    def events(self, events: list[Json] | None, *, workload_id: str | None = None) -> Scenario:
        return self.add(
            "get_workload_events",
            {"workloadId": workload_id or self.workload_id},
            # The last page names no `next` (the spec's `next` is no nullable field).
            {"events": events},
        )

    def spec_answer(self, body: Json, *, status: int = 200) -> Scenario:
        return self.add("get_workload_spec", {"workloadId": self.workload_id}, body, status=status)

    def pods(self, pods: list[Json], *, deleted: bool = False) -> Scenario:
        args: Json = {"workloadId": self.workload_id}
        if deleted:
            args["deleted"] = True
        return self.add("get_workload_pods", args, {"pods": pods})

    def history(self, records: list[Json], *, offset: int = 0, next_offset: int | None = None) -> Scenario:
        return self.add(
            "get_workload_history",
            {"workloadId": self.workload_id, "offset": offset},
            {"records": records} if next_offset is None else {"records": records, "next": next_offset},
        )

    def metrics(self, samples: list[tuple[datetime, int]], *, status: int = 200) -> Scenario:
        return self.add(
            "get_workload_metrics",
            {"workloadId": self.workload_id},
            {
                "measurements": [
                    {
                        "type": "CPU_MEMORY_USAGE_BYTES",
                        "labels": None,
                        "values": [{"value": str(value), "timestamp": ts(at)} for at, value in samples],
                    }
                ]
            },
            status=status,
        )

    # --- Kubernetes objects ---
    def k8s_pod(
        self,
        *,
        containers: list[Json],
        init_containers: list[Json] | None = None,
        phase: str = "Failed",
        reason: str | None = None,
        message: str | None = None,
        name: str | None = None,
        node: str | None = None,
        conditions: list[Json] | None = None,
    ) -> Json:
        status: Json = {
            "phase": phase,
            "conditions": conditions or [],
            "containerStatuses": containers,
            "qosClass": "Guaranteed",
        }
        if init_containers is not None:
            status["initContainerStatuses"] = init_containers
        if reason:
            status["reason"] = reason
        if message:
            status["message"] = message
        spec_containers = [{"name": c["name"]} for c in containers]
        body: Json = {
            "kind": "Pod",
            "apiVersion": "v1",
            "metadata": {
                "name": name or self.pod,
                "namespace": self.namespace,
                "uid": uid(self.key, "k8s-pod"),
            },
            "spec": {
                "nodeName": node or self.node,
                "restartPolicy": "OnFailure",
                "containers": spec_containers,
            },
            "status": status,
        }
        if init_containers is not None:
            body["spec"]["initContainers"] = [{"name": c["name"]} for c in init_containers]
        return body

    def container_status(
        self,
        *,
        name: str | None = None,
        exit_code: int | None = None,
        reason: str = "Error",
        finished: datetime | None = None,
        restarts: int = 0,
        waiting: str | None = None,
        waiting_message: str = "",
        message: str | None = None,
    ) -> Json:
        status: Json = {
            "name": name or self.container,
            "image": self.image,
            # The image's digest once a container of it ran; empty while it was never pulled.
            "imageID": "" if exit_code is None else f"{self.image.rsplit(':', 1)[0]}@sha256:{'0' * 64}",
            "ready": False,
            "restartCount": restarts,
        }
        terminated: Json | None = None
        if exit_code is not None:
            terminated = {
                "exitCode": exit_code,
                "reason": reason,
                "startedAt": ts((finished or self.captured_at) - timedelta(minutes=20)),
                "finishedAt": ts(finished or self.captured_at),
                "containerID": "containerd://" + uid(self.key, "cid", name or self.container)[:12],
            }
            if message:
                terminated["message"] = message
        if waiting:
            status["state"] = {"waiting": {"reason": waiting, "message": waiting_message}}
            status["lastState"] = {"terminated": terminated} if terminated else {}
        elif terminated is not None:
            status["state"] = {"terminated": terminated}
            status["lastState"] = {}
        return status

    def k8s_event(self, at: datetime, reason: str, message: str, *, event_type: str = "Warning") -> Json:
        return {
            "metadata": {
                "name": f"{self.pod}.{uid(self.key, reason, ts(at))[:8]}",
                "namespace": self.namespace,
            },
            "involvedObject": {"kind": "Pod", "name": self.pod, "namespace": self.namespace},
            "reason": reason,
            "message": message,
            "type": event_type,
            "count": 1,
            "firstTimestamp": ts(at),
            "lastTimestamp": ts(at),
        }

    def k8s_events(self, items: list[Json], *, pod: str | None = None, status: int = 200) -> Scenario:
        return self.add(
            "k8s.list_events",
            {"namespace": self.namespace, "fieldSelector": f"involvedObject.name={pod or self.pod}"},
            {"kind": "EventList", "apiVersion": "v1", "items": items},
            status=status,
        )

    def k8s_pod_answer(self, body: Json, *, pod: str | None = None, status: int = 200) -> Scenario:
        return self.add(
            "k8s.read_pod", {"namespace": self.namespace, "name": pod or self.pod}, body, status=status
        )

    def k8s_log(
        self,
        text: str,
        *,
        pod: str | None = None,
        container: str | None = None,
        previous: bool = True,
        status: int = 200,
    ) -> Scenario:
        args: Json = {
            "namespace": self.namespace,
            "name": pod or self.pod,
            "container": container or self.container,
        }
        if previous:
            args["previous"] = True
        if status == 200:
            return self.add("k8s.read_pod_log", args, text=text)
        return self.add("k8s.read_pod_log", args, k8s_status(status, text), status=status)

    def node_answer(
        self, *, ready: bool, reason: str = "", message: str = "", extra: list[Json] | None = None
    ) -> Scenario:
        conditions = [
            {
                "type": "Ready",
                "status": "True" if ready else "Unknown",
                "reason": reason or ("KubeletReady" if ready else "NodeStatusUnknown"),
                "message": message
                or ("kubelet is posting ready status" if ready else "Kubelet stopped posting node status."),
                "lastTransitionTime": ts(self.at(hours=3)),
            },
            {
                "type": "MemoryPressure",
                "status": "False",
                "reason": "KubeletHasSufficientMemory",
                "message": "kubelet has sufficient memory available",
            },
            *(extra or []),
        ]
        return self.add(
            "k8s.read_node",
            {"name": self.node},
            {
                "kind": "Node",
                "apiVersion": "v1",
                "metadata": {"name": self.node},
                "status": {"conditions": conditions},
            },
        )


def k8s_status(code: int, message: str) -> Json:
    reasons = {400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound"}
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "status": "Failure",
        "message": message,
        "reason": reasons.get(code, "InternalError"),
        "code": code,
    }


def runai_error(code: int, message: str) -> Json:
    return {"code": code, "message": message}


TRACEBACK_LOG = """\
2026-05-06 07:41:02,118 INFO  epoch 3 step 1200 loss=0.412
2026-05-06 07:41:09,552 INFO  loading shard 17 from /data/shards/train-017.parquet
Traceback (most recent call last):
  File "/workspace/train.py", line 212, in <module>
    main()
  File "/workspace/train.py", line 188, in main
    batch = collate(samples, schema=cfg.schema)
  File "/workspace/data/collate.py", line 41, in collate
    return {k: torch.stack([s[k] for s in samples]) for k in schema.keys}
KeyError: 'attention_mask'
"""

Builder = Callable[[], Scenario]
DEMO: dict[str, Builder] = {}
TESTS: dict[str, Builder] = {}


def demo(name: str) -> Callable[[Builder], Builder]:
    def register(builder: Builder) -> Builder:
        DEMO[name] = builder
        return builder

    return register


def edge_case(name: str) -> Callable[[Builder], Builder]:
    def register(builder: Builder) -> Builder:
        TESTS[name] = builder
        return builder

    return register

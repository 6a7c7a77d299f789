"""Which container of a pod explains its failure, and that container's exit code, restarts and end
(https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#container-states)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from diagnosis.runai.tier2.evidence import ContainerFacts, PodTarget
from diagnosis.timeutil import parse_instant

if TYPE_CHECKING:
    from diagnosis.runai import k8s_views  # the Kubernetes views: read only with Tier-2 answers


def main_container(pod: k8s_views.K8sPod | None, target: PodTarget) -> tuple[str | None, bool]:
    """(container name, is an init container) whose log explains the failure.

    A failed init container first (its failure keeps the main container from starting), then the
    container that terminated non-zero or is crash-looping, then the first declared container.
    """
    status = pod.status if pod is not None else None
    if status is not None:
        for container in status.initContainerStatuses:
            if _failed(container):
                return container.name, True
        for container in status.containerStatuses:
            if _failed(container):
                return container.name, False
    if pod is not None and pod.spec is not None and pod.spec.containers:
        return pod.spec.containers[0].name, False
    if target.containers:
        return target.containers[0], False
    return None, False


def _failed(container: k8s_views.ContainerStatus) -> bool:
    for state in (container.state, container.lastState):
        if state is None:
            continue
        if state.terminated is not None and (state.terminated.exitCode or 0) != 0:
            return True
        if state.terminated is not None and (state.terminated.reason or "") == "OOMKilled":
            return True
        if state.waiting is not None and (state.waiting.reason or "") == "CrashLoopBackOff":
            return True
    return False


def facts_of(pod: k8s_views.K8sPod, pod_name: str, container_name: str | None) -> ContainerFacts | None:
    status = pod.status
    if status is None:
        return None
    for container in [*status.initContainerStatuses, *status.containerStatuses]:
        if container.name != container_name:
            continue
        exit_code = None
        reason = None
        for state in (container.state, container.lastState):
            if state is not None and state.terminated is not None and state.terminated.exitCode is not None:
                exit_code = state.terminated.exitCode
                reason = state.terminated.reason
                if exit_code != 0:
                    break
        return ContainerFacts(pod_name, container_name, exit_code, container.restartCount, reason)
    return None


def finished_at(pod: k8s_views.K8sPod, container_name: str | None) -> datetime | None:
    if pod.status is None:
        return None
    for container in [*pod.status.initContainerStatuses, *pod.status.containerStatuses]:
        if container.name != container_name:
            continue
        for state in (container.state, container.lastState):
            if state is not None and state.terminated is not None:
                moment = parse_instant(state.terminated.finishedAt)
                if moment is not None:
                    return moment
    return None

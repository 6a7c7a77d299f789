"""Tier 2: read-only Kubernetes evidence for the failing pods (rulings R13, R14, R17).

For each failing pod (at most 8): the pod object (every container's state and last state), its
events, and the main container's previous log (last 200 lines, 1 MB at most; on a 400 for the
previous log, the current log). Nodes are read only for node-failure signals. All calls of one
stage run concurrently. A 401/403 never stops the diagnosis: the denied calls become one
limitation naming the RBAC needed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from diagnosis.evidence.source import Answer
from diagnosis.render.i18n import Translator
from diagnosis.runai import k8s_views, parse
from diagnosis.runai.signals import Observation, from_k8s_events, from_k8s_pod, from_log_findings, from_node
from diagnosis.timeutil import parse_instant

MAX_PODS = 8
LOG_TAIL_LINES = 200
LOG_LIMIT_BYTES = 1_048_576
MAX_FINDINGS_PER_LOG = 3


class Fetcher(Protocol):
    async def fetch(self, op: str, /, *, variant: str | None = None, **args: Any) -> Answer: ...


@dataclass(frozen=True)
class PodTarget:
    name: str
    node: str | None = None
    containers: tuple[str, ...] = ()
    # The container Tier 1 names as failing (a kubelet back-off message), when one does.
    failing_container: str | None = None


@dataclass
class ContainerFacts:
    pod: str
    container: str | None
    exit_code: int | None
    restart_count: int | None
    reason: str | None


@dataclass
class Tier2Evidence:
    observations: list[Observation] = field(default_factory=list)
    main_containers: list[ContainerFacts] = field(default_factory=list)
    denied_calls: list[str] = field(default_factory=list)
    missing_pods: list[str] = field(default_factory=list)
    limitations: list[str] = field(default_factory=list)
    answered: int = 0
    nodes: dict[str, str | None] = field(default_factory=dict)  # pod -> node name

    def merge(self, other: Tier2Evidence) -> None:
        self.observations.extend(other.observations)
        self.main_containers.extend(other.main_containers)
        self.denied_calls.extend(other.denied_calls)
        self.missing_pods.extend(other.missing_pods)
        self.limitations.extend(other.limitations)
        self.answered += other.answered
        self.nodes.update(other.nodes)


def _scan_log(text: str) -> list[Any]:
    from diagnosis.logs.scan import scan_text

    return list(scan_text(text).findings)


def _main_container(pod: k8s_views.K8sPod | None, target: PodTarget) -> tuple[str | None, bool]:
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


def _facts(pod: k8s_views.K8sPod, pod_name: str, container_name: str | None) -> ContainerFacts | None:
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


async def read_pods(
    source: Fetcher, *, namespace: str, pods: Sequence[PodTarget], t: Translator
) -> Tier2Evidence:
    """Every pod's object, previous log and events, requested together (one round); `calls` lists
    the pod objects first, then each pod's log and events."""
    chosen = list(pods[:MAX_PODS])
    pod_calls = [source.fetch("k8s.read_pod", namespace=namespace, name=target.name) for target in chosen]
    other_calls = []
    for target in chosen:
        other_calls.append(_read_log(source, namespace, target.name, _expected_container(target)))
        other_calls.append(
            source.fetch("k8s.list_events", namespace=namespace, fieldSelector=_selector(target, namespace))
        )
    answers = await asyncio.gather(*pod_calls, *other_calls)
    pod_answers = answers[: len(chosen)]
    results = await asyncio.gather(
        *(
            _read_pod(
                source,
                namespace,
                target,
                t,
                pod_answer,
                answers[len(chosen) + 2 * index],
                answers[len(chosen) + 2 * index + 1],
            )
            for index, (target, pod_answer) in enumerate(zip(chosen, pod_answers, strict=True))
        )
    )
    total = Tier2Evidence()
    for result in results:
        total.merge(result)
    return total


def _selector(target: PodTarget, namespace: str) -> str:
    # kubectl describe's own selector; comma is AND. A recorded selector naming only the pod still
    # matches on replay (a recorded set contained in the called one).
    return f"involvedObject.name={target.name},involvedObject.namespace={namespace},involvedObject.kind=Pod"


def _expected_container(target: PodTarget) -> str | None:
    """The container whose log is asked for before the pod object has answered: the one Tier 1
    names as failing, else the first one Run:ai lists."""
    if target.failing_container:
        return target.failing_container
    return target.containers[0] if target.containers else None


async def _read_pod(
    source: Fetcher,
    namespace: str,
    target: PodTarget,
    t: Translator,
    pod_answer: Answer,
    log_answer: Answer,
    events_answer: Answer,
) -> Tier2Evidence:
    """What the pod object, its log and its events show (the runbook's describe pod, logs
    --previous and pod events)."""
    found = Tier2Evidence()
    pod: k8s_views.K8sPod | None = None
    if pod_answer.ok:
        pod, problem = parse.view(k8s_views.K8sPod, pod_answer.body)
        if pod is None:
            found.limitations.append(
                t("lim.k8s_shape", call="k8s.read_pod", pod=target.name, problem=problem)
            )
        else:
            found.answered += 1
            found.observations.extend(from_k8s_pod(pod, pod_name=target.name))
            found.nodes[target.name] = (pod.spec.nodeName if pod.spec else None) or target.node
    else:
        _note_failure(found, pod_answer, target.name, t)
    # A pod that is gone has no log any more; its events may outlive it (for a while).
    container, _is_init = _main_container(pod, target)
    pod_gone = target.name in found.missing_pods
    if not pod_gone and container is not None and container != _expected_container(target):
        # The pod object names another failing container (an init container, say): its log.
        log_answer = await _read_log(source, namespace, target.name, container)
    _absorb_events(found, events_answer, target, t, pod_gone=pod_gone)
    if pod_gone:
        return found
    _absorb_log(found, log_answer, pod, target, container, t)
    return found


def _absorb_events(
    found: Tier2Evidence, events_answer: Answer, target: PodTarget, t: Translator, *, pod_gone: bool
) -> None:
    if events_answer.ok:
        events, problem = parse.view(k8s_views.K8sEventList, events_answer.body)
        if events is None:
            found.limitations.append(
                t("lim.k8s_shape", call="k8s.list_events", pod=target.name, problem=problem)
            )
        else:
            found.answered += 1
            found.observations.extend(
                from_k8s_events(
                    ((f"items[{index}]", event) for index, event in enumerate(events.items)),
                    pod_name=target.name,
                )
            )
    elif not pod_gone:
        _note_failure(found, events_answer, target.name, t)
    elif events_answer.denied:
        found.denied_calls.append(events_answer.op)


def _absorb_log(
    found: Tier2Evidence,
    log_answer: Answer,
    pod: k8s_views.K8sPod | None,
    target: PodTarget,
    container: str | None,
    t: Translator,
) -> None:
    finished_at = None
    if pod is not None:
        facts = _facts(pod, target.name, container)
        if facts is not None:
            found.main_containers.append(facts)
        finished_at = _finished_at(pod, container)
    if log_answer.ok and log_answer.text is not None and log_answer.text.strip():
        found.answered += 1
        findings = _scan_log(log_answer.text)
        if findings:
            found.observations.extend(
                from_log_findings(
                    findings[:MAX_FINDINGS_PER_LOG],
                    pod_name=target.name,
                    container=container,
                    finished_at=finished_at,
                )
            )
    elif log_answer.ok:
        found.limitations.append(t("lim.log_empty", pod=target.name))
    else:
        _note_failure(found, log_answer, target.name, t)


async def _read_log(source: Fetcher, namespace: str, pod_name: str, container: str | None) -> Answer:
    """The main container's previous log (last 200 lines, 1 MB); on a 400 (no previous instance,
    or the container waits to start), the current log."""
    args: dict[str, Any] = {"namespace": namespace, "name": pod_name}
    if container:
        args["container"] = container
    answer = await source.fetch(
        "k8s.read_pod_log", **args, previous=True, tailLines=LOG_TAIL_LINES, limitBytes=LOG_LIMIT_BYTES
    )
    if answer.status == 400:
        answer = await source.fetch(
            "k8s.read_pod_log", **args, tailLines=LOG_TAIL_LINES, limitBytes=LOG_LIMIT_BYTES
        )
    return answer


def _finished_at(pod: k8s_views.K8sPod, container_name: str | None) -> Any:
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


def _note_failure(found: Tier2Evidence, answer: Answer, pod_name: str, t: Translator) -> None:
    if answer.denied:
        found.denied_calls.append(answer.op)
    elif answer.status == 404 and answer.op == "k8s.read_pod":
        found.missing_pods.append(pod_name)
    elif answer.status == 404 and answer.op == "k8s.read_pod_log":
        found.limitations.append(t("lim.log_missing", pod=pod_name))
    else:
        found.limitations.append(
            t("lim.k8s_failed", call=answer.op, pod=pod_name, failure=answer.describe_failure())
        )


async def read_nodes(source: Fetcher, *, nodes: Sequence[str], t: Translator) -> Tier2Evidence:
    found = Tier2Evidence()
    answers = await asyncio.gather(*(source.fetch("k8s.read_node", name=name) for name in nodes[:MAX_PODS]))
    for name, answer in zip(nodes, answers, strict=False):
        if not answer.ok:
            if answer.denied:
                found.denied_calls.append(answer.op)
            else:
                found.limitations.append(t("lim.node_failed", node=name, failure=answer.describe_failure()))
            continue
        node, problem = parse.view(k8s_views.Node, answer.body)
        if node is None:
            found.limitations.append(t("lim.k8s_shape", call="k8s.read_node", pod=name, problem=problem))
            continue
        found.answered += 1
        found.observations.extend(from_node(node, node_name=name))
    return found

"""Which namespace, pods and nodes Tier 2 reads, and the kubectl commands offered instead.

The namespace is the workload's own `namespace` field; `runai-<project>` only when it is absent.
The pods are the failing ones (k8sPhase Error/OOMKilled/Failed), else the newest; nodes are those
that node-failure signals point at.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from diagnosis.runai.phases import FAILING_POD_PHASES
from diagnosis.runai.routes import K8S_COMMANDS
from diagnosis.runai.rules import Signal, Verdict
from diagnosis.runai.tier2.evidence import PodTarget, Tier2Evidence
from diagnosis.runai.workflow.state import State
from diagnosis.timeutil import parse_instant

_EPOCH = datetime.min.replace(tzinfo=UTC)
# The kubelet's crash-loop event: "Back-off restarting failed container <name> in pod <pod>".
_BACKOFF_CONTAINER = re.compile(r"failed container ([A-Za-z0-9][-A-Za-z0-9.]{0,252}) in pod")


def _failing_container(state: State, pod_name: str) -> str | None:
    """The container the workload's latest back-off event names for this pod, if any."""
    named = None
    for observation in [*state.event_observations, *state.history_observations]:
        if observation.pod != pod_name:
            continue
        match = _BACKOFF_CONTAINER.search(observation.message)
        if match:
            named = match.group(1)
    return named


def namespace(state: State) -> tuple[str | None, bool]:
    """(namespace, derived from the project rather than read from the workload)."""
    status = state.known_status
    if status.namespace:
        return status.namespace, False
    project = status.projectName or state.run.request.project
    return (f"runai-{project}", True) if project else (None, True)


def pod_targets(state: State) -> list[PodTarget]:
    pods = [pod for _where, pod in state.pods if pod.name]
    failing = [pod for pod in pods if (pod.k8sPhase or "").lower() in FAILING_POD_PHASES]
    if not failing and pods:
        failing = [max(pods, key=lambda pod: parse_instant(pod.createdAt) or _EPOCH)]
    targets = [
        PodTarget(
            name=str(pod.name),
            node=pod.nodeName,
            containers=tuple(c.name for c in pod.containers if c.name),
            failing_container=_failing_container(state, str(pod.name)),
        )
        for pod in failing
    ]
    if targets:
        return targets
    # No pods from Run:ai: the pod the workload's events name last.
    names: list[str] = []
    for observation in [*state.event_observations, *state.history_observations]:
        if observation.pod and observation.pod not in names:
            names.append(observation.pod)
    return [PodTarget(name=name, failing_container=_failing_container(state, name)) for name in names[-1:]]


def _signal_node(state: State, signal: Signal, tier2: Tier2Evidence) -> str | None:
    observation = signal.observation
    node = observation.node or (tier2.nodes.get(observation.pod) if observation.pod else None)
    if node is None and observation.pod:
        node = next((pod.nodeName for _w, pod in state.pods if pod.name == observation.pod), None)
    return node


def failing_nodes(state: State, signals: list[Signal], tier2: Tier2Evidence) -> list[str]:
    """The nodes node-failure signals point at (else the failing pods' nodes), not yet read."""
    names: list[str] = []
    for signal in signals:
        if signal.category != "NODE_FAILURE" or signal.rule.role != "cause":
            continue
        node = _signal_node(state, signal, tier2)
        if node and node not in names:
            names.append(node)
    if not names:
        names = [
            pod.nodeName
            for _w, pod in state.pods
            if pod.nodeName and (pod.k8sPhase or "").lower() in FAILING_POD_PHASES
        ]
    read = {o.node for o in tier2.observations if o.source == "k8s.read_node"}
    return [name for name in dict.fromkeys(names) if name not in read]


def kubectl_next_steps(state: State, verdict: Verdict) -> State:
    """The read-only kubectl commands a person with cluster access can run instead."""
    found_namespace, _derived = namespace(state)
    targets = pod_targets(state)
    pod = targets[0].name if targets else "<pod>"
    ns = found_namespace or "<namespace>"
    t = state.t
    steps = [
        t("next.run_command", command=K8S_COMMANDS[op].format(name=pod, namespace=ns))
        for op in ("k8s.read_pod", "k8s.read_pod_log", "k8s.list_events")
    ]
    if verdict.unexplained_kill is not None:
        node = targets[0].node if targets and targets[0].node else "<node>"
        steps.append(t("next.run_command", command=K8S_COMMANDS["k8s.read_node"].format(name=node)))
    return state.stepped(*steps)

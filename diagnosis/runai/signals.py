"""Raw evidence -> observations: one quoted fact per event, condition, phase message, pod or log line.

An `Observation` is what the rules table reads: where it came from (the op and JSON path), the
reason and message as the platform wrote them (untrusted text: quoted, never followed), a time
when one is known, and the pod/container/exit code it concerns. Nothing here classifies.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from dataclasses import field as dataclass_field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from diagnosis.logs.rules import own_fault, reading_of
from diagnosis.runai import parse
from diagnosis.timeutil import iso, naive_log_instant, parse_instant

if TYPE_CHECKING:
    from diagnosis.runai import k8s_views  # the Kubernetes views: read only with Tier-2 answers

ObservationKind = Literal[
    "phase_message",  # status phaseMessage / phaseReason
    "condition",  # workload or pod condition
    "scheduling",  # status pendingSchedulingMessages
    "event",  # Run:ai events / history events / Kubernetes events
    "phase_update",  # history PhaseUpdate
    "pod_phase",  # Run:ai pods[].k8sPhase
    "pod_status",  # Kubernetes pod status.reason/message
    "container",  # Kubernetes container state / lastState
    "log",  # a log finding (logscan)
    "node_condition",  # Kubernetes node condition
    "spec",  # submitted spec (corroboration only, never classifies alone)
    "desired_phase",  # the type-specific spec's desiredPhase: a stop someone or something asked for
]

MAX_QUOTE = 400
_EXIT_CODE = re.compile(
    r"(?:exit(?:ed)?\s*(?:with\s*)?(?:code|status)?|exitCode|exit_code|return code)\s*[:=]?\s*\(?(-?\d{1,3})\b",
    re.IGNORECASE,
)


def quote(text: str | None, *, limit: int = MAX_QUOTE) -> str:
    """A single-line excerpt, bounded: evidence quotes, never whole documents."""
    if not text:
        return ""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def exit_code_in(text: str | None) -> int | None:
    """An exit code stated in free text (`exited with code 1`, `exitCode=137`), or None."""
    if not text:
        return None
    match = _EXIT_CODE.search(text)
    if not match:
        return None
    code = int(match.group(1))
    return code if -255 <= code <= 255 else None


@dataclass(frozen=True)
class Observation:
    source: str
    field: str
    kind: ObservationKind
    reason: str = ""
    message: str = ""
    at: datetime | None = None
    pod: str | None = None
    container: str | None = None
    init_container: bool = False
    exit_code: int | None = None
    event_id: str | None = None
    event_type: str | None = None
    status: str | None = None  # condition status ("True"/"False"/"Unknown")
    condition_type: str | None = None
    node: str | None = None
    log_kind: str | None = None  # logscan Finding.kind
    consequence: bool = False  # logscan: a failure that usually follows another one (G14)
    # A log line claiming a failure outside the process (a hardware fault, a kernel OOM kill) in a
    # log whose own exception contradicts it: the container's text cannot attest it.
    contradicted: bool = False
    extra: dict[str, Any] = dataclass_field(default_factory=dict, compare=False, hash=False)

    @property
    def haystack(self) -> str:
        return f"{self.reason} {self.message}"

    @property
    def status_word(self) -> bool:
        """A bare status (a pod's k8sPhase, a reason with no message): it names no container, exit
        code or error line."""
        if self.kind == "log" or self.exit_code is not None:
            return False
        return self.kind == "pod_phase" or not self.message.strip()

    def quoted(self) -> str:
        """The evidence text: `<time> <type> <reason>: <message>` for events, verbatim otherwise."""
        when = f"{iso(self.at)} " if self.at is not None and self.kind in ("event", "phase_update") else ""
        text = _TEXT_OF_KIND.get(self.kind, _plain_text)(self, when)
        return quote(text)


def _with_message(head: str, message: str) -> str:
    return f"{head}: {message}" if message else head


def _event_text(observation: Observation, when: str) -> str:
    head = " ".join(part for part in (observation.event_type, observation.reason) if part)
    return _with_message(f"{when}{head}", observation.message)


def _condition_text(observation: Observation, when: str) -> str:
    kind = observation.condition_type
    parts = [f"{kind}={observation.status}" if kind else "", observation.reason]
    return _with_message(" ".join(part for part in parts if part), observation.message)


def _plain_text(observation: Observation, when: str) -> str:
    """The reason and the message, the reason left out when the message already says it."""
    reason, message = observation.reason, observation.message
    if reason and message and reason not in message:
        return f"{reason}: {message}"
    return message or reason


# How each kind of observation is quoted as evidence; any other kind: `_plain_text`.
_TEXT_OF_KIND: dict[str, Callable[[Observation, str], str]] = {
    "event": _event_text,
    "phase_update": lambda observation, when: _with_message(
        f"{when}{observation.reason}", observation.message
    ),
    "condition": _condition_text,
    "container": lambda observation, when: observation.message or observation.reason,
    "log": lambda observation, when: observation.message,
}


# --- Run:ai control plane -------------------------------------------------------------------------


def from_condition(
    condition: parse.Condition,
    *,
    source: str,
    field: str,
    kind: ObservationKind = "condition",
    condition_type: str | None = None,
    pod: str | None = None,
    node: str | None = None,
    exit_code: int | None = None,
) -> Observation:
    """A workload, pod or node condition at its last transition; `condition_type` when the
    condition's own `type` is not the one to quote."""
    return Observation(
        source=source,
        field=field,
        kind=kind,
        reason=condition.reason or "",
        message=condition.message or "",
        at=parse_instant(condition.lastTransitionTime),
        status=condition.status,
        condition_type=condition.type if condition_type is None else condition_type,
        pod=pod,
        node=node,
        exit_code=exit_code,
    )


def from_status(status: parse.Workload, *, source: str = "get_workload_status") -> list[Observation]:
    found: list[Observation] = []
    if status.phaseMessage or status.phaseReason:
        found.append(
            Observation(
                source=source,
                field="phaseMessage" if status.phaseMessage else "phaseReason",
                kind="phase_message",
                reason=status.phaseReason or "",
                message=status.phaseMessage or "",
                at=parse_instant(status.phaseUpdatedAt),
                exit_code=exit_code_in(status.phaseMessage),
            )
        )
    for index, condition in enumerate(status.conditions):
        if not (condition.reason or condition.message):
            continue
        found.append(
            from_condition(
                condition,
                source=source,
                field=f"conditions[{index}]",
                exit_code=exit_code_in(condition.message),
            )
        )
    for index, pending in enumerate(status.pendingSchedulingMessages):
        found.append(
            Observation(
                source=source,
                field=f"pendingSchedulingMessages[{index}]",
                kind="scheduling",
                reason=pending.phaseReason or pending.reason or "",
                message=" ".join(part for part in (pending.reason, pending.userMessage) if part),
            )
        )
    return found


def from_event(event: parse.Event, *, source: str, field: str) -> Observation:
    involved = event.involvedObject
    pod = involved.name if involved is not None and (involved.kind or "").lower() == "pod" else None
    return Observation(
        source=source,
        field=field,
        kind="event",
        reason=event.reason or "",
        message=event.message or "",
        at=parse_instant(event.createdAt),
        pod=pod,
        event_id=event.id,
        event_type=event.type,
        exit_code=exit_code_in(event.message),
        extra={"involved_kind": involved.kind if involved is not None else None},
    )


def from_events(events: Iterable[tuple[str, parse.Event]], *, source: str) -> list[Observation]:
    return [from_event(event, source=source, field=field) for field, event in events]


def from_history(records: Iterable[tuple[str, parse.HistoryRecord]]) -> list[Observation]:
    found: list[Observation] = []
    for field_path, record in records:
        spec = record.spec
        meta = record.meta
        created = parse_instant(meta.creationTimestamp if meta else None)
        if spec is None:
            continue
        if spec.event is not None:
            observation = from_event(
                spec.event, source="get_workload_history", field=f"{field_path}.spec.event"
            )
            if observation.at is None and created is not None:
                observation = _with_time(observation, created)
            found.append(observation)
        if spec.phaseUpdate is not None and spec.phaseUpdate.phase:
            found.append(
                Observation(
                    source="get_workload_history",
                    field=f"{field_path}.spec.phaseUpdate",
                    kind="phase_update",
                    reason=spec.phaseUpdate.phase,
                    message=spec.phaseUpdate.phaseMessage or "",
                    at=created,
                    exit_code=exit_code_in(spec.phaseUpdate.phaseMessage),
                )
            )
    return found


def _with_time(observation: Observation, at: datetime) -> Observation:
    from dataclasses import replace

    return replace(observation, at=at)


def from_desired_phase(spec: parse.WorkloadSpec | None, *, phase: str | None) -> list[Observation]:
    """A requested stop: the workload is Stopped and its spec's `desiredPhase` is `Stopped` too.

    Run:ai keeps what was asked for in `desiredPhase` (`Running`, `Stopped`, `Deleted`) beside the
    phase reached; a stop asked for through the UI, CLI or API (or by a policy acting through it)
    sets it to `Stopped`. A workload that stopped by itself keeps `desiredPhase: Running`.
    https://api-docs.run.ai/latest/tag/Trainings (`desiredPhase` of a training)
    """
    desired = (spec.desiredPhase or "").strip() if spec is not None else ""
    if desired.lower() != "stopped" or (phase or "").strip().lower() != "stopped":
        return []
    actual = spec.actualPhase if spec is not None and spec.actualPhase else phase
    return [
        Observation(
            source="get_workload_spec",
            field="desiredPhase",
            kind="desired_phase",
            reason=desired,
            message=f"desiredPhase: {desired} (actualPhase: {actual})",
        )
    ]


def from_pods(pods: Iterable[tuple[str, parse.Pod]]) -> list[Observation]:
    found: list[Observation] = []
    for field_path, pod in pods:
        if not pod.k8sPhase:
            continue
        found.append(
            Observation(
                source="get_workload_pods",
                field=f"{field_path}.k8sPhase",
                kind="pod_phase",
                reason=pod.k8sPhase,
                message=pod.k8sPhase,
                at=parse_instant(pod.k8sPhaseUpdatedAt) or parse_instant(pod.completedAt),
                pod=pod.name,
                node=pod.nodeName,
            )
        )
    return found


# --- Kubernetes (Tier 2) --------------------------------------------------------------------------


def from_k8s_pod(pod: k8s_views.K8sPod, *, pod_name: str) -> list[Observation]:
    found: list[Observation] = []
    status = pod.status
    node = pod.spec.nodeName if pod.spec is not None else None
    if status is None:
        return found
    if status.reason or status.message:
        found.append(
            Observation(
                source="k8s.read_pod",
                field="status.reason",
                kind="pod_status",
                reason=status.reason or "",
                message=status.message or "",
                pod=pod_name,
                node=node,
            )
        )
    for index, condition in enumerate(status.conditions):
        if (condition.type or "") != "DisruptionTarget":
            continue
        found.append(
            from_condition(
                condition, source="k8s.read_pod", field=f"status.conditions[{index}]", pod=pod_name, node=node
            )
        )
    for group, init in (("initContainerStatuses", True), ("containerStatuses", False)):
        for index, container in enumerate(getattr(status, group)):
            found.extend(
                _container_observations(container, f"status.{group}[{index}]", pod_name, node, init=init)
            )
    return found


def _container_observations(
    container: k8s_views.ContainerStatus, field_path: str, pod_name: str, node: str | None, *, init: bool
) -> list[Observation]:
    found: list[Observation] = []
    for state_name in ("state", "lastState"):
        state = getattr(container, state_name)
        if state is None:
            continue
        if state.terminated is not None:
            terminated = state.terminated
            reason = terminated.reason or ""
            code = terminated.exitCode
            words = [f"container {container.name}" if container.name else "container", "terminated"]
            if reason:
                words.append(f"reason {reason}")
            if code is not None:
                words.append(f"exit code {code}")
            message = " ".join(words)
            if terminated.message:
                message += f": {terminated.message}"
            found.append(
                Observation(
                    source="k8s.read_pod",
                    field=f"{field_path}.{state_name}.terminated",
                    kind="container",
                    reason=reason,
                    message=message,
                    at=parse_instant(terminated.finishedAt),
                    pod=pod_name,
                    container=container.name,
                    init_container=init,
                    exit_code=code,
                    node=node,
                    extra={"restart_count": container.restartCount, "state": state_name},
                )
            )
        if state.waiting is not None and state.waiting.reason:
            waiting = state.waiting
            found.append(
                Observation(
                    source="k8s.read_pod",
                    field=f"{field_path}.{state_name}.waiting",
                    kind="container",
                    reason=waiting.reason or "",
                    message=f"{waiting.reason}: {waiting.message}"
                    if waiting.message
                    else waiting.reason or "",
                    pod=pod_name,
                    container=container.name,
                    init_container=init,
                    node=node,
                    extra={"restart_count": container.restartCount, "state": state_name},
                )
            )
    return found


def from_k8s_events(events: Iterable[tuple[str, k8s_views.K8sEvent]], *, pod_name: str) -> list[Observation]:
    found: list[Observation] = []
    for field_path, event in events:
        found.append(
            Observation(
                source="k8s.list_events",
                field=field_path,
                kind="event",
                reason=event.reason or "",
                message=event.message or "",
                at=event.newest_time(),
                pod=pod_name,
                event_type=event.type,
                exit_code=exit_code_in(event.message),
            )
        )
    return found


def from_node(node: k8s_views.Node, *, node_name: str) -> list[Observation]:
    """Unhealthy node conditions only: Ready not True, or a pressure condition True."""
    found: list[Observation] = []
    if node.status is None:
        return found
    for index, condition in enumerate(node.status.conditions):
        kind = condition.type or ""
        is_true = (condition.status or "").lower() == "true"
        # Ready must be True; every other node condition (pressure, node-problem-detector) is a
        # problem when True.
        unhealthy = not is_true if kind == "Ready" else is_true
        if not unhealthy:
            continue
        found.append(
            from_condition(
                condition,
                source="k8s.read_node",
                field=f"status.conditions[{index}]",
                kind="node_condition",
                condition_type=kind,  # "" for a condition without a type
                node=node_name,
            )
        )
    return found


def from_log_findings(
    findings: Sequence[Any],
    *,
    pod_name: str,
    container: str | None,
    finished_at: datetime | None,
    limit: int | None = None,
) -> list[Observation]:
    """Log findings (diagnosis.logs.scan.Finding) of one container's log, most diagnostic first
    (the first `limit` of them). A claim of a failure outside the process (an Xid line, a kernel
    OOM line) is marked contradicted when the same log holds an exception of the code itself."""
    contradicting = any(
        own_fault(getattr(finding, "kind", None), str(getattr(finding, "line", ""))) for finding in findings
    )
    found: list[Observation] = []
    for finding in findings[:limit]:
        stamp = getattr(finding, "timestamp", None)
        at = getattr(stamp, "value", None) if stamp is not None else None
        if at is not None and at.tzinfo is None:
            # No offset in the line: every container of one job logs in the same zone, so reading
            # them all as UTC keeps their order, unless that reading puts the line after its
            # container finished (then the container logged China time).
            at = naive_log_instant(at, not_after=finished_at)
        found.append(
            Observation(
                source="k8s.read_pod_log",
                field=f"line {getattr(finding, 'line_number', '?')}",
                kind="log",
                reason=str(getattr(finding, "kind", "error")),
                message=str(getattr(finding, "line", "")),
                at=at or finished_at,
                pod=pod_name,
                container=container,
                log_kind=str(getattr(finding, "kind", "error")),
                consequence=bool(getattr(finding, "is_consequence", False)),
                contradicted=contradicting and reading_of(getattr(finding, "kind", None)).outside_process,
                exit_code=getattr(finding, "exit_code", None),
                extra={"exception_name": getattr(finding, "exception_name", None)},
            )
        )
    return found


def _own_failure(observation: Observation) -> bool:
    """A log line naming a failure of its own (not a consequence, not a collective failure)."""
    reading = reading_of(observation.log_kind)
    return (
        observation.kind == "log"
        and not observation.consequence
        and not observation.contradicted
        and reading.role == "cause"
        and reading.direct
        and reading.category is not None
        and not reading.collective
    )


def collectives_after_a_peer(observations: Sequence[Observation]) -> list[Observation]:
    """Across workers the earliest failure is the root cause: a collective-communication failure
    in one pod's log (an NCCL or HCCL error, a rendezvous failure, whatever its wording) follows
    another pod's own failure (the peer died, the collective broke), unless the times show it
    came first. Such a line becomes a consequence."""
    own = [observation for observation in observations if _own_failure(observation)]
    marked: list[Observation] = []
    for observation in observations:
        reading = reading_of(observation.log_kind)
        if observation.kind == "log" and reading.collective and not observation.consequence:
            after_a_peer = any(
                other.pod != observation.pod
                and not (observation.at is not None and other.at is not None and observation.at < other.at)
                for other in own
            )
            if after_a_peer:
                observation = replace(observation, consequence=True)
        marked.append(observation)
    return marked

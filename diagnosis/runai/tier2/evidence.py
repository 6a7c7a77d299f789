"""What Tier 2 found: observations, the failing containers' facts, denied calls, missing pods and
limitations; and how a failed Kubernetes call is noted."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from diagnosis.evidence.answer import Answer
from diagnosis.render.i18n import Translator
from diagnosis.runai.signals import Observation

MAX_PODS = 8


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
    # The last line its log read ended with: what Kubernetes itself reports as the termination
    # message when a container's own is empty (terminationMessagePolicy FallbackToLogsOnError).
    last_log_line: str | None = None


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


def note_failure(found: Tier2Evidence, answer: Answer, pod_name: str, t: Translator) -> None:
    if answer.denied:
        found.denied_calls.append(answer.op)
    elif answer.status == 404 and answer.op == "k8s.read_pod":
        found.missing_pods.append(pod_name)
    elif answer.status == 404 and answer.op == "k8s.read_pod_log":
        found.limitations.append(t("lim.log_missing", pod=pod_name))
    else:
        found.limitations.append(
            t("lim.k8s_failed", call=answer.op, pod=pod_name, failure=answer.describe_failure(lang=t.lang))
        )

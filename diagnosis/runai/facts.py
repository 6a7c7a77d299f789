"""What step 5 composes from: the verdict and the answers the workflow read, and the few facts
the report names (the failing pod, the main container, its exit code, the image, the node).

Every value here was read from an answer the workflow fetched; a missing one stays None and is
named as missing, never filled in.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from diagnosis.evidence.answer import Answer
from diagnosis.models import Recurrence
from diagnosis.render.i18n import Translator
from diagnosis.runai import parse
from diagnosis.runai.recurrence import Occurrence
from diagnosis.runai.rules import Signal, Verdict
from diagnosis.runai.tier2.evidence import ContainerFacts, Tier2Evidence

# The Run:ai pod phases (k8sPhase) of a pod that failed.
FAILING_POD_PHASES = ("oomkilled", "error", "failed")
# The answers that describe the workload itself: an exit code is only taken from these.
WORKLOAD_SOURCES = ("get_workload_status", "k8s.read_pod")


@dataclass
class Context:
    t: Translator
    status: parse.Workload
    spec: parse.WorkloadSpec | None
    pods: list[tuple[str, parse.Pod]]
    tier2: Tier2Evidence
    verdict: Verdict
    signals: list[Signal]
    lookback_text: str
    namespace: str | None
    metrics_answer: Answer | None
    occurrences: list[Occurrence] = field(default_factory=list)
    recurrence: Recurrence | None = None

    @property
    def submitted(self) -> parse.SpecBody | None:
        return self.spec.spec if self.spec else None


def failing_pod(context: Context) -> tuple[str, parse.Pod] | None:
    for where, pod in context.pods:
        if (pod.k8sPhase or "").lower() in FAILING_POD_PHASES:
            return where, pod
    return context.pods[0] if context.pods else None


def main_container(context: Context) -> ContainerFacts | None:
    facts = context.tier2.main_containers
    if not facts:
        return None
    failing = [fact for fact in facts if fact.exit_code not in (None, 0)]
    return (failing or facts)[0]


def container_name(context: Context) -> str | None:
    fact = main_container(context)
    if fact is not None and fact.container:
        return fact.container
    winner = context.verdict.winner
    if winner is not None and winner.observation.container:
        return winner.observation.container
    failing = failing_pod(context)
    if failing is not None and failing[1].containers and failing[1].containers[0].name:
        return failing[1].containers[0].name
    return None


def exit_code(context: Context) -> int | None:
    fact = main_container(context)
    if fact is not None and fact.exit_code is not None:
        return fact.exit_code
    for signal in [context.verdict.winner, context.verdict.unexplained_kill]:
        # Only the answers that describe the workload itself (status, pods) give its exit code.
        if (
            signal is not None
            and signal.observation.exit_code is not None
            and signal.observation.source in WORKLOAD_SOURCES
        ):
            return signal.observation.exit_code
    return None


def image(context: Context) -> str | None:
    spec = context.submitted
    if spec is not None and spec.image:
        return spec.image
    failing = failing_pod(context)
    if failing is not None and failing[1].containers:
        return failing[1].containers[0].image
    return None


def node(context: Context) -> str | None:
    winner = context.verdict.winner
    if winner is not None and winner.observation.node:
        return winner.observation.node
    failing = failing_pod(context)
    return failing[1].nodeName if failing is not None else None


def batch_setting(context: Context) -> str | None:
    spec = context.submitted
    if spec is None:
        return None
    for variable in spec.environmentVariables:
        name = variable.name or ""
        if "BATCH" in name.upper() and variable.value and variable.value.strip().isdigit():
            return f"{name}={variable.value.strip()}"
    return None


def subcase(context: Context, default: str) -> str:
    winner = context.verdict.winner
    return (winner.rule.subcase if winner is not None else None) or default

"""Runbook step 4: the conditional evidence, each read only when its rule asks.

- Metrics when an OOM kill shows anywhere, or an exit 137 that nothing explains.
- Tier 2 (Kubernetes) when Tier 1 gives no category, when a 137 is unexplained, when a crash
  needs its exit code or log line, or when a container's failure rests on a status word alone
  (`Init:Error`, `CreateContainerError`: the pod names the container, its exit code and log
  line); the metrics and the pods' Tier-2 reads go together.
- The node only for node-failure signals, when Kubernetes access exists.
The last evidence (Tier 2) may still show a preemption, which then routes.
"""

from __future__ import annotations

import asyncio

from diagnosis.evidence.answer import Answer
from diagnosis.models import Diagnosis
from diagnosis.render.i18n import Translator
from diagnosis.runai.rules import Signal, Verdict, decide
from diagnosis.runai.signals import Observation, from_desired_phase, from_pods
from diagnosis.runai.tier2.evidence import Tier2Evidence
from diagnosis.runai.tier2.nodes import read_nodes
from diagnosis.runai.tier2.pods import PodObjectsHook, read_pods
from diagnosis.runai.tier2_reasons import Tier2Unavailable
from diagnosis.runai.workflow.conclude import conclude
from diagnosis.runai.workflow.preemption import route_if_preempted
from diagnosis.runai.workflow.state import Conditional, Next, Note, Run, State
from diagnosis.runai.workflow.targets import failing_nodes, kubectl_next_steps, namespace, pod_targets
from diagnosis.timeutil import iso, parse_instant

METRIC_TYPES = "CPU_MEMORY_USAGE_BYTES,CPU_MEMORY_LIMIT_BYTES"
METRIC_SAMPLES = 500


def needs_tier2(verdict: Verdict) -> bool:
    """No category from Tier 1, an unexplained 137, a crash that needs its log line, or a
    container's failure that only a status word names (the pod says which container, its exit
    code and its log line)."""
    if verdict.category == "UNKNOWN" or verdict.unexplained_kill is not None:
        return True
    if verdict.rests_on_a_status_word:
        return True
    return verdict.category == "CRASH_APP_ERROR" and not verdict.direct


def wants_metrics(signals: list[Signal], verdict: Verdict) -> bool:
    """OOMKilled anywhere, or an exit 137 that nothing explains."""
    if verdict.unexplained_kill is not None:
        return True
    return any(signal.category == "OOM_KILLED" and signal.rule.role == "cause" for signal in signals)


def _node_failure(signals: list[Signal]) -> bool:
    return any(s.category == "NODE_FAILURE" for s in signals if s.rule.role == "cause")


async def gather_conditional(state: State) -> Next | Diagnosis:
    run = state.run
    stopped = (state.known_status.phase or "").lower() == "stopped"
    observations: list[Observation] = [
        *state.timeline(),
        *from_pods(list(state.pods)),
        *from_desired_phase(state.spec, phase=state.known_status.phase),
    ]
    signals = run.classify(observations)
    verdict = decide(signals, stopped=stopped)
    tier2_needed = needs_tier2(verdict)
    notes: list[str] = []
    metrics_early = wants_metrics(signals, verdict)
    after_pod_objects: list[Answer | None] = []

    async def metrics_the_pod_objects_ask_for(pod_observations: list[Observation]) -> None:
        # Only the pod objects show the OOM kill or the unexplained 137: the metrics go while the
        # logs those objects name are read.
        if not metrics_early:
            later = run.classify(observations + pod_observations)
            if wants_metrics(later, decide(later, stopped=stopped)):
                after_pod_objects.append(await read_metrics(run, state, notes.append))

    # One round: the metrics and the failing pods' Tier-2 reads, each when its rule asks.
    metrics_answer, tier2 = await asyncio.gather(
        read_metrics(run, state, notes.append) if metrics_early else _nothing(),
        read_tier2(run, state, notes.append, with_pod_objects=metrics_the_pod_objects_ask_for)
        if tier2_needed and run.tier2_available
        else _no_tier2(),
    )
    metrics_read = metrics_early or bool(after_pod_objects)
    metrics_answer = metrics_answer or next(iter(after_pod_objects), None)
    signals = run.classify(observations + tier2.observations)
    verdict = decide(signals, stopped=stopped)
    # One more round when the pod evidence asks for it: the nodes of node-failure signals, and the
    # metrics when only a Tier-2 log showed the OOM kill.
    nodes = failing_nodes(state, signals, tier2) if run.tier2_available and _node_failure(signals) else []
    late_metrics = not metrics_read and wants_metrics(signals, verdict)
    node_evidence, late_answer = await asyncio.gather(
        read_nodes(run.source, nodes=nodes, t=run.t) if nodes else _no_tier2(),
        read_metrics(run, state, notes.append) if late_metrics else _nothing(),
    )
    if nodes:
        tier2.merge(node_evidence)
        signals = run.classify(observations + tier2.observations)
        verdict = decide(signals, stopped=stopped)
    metrics_answer = metrics_answer or late_answer
    state = _tier2_notes(state.noted(*notes), tier2, needed=tier2_needed)
    if verdict.category == "UNKNOWN" or verdict.unexplained_kill is not None:
        state = kubectl_next_steps(state, verdict)
    preempted = route_if_preempted(state, [*state.timeline(), *tier2.observations])
    if preempted is not None:
        return preempted
    found = Conditional(signals=signals, verdict=verdict, tier2=tier2, metrics_answer=metrics_answer)
    return Next(conclude, state.but(conditional=found))


async def _nothing() -> None:
    return None


async def _no_tier2() -> Tier2Evidence:
    return Tier2Evidence()


async def read_tier2(
    run: Run, state: State, note: Note, *, with_pod_objects: PodObjectsHook | None = None
) -> Tier2Evidence:
    found_namespace, derived = namespace(state)
    if found_namespace is None:
        note(run.t("lim.namespace_unknown"))
        return Tier2Evidence()
    targets = pod_targets(state)
    if not targets:
        note(run.t("lim.no_pod_names"))
        return Tier2Evidence()
    found = await read_pods(
        run.source, namespace=found_namespace, pods=targets, t=run.t, with_pod_objects=with_pod_objects
    )
    if found.missing_pods:
        key = "lim.pods_missing_derived" if derived else "lim.pods_missing"
        note(run.t(key, pods=", ".join(found.missing_pods), namespace=found_namespace))
    return found


async def read_metrics(run: Run, state: State, note: Note) -> Answer | None:
    """The lookback ending at now, clipped to the workload's createdAt..completedAt."""
    status = state.known_status
    start = run.cut
    end = run.now
    created = parse_instant(status.createdAt)
    completed = parse_instant(status.completedAt)
    if created is not None and created > start:
        start = created
    if completed is not None and completed < end:
        end = completed
    if start >= end:
        note(run.t("lim.metrics_window_empty", lookback=run.lookback_text))
        return None
    return await run.source.fetch(
        "get_workload_metrics",
        workloadId=state.workload_id,
        metricType=METRIC_TYPES,
        start=iso(start),
        end=iso(end),
        numberOfSamples=METRIC_SAMPLES,
    )


def _tier2_notes(state: State, tier2: Tier2Evidence, *, needed: bool) -> State:
    t = state.t
    run = state.run
    if needed and not run.tier2_available:
        reason = _unavailable_reason(run.tier2_unavailable_reason, t)
        state = state.noted(t("lim.tier2_unavailable", reason=reason))
    state = state.noted(*tier2.limitations)
    if tier2.denied_calls:
        # Several denied Tier-2 calls make one limitation naming the RBAC needed.
        calls = ", ".join(dict.fromkeys(tier2.denied_calls))
        state = state.noted(t("lim.tier2_denied", calls=calls, namespace=namespace(state)[0] or "?"))
    return state


def _unavailable_reason(reason: Tier2Unavailable | None, t: Translator) -> str:
    """Why Tier 2 is not there, in the diagnosis' language."""
    return reason.words(t) if reason is not None else t("word.no_k8s_credentials")

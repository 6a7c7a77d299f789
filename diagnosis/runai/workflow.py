"""The Run:ai runbook as code: steps 1-5, with the open points settled by rulings G1-G16 and R1-R17.

Pure: every fact comes through the source (`fetch` by op name), time comes from `now`, and the
result is a `Diagnosis` whose free text comes from the message catalogue. Independent calls of a
step run concurrently (spec + pods + history; the Tier-2 calls of each stage).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from diagnosis.evidence.source import Answer
from diagnosis.models import (
    DiagnoseRequest,
    Diagnosis,
    Evidence,
    Measurements,
    Outcome,
    Question,
    Recurrence,
    Route,
    Target,
)
from diagnosis.render.i18n import Translator
from diagnosis.runai import parse
from diagnosis.runai.compose import Context, compose_diagnosed, format_quantity
from diagnosis.runai.messages import CATALOGUE
from diagnosis.runai.option_b import OptionB, Stop
from diagnosis.runai.paging import (
    HISTORY_PAGE_SIZE,
    Fetcher,
    Paged,
    all_older_than,
    event_items,
    history_created_at,
    read_event_pages,
    read_pages,
)
from diagnosis.runai.phases import (
    FAILED,
    FAILING_POD_PHASES,
    RUNNING,
    STARTING,
    SUCCEEDED,
    TERMINAL,
    crash_confirmed,
    pod_failure_confirmed,
)
from diagnosis.runai.recurrence import count_failures
from diagnosis.runai.routes import K8S_COMMANDS, spec_variant_for_type
from diagnosis.runai.rules import KILL_EXIT_CODES, Signal, Verdict, classify_all, decide
from diagnosis.runai.signals import Observation, from_events, from_history, from_pods, from_status, quote
from diagnosis.runai.tier2 import PodTarget, Tier2Evidence, read_nodes, read_pods
from diagnosis.timeutil import iso, parse_duration, parse_instant

DEFAULT_LOOKBACK = "7d"
METRIC_TYPES = "CPU_MEMORY_USAGE_BYTES,CPU_MEMORY_LIMIT_BYTES"
METRIC_SAMPLES = 500


class _Finished(Exception):
    def __init__(self, diagnosis: Diagnosis) -> None:
        super().__init__(diagnosis.outcome)
        self.diagnosis = diagnosis


async def diagnose(
    request: DiagnoseRequest,
    source: Fetcher,
    *,
    now: datetime,
    lang: str = "en",
    tier2_available: bool = False,
    tier2_unavailable_reason: str | None = None,
) -> Diagnosis:
    """Run the runbook on one request. Never raises for bad answers: they become limitations."""
    run = _Run(
        request,
        source,
        now=now if now.tzinfo else now.replace(tzinfo=UTC),
        t=Translator(CATALOGUE, lang),
        tier2_available=tier2_available,
        tier2_unavailable_reason=tier2_unavailable_reason,
    )
    try:
        return await run.execute()
    except _Finished as finished:
        return finished.diagnosis


class _Run:
    def __init__(
        self,
        request: DiagnoseRequest,
        source: Fetcher,
        *,
        now: datetime,
        t: Translator,
        tier2_available: bool,
        tier2_unavailable_reason: str | None,
    ) -> None:
        self.request = request
        self.source = source
        self.now = now
        self.t = t
        self.tier2_available = tier2_available
        self.tier2_unavailable_reason = tier2_unavailable_reason
        self.target = Target(
            workload_id=request.workload_id,
            name=request.workload_name,
            project=request.project,
            cluster_id=request.cluster_id,
        )
        self.evidence: list[Evidence] = []
        self.limitations: list[str] = []
        self.next_steps: list[str] = []
        self.lookback_text, self.lookback = self._lookback()
        self.status: parse.Workload | None = None
        self.cached_status: dict[str, Answer] = {}
        self.cached_events: dict[str, Paged] = {}
        self.status_observations: list[Observation] = []
        self.event_observations: list[Observation] = []
        self.events_read = False
        self.history_observations: list[Observation] = []
        self.history_read = False
        self.pods: list[tuple[str, parse.Pod]] = []
        self.spec: parse.WorkloadSpec | None = None

    # --- helpers ---------------------------------------------------------------------------------

    def _lookback(self) -> tuple[str, timedelta]:
        text = (self.request.lookback or DEFAULT_LOOKBACK).strip()
        try:
            return text, parse_duration(text)
        except ValueError:
            self.limitations.append(self.t("lim.bad_lookback", lookback=text, default=DEFAULT_LOOKBACK))
            return DEFAULT_LOOKBACK, parse_duration(DEFAULT_LOOKBACK)

    @property
    def cut(self) -> datetime:
        return self.now - self.lookback

    def _note(self, text: str) -> None:
        if text not in self.limitations:
            self.limitations.append(text)

    def _step(self, text: str) -> None:
        if text not in self.next_steps:
            self.next_steps.append(text)

    def _finish(
        self,
        outcome: Outcome,
        *,
        root_cause: str,
        route: Route | None = None,
        confidence: Any = None,
        questions: Sequence[Question] = (),
        permissions: Sequence[str] = (),
        category: Any = None,
        signature: str | None = None,
    ) -> _Finished:
        diagnosis = Diagnosis(
            platform="runai",
            target=self.target,
            outcome=outcome,
            route=route,
            category=category,
            signature=signature,
            confidence=confidence,
            root_cause=root_cause,
            evidence=self.evidence,
            limitations=self.limitations,
            next_steps=self.next_steps,
            questions=list(questions),
            permissions=list(permissions),
            calls=list(self.source.calls),
        )
        return _Finished(diagnosis)

    def _denied(self, answer: Answer) -> _Finished:
        """Rulings R17: a control-plane 401/403 stops the diagnosis and names the access needed."""
        project = self.target.project or self.request.project
        cluster = self.target.cluster_id or self.request.cluster_id or "?"
        self.evidence.append(
            Evidence(source=answer.op, field=None, text=quote(answer.describe_failure()), value=answer.status)
        )
        permission = (
            self.t("perm.viewer_project", project=project, cluster=cluster)
            if project
            else self.t("perm.viewer_cluster", cluster=cluster)
        )
        self._step(self.t("next.grant_and_rerun"))
        return self._finish(
            "permission_denied",
            root_cause=self.t("rc.permission_denied", call=answer.op, failure=answer.describe_failure()),
            confidence="LOW",
            permissions=[permission],
        )

    # --- the runbook -----------------------------------------------------------------------------

    async def execute(self) -> Diagnosis:
        request = self.request
        if not request.cluster_id:
            raise self._finish(
                "needs_input",
                root_cause=self.t("rc.needs_cluster"),
                questions=[Question(key="cluster_id", prompt=self.t("q.cluster_id"))],
            )
        if request.workload_id:
            workload_id = request.workload_id
        elif request.workload_name and request.project:
            workload_id = await self._option_b(request.workload_name, request.project, request.cluster_id)
        else:
            raise self._finish(
                "needs_input",
                root_cause=self.t("rc.needs_workload"),
                questions=[Question(key="workload", prompt=self.t("q.workload"))],
            )
        await self._step1(workload_id)
        return await self._diagnose(workload_id)

    async def _option_b(self, name: str, project: str, cluster_id: str) -> str:
        """Step 1.1 (option_b.py); what it read is reused by step 1, its evidence comes first."""
        resolver = OptionB(
            self.source,
            t=self.t,
            cut=self.cut,
            active=self.request.intent == "active",
            note=self._note,
            evidence=self.evidence,
        )
        try:
            workload_id = await resolver.resolve(name, project, cluster_id)
        except Stop as stop:
            if stop.denied is not None:
                raise self._denied(stop.denied) from None
            raise self._finish("needs_input", root_cause=stop.root_cause, questions=stop.questions) from None
        self.cached_status = resolver.cached_status
        self.cached_events = resolver.cached_events
        return workload_id

    # Step 1.2-1.6 ------------------------------------------------------------------------------

    async def _read_event_pages(self, workload_id: str) -> Paged:
        return await read_event_pages(self.source, workload_id, cut=self.cut, t=self.t, note=self._note)

    async def _step1(self, workload_id: str) -> None:
        answer = self.cached_status.get(workload_id) or await self.source.fetch(
            "get_workload_status", workloadId=workload_id
        )
        self.target.workload_id = workload_id
        if not answer.ok:
            if answer.status == 404:
                self.evidence.append(
                    Evidence(source=answer.op, field=None, text=quote(answer.describe_failure()), value=404)
                )
                raise self._finish("not_found", root_cause=self.t("rc.not_found", id=workload_id))
            if answer.denied:
                raise self._denied(answer)
            self._note(
                self.t("lim.call_failed", call="get_workload_status", failure=answer.describe_failure())
            )
            raise self._unknown_without_status()
        status, problem = parse.view(parse.Workload, answer.body)
        if status is None:
            self._note(self.t("lim.shape", call="get_workload_status", problem=problem))
            raise self._unknown_without_status()
        self.status = status
        self.target.workload_id = status.id or workload_id
        self.target.name = status.name or self.target.name
        self.target.project = status.projectName or self.target.project
        self.target.type = status.type
        self.target.phase = status.phase
        if (
            self.request.workload_id
            and self.request.workload_name
            and status.name
            and status.name != self.request.workload_name
        ):
            # Rulings R1: the id wins; a different name is noted.
            self._note(self.t("lim.name_differs", given=self.request.workload_name, actual=status.name))
        self.evidence.append(Evidence(source="get_workload_status", field="phase", text=status.phase or "?"))

        asked = self.request.cluster_id or ""
        if not status.clusterId:
            self._note(self.t("lim.no_cluster_id"))
        elif status.clusterId.lower() != asked.lower():
            self.target.cluster_id = status.clusterId
            self.target.asked_cluster_id = asked  # type: ignore[attr-defined]
            self.evidence.append(
                Evidence(source="get_workload_status", field="clusterId", text=status.clusterId)
            )
            raise self._finish(
                "wrong_cluster", root_cause=self.t("rc.wrong_cluster", asked=asked, actual=status.clusterId)
            )
        self.target.cluster_id = status.clusterId or asked

        # Rulings R6: status first, then the recent events.
        paged = self.cached_events.get(workload_id) or await self._read_event_pages(workload_id)
        if paged.failure is not None and paged.failure.denied:
            raise self._denied(paged.failure)
        if paged.failure is not None and not paged.items:
            # `events: null` is a retrieval failure, not "no events" (runbook step 1.6).
            if paged.null_collection:
                self._note(self.t("lim.events_null"))
            else:
                self._note(
                    self.t(
                        "lim.call_failed",
                        call="get_workload_events",
                        failure=paged.failure.describe_failure(),
                    )
                )
        else:
            self.events_read = True
            if paged.failure is not None:
                self._note(self.t("lim.events_partial", failure=paged.failure.describe_failure()))
        self.status_observations = from_status(status)
        self.event_observations = from_events(event_items(paged), source="get_workload_events")

        preemption = self._preemption(self.status_observations + self.event_observations)
        if preemption is not None:
            raise self._routed_preempted(preemption)
        await self._phase_rule(status)

    def _unknown_without_status(self) -> _Finished:
        self._step(self.t("next.retry_status"))
        return self._finish(
            "diagnosed",
            root_cause=self.t("rc.no_status"),
            category="UNKNOWN",
            confidence="LOW",
        )

    def _preemption(self, observations: list[Observation]) -> Signal | None:
        """Rulings R7: a scheduler eviction after the last start, not followed by a failure signal."""
        signals = classify_all(observations)
        starts = [o.at for o in observations if o.kind == "event" and o.reason.lower() == "started" and o.at]
        last_start = max(starts) if starts else None
        found = [
            signal
            for signal in signals
            if signal.rule.role == "preemption"
            and (last_start is None or signal.observation.at is None or signal.observation.at >= last_start)
        ]
        if not found:
            return None
        epoch = datetime.min.replace(tzinfo=UTC)
        newest = max(found, key=lambda signal: signal.observation.at or epoch)
        evicted_at = newest.observation.at
        if evicted_at is not None:
            for signal in signals:
                at = signal.observation.at
                if signal.rule.role != "cause" or at is None or at <= evicted_at:
                    continue
                code = signal.observation.exit_code
                if signal.category == "OOM_KILLED" or (code not in (None, 0) and code not in KILL_EXIT_CODES):
                    return None
        return newest

    def _routed_preempted(self, signal: Signal) -> _Finished:
        observation = signal.observation
        if self.target.cluster_id:
            self.evidence.append(
                Evidence(source="get_workload_status", field="clusterId", text=self.target.cluster_id)
            )
        self.evidence.append(
            Evidence(source=observation.source, field=observation.field, text=observation.quoted())
        )
        self._step(self.t("next.preemption_workflow"))
        direct = observation.kind in ("event", "condition")
        return self._finish(
            "routed",
            route="preempted",
            confidence="HIGH" if direct else "MEDIUM",
            root_cause=self.t("rc.preempted"),
        )

    async def _phase_rule(self, status: parse.Workload) -> None:
        """Runbook step 1.5 with rulings R5, R8, R9."""
        phase = (status.phase or "").strip()
        lowered = phase.lower()
        signals = classify_all(self.status_observations + self.event_observations)
        shown = phase or self.t("word.no_phase")
        if not phase:
            # Without a phase no branch of the phase rule applies: a partial diagnosis, not a guess.
            self._note(self.t("lim.no_phase"))
            raise self._unknown_without_status()
        if lowered in FAILED or lowered == "stopped":
            return
        if lowered in SUCCEEDED:
            raise self._finish("not_a_failure", root_cause=self.t("rc.succeeded", phase=phase))
        if lowered in STARTING:
            if pod_failure_confirmed(signals):
                return
            if lowered == "pending":
                scheduling = [signal for signal in signals if signal.rule.role == "scheduling"]
                for signal in scheduling[:3]:
                    observation = signal.observation
                    self.evidence.append(
                        Evidence(
                            source=observation.source, field=observation.field, text=observation.quoted()
                        )
                    )
                if not scheduling:
                    self._note(self.t("lim.pending_no_reason"))
                self._step(self.t("next.pending_workflow"))
                direct = any(signal.observation.kind == "event" for signal in scheduling)
                raise self._finish(
                    "routed",
                    route="pending_scheduling",
                    confidence="HIGH" if direct else "MEDIUM",
                    root_cause=self.t("rc.pending_scheduling"),
                )
            raise self._finish("out_of_scope", root_cause=self.t("rc.initializing", phase=phase))
        if lowered == "suspended":
            raise self._finish("out_of_scope", root_cause=self.t("rc.suspended", phase=phase))
        if lowered in RUNNING:
            if crash_confirmed(signals):
                return
            # Rulings R5: ask whether a past run was meant, and stop.
            if not self.events_read:
                self._note(self.t("lim.running_events_unavailable"))
            raise self._finish(
                "needs_input",
                root_cause=self.t("rc.running", phase=phase),
                questions=[
                    Question(
                        key="past_run", prompt=self.t("q.past_run", name=status.name or "?", phase=phase)
                    )
                ],
            )
        raise self._finish("out_of_scope", root_cause=self.t("rc.other_phase", phase=shown))

    # Steps 2-5 ----------------------------------------------------------------------------------

    async def _diagnose(self, workload_id: str) -> Diagnosis:
        assert self.status is not None
        status = self.status
        stopped = (status.phase or "").lower() == "stopped"
        if stopped and not self.events_read:
            # Rulings R8: with events unavailable, preemption is ruled out in history first.
            history_paged = await self._read_history(workload_id)
            self._absorb_history(history_paged)
            preemption = self._preemption(self.status_observations + self.history_observations)
            if preemption is not None:
                raise self._routed_preempted(preemption)
            spec_answer, pods_paged = await asyncio.gather(
                self._read_spec(workload_id), self._read_pods(workload_id)
            )
        else:
            spec_answer, pods_paged, history_paged = await asyncio.gather(
                self._read_spec(workload_id), self._read_pods(workload_id), self._read_history(workload_id)
            )
            self._absorb_history(history_paged)
        for answer in (spec_answer, pods_paged.failure, history_paged.failure):
            if answer is not None and answer.denied:
                raise self._denied(answer)
        self._absorb_spec(spec_answer)
        self._absorb_pods(pods_paged)

        # Step 3: a preemption that only shows in history still routes (R8).
        timeline = self.status_observations + self.event_observations + self.history_observations
        preemption = self._preemption(timeline)
        if preemption is not None:
            raise self._routed_preempted(preemption)

        observations = timeline + from_pods(self.pods)
        signals = classify_all(observations)
        verdict = decide(signals, stopped=stopped)

        # Step 4: conditional evidence.
        tier2 = Tier2Evidence()
        tier2_tried = False
        needs_tier2 = self._needs_tier2(verdict)
        metrics_wanted = self._wants_metrics(signals, verdict)
        metrics_answer: Answer | None = None
        if needs_tier2 and self.tier2_available:
            tier2_tried = True
            if metrics_wanted:
                metrics_answer, tier2 = await asyncio.gather(
                    self._read_metrics(workload_id), self._read_tier2()
                )
            else:
                tier2 = await self._read_tier2()
            signals = classify_all(observations + tier2.observations)
            verdict = decide(signals, stopped=stopped)
        # Node reads only for node-failure signals (R13), when Kubernetes access exists.
        if self.tier2_available and any(
            s.category == "NODE_FAILURE" for s in signals if s.rule.role == "cause"
        ):
            tier2_tried = True
            nodes = self._failing_nodes(signals, tier2)
            if nodes:
                node_evidence = await read_nodes(self.source, nodes=nodes, t=self.t)
                tier2.merge(node_evidence)
                signals = classify_all(observations + tier2.observations)
                verdict = decide(signals, stopped=stopped)
        if metrics_answer is None and self._wants_metrics(signals, verdict):
            metrics_answer = await self._read_metrics(workload_id)

        self._tier2_notes(tier2, tried=tier2_tried, needed=needs_tier2)
        if verdict.category == "UNKNOWN" or verdict.unexplained_kill is not None:
            self._kubectl_next_steps(verdict)

        # The last evidence (Tier 2) may still show a preemption.
        preemption = self._preemption(timeline + tier2.observations)
        if preemption is not None:
            raise self._routed_preempted(preemption)

        return self._compose(verdict, signals, metrics_answer, tier2)

    # step 2 readers

    async def _read_spec(self, workload_id: str) -> Answer | None:
        assert self.status is not None
        variant = spec_variant_for_type(self.status.type)
        if variant is None:
            self._note(self.t("lim.spec_type_unknown", type=self.status.type or "?"))
            return None
        return await self.source.fetch("get_workload_spec", variant=variant, workloadId=workload_id)

    async def _read_pods(self, workload_id: str) -> Paged:
        paged = await read_pages(
            self.source, "get_workload_pods", "pods", t=self.t, note=self._note, workloadId=workload_id
        )
        if paged.failure is not None or paged.items:
            return paged
        # runai-api.md §8: restarted or replaced pods may be listed only with `deleted=true`. Asked
        # only when the plain answer is empty; if that read fails, the empty answer stands.
        deleted = await read_pages(
            self.source,
            "get_workload_pods",
            "pods",
            t=self.t,
            note=self._note,
            deleted=True,
            workloadId=workload_id,
        )
        if deleted.failure is not None or not deleted.items:
            return paged
        deleted.items = [(f"{where}@deleted=true", item) for where, item in deleted.items]
        return deleted

    async def _read_history(self, workload_id: str) -> Paged:
        # Rulings R10: stop when every record of a page is older than the cut.
        return await read_pages(
            self.source,
            "get_workload_history",
            "records",
            t=self.t,
            note=self._note,
            page_size=HISTORY_PAGE_SIZE,
            older_than_cut=all_older_than(self.cut, history_created_at),
            workloadId=workload_id,
        )

    def _absorb_history(self, paged: Paged) -> None:
        if paged.failure is not None and not paged.items:
            if paged.null_collection:
                self._note(self.t("lim.history_null"))
            else:
                self._note(
                    self.t(
                        "lim.call_failed",
                        call="get_workload_history",
                        failure=paged.failure.describe_failure(),
                    )
                )
            return
        if paged.failure is not None:
            self._note(self.t("lim.history_partial", failure=paged.failure.describe_failure()))
        self.history_read = True
        records = [(where, parse.HistoryRecord.model_validate(item)) for where, item in paged.items]
        # Rulings R10: order is not guaranteed; sort by meta.creationTimestamp.
        epoch = datetime.min.replace(tzinfo=UTC)
        records.sort(
            key=lambda pair: parse_instant(pair[1].meta.creationTimestamp if pair[1].meta else None) or epoch
        )
        self.history_observations = from_history(records)

    def _absorb_spec(self, answer: Answer | None) -> None:
        if answer is None:
            return
        if not answer.ok:
            if answer.status == 404:
                self._note(self.t("lim.spec_missing", type=self.target.type or "?"))
            else:
                self._note(
                    self.t("lim.call_failed", call="get_workload_spec", failure=answer.describe_failure())
                )
            return
        spec, problem = parse.view(parse.WorkloadSpec, answer.body)
        if spec is None or spec.spec is None:
            self._note(self.t("lim.shape", call="get_workload_spec", problem=problem or "no `spec` object"))
            return
        self.spec = spec

    def _absorb_pods(self, paged: Paged) -> None:
        if paged.failure is not None and not paged.items:
            self._note(
                self.t("lim.call_failed", call="get_workload_pods", failure=paged.failure.describe_failure())
            )
            return
        self.pods = [(where, parse.Pod.model_validate(item)) for where, item in paged.items]
        if not self.pods:
            self._note(self.t("lim.no_pods"))

    # step 4 decisions

    @staticmethod
    def _needs_tier2(verdict: Verdict) -> bool:
        """Rulings R13: no category from Tier 1, an unexplained 137, or a crash that needs its log line."""
        if verdict.category == "UNKNOWN" or verdict.unexplained_kill is not None:
            return True
        return verdict.category == "CRASH_APP_ERROR" and not verdict.direct

    @staticmethod
    def _wants_metrics(signals: list[Signal], verdict: Verdict) -> bool:
        """OOMKilled anywhere, or an exit 137 that nothing explains (runbook step 4)."""
        if verdict.unexplained_kill is not None:
            return True
        return any(signal.category == "OOM_KILLED" and signal.rule.role == "cause" for signal in signals)

    def _namespace(self) -> tuple[str | None, bool]:
        """Rulings R14: the workload's own namespace; `runai-<project>` only when that is absent."""
        assert self.status is not None
        if self.status.namespace:
            return self.status.namespace, False
        project = self.status.projectName or self.request.project
        return (f"runai-{project}", True) if project else (None, True)

    def _pod_targets(self) -> list[PodTarget]:
        """Failing pods (k8sPhase Error/OOMKilled/Failed), else the newest (rulings R13)."""
        pods = [pod for _where, pod in self.pods if pod.name]
        failing = [pod for pod in pods if (pod.k8sPhase or "").lower() in FAILING_POD_PHASES]
        if not failing and pods:
            epoch = datetime.min.replace(tzinfo=UTC)
            failing = [max(pods, key=lambda pod: parse_instant(pod.createdAt) or epoch)]
        targets = [
            PodTarget(
                name=str(pod.name),
                node=pod.nodeName,
                containers=tuple(c.name for c in pod.containers if c.name),
            )
            for pod in failing
        ]
        if not targets:
            # No pods from Run:ai: the pods named by the workload's events.
            names = []
            for observation in self.event_observations + self.history_observations:
                if observation.pod and observation.pod not in names:
                    names.append(observation.pod)
            targets = [PodTarget(name=name) for name in names[-1:]]
        return targets

    async def _read_tier2(self) -> Tier2Evidence:
        namespace, derived = self._namespace()
        found = Tier2Evidence()
        if namespace is None:
            self._note(self.t("lim.namespace_unknown"))
            return found
        targets = self._pod_targets()
        if not targets:
            self._note(self.t("lim.no_pod_names"))
            return found
        found = await read_pods(self.source, namespace=namespace, pods=targets, t=self.t)
        if found.missing_pods:
            key = "lim.pods_missing_derived" if derived else "lim.pods_missing"
            self._note(self.t(key, pods=", ".join(found.missing_pods), namespace=namespace))
        return found

    def _failing_nodes(self, signals: list[Signal], tier2: Tier2Evidence) -> list[str]:
        names: list[str] = []
        for signal in signals:
            if signal.category != "NODE_FAILURE" or signal.rule.role != "cause":
                continue
            node = signal.observation.node or (
                tier2.nodes.get(signal.observation.pod) if signal.observation.pod else None
            )
            if node is None and signal.observation.pod:
                node = next(
                    (pod.nodeName for _w, pod in self.pods if pod.name == signal.observation.pod), None
                )
            if node and node not in names:
                names.append(node)
        if not names:
            names = [
                pod.nodeName
                for _w, pod in self.pods
                if pod.nodeName and (pod.k8sPhase or "").lower() in FAILING_POD_PHASES
            ]
        # A node already read is not read again.
        read = {o.node for o in tier2.observations if o.source == "k8s.read_node"}
        return [name for name in dict.fromkeys(names) if name not in read]

    def _tier2_notes(self, tier2: Tier2Evidence, *, tried: bool, needed: bool) -> None:
        namespace, _derived = self._namespace()
        if needed and not self.tier2_available:
            reason = self.tier2_unavailable_reason or self.t("word.no_k8s_credentials")
            self._note(self.t("lim.tier2_unavailable", reason=reason))
        for text in tier2.limitations:
            self._note(text)
        if tier2.denied_calls:
            # Rulings R16/R17: several denied Tier-2 calls make one limitation naming the RBAC.
            calls = ", ".join(dict.fromkeys(tier2.denied_calls))
            self._note(self.t("lim.tier2_denied", calls=calls, namespace=namespace or "?"))

    def _kubectl_next_steps(self, verdict: Verdict) -> None:
        namespace, _derived = self._namespace()
        targets = self._pod_targets()
        pod = targets[0].name if targets else "<pod>"
        ns = namespace or "<namespace>"
        for op in ("k8s.read_pod", "k8s.read_pod_log", "k8s.list_events"):
            self._step(self.t("next.run_command", command=K8S_COMMANDS[op].format(name=pod, namespace=ns)))
        if verdict.unexplained_kill is not None:
            node = targets[0].node if targets and targets[0].node else "<node>"
            self._step(self.t("next.run_command", command=K8S_COMMANDS["k8s.read_node"].format(name=node)))

    async def _read_metrics(self, workload_id: str) -> Answer | None:
        """Metrics window: the lookback ending at now, clipped to createdAt..completedAt (R12)."""
        assert self.status is not None
        start = self.cut
        end = self.now
        created = parse_instant(self.status.createdAt)
        completed = parse_instant(self.status.completedAt)
        if created is not None and created > start:
            start = created
        if completed is not None and completed < end:
            end = completed
        if start >= end:
            self._note(self.t("lim.metrics_window_empty", lookback=self.lookback_text))
            return None
        return await self.source.fetch(
            "get_workload_metrics",
            workloadId=workload_id,
            metricType=METRIC_TYPES,
            start=iso(start),
            end=iso(end),
            numberOfSamples=METRIC_SAMPLES,
        )

    # Step 5 -------------------------------------------------------------------------------------

    def _compose(
        self, verdict: Verdict, signals: list[Signal], metrics_answer: Answer | None, tier2: Tier2Evidence
    ) -> Diagnosis:
        assert self.status is not None
        context = Context(
            t=self.t,
            status=self.status,
            spec=self.spec,
            pods=self.pods,
            tier2=tier2,
            verdict=verdict,
            signals=signals,
            lookback_text=self.lookback_text,
            namespace=self._namespace()[0],
            metrics_answer=metrics_answer,
        )
        recurrence: Recurrence | None = None
        failure_at = self._current_failure_at(verdict)
        if self.history_read and verdict.category != "UNKNOWN":
            counted = count_failures(
                signals,
                category=verdict.category,
                current_failure_at=failure_at,
                current_run_start=self._run_start(failure_at),
                now=self.now,
                lookback=self.lookback,
            )
            recurrence = Recurrence(
                count=counted.count, window=self.lookback_text, recurring=counted.count >= 2
            )
            context.occurrences = counted.occurrences
            if not counted.current_inside:
                self._note(self.t("lim.failure_outside_lookback", window=self.lookback_text))
        elif verdict.category != "UNKNOWN" and not self.history_read:
            self._note(self.t("lim.recurrence_unknown"))
        context.recurrence = recurrence
        composed = compose_diagnosed(context)
        seen = {(item.source, item.field, item.text) for item in self.evidence}
        for item in composed.evidence:
            key = (item.source, item.field, item.text)
            if key not in seen:
                seen.add(key)
                self.evidence.append(item)
        for text in composed.limitations:
            self._note(text)
        for text in composed.next_steps:
            self._step(text)
        diagnosis = Diagnosis(
            platform="runai",
            target=self.target,
            outcome="diagnosed",
            category=verdict.category,
            signature=verdict.signature,
            confidence=verdict.confidence,
            root_cause=composed.root_cause,
            evidence=self.evidence,
            measurements=composed.measurements or Measurements(),
            recurrence=recurrence,
            recommendations=composed.recommendations,
            limitations=self.limitations,
            next_steps=self.next_steps,
            calls=list(self.source.calls),
        )
        return diagnosis

    def _run_start(self, failure_at: datetime | None) -> datetime | None:
        """When the run that failed started: the newest Started event or Running phase update
        before the failure, else the workload's creation."""
        assert self.status is not None
        starts = [
            o.at
            for o in self.event_observations + self.history_observations
            if o.at is not None
            and (failure_at is None or o.at <= failure_at)
            and (
                (o.kind == "event" and o.reason.lower() == "started")
                or (o.kind == "phase_update" and o.reason.lower() == "running")
            )
        ]
        return max(starts) if starts else parse_instant(self.status.createdAt)

    def _current_failure_at(self, verdict: Verdict) -> datetime | None:
        assert self.status is not None
        if (self.status.phase or "").lower() in TERMINAL:
            moment = parse_instant(self.status.completedAt) or parse_instant(self.status.phaseUpdatedAt)
            if moment is not None:
                return moment
        times = [s.observation.at for s in verdict.supporting if s.observation.at is not None]
        if times:
            return max(times)
        return parse_instant(self.status.phaseUpdatedAt)


__all__ = ["diagnose", "format_quantity"]

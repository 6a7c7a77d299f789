"""Step 5: a verdict and the evidence read -> root cause, evidence list, measurements, recommendations.

Everything quantified here was read from an answer the workflow fetched (rulings G7): the memory
request and limit (R12 order: failing pod, workload status, submitted spec), the peak from the
metrics samples (never from a request, limit or allocation), exit code and restart count from
Kubernetes. A value that is missing is named as missing, never filled in.
"""

from __future__ import annotations

import itertools
import statistics
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from diagnosis.evidence.source import Answer
from diagnosis.knowledge.exitcodes import exit_code_info
from diagnosis.models import Evidence, Measurements, Recommendation, Recurrence
from diagnosis.render.i18n import Translator
from diagnosis.runai import parse
from diagnosis.runai.recurrence import Occurrence
from diagnosis.runai.rules import Signal, Verdict
from diagnosis.runai.signals import quote
from diagnosis.runai.tier2 import ContainerFacts, Tier2Evidence
from diagnosis.timeutil import human_duration, iso, parse_instant

MAX_SIGNAL_EVIDENCE = 4
# Where Run:ai CLIs record the resolved submit command (runai-api.md section 11; not in the OpenAPI).
SUBMIT_COMMAND_ANNOTATIONS = frozenset({"runai-submit-command", "runai-cli-command"})
MAX_CONSEQUENCE_EVIDENCE = 2
COARSE_SAMPLING = timedelta(minutes=5)


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


@dataclass
class Composed:
    root_cause: str
    evidence: list[Evidence]
    recommendations: list[Recommendation]
    limitations: list[str]
    next_steps: list[str]
    measurements: Measurements


@dataclass
class Quantity:
    bytes: int
    text: str
    source: str
    field: str


@dataclass
class MemoryReading:
    request: Quantity | None = None
    limit: Quantity | None = None
    peak: int | None = None
    peak_at: str | None = None
    peak_field: str | None = None
    samples: int = 0
    spacing: timedelta | None = None
    metrics_read: bool = False


def format_quantity(value: int) -> str:
    return parse.format_bytes(value)


def _quantity(raw: str | None, source: str, field_path: str) -> Quantity | None:
    value = parse.parse_bytes(raw)
    return Quantity(value, str(raw), source, field_path) if value is not None and raw is not None else None


def _failing_pod(context: Context) -> tuple[str, parse.Pod] | None:
    for where, pod in context.pods:
        if (pod.k8sPhase or "").lower() in ("oomkilled", "error", "failed"):
            return where, pod
    return context.pods[0] if context.pods else None


def memory_request_limit(context: Context) -> tuple[Quantity | None, Quantity | None]:
    """Rulings R12: the failing pod's requestedResources, then the status's podsRequestedResources,
    then the spec's compute.cpuMemoryLimit/Request."""
    request: Quantity | None = None
    limit: Quantity | None = None
    failing = _failing_pod(context)
    if failing is not None:
        where, pod = failing
        memory = pod.requestedResources.cpuMemory if pod.requestedResources else None
        if memory is not None:
            limit = _quantity(
                memory.limit, "get_workload_pods", f"{where}.requestedResources.cpuMemory.limit"
            )
            request = _quantity(
                memory.request, "get_workload_pods", f"{where}.requestedResources.cpuMemory.request"
            )
    resources = context.status.podsRequestedResources
    memory = resources.cpuMemory if resources else None
    if memory is not None:
        limit = limit or _quantity(
            memory.limit, "get_workload_status", "podsRequestedResources.cpuMemory.limit"
        )
        request = request or _quantity(
            memory.request, "get_workload_status", "podsRequestedResources.cpuMemory.request"
        )
    compute = context.spec.spec.compute if context.spec and context.spec.spec else None
    if compute is not None:
        limit = limit or _quantity(compute.cpuMemoryLimit, "get_workload_spec", "spec.compute.cpuMemoryLimit")
        request = request or _quantity(
            compute.cpuMemoryRequest, "get_workload_spec", "spec.compute.cpuMemoryRequest"
        )
    return request, limit


def read_metrics(
    context: Context, reading: MemoryReading, notes: list[str], evidence: list[Evidence]
) -> None:
    t = context.t
    answer = context.metrics_answer
    if answer is None:
        return
    if not answer.ok:
        notes.append(t("lim.call_failed", call="get_workload_metrics", failure=answer.describe_failure()))
        return
    metrics, problem = parse.view(parse.Metrics, answer.body)
    if metrics is None:
        notes.append(t("lim.shape", call="get_workload_metrics", problem=problem))
        return
    reading.metrics_read = True
    if answer.status == 207:
        notes.append(t("lim.metrics_partial"))
    usage_points: list[tuple[int, str | None, str]] = []
    limit_values: list[tuple[int, str]] = []
    for m_index, measurement in enumerate(metrics.measurements):
        kind = (measurement.type or "").upper()
        for v_index, sample in enumerate(measurement.values):
            value = parse.parse_sample(sample.value)
            if value is None:
                continue
            where = f"measurements[{m_index}].values[{v_index}]"
            if kind == "CPU_MEMORY_USAGE_BYTES":
                usage_points.append((value, sample.timestamp, where))
            elif kind == "CPU_MEMORY_LIMIT_BYTES":
                limit_values.append((value, where))
    reading.samples = len(usage_points)
    if not usage_points:
        # Short jobs can have an empty series: no peak was observed, and none is invented.
        notes.append(t("lim.no_memory_samples"))
        evidence.append(
            Evidence(
                source="get_workload_metrics",
                field="measurements",
                text="CPU_MEMORY_USAGE_BYTES: 0 samples",
                value=0,
            )
        )
    else:
        peak_value, peak_at, peak_field = max(usage_points, key=lambda point: point[0])
        reading.peak, reading.peak_at, reading.peak_field = peak_value, peak_at, peak_field
        times = sorted(moment for moment in (parse_instant(p[1]) for p in usage_points) if moment is not None)
        gaps = [later - earlier for earlier, later in itertools.pairwise(times) if later > earlier]
        if gaps:
            reading.spacing = timedelta(seconds=statistics.median(gap.total_seconds() for gap in gaps))
    if reading.limit is None and limit_values:
        value, where = limit_values[-1]
        reading.limit = Quantity(value, str(value), "get_workload_metrics", where)


def _occurrence_evidence(context: Context) -> list[Evidence]:
    found: list[Evidence] = []
    for occurrence in context.occurrences:
        for signal in occurrence.signals:
            observation = signal.observation
            if observation.source != "get_workload_history":
                continue
            found.append(
                Evidence(source=observation.source, field=observation.field, text=observation.quoted())
            )
    return found


def _signal_evidence(signals: list[Signal], *, limit: int, role: str | None = None) -> list[Evidence]:
    found: list[Evidence] = []
    seen: set[str] = set()
    for signal in signals:
        observation = signal.observation
        key = observation.event_id or f"{observation.source}|{observation.quoted()}"
        if key in seen or observation.source == "get_workload_history":
            continue
        seen.add(key)
        item = Evidence(
            source=observation.source,
            field=observation.field,
            text=observation.quoted(),
            value=observation.exit_code if observation.kind == "container" else None,
        )
        if role is not None:
            item.role = role  # type: ignore[attr-defined]
        found.append(item)
        if len(found) >= limit:
            break
    return found


def _main_container(context: Context) -> ContainerFacts | None:
    facts = context.tier2.main_containers
    if not facts:
        return None
    failing = [fact for fact in facts if fact.exit_code not in (None, 0)]
    return (failing or facts)[0]


def _container_name(context: Context) -> str | None:
    fact = _main_container(context)
    if fact is not None and fact.container:
        return fact.container
    winner = context.verdict.winner
    if winner is not None and winner.observation.container:
        return winner.observation.container
    failing = _failing_pod(context)
    if failing is not None and failing[1].containers and failing[1].containers[0].name:
        return failing[1].containers[0].name
    return None


def _exit_code(context: Context) -> int | None:
    fact = _main_container(context)
    if fact is not None and fact.exit_code is not None:
        return fact.exit_code
    for signal in [context.verdict.winner, context.verdict.unexplained_kill]:
        # Rulings G7: only answers the workflow fetched that describe the workload (status, pods).
        if (
            signal is not None
            and signal.observation.exit_code is not None
            and signal.observation.source in ("get_workload_status", "k8s.read_pod")
        ):
            return signal.observation.exit_code
    return None


def _exit_meaning(code: int, lang: str) -> str:
    """The catalogue's meaning of an exit code (`segmentation fault, SIGSEGV (128+11)`)."""
    return exit_code_info(code).meaning(lang)


def _batch_setting(context: Context) -> str | None:
    spec = context.spec.spec if context.spec else None
    if spec is None:
        return None
    for variable in spec.environmentVariables:
        name = variable.name or ""
        if "BATCH" in name.upper() and variable.value and variable.value.strip().isdigit():
            return f"{name}={variable.value.strip()}"
    return None


def compose_diagnosed(context: Context) -> Composed:
    t = context.t
    verdict = context.verdict
    category = verdict.category
    notes: list[str] = []
    next_steps: list[str] = []
    evidence: list[Evidence] = []

    # Evidence: the signals behind the verdict first, then what quantifies them.
    if verdict.supporting:
        evidence.extend(_signal_evidence(verdict.supporting, limit=MAX_SIGNAL_EVIDENCE))
    if category == "INIT_FAILED" and verdict.winner is not None:
        # The init container's own log says why it exited.
        init_logs = [
            signal
            for signal in context.signals
            if signal.observation.kind == "log"
            and signal.observation.container == verdict.winner.observation.container
        ]
        evidence.extend(_signal_evidence(init_logs, limit=2))
    if verdict.unexplained_kill is not None:
        evidence.extend(_signal_evidence([verdict.unexplained_kill], limit=1))
    others = [s for s in context.signals if s.rule.role in ("crash_loop", "pod_error")]
    if category == "UNKNOWN" and others:
        evidence.extend(_signal_evidence(others, limit=2))
    if verdict.consequences:
        evidence.extend(
            _signal_evidence(verdict.consequences, limit=MAX_CONSEQUENCE_EVIDENCE, role="consequence")
        )

    request, limit = memory_request_limit(context)
    reading = MemoryReading(request=request, limit=limit)
    memory_matters = category == "OOM_KILLED" or verdict.unexplained_kill is not None
    read_metrics(context, reading, notes, evidence if memory_matters else [])
    if memory_matters:
        evidence[len(evidence) :] = _memory_evidence(context, reading)

    spec = context.spec.spec if context.spec else None
    if category == "IMAGE_PULL_FAILED" and spec is not None and spec.image:
        evidence.append(Evidence(source="get_workload_spec", field="spec.image", text=spec.image))
    if category == "CRASH_APP_ERROR" and spec is not None:
        # The submitted command corroborates a crash; it never classifies one (runbook step 2).
        # Untrusted text: quoted (and masked by the engine), never run.
        command = " ".join(part for part in (spec.command, spec.args) if part)
        if command:
            evidence.append(Evidence(source="get_workload_spec", field="spec.command", text=quote(command)))
        for index, annotation in enumerate(spec.annotations):
            if annotation.name in SUBMIT_COMMAND_ANNOTATIONS and annotation.value:
                evidence.append(
                    Evidence(
                        source="get_workload_spec",
                        field=f"spec.annotations[{index}]",
                        text=quote(annotation.value),
                    )
                )
    fact = _main_container(context)
    if fact is not None and not any(e.source == "k8s.read_pod" for e in evidence):
        words = [f"container {fact.container}" if fact.container else "container"]
        if fact.reason:
            words.append(f"reason {fact.reason}")
        if fact.exit_code is not None:
            words.append(f"exit code {fact.exit_code}")
        if fact.restart_count is not None:
            words.append(f"restartCount {fact.restart_count}")
        evidence.append(
            Evidence(
                source="k8s.read_pod",
                field="status.containerStatuses",
                text=", ".join(words),
                value=fact.exit_code,
            )
        )
    evidence.extend(_occurrence_evidence(context))

    measurements = Measurements(
        memory_request_bytes=reading.request.bytes if reading.request else None,
        memory_limit_bytes=reading.limit.bytes if reading.limit else None,
        memory_peak_bytes=reading.peak,
        exit_code=_exit_code(context),
        restart_count=fact.restart_count if fact is not None else None,
    )
    if memory_matters and (fact is None or fact.exit_code is None):
        notes.append(t("lim.exit_code_not_observed"))
    if reading.spacing is not None and reading.spacing > COARSE_SAMPLING and reading.peak is not None:
        notes.append(t("lim.sampling", spacing=human_duration(reading.spacing)))

    root_cause = _root_cause(context, reading)
    recommendations = _recommendations(context, reading)
    if category == "UNKNOWN":
        next_steps.append(t("next.unknown_read_more"))
    return Composed(root_cause, evidence, recommendations, notes, next_steps, measurements)


def _memory_evidence(context: Context, reading: MemoryReading) -> list[Evidence]:
    found: list[Evidence] = []
    compute = context.spec.spec.compute if context.spec and context.spec.spec else None
    if compute is not None:
        for raw, field_path in (
            (compute.cpuMemoryRequest, "spec.compute.cpuMemoryRequest"),
            (compute.cpuMemoryLimit, "spec.compute.cpuMemoryLimit"),
        ):
            value = parse.parse_bytes(raw)
            if raw is not None and value is not None:
                found.append(
                    Evidence(source="get_workload_spec", field=field_path, text=str(raw), value=value)
                )
    failing = _failing_pod(context)
    if failing is not None:
        where, pod = failing
        if pod.k8sPhase:
            found.append(Evidence(source="get_workload_pods", field=f"{where}.k8sPhase", text=pod.k8sPhase))
    for quantity in (reading.limit,):
        if quantity is not None and quantity.source != "get_workload_spec":
            found.append(
                Evidence(
                    source=quantity.source, field=quantity.field, text=quantity.text, value=quantity.bytes
                )
            )
    if reading.peak is not None and reading.peak_field is not None:
        found.append(
            Evidence(
                source="get_workload_metrics",
                field=reading.peak_field,
                text=f'CPU_MEMORY_USAGE_BYTES "{reading.peak}" at {reading.peak_at or "?"}',
                value=reading.peak,
            )
        )
    return found


def _root_cause(context: Context, reading: MemoryReading) -> str:
    t = context.t
    verdict = context.verdict
    category = verdict.category
    container = _container_name(context) or t("word.the_container")
    signature = verdict.signature or ""
    recurrence = context.recurrence
    again = (
        t("rc.recurring_suffix", count=recurrence.count, window=recurrence.window)
        if recurrence is not None and recurrence.recurring
        else ""
    )
    if category == "OOM_KILLED":
        if reading.limit is not None and reading.peak is not None:
            percent = 100.0 * reading.peak / reading.limit.bytes if reading.limit.bytes else 0.0
            text = t(
                "rc.oom_peak",
                container=container,
                limit=format_quantity(reading.limit.bytes),
                peak=format_quantity(reading.peak),
                percent=f"{percent:.1f}",
            )
        elif reading.limit is not None:
            text = t("rc.oom_no_peak", container=container, limit=format_quantity(reading.limit.bytes))
        else:
            text = t("rc.oom_no_limit", container=container)
        return text + again
    if category == "IMAGE_PULL_FAILED":
        subcase = verdict.winner.rule.subcase if verdict.winner else "unspecified"
        image = _image(context) or t("word.the_image")
        return t("rc.image_pull", image=image, why=t(f"why.pull.{subcase}")) + again
    if category == "INIT_FAILED":
        return t("rc.init", signature=signature) + again
    if category == "DATASOURCE_MOUNT_FAILED":
        return t("rc.mount", signature=signature) + again
    if category == "NODE_FAILURE":
        node = _node(context) or t("word.the_node")
        return t("rc.node", node=node, signature=signature) + again
    if category == "SCHEDULING_POLICY_TERMINATED":
        if verdict.stopped_default:
            return t("rc.policy_stopped_default")
        subcase = verdict.winner.rule.subcase if verdict.winner else "policy"
        return t(f"rc.policy.{subcase}", signature=signature) + again
    if category == "CRASH_APP_ERROR":
        if verdict.has_log_line:
            return t("rc.crash_log", container=container, signature=signature) + again
        code = _exit_code(context)
        if code is None and verdict.winner is not None:
            code = verdict.winner.observation.exit_code
        if code is not None:
            meaning = _exit_meaning(code, t.lang)
            return (
                t("rc.crash_exit", container=container, code=code, meaning=f" ({meaning})" if meaning else "")
                + again
            )
        return t("rc.crash_indirect", signature=signature) + again
    # UNKNOWN
    if verdict.unexplained_kill is not None:
        code = verdict.unexplained_kill.observation.exit_code
        return t("rc.unknown_kill", code=code if code is not None else 137)
    return t("rc.unknown")


def _image(context: Context) -> str | None:
    spec = context.spec.spec if context.spec else None
    if spec is not None and spec.image:
        return spec.image
    failing = _failing_pod(context)
    if failing is not None and failing[1].containers:
        return failing[1].containers[0].image
    return None


def _node(context: Context) -> str | None:
    winner = context.verdict.winner
    if winner is not None and winner.observation.node:
        return winner.observation.node
    failing = _failing_pod(context)
    return failing[1].nodeName if failing is not None else None


def _recommendations(context: Context, reading: MemoryReading) -> list[Recommendation]:
    t = context.t
    verdict = context.verdict
    category = verdict.category
    found: list[Recommendation] = []

    def add(key: str, changes: bool, **values: Any) -> None:
        found.append(Recommendation(text=t(key, **values), changes_resources=changes))

    subcase = verdict.winner.rule.subcase if verdict.winner else None
    if category == "OOM_KILLED":
        if reading.peak is not None:
            basis = t("word.peak_basis", peak=format_quantity(reading.peak))
        elif reading.limit is not None:
            basis = t("word.limit_basis", limit=format_quantity(reading.limit.bytes))
        else:
            basis = t("word.usage_basis")
        add("rec.oom.raise_limit", True, basis=basis)
        batch = _batch_setting(context)
        add("rec.oom.reduce_memory", True, batch=t("word.batch_in_spec", setting=batch) if batch else "")
        add("rec.oom.check_env", False)
    elif category == "IMAGE_PULL_FAILED":
        image = _image(context) or t("word.the_image")
        add(
            f"rec.pull.{subcase or 'unspecified'}",
            subcase not in ("dns", "network", "unspecified"),
            image=image,
        )
    elif category == "INIT_FAILED":
        add("rec.init", True)
    elif category == "DATASOURCE_MOUNT_FAILED":
        namespace = context.namespace or "?"
        add("rec.mount.check", False, namespace=namespace)
        add(f"rec.mount.fix.{subcase or 'volume'}", True, namespace=namespace)
    elif category == "CRASH_APP_ERROR":
        if verdict.has_log_line or verdict.direct:
            add("rec.crash.fix", True, signature=verdict.signature or "")
        else:
            add("rec.crash.read_log", False, namespace=context.namespace or "<namespace>")
    elif category == "NODE_FAILURE":
        policy = (context.spec.spec.restartPolicy if context.spec and context.spec.spec else None) or ""
        if policy.lower() == "onfailure":
            add("rec.node.retry_on_failure", True)
        else:
            add("rec.node.resubmit", True)
        add("rec.node.report", False, node=_node(context) or t("word.the_node"))
    elif category == "SCHEDULING_POLICY_TERMINATED":
        if verdict.stopped_default:
            add("rec.policy.confirm_who", False)
        elif subcase == "manual_stop":
            add("rec.policy.voluntary", True)
        else:
            # Involuntary: an administrator reviews the policy (runbook step 5).
            add("rec.policy.admin_review", True, policy=t(f"word.policy.{subcase or 'policy'}"))
            add("rec.policy.checkpoint", True)
    recurrence = context.recurrence
    if recurrence is not None and recurrence.recurring:
        add("rec.recurring", False, count=recurrence.count, window=recurrence.window, category=category)
    return found


def timeline_text(moment: datetime | None) -> str:
    return iso(moment) if moment is not None else "?"


__all__ = ["Composed", "Context", "compose_diagnosed", "format_quantity", "quote"]

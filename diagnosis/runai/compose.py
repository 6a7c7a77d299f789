"""Step 5: a verdict and the evidence read -> root cause, evidence list, measurements, recommendations.

Everything quantified here was read from an answer the workflow fetched: the memory request and
limit (diagnosis.runai.memory), the peak from the metrics samples (never from a request, limit or
allocation), exit code and restart count from Kubernetes. A value that is missing is named as
missing, never filled in. Which extra evidence a category shows is a table (`CATEGORY_EVIDENCE`);
its wording is in diagnosis.runai.causes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from diagnosis.models import Category, Evidence, EvidenceRole, Measurements, Recommendation
from diagnosis.runai.causes import recommendations, root_cause
from diagnosis.runai.facts import Context, exit_code, main_container
from diagnosis.runai.memory import (
    MemoryReading,
    format_quantity,
    memory_evidence,
    memory_request_limit,
    read_metrics,
)
from diagnosis.runai.rules import Signal
from diagnosis.runai.signals import quote
from diagnosis.timeutil import human_duration

MAX_SIGNAL_EVIDENCE = 4
MAX_CONSEQUENCE_EVIDENCE = 2
# Where Run:ai CLIs record the resolved submit command: workload annotations the CLI writes (not
# part of the Run:ai REST API's schema).
SUBMIT_COMMAND_ANNOTATIONS = frozenset({"runai-submit-command", "runai-cli-command"})
# Metrics sampled more coarsely than this may miss a short spike before an OOM kill.
COARSE_SAMPLING = timedelta(minutes=5)
SPEC = "get_workload_spec"


@dataclass
class Composed:
    root_cause: str
    evidence: list[Evidence]
    recommendations: list[Recommendation]
    limitations: list[str]
    next_steps: list[str]
    measurements: Measurements


def _signal_evidence(
    signals: list[Signal], *, limit: int, role: EvidenceRole | None = None
) -> list[Evidence]:
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
            role=role,
        )
        found.append(item)
        if len(found) >= limit:
            break
    return found


def _init_logs(context: Context) -> list[Evidence]:
    """The init container's own log says why it exited."""
    winner = context.verdict.winner
    if winner is None:
        return []
    logs = [
        signal
        for signal in context.signals
        if signal.observation.kind == "log" and signal.observation.container == winner.observation.container
    ]
    return _signal_evidence(logs, limit=2)


def _symptoms(context: Context) -> list[Evidence]:
    """Nothing named a cause: the crash loop or pod error that was seen, for the reader to follow."""
    others = [signal for signal in context.signals if signal.rule.role in ("crash_loop", "pod_error")]
    return _signal_evidence(others, limit=2)


def _image(context: Context) -> list[Evidence]:
    spec = context.submitted
    return (
        [Evidence(source=SPEC, field="spec.image", text=spec.image)]
        if spec is not None and spec.image
        else []
    )


def _command(context: Context) -> list[Evidence]:
    """The submitted command corroborates a crash; it never classifies one. Untrusted text: quoted
    (and masked by the engine), never run."""
    spec = context.submitted
    if spec is None:
        return []
    found: list[Evidence] = []
    command = " ".join(part for part in (spec.command, spec.args) if part)
    if command:
        found.append(Evidence(source=SPEC, field="spec.command", text=quote(command)))
    for index, annotation in enumerate(spec.annotations):
        if annotation.name in SUBMIT_COMMAND_ANNOTATIONS and annotation.value:
            found.append(
                Evidence(source=SPEC, field=f"spec.annotations[{index}]", text=quote(annotation.value))
            )
    return found


# category -> the evidence it shows right after the signals behind the verdict…
SIGNAL_EVIDENCE: dict[Category, Callable[[Context], list[Evidence]]] = {
    "INIT_FAILED": _init_logs,
    "UNKNOWN": _symptoms,
}
# … and after what quantifies it.
CATEGORY_EVIDENCE: dict[Category, Callable[[Context], list[Evidence]]] = {
    "IMAGE_PULL_FAILED": _image,
    "CRASH_APP_ERROR": _command,
}
# The categories whose report quantifies memory (an unexplained kill does too: it may be memory).
MEMORY_CATEGORIES = frozenset({"OOM_KILLED"})


def _container_evidence(context: Context, evidence: list[Evidence]) -> list[Evidence]:
    fact = main_container(context)
    if fact is None or any(item.source == "k8s.read_pod" for item in evidence):
        return []
    words = [f"container {fact.container}" if fact.container else "container"]
    if fact.reason:
        words.append(f"reason {fact.reason}")
    if fact.exit_code is not None:
        words.append(f"exit code {fact.exit_code}")
    if fact.restart_count is not None:
        words.append(f"restartCount {fact.restart_count}")
    return [
        Evidence(
            source="k8s.read_pod",
            field="status.containerStatuses",
            text=", ".join(words),
            value=fact.exit_code,
        )
    ]


def _occurrence_evidence(context: Context) -> list[Evidence]:
    return [
        Evidence(
            source=signal.observation.source, field=signal.observation.field, text=signal.observation.quoted()
        )
        for occurrence in context.occurrences
        for signal in occurrence.signals
        if signal.observation.source == "get_workload_history"
    ]


def _nothing(_context: Context) -> list[Evidence]:
    return []


def _verdict_evidence(context: Context) -> list[Evidence]:
    """The signals behind the verdict, an unexplained kill, the category's own signals, then the
    consequences (cited as such)."""
    verdict = context.verdict
    evidence = _signal_evidence(verdict.supporting, limit=MAX_SIGNAL_EVIDENCE) if verdict.supporting else []
    if verdict.unexplained_kill is not None:
        evidence.extend(_signal_evidence([verdict.unexplained_kill], limit=1))
    evidence.extend(SIGNAL_EVIDENCE.get(verdict.category, _nothing)(context))
    if verdict.consequences:
        evidence.extend(
            _signal_evidence(verdict.consequences, limit=MAX_CONSEQUENCE_EVIDENCE, role="consequence")
        )
    return evidence


def _limitations(context: Context, reading: MemoryReading, *, memory_matters: bool) -> list[str]:
    notes: list[str] = []
    fact = main_container(context)
    if memory_matters and (fact is None or fact.exit_code is None):
        notes.append(context.t("lim.exit_code_not_observed"))
    if reading.spacing is not None and reading.spacing > COARSE_SAMPLING and reading.peak is not None:
        notes.append(context.t("lim.sampling", spacing=human_duration(reading.spacing)))
    return notes


def compose_diagnosed(context: Context) -> Composed:
    verdict = context.verdict
    notes: list[str] = []
    evidence = _verdict_evidence(context)
    request, limit = memory_request_limit(context)
    reading = MemoryReading(request=request, limit=limit)
    memory_matters = verdict.category in MEMORY_CATEGORIES or verdict.unexplained_kill is not None
    read_metrics(context, reading, notes, evidence if memory_matters else [])
    if memory_matters:
        evidence.extend(memory_evidence(context, reading))
    evidence.extend(CATEGORY_EVIDENCE.get(verdict.category, _nothing)(context))
    evidence.extend(_container_evidence(context, evidence))
    evidence.extend(_occurrence_evidence(context))
    fact = main_container(context)
    measurements = Measurements(
        memory_request_bytes=reading.request.bytes if reading.request else None,
        memory_limit_bytes=reading.limit.bytes if reading.limit else None,
        memory_peak_bytes=reading.peak,
        exit_code=exit_code(context),
        restart_count=fact.restart_count if fact is not None else None,
    )
    notes.extend(_limitations(context, reading, memory_matters=memory_matters))
    next_steps = [context.t("next.unknown_read_more")] if verdict.category == "UNKNOWN" else []
    return Composed(
        root_cause(context, reading),
        evidence,
        recommendations(context, reading),
        notes,
        next_steps,
        measurements,
    )


__all__ = ["Composed", "Context", "compose_diagnosed", "format_quantity", "quote"]

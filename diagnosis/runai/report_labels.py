"""What a Run:ai report says before its sections: the first line for each outcome (the category, or
what the outcome means for this workload), and the label of each evidence item."""

from __future__ import annotations

from collections.abc import Callable

from diagnosis.models import Diagnosis, Evidence
from diagnosis.render.i18n import Translator


def _needs_input(diagnosis: Diagnosis, t: Translator) -> str:
    key = diagnosis.questions[0].key if diagnosis.questions else "workload"
    try:
        what = t(f"what.{key}")
    except KeyError:
        what = key
    return t("report.needs_input", what=what)


def _denied_call(diagnosis: Diagnosis) -> str:
    return next(
        (item.source for item in diagnosis.evidence if item.value in (401, 403)),
        diagnosis.calls[-1] if diagnosis.calls else "?",
    )


def _unanswered_call(diagnosis: Diagnosis) -> str:
    return next((item.source for item in diagnosis.evidence), None) or (
        diagnosis.calls[0] if diagnosis.calls else "?"
    )


def _phase(diagnosis: Diagnosis, t: Translator) -> str:
    return diagnosis.target.phase or t("word.no_phase")


# outcome -> the report's first line: the category or what the outcome means for this workload.
_FIRST_LINES: dict[str, Callable[[Diagnosis, Translator], str]] = {
    "diagnosed": lambda d, t: t("report.category", category=d.category or "UNKNOWN"),
    "routed": lambda d, t: t("report.routed", route=d.route or "?"),
    "not_a_failure": lambda d, t: t("report.not_a_failure", phase=_phase(d, t)),
    "needs_input": _needs_input,
    "wrong_cluster": lambda d, t: t(
        "report.wrong_cluster", asked=d.target.asked_cluster_id or "?", actual=d.target.cluster_id or "?"
    ),
    "out_of_scope": lambda d, t: t("report.out_of_scope", phase=_phase(d, t)),
    "observe": lambda d, t: t("report.observe", phase=_phase(d, t)),
    "not_found": lambda d, t: t("report.not_found", id=d.target.workload_id or d.target.name or "?"),
    "permission_denied": lambda d, t: t("report.permission_denied", call=_denied_call(d)),
    "unreachable": lambda d, t: t("report.unreachable", call=_unanswered_call(d)),
    "auth_failed": lambda d, t: t("report.auth_failed", call=_unanswered_call(d)),
}


def first_line(diagnosis: Diagnosis, t: Translator) -> str:
    line = _FIRST_LINES.get(diagnosis.outcome)
    return line(diagnosis, t) if line is not None else diagnosis.outcome


def _resources_label(field: str, t: Translator) -> str:
    return f"{t('label.resources')} {field.rsplit('.', 2)[-2]}.{field.rsplit('.', 1)[-1]}"


# (what an evidence item's source and field say, its label), first match wins.
_LABELS: tuple[tuple[Callable[[str, str, object], bool], Callable[[str, Translator], str]], ...] = (
    (lambda source, field, value: source == "list_workloads", lambda f, t: t("label.workloads")),
    (lambda source, field, value: value in (401, 403, 404) and not field, lambda f, t: t("label.error")),
    (lambda source, field, value: field == "phase", lambda f, t: t("label.phase")),
    (lambda source, field, value: field == "clusterId", lambda f, t: t("label.cluster")),
    (
        lambda source, field, value: field.startswith(("phaseMessage", "phaseReason")),
        lambda f, t: t("label.phase_message"),
    ),
    (lambda source, field, value: field.endswith(".spec.phaseUpdate"), lambda f, t: t("label.history")),
    (
        lambda source, field, value: field.startswith(("events[", "items[")) or field.endswith(".spec.event"),
        lambda f, t: t("label.event"),
    ),
    (lambda source, field, value: field.endswith(".k8sPhase"), lambda f, t: t("label.pod_phase")),
    (
        lambda source, field, value: "RequestedResources" in field or "requestedResources" in field,
        _resources_label,
    ),
    (
        lambda source, field, value: field.startswith("spec."),
        lambda f, t: f"{t('label.spec')} {f.removeprefix('spec.')}",
    ),
    (lambda source, field, value: field.startswith("measurements"), lambda f, t: t("label.metrics")),
    (
        lambda source, field, value: source == "k8s.read_pod_log" or field.startswith("line "),
        lambda f, t: t("label.log"),
    ),
    (lambda source, field, value: source == "k8s.read_node", lambda f, t: t("label.node")),
    (
        lambda source, field, value: (
            source == "k8s.read_pod" and ("containerStatuses" in field or "ContainerStatuses" in field)
        ),
        lambda f, t: t("label.container"),
    ),
    (lambda source, field, value: "conditions[" in field, lambda f, t: t("label.condition")),
)


def evidence_label(item: Evidence, t: Translator) -> str:
    field = item.field or ""
    for matches, label in _LABELS:
        if matches(item.source, field, item.value):
            return label(field, t)
    return field or item.source

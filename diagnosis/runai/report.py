"""Diagnosis -> Markdown in the Run:ai on-call report's shape.

Only what the diagnosis JSON holds is shown, with fixed labels: the category (or what the outcome
means) on the first line, the workload line, the root cause, evidence lines each with its source,
the history count and window, recommendations, limitations, next steps and questions.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from diagnosis.models import Diagnosis, Evidence
from diagnosis.render.i18n import Translator
from diagnosis.runai.messages import CATALOGUE
from diagnosis.runai.quantities import format_bytes

_MEASUREMENT_KEYS = (
    "memory_request_bytes",
    "memory_limit_bytes",
    "memory_peak_bytes",
    "exit_code",
    "restart_count",
)


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


def _first_line(diagnosis: Diagnosis, t: Translator) -> str:
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


def _label(item: Evidence, t: Translator) -> str:
    field = item.field or ""
    for matches, label in _LABELS:
        if matches(item.source, field, item.value):
            return label(field, t)
    return field or item.source


def _quote(text: str) -> str:
    """Untrusted text as data: one line, no code spans, emphasis, HTML or links of its own."""
    flat = " ".join(text.split())
    flat = re.sub(r"([`*<>|])", r"\\\1", flat)
    return flat.replace("](", "]\\(")


def _evidence_line(item: Evidence, t: Translator) -> str:
    label = _label(item, t)
    line = t("report.item", label=label, text=_quote(item.text))
    if item.role == "consequence":
        line += f" [{t('report.consequence')}]"
    return f"{line} {t('report.source', source=item.source)}"


def _workload_lines(diagnosis: Diagnosis, t: Translator) -> list[str]:
    target = diagnosis.target
    if not (target.name or target.phase or target.project):
        return []
    line = t(
        "report.workload_line",
        name=target.name or target.workload_id or "?",
        phase=target.phase or "?",
        project=target.project or "?",
    )
    return [line, ""]


def _cause_lines(diagnosis: Diagnosis, t: Translator) -> list[str]:
    lines: list[str] = []
    if diagnosis.root_cause:
        if diagnosis.confidence:
            lines.append(t("report.root_cause", confidence=diagnosis.confidence, text=diagnosis.root_cause))
        else:
            lines.append(t("report.root_cause_plain", text=diagnosis.root_cause))
        lines.append("")
    if diagnosis.outcome == "diagnosed" and diagnosis.signature:
        lines += [t("report.signature", signature=_quote(diagnosis.signature)), ""]
    return lines


def _evidence_lines(diagnosis: Diagnosis, t: Translator) -> list[str]:
    """The evidence, then the history count with the history's own evidence lines."""
    history = [item for item in diagnosis.evidence if item.source == "get_workload_history"]
    others = [item for item in diagnosis.evidence if item.source != "get_workload_history"]
    lines: list[str] = []
    if others:
        lines.append(t("report.evidence"))
        lines += [_evidence_line(item, t) for item in others]
        lines.append("")
    if diagnosis.recurrence is not None:
        recurrence = diagnosis.recurrence
        suffix = t("report.history_recurring") if recurrence.recurring else t("report.history_single")
        lines.append(
            t(
                "report.history",
                count=recurrence.count,
                category=diagnosis.category or "",
                window=recurrence.window,
                recurring=suffix,
            )
            + f" {t('report.source', source='get_workload_history')}"
        )
    elif history:
        lines.append(t("report.evidence") if not others else "")
    if diagnosis.recurrence is not None or history:
        lines += [_evidence_line(item, t) for item in history]
        lines.append("")
    return lines


def _measurement_lines(diagnosis: Diagnosis, t: Translator) -> list[str]:
    measured = diagnosis.to_json_dict().get("measurements", {})
    if not measured:
        return []
    lines = [t("report.measurements")]
    for key in _MEASUREMENT_KEYS:
        if key in measured:
            value = measured[key]
            shown = f"{value:,} ({format_bytes(value)})" if key.endswith("_bytes") else str(value)
            lines.append(t("report.item", label=t(f"m.{key}"), text=shown))
    return [*lines, ""]


def _advice_lines(diagnosis: Diagnosis, t: Translator) -> list[str]:
    """Recommendations, limitations, next steps and permissions, each a titled list."""
    lines: list[str] = []
    if diagnosis.recommendations:
        lines.append(t("report.recommendations"))
        for item in diagnosis.recommendations:
            flag = f" ({t('report.changes')})" if item.changes_resources else ""
            lines.append(f"- {item.text}{flag}")
        lines.append("")
    for key, entries in (
        ("report.limitations", diagnosis.limitations),
        ("report.next_steps", diagnosis.next_steps),
        ("report.permissions", diagnosis.permissions),
    ):
        if entries:
            lines.append(t(key))
            lines += [f"- {entry}" for entry in entries]
            lines.append("")
    return lines


def _question_lines(diagnosis: Diagnosis, t: Translator) -> list[str]:
    lines: list[str] = []
    for question in diagnosis.questions:
        lines.append(f"{t('report.questions')} {question.prompt}")
        if question.choices:
            lines.append(t("report.choices"))
            lines += [f"- `{choice.value}`: {_quote(choice.label)}" for choice in question.choices]
        lines.append("")
    return lines


def render_markdown(diagnosis: Diagnosis, *, lang: str) -> str:
    t = Translator(CATALOGUE, lang)
    lines = [
        _first_line(diagnosis, t),
        "",
        *_workload_lines(diagnosis, t),
        *_cause_lines(diagnosis, t),
        *_evidence_lines(diagnosis, t),
        *_measurement_lines(diagnosis, t),
        *_advice_lines(diagnosis, t),
        *_question_lines(diagnosis, t),
        t("report.calls", calls=", ".join(diagnosis.calls)) if diagnosis.calls else t("report.no_calls"),
    ]
    return "\n".join(line for line in _collapse(lines)).rstrip() + "\n"


def _collapse(lines: list[str]) -> list[str]:
    collapsed: list[str] = []
    for line in lines:
        if line == "" and collapsed and collapsed[-1] == "":
            continue
        collapsed.append(line)
    return collapsed

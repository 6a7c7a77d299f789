"""Diagnosis -> Markdown in the Run:ai runbook's shape (first line per rulings G13).

Only what the diagnosis JSON holds is shown, with fixed labels (rulings G10): category or outcome
on the first line, the workload line, the root cause, evidence lines each with its source, the
history count and window, recommendations, limitations, next steps and questions.
"""

from __future__ import annotations

import re

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


def _first_line(diagnosis: Diagnosis, t: Translator) -> str:
    target = diagnosis.target
    outcome = diagnosis.outcome
    phase = target.phase or t("word.no_phase")
    if outcome == "diagnosed":
        return t("report.category", category=diagnosis.category or "UNKNOWN")
    if outcome == "routed":
        return t("report.routed", route=diagnosis.route or "?")
    if outcome == "not_a_failure":
        return t("report.not_a_failure", phase=phase)
    if outcome == "needs_input":
        key = diagnosis.questions[0].key if diagnosis.questions else "workload"
        try:
            what = t(f"what.{key}")
        except KeyError:
            what = key
        return t("report.needs_input", what=what)
    if outcome == "wrong_cluster":
        asked = target.asked_cluster_id or "?"
        return t("report.wrong_cluster", asked=asked, actual=target.cluster_id or "?")
    if outcome == "out_of_scope":
        return t("report.out_of_scope", phase=phase)
    if outcome == "observe":
        return t("report.observe", phase=phase)
    if outcome == "not_found":
        return t("report.not_found", id=target.workload_id or target.name or "?")
    if outcome == "permission_denied":
        call = next(
            (item.source for item in diagnosis.evidence if item.value in (401, 403)),
            diagnosis.calls[-1] if diagnosis.calls else "?",
        )
        return t("report.permission_denied", call=call)
    if outcome in ("unreachable", "auth_failed"):
        call = next((item.source for item in diagnosis.evidence), None) or (
            diagnosis.calls[0] if diagnosis.calls else "?"
        )
        return t(f"report.{outcome}", call=call)
    return outcome


def _label(item: Evidence, t: Translator) -> str:
    field = item.field or ""
    if item.source == "list_workloads":
        return t("label.workloads")
    if item.value in (401, 403, 404) and not field:
        return t("label.error")
    if field == "phase":
        return t("label.phase")
    if field == "clusterId":
        return t("label.cluster")
    if field.startswith("phaseMessage") or field.startswith("phaseReason"):
        return t("label.phase_message")
    if field.endswith(".spec.phaseUpdate"):
        return t("label.history")
    if field.startswith(("events[", "items[")) or field.endswith(".spec.event"):
        return t("label.event")
    if field.endswith(".k8sPhase"):
        return t("label.pod_phase")
    if "RequestedResources" in field or "requestedResources" in field:
        return f"{t('label.resources')} {field.rsplit('.', 2)[-2]}.{field.rsplit('.', 1)[-1]}"
    if field.startswith("spec."):
        return f"{t('label.spec')} {field.removeprefix('spec.')}"
    if field.startswith("measurements"):
        return t("label.metrics")
    if item.source == "k8s.read_pod_log" or field.startswith("line "):
        return t("label.log")
    if item.source == "k8s.read_node":
        return t("label.node")
    if item.source == "k8s.read_pod" and ("containerStatuses" in field or "ContainerStatuses" in field):
        return t("label.container")
    if "conditions[" in field:
        return t("label.condition")
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


def render_markdown(diagnosis: Diagnosis, *, lang: str) -> str:
    t = Translator(CATALOGUE, lang)
    target = diagnosis.target
    lines = [_first_line(diagnosis, t), ""]
    if target.name or target.phase or target.project:
        lines += [
            t(
                "report.workload_line",
                name=target.name or target.workload_id or "?",
                phase=target.phase or "?",
                project=target.project or "?",
            ),
            "",
        ]
    if diagnosis.root_cause:
        if diagnosis.confidence:
            lines.append(t("report.root_cause", confidence=diagnosis.confidence, text=diagnosis.root_cause))
        else:
            lines.append(t("report.root_cause_plain", text=diagnosis.root_cause))
        lines.append("")
    if diagnosis.outcome == "diagnosed" and diagnosis.signature:
        lines += [t("report.signature", signature=_quote(diagnosis.signature)), ""]

    history = [item for item in diagnosis.evidence if item.source == "get_workload_history"]
    others = [item for item in diagnosis.evidence if item.source != "get_workload_history"]
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
        lines += [_evidence_line(item, t) for item in history]
        lines.append("")
    elif history:
        lines.append(t("report.evidence") if not others else "")
        lines += [_evidence_line(item, t) for item in history]
        lines.append("")

    measured = diagnosis.to_json_dict().get("measurements", {})
    if measured:
        lines.append(t("report.measurements"))
        for key in _MEASUREMENT_KEYS:
            if key in measured:
                value = measured[key]
                shown = f"{value:,} ({format_bytes(value)})" if key.endswith("_bytes") else str(value)
                lines.append(t("report.item", label=t(f"m.{key}"), text=shown))
        lines.append("")
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
    for question in diagnosis.questions:
        lines.append(f"{t('report.questions')} {question.prompt}")
        if question.choices:
            lines.append(t("report.choices"))
            lines += [f"- `{choice.value}`: {_quote(choice.label)}" for choice in question.choices]
        lines.append("")
    lines.append(
        t("report.calls", calls=", ".join(diagnosis.calls)) if diagnosis.calls else t("report.no_calls")
    )
    return "\n".join(line for line in _collapse(lines)).rstrip() + "\n"


def _collapse(lines: list[str]) -> list[str]:
    collapsed: list[str] = []
    for line in lines:
        if line == "" and collapsed and collapsed[-1] == "":
            continue
        collapsed.append(line)
    return collapsed

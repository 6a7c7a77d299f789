"""Diagnosis -> Markdown in the Run:ai on-call report's shape.

Only what the diagnosis JSON holds is shown, with fixed labels: the category (or what the outcome
means) on the first line, the workload line, the root cause, evidence lines each with its source,
the history count and window, recommendations, limitations, next steps and questions."""

from __future__ import annotations

import re

from diagnosis.models import Diagnosis, Evidence
from diagnosis.render.i18n import Translator
from diagnosis.runai.messages import CATALOGUE
from diagnosis.runai.quantities import format_bytes
from diagnosis.runai.report_labels import evidence_label, first_line

_MEASUREMENT_KEYS = (
    "memory_request_bytes",
    "memory_limit_bytes",
    "memory_peak_bytes",
    "exit_code",
    "restart_count",
)


def _quote(text: str) -> str:
    """Untrusted text as data: one line, no code spans, emphasis, HTML or links of its own."""
    flat = " ".join(text.split())
    flat = re.sub(r"([`*<>|])", r"\\\1", flat)
    return flat.replace("](", "]\\(")


def _evidence_line(item: Evidence, t: Translator) -> str:
    label = evidence_label(item, t)
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
        first_line(diagnosis, t),
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

"""Diagnosis -> Markdown in the ModelArts runbook's template (zh), with en and ja renderings.

Section titles, the `项目 | 值` table, `（置信度：…）`, `### 方案 N`, the `> 注意：…` line and the
insufficient-information variant (`已收集信息`, `建议补充信息`) are the runbook's. Only what the
diagnosis holds is shown, plus fixed labels. Outcomes without the table (`needs_input`,
`not_found`, `out_of_scope`, `observe`) open with one line saying what the outcome means.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from diagnosis.modelarts.messages import CATALOGUE, LANGUAGES
from diagnosis.models import Diagnosis, Evidence
from diagnosis.render.i18n import check_language

GET_CALLS = (
    "ShowTrainingJobDetails",
    "ListTrainingJobEvents",
    "ListTrainingJobStages",
    "ShowTrainingJobLogsPreview",
    "ShowTrainingJobMetrics",
    "ShowTrainingJobUserDiagnosis",
)
LIST_CALLS = ("ListTrainingJobs", "ListTrainingJobTasks")

# The report's fixed labels: the `report.*` ids of the modelarts catalogue.
LABELS = CATALOGUE.section("report.")

# The first line of the outcomes that do not use the template's table (`report.first.<outcome>`):
# a fixed English token in every language, the same line whatever the report's language.
FIRST_LINES = frozenset({"needs_input", "not_found", "out_of_scope", "observe", "unreachable", "auth_failed"})


def render_markdown(diagnosis: Diagnosis, *, lang: str) -> str:
    labels = LABELS[check_language(lang, LANGUAGES)]
    if diagnosis.outcome in FIRST_LINES:
        return _render_short(diagnosis, labels)
    if diagnosis.confidence == "LOW" and diagnosis.outcome == "diagnosed":
        return _render_insufficient(diagnosis, labels)
    return _render_normal(diagnosis, labels)


def _denied_status(diagnosis: Diagnosis) -> int | None:
    for item in diagnosis.evidence:
        if item.field == "error_code" and isinstance(item.value, int) and item.value in (401, 403):
            return item.value
    return None


def _failed_status(diagnosis: Diagnosis) -> int | None:
    for item in diagnosis.evidence:
        if (
            item.source == "ShowTrainingJobDetails"
            and item.field == "error_code"
            and isinstance(item.value, int)
        ):
            return item.value
    return None


def _job_cell(diagnosis: Diagnosis, labels: Mapping[str, str]) -> str:
    name = f"`{diagnosis.target.name}`" if diagnosis.target.name else labels["unknown_name"]
    job_id = diagnosis.target.job_id
    return f"{name} (`{job_id}`)" if job_id else name


def _phase_cell(diagnosis: Diagnosis, labels: Mapping[str, str]) -> str:
    if diagnosis.target.phase:
        return f"`{diagnosis.target.phase}`"
    status = _failed_status(diagnosis) or _denied_status(diagnosis)
    return labels["unreadable_phase"].format(status=status) if status else labels["unreadable_phase_plain"]


def _level_cell(diagnosis: Diagnosis, labels: Mapping[str, str]) -> str:
    if diagnosis.outcome == "permission_denied" or diagnosis.fault_level is None:
        return labels["level.denied"] if diagnosis.outcome == "permission_denied" else "-"
    if diagnosis.confidence == "LOW" and diagnosis.fault_level == "Suspected":
        return labels["level.insufficient"]
    return labels[f"level.{diagnosis.fault_level}"]


def _conclusion(diagnosis: Diagnosis, labels: Mapping[str, str]) -> list[str]:
    return [
        labels["conclusion"],
        "",
        labels["table_head"],
        f"| {labels['job']} | {_job_cell(diagnosis, labels)} |",
        f"| {labels['phase']} | {_phase_cell(diagnosis, labels)} |",
        f"| {labels['level']} | {_level_cell(diagnosis, labels)} |",
        "",
        labels["root"],
        "",
        diagnosis.root_cause
        + (labels["confidence"].format(confidence=diagnosis.confidence) if diagnosis.confidence else ""),
    ]


def _render_normal(diagnosis: Diagnosis, labels: Mapping[str, str]) -> str:
    lines = _conclusion(diagnosis, labels)
    if diagnosis.recommendations:
        lines += ["", labels["fixes"]]
        for number, recommendation in enumerate(diagnosis.recommendations, start=1):
            lines += ["", labels["plan"].format(number=number), "", recommendation.text.strip()]
        if diagnosis.outcome == "permission_denied":
            lines += _permission_block(diagnosis, labels)
        changes = any(item.changes_resources for item in diagnosis.recommendations)
        lines += ["", labels["note"].format(what=labels["changes"] if changes else labels["read_only"])]
    if diagnosis.next_steps:
        lines += ["", labels["next"], ""]
        lines += [f"- {step}" for step in diagnosis.next_steps]
    return "\n".join(lines)


def _permission_block(diagnosis: Diagnosis, labels: Mapping[str, str]) -> list[str]:
    denied = {
        item.source for item in diagnosis.evidence if item.field == "error_code" and item.value in (401, 403)
    }

    def calls(names: tuple[str, ...], detail: dict[str, str]) -> str:
        shown = []
        for name in names:
            text = name + detail.get(name, "")
            if name in denied:
                text += labels["denied_mark"]
            shown.append(text)
        return labels["list_sep"].join(shown)

    rows = []
    for action in diagnosis.permissions:
        if action.endswith(":get"):
            rows.append(f"| `{action}` | {calls(GET_CALLS, {})} |")
        elif action.endswith(":list"):
            rows.append(f"| `{action}` | {calls(LIST_CALLS, {'ListTrainingJobs': labels['list_detail']})} |")
        else:
            rows.append(f"| `{action}` | - |")
    policy = {"Version": "1.1", "Statement": [{"Effect": "Allow", "Action": list(diagnosis.permissions)}]}
    return [
        "",
        labels["actions"],
        "",
        labels["actions_head"],
        *rows,
        "",
        labels["policy"],
        "",
        "```json",
        json.dumps(policy, indent=2),
        "```",
        "",
        labels["log_export"],
    ]


def _inline(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    flat = flat if len(flat) <= limit else flat[: limit - 1] + "…"
    return flat.replace("|", "\\|").replace("`", "'")


def _evidence_cell(items: list[Evidence], labels: Mapping[str, str]) -> str:
    if not items:
        return labels["no_detail"]
    parts = []
    for item in items:
        text = _inline(item.text)
        parts.append(f"`{item.field}` = `{text}`" if item.field else f"`{text}`")
    return labels["sep"].join(parts)


def _render_insufficient(diagnosis: Diagnosis, labels: Mapping[str, str]) -> str:
    lines = _conclusion(diagnosis, labels)
    lines += ["", labels["collected"], "", labels["collected_head"]]
    for op in dict.fromkeys(diagnosis.calls):
        items = [item for item in diagnosis.evidence if item.source == op]
        lines.append(f"| {op} | {_evidence_cell(items, labels)} |")
    if diagnosis.next_steps:
        lines += ["", labels["suggest"], ""]
        lines += [f"{number}. {step}" for number, step in enumerate(diagnosis.next_steps, start=1)]
    return "\n".join(lines)


def _short_subject(diagnosis: Diagnosis) -> str:
    if diagnosis.outcome == "needs_input":
        return diagnosis.questions[0].prompt if diagnosis.questions else "job id"
    if diagnosis.outcome == "not_found":
        return diagnosis.target.job_id or diagnosis.target.name or "?"
    if diagnosis.outcome in ("unreachable", "auth_failed"):
        # The call that got no answer, or whose credentials were rejected.
        return next((item.source for item in diagnosis.evidence), None) or (
            diagnosis.calls[0] if diagnosis.calls else "?"
        )
    return diagnosis.target.phase or "?"


def _render_short(diagnosis: Diagnosis, labels: Mapping[str, str]) -> str:
    lines = [labels[f"first.{diagnosis.outcome}"].format(what=_short_subject(diagnosis)), ""]
    if diagnosis.target.job_id or diagnosis.target.name:
        lines += [labels["job_line"].format(job=_job_cell(diagnosis, labels)), ""]
    lines.append(diagnosis.root_cause)
    for question in diagnosis.questions:
        if question.choices:
            lines += ["", labels["choices"], ""]
            lines += [f"- {choice.label}" for choice in question.choices]
    if diagnosis.next_steps:
        lines += ["", labels["next"], ""]
        lines += [f"- {step}" for step in diagnosis.next_steps]
    return "\n".join(lines)

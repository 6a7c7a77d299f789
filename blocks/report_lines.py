"""The pieces every Slack report is made of: the headline, the target's fields, and one line per
evidence item, recommendation, bullet and call list, each cut to its limit."""

from __future__ import annotations

from blocks.escape import code_span, escape_mrkdwn
from blocks.labels import label
from blocks.limits import (
    cut_mrkdwn,
)
from blocks.mrkdwn import markdown_to_mrkdwn
from diagnosis.models import Diagnosis, Evidence

OUTCOME_EMOJI: dict[str, str] = {
    "diagnosed": ":red_circle:",
    "routed": ":twisted_rightwards_arrows:",
    "not_a_failure": ":large_green_circle:",
    "needs_input": ":question:",
    "wrong_cluster": ":warning:",
    "out_of_scope": ":white_circle:",
    "observe": ":hourglass_flowing_sand:",
    "not_found": ":mag:",
    "permission_denied": ":lock:",
    "unreachable": ":electric_plug:",
    "auth_failed": ":no_entry:",
}
PLATFORM_NAMES: dict[str, str] = {"runai": "Run:ai", "modelarts": "ModelArts"}

# Per-item caps inside a list section; the full text is in the attached report.
EVIDENCE_ITEM_CHARS = 700
LIST_ITEM_CHARS = 1500


def headline(diagnosis: Diagnosis, *, lang: str) -> str:
    """`:red_circle: OOM_KILLED · Failed`: the outcome's first line (the category, or what the outcome
    means) and the phase."""
    phase = diagnosis.target.phase
    values = {
        "category": diagnosis.category or "UNKNOWN",
        "route": diagnosis.route or "?",
        "phase": phase or label("unknown_phase", lang),
        "platform": PLATFORM_NAMES.get(diagnosis.platform, diagnosis.platform),
    }
    text = label(f"outcome.{diagnosis.outcome}", lang, **values)
    shows_phase = diagnosis.outcome in (
        "diagnosed",
        "routed",
        "needs_input",
        "wrong_cluster",
        "permission_denied",
    )
    if phase and shows_phase:
        text = f"{text} · {phase}"
    return f"{OUTCOME_EMOJI.get(diagnosis.outcome, '')} {text}".strip()


def target_fields(diagnosis: Diagnosis, *, lang: str) -> list[str]:
    target = diagnosis.target
    fields: list[str] = []
    ident = target.workload_id or target.job_id
    if target.name or ident:
        kind = "workload" if diagnosis.platform == "runai" else "job"
        value = escape_mrkdwn(target.name) if target.name else ""
        if ident:
            value = f"{value}\n`{escape_mrkdwn(ident)}`" if value else f"`{escape_mrkdwn(ident)}`"
        fields.append(f"*{label(kind, lang)}*\n{value}")
    if target.project:
        fields.append(f"*{label('project', lang)}*\n{escape_mrkdwn(target.project)}")
    if target.region:
        fields.append(f"*{label('region', lang)}*\n{escape_mrkdwn(target.region)}")
    if target.cluster_id:
        fields.append(f"*{label('cluster', lang)}*\n`{escape_mrkdwn(target.cluster_id)}`")
    fields.append(f"*{label('confidence', lang)}*\n{diagnosis.confidence or '—'}")
    if diagnosis.fault_level or diagnosis.platform == "modelarts":
        fields.append(f"*{label('fault_level', lang)}*\n{diagnosis.fault_level or '—'}")
    return fields


def evidence_line(item: Evidence) -> str:
    where = f"_{escape_mrkdwn(item.source)}_"
    if item.field:
        where += f" `{escape_mrkdwn(item.field)}`"
    quoted = code_span(item.text)
    line = f"• {where}\n{quoted}" if "\n" in quoted else f"• {quoted} — {where}"
    return cut_mrkdwn(line, EVIDENCE_ITEM_CHARS)


def recommendation_line(number: int, text: str, changes_resources: bool, *, lang: str) -> str:
    body = markdown_to_mrkdwn(text)
    if "\n" in body:
        body = "\n" + "\n".join(f"    {line}" for line in body.split("\n"))
    line = f"{number}. {body}"
    if changes_resources:
        line += f"\n    :warning: _{escape_mrkdwn(label('needs_confirmation', lang))}_"
    return cut_mrkdwn(line, LIST_ITEM_CHARS)


def bullet_line(text: str) -> str:
    body = markdown_to_mrkdwn(text).replace("\n", "\n    ")
    return cut_mrkdwn(f"• {body}", LIST_ITEM_CHARS)


def calls_line(diagnosis: Diagnosis, *, lang: str) -> str:
    calls = " → ".join(f"`{escape_mrkdwn(call)}`" for call in diagnosis.calls) or label("no_calls", lang)
    return f"{escape_mrkdwn(label('calls', lang))}: {calls}"

"""Short bot messages: notices, usage, follow-up answers from a stored diagnosis, scans, explanations."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from blocks.escape import code_span, escape_mrkdwn
from blocks.kit import (
    Block,
    SlackMessage,
    actions,
    context,
    fallback_text,
    fields_section,
    header,
    pack_lines,
    section,
)
from blocks.labels import label, label_mrkdwn
from blocks.limits import MAX_BLOCKS, MAX_SECTION_TEXT, cut_mrkdwn
from blocks.mrkdwn import markdown_to_mrkdwn
from blocks.report import evidence_line, headline, recommendation_line
from diagnosis.models import Diagnosis, Evidence

# Text budget for the listed items of one message (Slack's aggregate limit is ~12,000 characters).
BODY_CHARS = 9000

# Evidence sources that hold log lines (Run:ai Tier 2, ModelArts log preview and task messages).
LOG_SOURCES = ("k8s.read_pod_log", "ShowTrainingJobLogsPreview")
HISTORY_SOURCES = ("get_workload_history",)

USAGE_MARKDOWN = """\
**/diagnose** — read-only diagnosis of a failed training job. Nothing is ever changed.

- `/diagnose runai cluster=<id> workload=<name> project=<project> [lookback=7d] [intent=active]`
- `/diagnose runai id=<workload-id> cluster=<id>`
- `/diagnose modelarts job=<id-or-name> [region=<region>]`
- `/diagnose scan modelarts [region=<region>]`
- `/diagnose explain 137` — what an exit code means
- `/diagnose help`

Or mention the bot: `@diagnose-bot why did train-42 in ml-team fail on cluster prod-a?`
In a report's thread, reply `evidence`, `history`, `logs`, `json`, `why`, `rerun` or `explain <code>`.
"""


def notice(text: str, *, emoji: str = ":information_source:") -> SlackMessage:
    """One plain sentence (escaped here)."""
    return SlackMessage(text=fallback_text(text), blocks=[section(f"{emoji} {escape_mrkdwn(text)}")])


def notice_mrkdwn(mrkdwn_text: str, *, fallback: str, emoji: str = ":information_source:") -> SlackMessage:
    return SlackMessage(text=fallback_text(fallback), blocks=[section(f"{emoji} {mrkdwn_text}")])


def usage_message(*, problem: str | None = None) -> SlackMessage:
    blocks: list[Block] = []
    if problem:
        blocks.append(section(f":warning: {escape_mrkdwn(problem)}"))
    blocks.append(section(markdown_to_mrkdwn(USAGE_MARKDOWN)))
    return SlackMessage(text=fallback_text(problem or "How to use /diagnose"), blocks=blocks)


def markdown_message(
    markdown: str, *, title: str | None = None, fallback: str, lang: str = "en"
) -> SlackMessage:
    """Engine Markdown (an explanation, a scan table) as sections of at most 3,000 characters."""
    converted = markdown_to_mrkdwn(markdown)
    blocks: list[Block] = [header(title)] if title else []
    # Split at paragraph boundaries, never inside a code block.
    paragraphs: list[str] = []
    for part in converted.split("\n\n"):
        if paragraphs and paragraphs[-1].count("```") % 2 == 1:
            paragraphs[-1] += "\n\n" + part
        else:
            paragraphs.append(part)
    packed, dropped = pack_lines(paragraphs, max_blocks=MAX_BLOCKS - len(blocks) - 1, max_chars=BODY_CHARS)
    blocks.extend(packed)
    if dropped:
        blocks.append(context(":scissors: " + escape_mrkdwn(label("cut", lang))))
    return SlackMessage(text=fallback_text(fallback), blocks=blocks, truncated=bool(dropped))


def _items_message(
    diagnosis: Diagnosis,
    items: Sequence[Evidence],
    *,
    title: str,
    lang: str,
    empty: str,
    extra: Sequence[Block] = (),
) -> SlackMessage:
    blocks: list[Block] = [
        section(f"*{escape_mrkdwn(title)}* — {escape_mrkdwn(headline(diagnosis, lang=lang))}")
    ]
    packed, dropped = pack_lines(
        [evidence_line(item) for item in items], max_blocks=MAX_BLOCKS - 4, max_chars=BODY_CHARS
    )
    blocks.extend(packed)
    if not items:
        blocks.append(section(escape_mrkdwn(empty)))
    blocks.extend(extra)
    if dropped:
        blocks.append(context(":scissors: " + escape_mrkdwn(label("more_items", lang, count=dropped))))
    return SlackMessage(
        text=fallback_text(f"{title}: {headline(diagnosis, lang=lang)}"),
        blocks=blocks,
        truncated=bool(dropped),
    )


def evidence_message(diagnosis: Diagnosis, *, lang: str) -> SlackMessage:
    return _items_message(
        diagnosis, diagnosis.evidence, title=label("evidence", lang), lang=lang, empty=label("no_items", lang)
    )


def history_message(diagnosis: Diagnosis, *, lang: str) -> SlackMessage:
    items = [item for item in diagnosis.evidence if item.source in HISTORY_SOURCES]
    extra: list[Block] = []
    if diagnosis.recurrence is not None:
        occurrence = diagnosis.recurrence
        state = label("recurring" if occurrence.recurring else "not_recurring", lang)
        text = label("recurrence_text", lang, count=occurrence.count, window=occurrence.window)
        extra.append(
            section(f"*{escape_mrkdwn(label('recurrence', lang))}*\n{escape_mrkdwn(text)} ({state})")
        )
    empty = label("history_none", lang) if diagnosis.recurrence is None else label("no_items", lang)
    return _items_message(
        diagnosis, items, title=label("recurrence", lang), lang=lang, empty=empty, extra=extra
    )


def logs_message(diagnosis: Diagnosis, *, lang: str, buttons: Sequence[Block] = ()) -> SlackMessage:
    items = [
        item
        for item in diagnosis.evidence
        if item.source in LOG_SOURCES
        or "message" in (item.field or "")
        or "log" in (item.field or "").lower()
    ]
    extra = [actions(list(buttons), block_id="log_actions")] if buttons else []
    return _items_message(
        diagnosis, items, title=label("logs", lang), lang=lang, empty=label("logs_none", lang), extra=extra
    )


def why_message(diagnosis: Diagnosis, *, lang: str) -> SlackMessage:
    """The root cause, the signature and the recommendations, for a `why` reply."""
    parts = [f"*{escape_mrkdwn(headline(diagnosis, lang=lang))}*"]
    if diagnosis.root_cause:
        parts.append(markdown_to_mrkdwn(diagnosis.root_cause))
    if diagnosis.signature:
        parts.append(f"*{escape_mrkdwn(label('signature', lang))}* {code_span(diagnosis.signature)}")
    blocks: list[Block] = [section("\n".join(parts))]
    recommendations = [
        recommendation_line(number, item.text, item.changes_resources, lang=lang)
        for number, item in enumerate(diagnosis.recommendations, start=1)
    ]
    if recommendations:
        text = f"*{escape_mrkdwn(label('recommendations', lang))}*\n" + "\n".join(recommendations)
        blocks.append(section(cut_mrkdwn(text, MAX_SECTION_TEXT)))
    return SlackMessage(
        text=fallback_text(f"{headline(diagnosis, lang=lang)} {diagnosis.root_cause}"), blocks=blocks
    )


def scan_message(scan: dict[str, Any], *, lang: str) -> SlackMessage:
    """scan/v1 (rulings M13): counts per category, then one line per job grouped by category (the
    most frequent first), then the error signatures several jobs share."""
    platform = str(scan.get("platform") or "")
    region = str(scan.get("region") or "")
    results = [item for item in scan.get("results") or [] if isinstance(item, dict)]
    by_category = scan.get("by_category") or {}
    blocks: list[Block] = [header(label("scan_header", lang, platform=platform, region=region))]
    summary = label("scan_summary", lang, scanned=scan.get("scanned", len(results)), diagnosed=len(results))
    error = scan.get("error")
    if isinstance(error, dict):
        # The listing itself failed (403, 5xx…): what the engine says about it, nothing else.
        reason = str(error.get("root_cause") or error.get("outcome") or "?")
        summary = label("scan_failed", lang, reason=reason)
    blocks.append(section(escape_mrkdwn(summary)))
    if isinstance(by_category, dict) and by_category:
        blocks.append(
            fields_section(
                [f"*{escape_mrkdwn(str(k))}*\n{escape_mrkdwn(str(v))}" for k, v in by_category.items()]
            )
        )
    elif not results and not isinstance(error, dict):
        blocks.append(section(escape_mrkdwn(label("scan_none", lang))))
    lines: list[str] = []
    for group, items in _grouped(results):
        lines.append(f"*{escape_mrkdwn(group)}* ({len(items)})")
        lines.extend(_scan_line(item) for item in items)
    shared = _shared_signatures(results)
    if shared:
        lines.append(f"*{escape_mrkdwn(label('scan_recurring', lang))}*")
        for signature, names in shared:
            jobs = label("scan_recurring_jobs", lang, count=len(names), names=", ".join(names))
            lines.append(f"• {code_span(signature[:300])} — {escape_mrkdwn(jobs)}")
    packed, dropped = pack_lines(lines, max_blocks=MAX_BLOCKS - len(blocks) - 1, max_chars=BODY_CHARS)
    blocks.extend(packed)
    truncated = bool(dropped)
    if truncated:
        blocks.append(context(":scissors: " + escape_mrkdwn(label("more_items", lang, count=dropped))))
    return SlackMessage(text=fallback_text(summary), blocks=blocks, truncated=truncated)


def _verdict(item: dict[str, Any]) -> str:
    return str(item.get("category") or item.get("outcome") or "?")


def _grouped(results: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for item in results:
        groups.setdefault(_verdict(item), []).append(item)
    return sorted(groups.items(), key=lambda pair: (-len(pair[1]), pair[0]))


def _job_name(item: dict[str, Any]) -> str:
    target = item.get("target") or {}
    return str(target.get("name") or target.get("job_id") or target.get("workload_id") or "?")


def _scan_line(item: dict[str, Any]) -> str:
    confidence = item.get("confidence") or "—"
    line = f"• {code_span(_job_name(item))} — {escape_mrkdwn(str(confidence))}"
    summary = item.get("signature") or ""
    if summary:
        line += f" — {code_span(' '.join(str(summary).split())[:200])}"
    return line


def _shared_signatures(results: list[dict[str, Any]]) -> list[tuple[str, list[str]]]:
    """Signatures of diagnosed jobs seen on two jobs or more, most frequent first."""
    names: dict[str, list[str]] = {}
    for item in results:
        signature = item.get("signature")
        if signature and item.get("outcome") == "diagnosed":
            names.setdefault(str(signature), []).append(_job_name(item))
    shared = [(signature, jobs) for signature, jobs in names.items() if len(jobs) >= 2]
    return sorted(shared, key=lambda pair: (-len(pair[1]), pair[0]))


def denied_message(*, lang: str) -> SlackMessage:
    return notice_mrkdwn(label_mrkdwn("denied", lang), fallback=label("denied", lang), emoji=":no_entry:")

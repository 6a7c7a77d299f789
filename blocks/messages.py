"""Short bot messages: notices, usage, follow-up answers from a stored diagnosis, scans, explanations."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
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
from blocks.report_lines import evidence_line, headline, recommendation_line
from diagnosis.models import Diagnosis, Evidence

# Text budget for the listed items of one message (Slack's aggregate limit is ~12,000 characters).
BODY_CHARS = 9000

# Evidence sources that hold log lines (Run:ai Tier 2, ModelArts log preview and task messages).
LOG_SOURCES = ("k8s.read_pod_log", "ShowTrainingJobLogsPreview")
HISTORY_SOURCES = ("get_workload_history",)

# The help text per language is the label `usage.help` (labels follow the channel's language). The
# mention sentences in it stay English: the sentence parser reads English words.


def notice(text: str, *, emoji: str = ":information_source:") -> SlackMessage:
    """One plain sentence (escaped here)."""
    return SlackMessage(text=fallback_text(text), blocks=[section(f"{emoji} {escape_mrkdwn(text)}")])


def notice_mrkdwn(mrkdwn_text: str, *, fallback: str, emoji: str = ":information_source:") -> SlackMessage:
    return SlackMessage(text=fallback_text(fallback), blocks=[section(f"{emoji} {mrkdwn_text}")])


def usage_problem(code: str, values: Mapping[str, str], *, lang: str, english: str) -> str:
    """A grammar problem in `lang` (label `usage.<code>`); the English sentence when no label fits."""
    try:
        return label(f"usage.{code}", lang, **{"problem": english, **values})
    except (KeyError, IndexError, ValueError):
        return english


def usage_message(*, problem: str | None = None, lang: str = "en") -> SlackMessage:
    """The help text in `lang`, under the problem (already in `lang`) when there is one."""
    blocks: list[Block] = []
    if problem:
        blocks.append(section(f":warning: {escape_mrkdwn(problem)}"))
    blocks.append(section(_usage_mrkdwn(lang)))
    return SlackMessage(text=fallback_text(problem or label("help_title", lang)), blocks=blocks)


@functools.cache
def _usage_mrkdwn(lang: str) -> str:
    """The help text converted once per language: it is answered in the ack itself, where a
    Markdown parse per command (~1 ms) counts against Slack's 3 s under a burst."""
    return markdown_to_mrkdwn(label("usage.help", lang))


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


def _scan_title(scan: Mapping[str, Any], *, runai: bool, lang: str) -> str:
    if not runai:
        return label("scan_header", lang, platform="ModelArts", region=str(scan.get("region") or "")).strip()
    project = str(scan.get("project") or "")
    return label(
        "scan_header_runai",
        lang,
        cluster=str(scan.get("cluster_id") or "?"),
        project=label("scan_header_project", lang, project=project) if project else "",
        lookback=str(scan.get("lookback") or "?"),
    )


def _scan_summary(scan: Mapping[str, Any], results: list[dict[str, Any]], *, runai: bool, lang: str) -> str:
    """How many jobs were listed and diagnosed; when the listing itself failed (403, 5xx…), what the
    engine says about it, nothing else."""
    error = scan.get("error")
    if isinstance(error, dict):
        reason = str(error.get("root_cause") or error.get("outcome") or "?")
        return label("scan_failed_runai" if runai else "scan_failed", lang, reason=reason)
    return label(
        "scan_summary_runai" if runai else "scan_summary",
        lang,
        scanned=scan.get("scanned", len(results)),
        diagnosed=len(results),
    )


def _scan_counts(
    scan: Mapping[str, Any], results: list[dict[str, Any]], *, runai: bool, lang: str
) -> list[Block]:
    """The count of each category, most frequent first; or that nothing failed."""
    by_category = scan.get("by_category") or {}
    if isinstance(by_category, dict) and by_category:
        counted = sorted(by_category.items(), key=lambda pair: (-_count(pair[1]), str(pair[0])))
        return [fields_section([f"*{escape_mrkdwn(str(k))}*\n{escape_mrkdwn(str(v))}" for k, v in counted])]
    if results or isinstance(scan.get("error"), dict):
        return []
    lookback = str(scan.get("lookback") or "?")
    none = label("scan_none_runai", lang, lookback=lookback) if runai else label("scan_none", lang)
    return [section(escape_mrkdwn(none))]


def _scan_lines(scan: Mapping[str, Any], results: list[dict[str, Any]], *, lang: str) -> list[str]:
    """The causes several jobs share and the scan's limitations come before the per-job lines: in a
    large scan the job lines are what is cut (the full list is in the JSON in the thread)."""
    lines: list[str] = []
    causes = _recurring_causes(scan, results)
    if causes:
        lines.append(f"*{escape_mrkdwn(label('scan_recurring', lang))}*")
        for kind, value, count, names in causes:
            jobs = label("scan_recurring_jobs", lang, count=count, names=", ".join(_names(names)))
            what = label(f"scan_cause.{kind}", lang) if kind in CAUSE_KINDS else kind
            lines.append(f"• {escape_mrkdwn(what)} {code_span(value[:300])} — {escape_mrkdwn(jobs)}")
    limitations = [str(text) for text in scan.get("limitations") or [] if text]
    if limitations:
        lines.append(f"*{escape_mrkdwn(label('limitations', lang))}*")
        lines.extend(f"• {escape_mrkdwn(' '.join(text.split())[:500])}" for text in limitations)
    for group, items in _grouped(results):
        lines.append(f"*{escape_mrkdwn(group)}* ({len(items)})")
        lines.extend(_scan_line(item) for item in items)
    return lines


def scan_message(scan: Mapping[str, Any], *, lang: str, notes: Sequence[str] = ()) -> SlackMessage:
    """scan/v1: counts per category (the most frequent first), the causes several jobs share (the
    scan's `recurring_causes`: the same error signature, image or node), the scan's limitations,
    then one line per job grouped by category. `notes` are mrkdwn lines (demo note)."""
    runai = scan.get("platform") == "runai"
    results = [item for item in scan.get("results") or [] if isinstance(item, dict)]
    title = _scan_title(scan, runai=runai, lang=lang)
    summary = _scan_summary(scan, results, runai=runai, lang=lang)
    blocks: list[Block] = [header(title), section(escape_mrkdwn(summary))]
    blocks.extend(_scan_counts(scan, results, runai=runai, lang=lang))
    lines = _scan_lines(scan, results, lang=lang)
    tail = [context(note) for note in notes]
    packed, dropped = pack_lines(
        lines, max_blocks=MAX_BLOCKS - len(blocks) - len(tail) - 1, max_chars=BODY_CHARS
    )
    blocks.extend(packed)
    truncated = bool(dropped)
    if truncated:
        blocks.append(context(":scissors: " + escape_mrkdwn(label("more_items", lang, count=dropped))))
    blocks.extend(tail)
    return SlackMessage(text=fallback_text(f"{title}: {summary}"), blocks=blocks, truncated=truncated)


CAUSE_KINDS = ("signature", "image", "node")
MAX_NAMES_PER_CAUSE = 12


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _recurring_causes(
    scan: Mapping[str, Any], results: list[dict[str, Any]]
) -> list[tuple[str, str, int, list[str]]]:
    """(kind, value, job names): the scan's `recurring_causes` as the engine ordered them (most jobs
    first); a scan without them (an older capture) gets the signatures several diagnosed jobs share."""
    listed: list[tuple[str, str, int, list[str]]] = []
    for cause in scan.get("recurring_causes") or []:
        if not isinstance(cause, dict) or cause.get("value") is None:
            continue
        names = [str(name) for name in cause.get("workloads") or [] if name is not None]
        count = _count(cause.get("count")) or len(names)
        listed.append((str(cause.get("kind") or "?"), str(cause["value"]), count, names))
    if "recurring_causes" in scan:
        return listed
    return [("signature", signature, len(names), names) for signature, names in _shared_signatures(results)]


def _names(names: list[str]) -> list[str]:
    hidden = len(names) - MAX_NAMES_PER_CAUSE
    return names[:MAX_NAMES_PER_CAUSE] + ([f"+{hidden}"] if hidden > 0 else [])


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

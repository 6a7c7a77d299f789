"""Diagnosis → Block Kit report: header, fields, evidence, recurrence, recommendations, limitations,
next steps, calls. Shows only what the diagnosis holds plus fixed labels.

Limit-aware: every text is cut to its field's limit with a marker, and when the whole message would
pass 50 blocks or Slack's aggregate text size, the longest list loses items from its end (with a
"… N more" line) until it fits; `truncated` then tells the bot to attach the full report."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from blocks.escape import code_span, escape_mrkdwn
from blocks.kit import (
    Block,
    SlackMessage,
    actions,
    context,
    divider,
    fallback_text,
    fields_section,
    header,
    section,
)
from blocks.labels import Mention, label, label_mrkdwn
from blocks.limits import (
    CUT_MARKER,
    MAX_BLOCKS,
    MAX_MESSAGE_BLOCK_TEXT,
    MAX_SECTION_TEXT,
    cut_mrkdwn,
    text_length,
)
from blocks.mrkdwn import markdown_to_mrkdwn
from blocks.report_lines import (
    PLATFORM_NAMES,
    bullet_line,
    calls_line,
    evidence_line,
    headline,
    recommendation_line,
    target_fields,
)
from diagnosis.models import FAILURE_OUTCOMES, Diagnosis


@dataclass
class _List:
    """A titled list rendered as one or more sections of at most 3,000 characters."""

    title: str
    items: list[str]
    dropped: int = 0
    lang: str = "en"
    cut: bool = field(default=False)

    def blocks(self) -> list[Block]:
        if not self.items and not self.dropped:
            return []
        lines = list(self.items)
        if self.dropped:
            lines.append("_" + escape_mrkdwn(label("more_items", self.lang, count=self.dropped)) + "_")
        chunks: list[str] = []
        current = f"*{escape_mrkdwn(self.title)}*"
        for line in lines:
            candidate = f"{current}\n{line}"
            if len(candidate) > MAX_SECTION_TEXT and current:
                chunks.append(current)
                current = line
            else:
                current = candidate
        chunks.append(current)
        return [section(chunk) for chunk in chunks]

    def drop_last(self) -> bool:
        if not self.items:
            return False
        self.items.pop()
        self.dropped += 1
        return True


def _top_blocks(diagnosis: Diagnosis, *, lang: str) -> list[Block]:
    """The headline, the target's fields, the root cause and the signature."""
    top: list[Block] = [
        header(headline(diagnosis, lang=lang)),
        fields_section(target_fields(diagnosis, lang=lang)),
    ]
    if diagnosis.root_cause:
        top.append(
            section(
                f"*{escape_mrkdwn(label('root_cause', lang))}*\n{markdown_to_mrkdwn(diagnosis.root_cause)}"
            )
        )
    if diagnosis.signature:
        top.append(section(f"*{escape_mrkdwn(label('signature', lang))}*\n{code_span(diagnosis.signature)}"))
    return top


def _recurrence_blocks(diagnosis: Diagnosis, *, lang: str) -> list[Block]:
    if diagnosis.recurrence is None:
        return []
    occurrence = diagnosis.recurrence
    state = label("recurring" if occurrence.recurring else "not_recurring", lang)
    text = label("recurrence_text", lang, count=occurrence.count, window=occurrence.window)
    return [section(f"*{escape_mrkdwn(label('recurrence', lang))}*\n{escape_mrkdwn(text)} ({state})")]


def _lists(diagnosis: Diagnosis, *, lang: str) -> list[_List]:
    """Evidence, recommendations, permissions, questions, limitations and next steps, in that order."""
    recommendations = [
        recommendation_line(number, item.text, item.changes_resources, lang=lang)
        for number, item in enumerate(diagnosis.recommendations, start=1)
    ]
    permissions = _List(
        label("permissions", lang), [f"• `{escape_mrkdwn(p)}`" for p in diagnosis.permissions], lang=lang
    )
    if diagnosis.permissions:
        permissions.items.append("_" + escape_mrkdwn(label("permissions_hint", lang)) + "_")
    return [
        _List(label("evidence", lang), [evidence_line(item) for item in diagnosis.evidence], lang=lang),
        _List(label("recommendations", lang), recommendations, lang=lang),
        permissions,
        _List(
            label("outcome.needs_input", lang),
            [bullet_line(q.prompt) for q in diagnosis.questions],
            lang=lang,
        ),
        _List(label("limitations", lang), [bullet_line(text) for text in diagnosis.limitations], lang=lang),
        _List(label("next_steps", lang), [bullet_line(text) for text in diagnosis.next_steps], lang=lang),
    ]


def _footer(diagnosis: Diagnosis, *, lang: str, requested_by: str | None, notes: Sequence[str]) -> list[str]:
    footer_texts = [calls_line(diagnosis, lang=lang)]
    if requested_by:
        footer_texts.append(label_mrkdwn("requested_by", lang, user=Mention(requested_by)))
    footer_texts.extend(notes)
    return footer_texts


def _fitted(assemble: Callable[[bool], list[Block]], lists: list[_List]) -> tuple[list[Block], bool]:
    """The blocks within Slack's limits: the longest list loses items from its end until they fit."""
    blocks = assemble(False)
    truncated = _was_cut(blocks)
    while len(blocks) > MAX_BLOCKS or sum(text_length(b) for b in blocks) > MAX_MESSAGE_BLOCK_TEXT:
        longest = max(lists, key=lambda part: sum(len(item) for item in part.items))
        if not longest.drop_last():
            break
        truncated = True
        blocks = assemble(True)
    if truncated and not any(b.get("type") == "context" and ":scissors:" in str(b) for b in blocks):
        blocks = assemble(True)
    return blocks, truncated


def report_message(
    diagnosis: Diagnosis,
    *,
    lang: str,
    requested_by: str | None = None,
    buttons: Sequence[Block] = (),
    notes: Sequence[str] = (),
) -> SlackMessage:
    """The whole report in one message within Slack's limits.

    `requested_by` is a Slack user id (rendered as a mention); `buttons` come from the bot
    (re-run, retry, log link); `notes` are fixed, already-escaped context lines (e.g. demo mode).
    """
    if diagnosis.outcome in FAILURE_OUTCOMES:
        return failure_message(diagnosis, lang=lang, requested_by=requested_by, buttons=buttons, notes=notes)
    top = _top_blocks(diagnosis, lang=lang)
    recurrence = _recurrence_blocks(diagnosis, lang=lang)
    lists = _lists(diagnosis, lang=lang)
    footer_texts = _footer(diagnosis, lang=lang, requested_by=requested_by, notes=notes)

    def assemble(truncated: bool) -> list[Block]:
        blocks = [*top, divider(), *lists[0].blocks(), *recurrence]
        for part in lists[1:]:
            blocks.extend(part.blocks())
        if buttons:
            blocks.append(actions(list(buttons), block_id="report_actions"))
        blocks.append(context(*footer_texts))
        if truncated:
            blocks.append(context(":scissors: " + escape_mrkdwn(label("cut", lang))))
        return blocks

    blocks, truncated = _fitted(assemble, lists)
    summary = headline(diagnosis, lang=lang)
    name = diagnosis.target.name or diagnosis.target.workload_id or diagnosis.target.job_id or ""
    fallback = f"{summary}: {name} {diagnosis.root_cause}".strip()
    return SlackMessage(text=fallback_text(fallback), blocks=blocks[:MAX_BLOCKS], truncated=truncated)


def failure_message(
    diagnosis: Diagnosis,
    *,
    lang: str,
    requested_by: str | None = None,
    buttons: Sequence[Block] = (),
    notes: Sequence[str] = (),
) -> SlackMessage:
    """The platform was not reached, or refused the credentials: said plainly, with what to check,
    and nothing that could read as a diagnosis (no category, confidence or evidence section)."""
    platform = PLATFORM_NAMES.get(diagnosis.platform, diagnosis.platform)
    blocks: list[Block] = [header(headline(diagnosis, lang=lang))]
    if diagnosis.root_cause:
        blocks.append(section(markdown_to_mrkdwn(diagnosis.root_cause)))
    checks = [bullet_line(text) for text in diagnosis.next_steps[:10]]
    intro = escape_mrkdwn(label("not_a_diagnosis", lang, platform=platform))
    blocks.append(section(cut_mrkdwn("\n".join([f"*{intro}*", *checks]), MAX_SECTION_TEXT)))
    if diagnosis.limitations:
        limits = [bullet_line(text) for text in diagnosis.limitations[:10]]
        title = escape_mrkdwn(label("limitations", lang))
        blocks.append(section(cut_mrkdwn("\n".join([f"*{title}*", *limits]), MAX_SECTION_TEXT)))
    if buttons:
        blocks.append(actions(list(buttons), block_id="report_actions"))
    footer = [calls_line(diagnosis, lang=lang)]
    if requested_by:
        footer.append(label_mrkdwn("requested_by", lang, user=Mention(requested_by)))
    footer.extend(notes)
    blocks.append(context(*footer))
    fallback = f"{headline(diagnosis, lang=lang)}: {diagnosis.root_cause}".strip()
    return SlackMessage(text=fallback_text(fallback), blocks=blocks[:MAX_BLOCKS], truncated=False)


def _was_cut(blocks: list[Block]) -> bool:
    return any(CUT_MARKER in str(block) for block in blocks)

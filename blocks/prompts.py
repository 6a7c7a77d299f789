"""Interactive messages: questions for missing or ambiguous identifiers, their modal, the
permission Retry button and the ephemeral full-log link.

A choice's `value` alone identifies it, so the button value / select option value is
the choice's value; which pending request it answers is carried in the block id.
"""

from __future__ import annotations

import json
from typing import Any

from blocks.escape import escape_mrkdwn, plain
from blocks.kit import (
    Block,
    SlackMessage,
    actions,
    button,
    fallback_text,
    option,
    plain_text,
    section,
    static_select,
)
from blocks.labels import Mention, label, label_mrkdwn
from blocks.limits import (
    MAX_ACTION_ELEMENTS,
    MAX_INPUT_LABEL,
    MAX_MODAL_TITLE,
    MAX_OPTION_VALUE,
    MAX_OPTIONS,
)
from blocks.mrkdwn import markdown_to_mrkdwn
from diagnosis.models import Question

QUESTION_BLOCK_PREFIX = "question|"
ACTION_CHOICE = "answer_choice"
ACTION_SELECT = "answer_select"
ACTION_OTHER = "answer_other"
ACTION_CANCEL = "answer_cancel"
ACTION_RETRY = "retry_diagnosis"
ACTION_RERUN = "rerun_diagnosis"
ACTION_LOG_LINK = "log_link"
ANSWER_VIEW = "answer_form"
LOG_LINK_VIEW = "log_link_form"
ANSWER_INPUT_BLOCK = "answer"
ANSWER_INPUT_ACTION = "value"
# Up to this many choices are buttons; more become a select menu.
MAX_CHOICE_BUTTONS = 5


def question_block_id(pending_id: str) -> str:
    return f"{QUESTION_BLOCK_PREFIX}{pending_id}"


def pending_id_from_block(block_id: str) -> str | None:
    return block_id[len(QUESTION_BLOCK_PREFIX) :] if block_id.startswith(QUESTION_BLOCK_PREFIX) else None


def question_message(
    question: Question, *, pending_id: str, lang: str, free_text: bool = True, asker: str | None = None
) -> SlackMessage:
    """A question with its choices as buttons (a select when there are many) and, for identifiers a
    person can type, a button that opens a modal."""
    prompt = markdown_to_mrkdwn(question.prompt)
    if asker:
        prompt = f"<@{asker}> {prompt}"
    elements: list[Block] = []
    choices = question.choices or []
    selectable = [choice for choice in choices if len(choice.value) <= MAX_OPTION_VALUE]
    if choices and len(choices) <= MAX_CHOICE_BUTTONS:
        elements.extend(
            button(choice.label, action_id=f"{ACTION_CHOICE}_{index}", value=choice.value)
            for index, choice in enumerate(choices)
        )
    elif selectable:
        elements.append(
            static_select(
                action_id=ACTION_SELECT,
                placeholder=label("choose", lang),
                options=[option(choice.label, choice.value) for choice in selectable[:MAX_OPTIONS]],
            )
        )
    if free_text or not choices:
        elements.append(
            button(
                label("other_value" if choices else "answer", lang), action_id=ACTION_OTHER, value=pending_id
            )
        )
    elements.append(button(label("cancel", lang), action_id=ACTION_CANCEL, value=pending_id))
    blocks = [
        section(f":question: {prompt}"),
        actions(elements[:MAX_ACTION_ELEMENTS], block_id=question_block_id(pending_id)),
    ]
    return SlackMessage(text=fallback_text(question.prompt), blocks=blocks)


def answered_message(prompt: str, *, answer: str, user: str, lang: str) -> SlackMessage:
    text = label_mrkdwn("answered", lang, prompt=prompt, answer=answer, user=Mention(user))
    return SlackMessage(
        text=fallback_text(f"{prompt} → {answer}"), blocks=[section(f":white_check_mark: {text}")]
    )


def cancelled_message(prompt: str, *, user: str, lang: str) -> SlackMessage:
    text = label_mrkdwn("cancelled", lang, user=Mention(user))
    return SlackMessage(
        text=fallback_text(label("cancelled", lang, user=user)),
        blocks=[section(f"~{escape_mrkdwn(plain(prompt, single_line=True))}~\n{text}")],
    )


def answer_modal(
    *, pending_id: str, prompt: str, lang: str, channel: str | None = None, initial: str | None = None
) -> dict[str, Any]:
    """A modal asking for one identifier as free text; `private_metadata` names the pending request
    and the channel it was opened from (the submission is checked against the question's)."""
    element: Block = {
        "type": "plain_text_input",
        "action_id": ANSWER_INPUT_ACTION,
        "max_length": 200,
        "min_length": 1,
    }
    if initial:
        element["initial_value"] = initial[:200]
    return {
        "type": "modal",
        "callback_id": ANSWER_VIEW,
        # The language comes back with the submission (a bad value is explained in it).
        "private_metadata": json.dumps({"pending": pending_id, "lang": lang, "channel": channel}),
        "title": plain_text(label("modal_title", lang), limit=MAX_MODAL_TITLE),
        "submit": plain_text(label("modal_submit", lang), limit=MAX_MODAL_TITLE),
        "close": plain_text(label("modal_close", lang), limit=MAX_MODAL_TITLE),
        "blocks": [
            {
                "type": "input",
                "block_id": ANSWER_INPUT_BLOCK,
                "label": plain_text(prompt, limit=MAX_INPUT_LABEL, single_line=True),
                "element": element,
            }
        ],
    }


def retry_button(value: str, *, lang: str) -> Block:
    return button(label("retry", lang), action_id=ACTION_RETRY, value=value, style="primary")


def rerun_button(value: str, *, lang: str) -> Block:
    return button(label("rerun", lang), action_id=ACTION_RERUN, value=value)


def log_link_button(value: str, *, lang: str) -> Block:
    return button(label("log_link", lang), action_id=ACTION_LOG_LINK, value=value)


def log_link_modal(*, ref: str, lang: str, initial_task: str | None) -> dict[str, Any]:
    element: Block = {
        "type": "plain_text_input",
        "action_id": ANSWER_INPUT_ACTION,
        "max_length": 100,
        "min_length": 1,
    }
    if initial_task:
        element["initial_value"] = initial_task
    return {
        "type": "modal",
        "callback_id": LOG_LINK_VIEW,
        "private_metadata": json.dumps({"thread": ref, "lang": lang}),
        "title": plain_text(label("log_link_title", lang), limit=MAX_MODAL_TITLE),
        "submit": plain_text(label("modal_submit", lang), limit=MAX_MODAL_TITLE),
        "close": plain_text(label("modal_close", lang), limit=MAX_MODAL_TITLE),
        "blocks": [
            {
                "type": "input",
                "block_id": ANSWER_INPUT_BLOCK,
                "label": plain_text(label("log_link_task", lang), limit=MAX_INPUT_LABEL),
                "element": element,
            }
        ],
    }


def log_link_message(url: str, *, job: str, task: str, lang: str) -> SlackMessage:
    """Ephemeral, to the asker only: the link is a short-lived credential."""
    text = label_mrkdwn("log_link_ready", lang, job=job, task=task)
    link = f"<{escape_mrkdwn(url).replace('|', '%7C')}|{escape_mrkdwn(label('log_link_open', lang))}>"
    return SlackMessage(
        text=fallback_text(label("log_link_ready", lang, job=job, task=task)),
        blocks=[section(f":closed_lock_with_key: {text}\n{link}")],
    )

"""Which step is running, in words: one label `step.<op>` per engine op (unknown ops are named as they are)."""

from __future__ import annotations

from blocks.escape import escape_mrkdwn
from blocks.kit import SlackMessage, context, fallback_text, section
from blocks.labels import LABELS, Mention, label, label_mrkdwn


def step_label(op: str, *, lang: str) -> str:
    """The label `step.<op>` of the slack catalogue; an op without one is named as it is."""
    key = f"step.{op}"
    return label(key, lang) if key in LABELS["en"] else label("step.unknown", lang, op=op)


def progress_message(
    *, what: str, user: str, lang: str, step: str | None = None, queued: bool = False
) -> SlackMessage:
    """The placeholder posted at once and updated as the workflow advances.

    `what` is plain text describing the request; `step` is an op name.
    """
    title = label_mrkdwn("progress", lang, what=what, user=Mention(user))
    if queued:
        detail = label("progress_queued", lang)
    elif step is None:
        detail = label("progress_starting", lang)
    else:
        detail = label("progress_step", lang, step=step_label(step, lang=lang))
    return SlackMessage(
        text=fallback_text(label("progress", lang, what=what, user=user)),
        blocks=[section(f":hourglass_flowing_sand: {title}"), context(escape_mrkdwn(detail))],
    )


def scan_progress_message(
    *,
    what: str,
    user: str,
    lang: str,
    done: int | None = None,
    total: int | None = None,
    platform: str = "modelarts",
) -> SlackMessage:
    """The scan's placeholder: listing at first (`total` None), then jobs diagnosed out of the
    abnormal jobs listed (Run:ai: failed workloads diagnosed out of those listed)."""
    runai = platform == "runai"
    title = label_mrkdwn("scan_started", lang, what=what, user=Mention(user))
    if total is None:
        detail = label("scan_listing_runai" if runai else "scan_listing", lang)
    else:
        detail = label("scan_progress_runai" if runai else "scan_progress", lang, done=done or 0, total=total)
    return SlackMessage(
        text=fallback_text(label("scan_started", lang, what=what, user=user) + " " + detail),
        blocks=[section(f":mag: {title}"), context(escape_mrkdwn(detail))],
    )

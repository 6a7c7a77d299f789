"""A diagnosis or a scan that failed: one masked line for the asker with a reference, the traceback
in the log under the same reference, and the audit line."""

from __future__ import annotations

import logging
import uuid
from typing import Literal

from slack_sdk import WebClient

from blocks.labels import label
from blocks.messages import notice
from bot.audit import audit
from bot.backends import BackendUnavailable
from bot.messaging import replace_or_post
from bot.slack_client import Notifier
from bot.state.models import Place
from diagnosis.masking import mask

log = logging.getLogger("diagnose.bot")

Activity = Literal["diagnose", "scan"]
_NOUN: dict[Activity, str] = {"diagnose": "diagnosis", "scan": "scan"}


def failure_reason(exc: Exception, *, lang: str) -> str:
    """What the asker is told went wrong: the backend's own words (in `lang`), else the exception's
    name and the first line of its message. Masked whole first: once a line of it is quoted (and
    cut), a `KEY: value` or a multi-line secret would no longer be recognised."""
    if isinstance(exc, BackendUnavailable):
        return mask(label(exc.key, lang, **exc.values))
    text = mask(str(exc))
    return type(exc).__name__ + (f": {text.splitlines()[0][:200]}" if text.strip() else "")


def report_failure(
    client: WebClient, exc: Exception, *, activity: Activity, what: str, place: Place, user: str, lang: str
) -> None:
    """In the placeholder (else a new message in the thread, else ephemerally to the asker)."""
    ref = uuid.uuid4().hex[:8]
    reason = failure_reason(exc, lang=lang)
    log.error("%s %s failed for %s: %s", _NOUN[activity], ref, mask(what), mask(reason), exc_info=exc)
    message = notice(mask(label("failed", lang, reason=reason, ref=ref)), emoji=":x:")
    shown = replace_or_post(
        client, channel=place.channel, ts=place.status_ts, thread_ts=place.thread_ts, message=message
    )
    if shown is None:
        Notifier(client, channel=place.channel, user=user, thread_ts=place.thread_ts).tell(message)
    audit(activity, user=user, channel=place.channel, what=what, outcome="error", ref=ref)

"""One audit record per request: who, where, what, and the outcome, as one JSON object per line.

Every value is a JSON string or number and every string is masked on its own, so text a person
quoted (a mention, a typed value) stays inside its own field: it can neither forge another field
nor break the line.
"""

from __future__ import annotations

import json
import logging
import math

from diagnosis.masking import MaskingFilter, mask

AUDIT_LOGGER = "diagnose.audit"

AuditValue = str | int | float | None

# JSON keeps these raw inside strings, and line readers (Python's str.splitlines among them) end a
# line at each: written as escapes, one record stays one line.
_LINE_BREAKS = {0x85: "\\u0085", 0x2028: "\\u2028", 0x2029: "\\u2029"}


def audit_logger() -> logging.Logger:
    logger = logging.getLogger(AUDIT_LOGGER)
    if not any(isinstance(existing, MaskingFilter) for existing in logger.filters):
        logger.addFilter(MaskingFilter())
    return logger


def audit(event: str, *, user: str, channel: str, what: str, outcome: str, **details: AuditValue) -> None:
    """`{"event":"diagnose","user":"U…","channel":"C…","what":"Run:ai workload …","outcome":"diagnosed",…}`;
    fields set to None are left out."""
    fields: dict[str, AuditValue] = {
        "event": event,
        "user": user,
        "channel": channel,
        "what": what,
        "outcome": outcome,
        **details,
    }
    logger = audit_logger()
    if logger.isEnabledFor(logging.INFO):  # a line not written is not built (nor masked)
        logger.info("%s", audit_line(fields))


def audit_line(fields: dict[str, AuditValue]) -> str:
    record = {key: _value(value) for key, value in fields.items() if value is not None}
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")).translate(_LINE_BREAKS)


def _value(value: str | int | float) -> str | int | float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return mask(str(value))
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # JSON has no NaN nor infinity
    return value

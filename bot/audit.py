"""One audit line per request: who, where, what, and the outcome, masked (rulings G12)."""

from __future__ import annotations

import logging
from typing import Any

from diagnosis.masking import MaskingFilter, mask

AUDIT_LOGGER = "diagnose.audit"


def audit_logger() -> logging.Logger:
    logger = logging.getLogger(AUDIT_LOGGER)
    if not any(isinstance(existing, MaskingFilter) for existing in logger.filters):
        logger.addFilter(MaskingFilter())
    return logger


def audit(event: str, *, user: str, channel: str, what: str, outcome: str, **details: Any) -> None:
    """`event=diagnose user=U… channel=C… what="Run:ai workload …" outcome=diagnosed category=OOM_KILLED`."""
    fields = {"event": event, "user": user, "channel": channel, "what": what, "outcome": outcome, **details}
    line = " ".join(f"{key}={_quote(value)}" for key, value in fields.items() if value is not None)
    audit_logger().info("%s", mask(line))


def _quote(value: Any) -> str:
    text = str(value)
    return f'"{text}"' if any(ch.isspace() for ch in text) or not text else text

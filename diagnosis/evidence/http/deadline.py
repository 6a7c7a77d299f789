"""The deadline every diagnosis ends within, whatever the platform does."""

from __future__ import annotations

import os

# Request extension: the monotonic time by which the whole diagnosis must be done. Set by the
# evidence source; the retries never wait (Retry-After, backoff, a shared pause) past it.
DEADLINE_EXTENSION = "diagnosis_deadline"
# Every diagnosis ends within this many seconds, whatever the platform does (a face may set its
# own; `DIAGNOSE_DEADLINE_SECONDS` sets it for every face). Calls that would start later are not
# made; the diagnosis says which evidence the deadline cut off.
DEFAULT_DEADLINE_SECONDS = 40.0
DEADLINE_VARIABLE = "DIAGNOSE_DEADLINE_SECONDS"


def configured_deadline_seconds() -> float:
    """`DIAGNOSE_DEADLINE_SECONDS` when it holds a positive number of seconds, else the default."""
    raw = os.environ.get(DEADLINE_VARIABLE, "").strip()
    try:
        value = float(raw) if raw else DEFAULT_DEADLINE_SECONDS
    except ValueError:
        return DEFAULT_DEADLINE_SECONDS
    return value if 0 < value < float("inf") else DEFAULT_DEADLINE_SECONDS

"""A ModelArts scan's defaults and the default region, in a module of their own: the command line's
argument parser and a replay read them without loading the clients or the settings."""

from __future__ import annotations

# The runbook's filter over `items[]`, plus the wire's secondary phases that mean a fault.
DEFAULT_FILTER = (
    "items[?status.phase=='Failed' || status.phase=='Timeout' || status.phase=='Abnormal'"
    " || status.secondary_phase=='CreateFailed' || status.secondary_phase=='Lost']"
)
DEFAULT_CONCURRENCY = 8
DEFAULT_RATE_PER_SECOND = 5.0
# The region when neither the command nor the configuration names one.
DEFAULT_REGION = "cn-north-4"

"""A Run:ai scan's defaults, in a module of their own: the command line's argument parser reads
them without loading the clients."""

from __future__ import annotations

DEFAULT_LOOKBACK = "7d"
DEFAULT_CONCURRENCY = 8
# Run:ai documents no rate limit; this keeps a scan of thousands of workloads polite.
DEFAULT_RATE_PER_SECOND = 10.0

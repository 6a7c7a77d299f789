"""Memory quantities: Kubernetes quantity strings and Run:ai metric samples in bytes, and bytes
for people to read (https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/quantity/)."""

from __future__ import annotations

import re
from typing import Any

_BINARY = {"ki": 2**10, "mi": 2**20, "gi": 2**30, "ti": 2**40, "pi": 2**50, "ei": 2**60}
_DECIMAL = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12, "p": 10**15, "e": 10**18}
_QUANTITY = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)\s*([A-Za-z]*)\s*$")


def parse_bytes(value: Any) -> int | None:
    """A memory quantity in bytes: `16Gi`, `16G`, `200M`, `512Mi`, `0B`, `16GB`, 17179869184, "1e9".

    Kubernetes suffixes (binary Ki..Ei, decimal k..E); a trailing `B` is tolerated because Run:ai
    writes `0B`. A lower-case `m` is milli in Kubernetes and makes no sense for memory: rejected.
    """
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return int(value) if value >= 0 else None
    match = _QUANTITY.match(str(value))
    if not match:
        return None
    number, suffix = float(match.group(1)), match.group(2)
    if suffix in ("", "B", "b"):
        return int(number)
    if suffix == "m":
        return None
    key = (
        suffix.lower().removesuffix("b")
        if len(suffix) > 1 and suffix.lower().endswith("b")
        else suffix.lower()
    )
    if key in _BINARY:
        return int(number * _BINARY[key])
    if key in _DECIMAL:
        return int(number * _DECIMAL[key])
    return None


def parse_sample(value: str | None) -> int | None:
    """Metric values are strings (`"16903045120"`, sometimes `"1.69e10"`)."""
    if value is None:
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    if number != number or number < 0:  # NaN or negative: not a sample
        return None
    return int(number)


def format_bytes(value: int) -> str:
    """`16 GiB` for exact binary multiples, else `16.90 GB` (decimal), for people to read."""
    for binary, decimal, size_binary, size_decimal in (
        ("TiB", "TB", 2**40, 10**12),
        ("GiB", "GB", 2**30, 10**9),
        ("MiB", "MB", 2**20, 10**6),
    ):
        if value >= size_binary:
            if value % size_binary == 0:
                return f"{value // size_binary} {binary}"
            return f"{value / size_decimal:.2f} {decimal}"
    if value >= 1000:
        return f"{value / 1000:.2f} kB"
    return f"{value} B"

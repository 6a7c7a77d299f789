"""Replay matching of a call against recorded exchanges: the same op, and the same identifying
arguments (ids, names, filters, levels, page positions); list arguments compare as sets."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from diagnosis.models import Exchange
from diagnosis.timeutil import parse_instant

# Comma-separated list arguments compare as sets, the recorded set contained in the called one.
SET_ARGS = frozenset({"filterBy", "metricType", "fieldSelector", "labelSelector"})

# Never identifying (page sizes, sample counts, time windows, log tails, sort orders): capture drops
# them, matching ignores them when recorded anyway.
NON_IDENTIFYING_ARGS = frozenset(
    {"limit", "numberOfSamples", "start", "end", "tailLines", "limitBytes", "sortOrder", "order", "sort_by"}
)


def wire_string(value: Any) -> str:
    """A value as HTTP would carry it: booleans lower-case, numbers in plain form."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _as_instant(text: str) -> datetime | None:
    if len(text) < 10 or not text[:4].isdigit() or text[4] != "-":
        return None
    return parse_instant(text)


def value_matches(key: str, recorded: Any, called: Any) -> bool:
    recorded_text, called_text = wire_string(recorded), wire_string(called)
    if recorded_text == called_text:
        return True
    if key in SET_ARGS:
        recorded_set = {part.strip() for part in recorded_text.split(",") if part.strip()}
        called_set = {part.strip() for part in called_text.split(",") if part.strip()}
        return recorded_set <= called_set
    recorded_instant, called_instant = _as_instant(recorded_text), _as_instant(called_text)
    return recorded_instant is not None and recorded_instant == called_instant


def identifying(args: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in args.items() if key not in NON_IDENTIFYING_ARGS}


def find_exchange(exchanges: Iterable[Exchange], op: str, args: Mapping[str, Any]) -> Exchange | None:
    """The exchange with the most equal keys wins, then the earliest; None when nothing matches."""
    best: Exchange | None = None
    best_score = -1
    for exchange in exchanges:
        if exchange.op != op:
            continue
        recorded = identifying(exchange.args)
        if not all(key in args and value_matches(key, value, args[key]) for key, value in recorded.items()):
            continue
        score = sum(1 for key, value in recorded.items() if wire_string(value) == wire_string(args[key]))
        score += len(recorded)
        if score > best_score:
            best, best_score = exchange, score
    return best

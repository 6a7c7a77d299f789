"""Causes that recur across a scan: two or more diagnosed jobs sharing an image, a node or an error
signature. Shared by the Run:ai and ModelArts scans (their `recurring_causes` in scan/v1).

Only diagnosed jobs count (a job that was routed, not found or refused says nothing about a cause),
each job at most once per value; every value was read from the platform, never inferred.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from diagnosis.masking import mask

CauseKind = Literal["image", "node", "signature"]
KIND_ORDER: tuple[CauseKind, ...] = ("signature", "image", "node")
MIN_SHARED = 2


@dataclass(frozen=True)
class ScanMember:
    """One diagnosed job of a scan and what it is made of."""

    name: str
    outcome: str
    signature: str | None = None
    images: tuple[str, ...] = ()
    nodes: tuple[str, ...] = ()

    def values(self, kind: CauseKind) -> tuple[str, ...]:
        if kind == "signature":
            return (self.signature,) if self.signature else ()
        return self.images if kind == "image" else self.nodes


@dataclass(frozen=True)
class RecurringCause:
    kind: CauseKind
    value: str
    workloads: tuple[str, ...] = field(default_factory=tuple)

    @property
    def count(self) -> int:
        return len(self.workloads)

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "value": mask(self.value),
            "count": self.count,
            "workloads": [mask(name) for name in self.workloads],
        }


def recurring_causes(members: Iterable[ScanMember]) -> list[RecurringCause]:
    """Groups of at least two diagnosed jobs sharing a value; most jobs first, then signature,
    image, node, then the value."""
    groups: dict[tuple[CauseKind, str], list[str]] = {}
    for member in members:
        if member.outcome != "diagnosed":
            continue
        for kind in KIND_ORDER:
            for value in dict.fromkeys(v.strip() for v in member.values(kind) if v and v.strip()):
                groups.setdefault((kind, value), []).append(member.name)
    causes = [
        RecurringCause(kind=kind, value=value, workloads=tuple(names))
        for (kind, value), names in groups.items()
        if len(names) >= MIN_SHARED
    ]
    return sorted(causes, key=lambda cause: (-cause.count, KIND_ORDER.index(cause.kind), cause.value))


def cell(text: str, limit: int = 140) -> str:
    """Text for one Markdown table cell: one line, bounded, no pipes or backticks."""
    flat = " ".join(text.split())
    flat = flat if len(flat) <= limit else flat[: limit - 1] + "…"
    return flat.replace("|", "\\|").replace("`", "'")

"""What the Run:ai and ModelArts scans share: the scan/v1 result and the bounded concurrent loop.

A platform's scan lists its failed jobs, then diagnoses each one with `diagnose_each` (a fresh
source per job over shared clients, so one rate limit holds for the whole scan). Its result is a
`ScanResultBase` with the scope it was asked for (`scope_json`): counts by category, one diagnosis
per job, the causes two or more jobs share (diagnosis/scan/recurring.py), the limitations, and when the
listing itself failed, the diagnosis saying so instead.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from diagnosis.masking import mask, mask_diagnosis
from diagnosis.models import Diagnosis, Exchange, Platform
from diagnosis.scan.recurring import RecurringCause, ScanMember, recurring_causes

ItemT = TypeVar("ItemT")
OutcomeT = TypeVar("OutcomeT")

# `progress(done, total, item)`: (0, total, None) before the first job, then after each one.
EachProgress = Callable[[int, int, ItemT | None], None]

__all__ = [
    "DiagnosedJob",
    "EachProgress",
    "ScanObserver",
    "ScanProgress",
    "ScanResultBase",
    "ScanScope",
    "diagnose_each",
]


@dataclass(frozen=True)
class ScanScope:
    """What a scan covers: a ModelArts region, or a Run:ai cluster (and project) within a lookback."""

    platform: Platform
    region: str | None = None
    cluster_id: str | None = None
    project: str | None = None
    lookback: str | None = None


@dataclass(frozen=True)
class ScanProgress:
    """How far a scan is: jobs diagnosed out of those the listing kept; the last one's name if known."""

    done: int
    total: int
    job_name: str | None


ScanObserver = Callable[[ScanProgress], None]


@dataclass(frozen=True)
class DiagnosedJob:
    """One job's diagnosis and the answers it was read from (a scan's images and nodes come from these)."""

    diagnosis: Diagnosis
    exchanges: Sequence[Exchange] = ()


@dataclass(kw_only=True)
class ScanResultBase:
    """scan/v1 without its scope: a subclass adds the fields it was asked for and `scope_json`."""

    platform: ClassVar[Platform]

    # Jobs the listing answered with (before this side's filter).
    scanned: int = 0
    results: list[Diagnosis] = field(default_factory=list)
    # What each diagnosed job is made of, in `results` order (for `recurring_causes`).
    members: list[ScanMember] = field(default_factory=list)
    limitations: list[str] = field(default_factory=list)
    # The listing itself failed (403, 5xx…): a diagnosis saying so, and nothing else.
    failure: Diagnosis | None = None

    @staticmethod
    def group_key(diagnosis: Diagnosis) -> str:
        return diagnosis.category or diagnosis.outcome

    def by_category(self) -> dict[str, int]:
        """Diagnoses per category (else per outcome), most frequent first, then by name."""
        counts: dict[str, int] = {}
        for item in self.results:
            counts[self.group_key(item)] = counts.get(self.group_key(item), 0) + 1
        return dict(sorted(counts.items(), key=lambda pair: (-pair[1], pair[0])))

    def groups(self) -> list[tuple[str, list[Diagnosis]]]:
        """The diagnoses of each `by_category` group, groups in that order, jobs in scan order."""
        return [
            (group, [item for item in self.results if self.group_key(item) == group])
            for group in self.by_category()
        ]

    def recurring_causes(self) -> list[RecurringCause]:
        return recurring_causes(self.members)

    def scope_json(self) -> dict[str, Any]:
        """What the scan covered (a region; a cluster, project and lookback), as scan/v1 keys."""
        raise NotImplementedError

    def to_json_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "schema": "scan/v1",
            "platform": self.platform,
            **self.scope_json(),
            "scanned": self.scanned,
            "by_category": self.by_category(),
            "recurring_causes": [cause.to_json_dict() for cause in self.recurring_causes()],
            "results": [mask_diagnosis(item).to_json_dict() for item in self.results],
            "limitations": [mask(text) for text in self.limitations],
        }
        if self.failure is not None:
            data["error"] = mask_diagnosis(self.failure).to_json_dict()
        return data


async def diagnose_each(
    items: Sequence[ItemT],
    diagnose_one: Callable[[ItemT], Awaitable[OutcomeT]],
    *,
    concurrency: int,
    progress: EachProgress[ItemT] | None = None,
) -> list[OutcomeT]:
    """`diagnose_one` over every item, at most `concurrency` at once; outcomes in item order."""
    gate = asyncio.Semaphore(max(1, concurrency))
    total = len(items)
    done = 0

    async def one(item: ItemT) -> OutcomeT:
        nonlocal done
        async with gate:
            outcome = await diagnose_one(item)
        done += 1
        if progress is not None:
            progress(done, total, item)
        return outcome

    if progress is not None:
        progress(0, total, None)
    return list(await asyncio.gather(*(one(item) for item in items)))

"""Run:ai list endpoints read to the end: `{next, <collection>: [...]}` pages.

`next` is the offset to ask for next and is absent on the last page. Paging stops at a missing
`next`, an empty page, a repeated `next` or 100 pages; a page holding more items than asked for is
cut to the page size. Events and history may stop early once a whole page lies before the
lookback, but only while every item read so far came newest first (`all_older_than`). Every cap
that is hit is said, through `note`, never as an exception.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from diagnosis.evidence.answer import Answer
from diagnosis.evidence.lenient import as_int
from diagnosis.evidence.paging import MAX_PAGES, within_page_size
from diagnosis.evidence.source import Source
from diagnosis.render.i18n import Translator
from diagnosis.runai import parse
from diagnosis.timeutil import parse_instant

PAGE_SIZE = 100
HISTORY_PAGE_SIZE = 50  # the runbook's limit=50


# What paging reads from: the engine's evidence source.
Fetcher = Source


@dataclass
class Paged:
    """Every item read, with where it was (`pods[0]`, `pods[2]@offset=100`); the failure that
    stopped paging, if any; `null_collection` when the first answer held `<collection>: null`."""

    items: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    failure: Answer | None = None
    null_collection: bool = False
    pages: int = 0


def _stop_without_list(paged: Paged, answer: Answer, raw: Any) -> None:
    """A failed call, or an answer without the list: a failure, except a missing or null list
    after the first page, which ends the listing."""
    if answer.ok and raw is None:
        if paged.pages == 0:
            paged.null_collection = True
            paged.failure = answer
        return
    paged.failure = answer


def _add_items(paged: Paged, raw: list[Any], *, collection: str, position: int) -> None:
    for index, item in enumerate(raw):
        if isinstance(item, dict):
            where = f"{collection}[{index}]" if position == 0 else f"{collection}[{index}]@offset={position}"
            paged.items.append((where, item))


async def read_pages(
    source: Fetcher,
    op: str,
    collection: str,
    *,
    t: Translator,
    note: Callable[[str], None],
    first_offset: int | None = 0,
    page_size: int = PAGE_SIZE,
    older_than_cut: Callable[[list[Any]], bool] | None = None,
    **args: Any,
) -> Paged:
    """Every page of a list op. The first page asks for offset 0 explicitly."""
    paged = Paged()
    offset = first_offset
    seen: set[int] = set()
    for _ in range(MAX_PAGES):
        call_args = dict(args) if offset is None else {**args, "offset": offset}
        answer = await source.fetch(op, limit=page_size, **call_args)
        body = answer.body if answer.ok and isinstance(answer.body, dict) else {}
        raw = body.get(collection)
        if not isinstance(raw, list):
            _stop_without_list(paged, answer, raw)
            return paged
        paged.pages += 1
        kept, capped = within_page_size(raw, page_size)
        if capped:
            note(t("lim.page_items_capped", call=op, kept=page_size, count=len(raw)))
            raw = list(kept)
        _add_items(paged, raw, collection=collection, position=offset or 0)
        next_offset = as_int(body.get("next")) if raw else None
        if next_offset is None:
            return paged
        if next_offset in seen or next_offset == offset:
            note(t("lim.paging_repeated", call=op))
            return paged
        if older_than_cut is not None and older_than_cut(raw):
            return paged
        seen.add(next_offset)
        offset = next_offset
    note(t("lim.paging_cap", call=op, pages=MAX_PAGES))
    return paged


class _NewestFirstCut:
    """Whether paging may stop: the page read lies wholly before the cut, and every item read so
    far (this page and the ones before it) came newest first."""

    def __init__(self, cut: datetime, moment_of: Callable[[dict[str, Any]], datetime | None]) -> None:
        self.cut = cut
        self.moment_of = moment_of
        self.oldest: datetime | None = None
        self.descending = True

    def __call__(self, items: list[Any]) -> bool:
        times = [self.moment_of(item) for item in items if isinstance(item, dict)]
        for moment in times:
            if moment is None or (self.oldest is not None and moment > self.oldest):
                self.descending = False
            else:
                self.oldest = moment
        return self.descending and bool(times) and all(t is not None and t < self.cut for t in times)


def all_older_than(
    cut: datetime, moment_of: Callable[[dict[str, Any]], datetime | None]
) -> Callable[[list[Any]], bool]:
    """The early stop of one list read (a new one per read: it remembers the order seen).

    No API version documents the order of history records, and events are newest first by
    default only from control plane 2.20 on (the `sortOrder` parameter appears there): a page older
    than the cut says nothing about the pages after it unless the answers came in descending
    order. An item without a readable moment ends the early stop (its place is unknown);
    malformed items are not counted.
    """
    return _NewestFirstCut(cut, moment_of)


def event_created_at(item: dict[str, Any]) -> datetime | None:
    return parse_instant(item.get("createdAt"))


def history_created_at(record: dict[str, Any]) -> datetime | None:
    meta = record.get("meta")
    return parse_instant(meta.get("creationTimestamp")) if isinstance(meta, dict) else None


async def read_event_pages(
    source: Fetcher, workload_id: str, *, cut: datetime, t: Translator, note: Callable[[str], None]
) -> Paged:
    """`GET /api/v1/workloads/{id}/events` (newest first by default), back to the lookback's cut."""
    return await read_pages(
        source,
        "get_workload_events",
        "events",
        t=t,
        note=note,
        older_than_cut=all_older_than(cut, event_created_at),
        workloadId=workload_id,
    )


def event_items(paged: Paged) -> list[tuple[str, parse.Event]]:
    return [(where, parse.Event.model_validate(item)) for where, item in paged.items]

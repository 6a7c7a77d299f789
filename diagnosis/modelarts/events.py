"""`ListTrainingJobEvents`: every page of them, and what they say (or that there are none)."""

from __future__ import annotations

import asyncio
from typing import Any

from diagnosis.evidence.source import Answer
from diagnosis.modelarts.ops import EVENTS
from diagnosis.modelarts.parse import parse_events
from diagnosis.modelarts.routes import EVENTS_PAGE_SIZE
from diagnosis.modelarts.run import Run
from diagnosis.modelarts.signals import Signal, event_signals, shorten

MAX_EVENT_PAGES = 10


def _event_key(item: Any) -> tuple[Any, Any] | None:
    """Events are told apart by (time, message), in either of the API's spellings."""
    if not isinstance(item, dict):
        return None
    return (item.get("time") or item.get("occur_time"), item.get("message") or item.get("info"))


async def fetch_events(run: Run, *, level: str | None) -> Answer:
    """`ListTrainingJobEvents` (`limit=100`), then every further page `total` says there is.

    `offset` is a page index (0 = the first page, as the SDK documents it): once the first page
    gives `total`, the other pages are asked together, at most MAX_EVENT_PAGES in all; a limitation
    says when events were left unread. Events are told apart by (time, message).
    """
    args: dict[str, Any] = {"training_job_id": run.job_id, "limit": EVENTS_PAGE_SIZE}
    if level:
        args["level"] = level
    first = await run.source.fetch(EVENTS, **args)
    if not first.ok:
        return first
    page = parse_events(first.body)
    if page is None or page.total is None or page.total <= len(page.events) or not page.events:
        return first
    events = list(first.body.get("events") or []) if isinstance(first.body, dict) else []
    page_size = len(events)
    pages = -(-page.total // page_size)
    wanted = range(1, min(pages, MAX_EVENT_PAGES))
    answers = await asyncio.gather(*(run.source.fetch(EVENTS, **args, offset=index) for index in wanted))
    seen = {_event_key(item) for item in events if isinstance(item, dict)}
    for more in answers:
        if not more.ok or parse_events(more.body) is None:
            continue
        for item in more.body.get("events") or [] if isinstance(more.body, dict) else []:
            key = _event_key(item)
            if key is not None and key not in seen:
                seen.add(key)
                events.append(item)
    if len(events) < page.total:
        message = "limit.events_cap" if pages > MAX_EVENT_PAGES else "limit.events_incomplete"
        run.limitations.append(
            run.t(message, read=len(events), total=page.total, pages=min(pages, MAX_EVENT_PAGES))
        )
    body = dict(first.body)
    body["events"] = events
    return first.model_copy(update={"body": body})


def read_events(run: Run, answer: Answer, *, level: str | None) -> list[Signal]:
    """Cite what the events say (or that there are none) and return the signals they give."""
    t = run.t
    if not answer.ok:
        run.note_failure(answer, what=t("what.events"))
        return []
    page = parse_events(answer.body)
    if page is None:
        run.cite(EVENTS, None, t("evidence.unreadable"))
        run.limitations.append(t("limit.unreadable", op=EVENTS))
        return []
    shown = page.total if page.total is not None else len(page.events)
    filter_text = f"level={level}" if level else t("evidence.all_levels")
    if not page.events:
        run.cite(EVENTS, "total", t("evidence.event_total", total=shown, filter=filter_text), shown)
        return []
    signals = event_signals(page.events, level=level)
    if not signals:
        run.cite(EVENTS, "total", t("evidence.event_total_unmatched", total=shown, filter=filter_text), shown)
        run.cite(EVENTS, page.events[0].path, shorten(page.events[0].message))
    return signals

"""The job's event page: `{time, level, message, source}` (SDK) or `{level, type, info, occur_time}`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from diagnosis.evidence.lenient import as_int, as_list, as_text


@dataclass(frozen=True)
class Event:
    index: int
    time: str | None
    level: str | None
    message: str
    source: str | None
    message_field: str  # `message` (wire) or `info` (runbook)

    @property
    def path(self) -> str:
        return f"events[{self.index}].{self.message_field}"

    @property
    def key(self) -> tuple[str | None, str]:
        return (self.time, self.message)


@dataclass(frozen=True)
class EventPage:
    events: list[Event]
    total: int | None


def parse_events(body: Any) -> EventPage | None:
    if isinstance(body, list):
        items, total = body, None
    elif isinstance(body, dict) and isinstance(body.get("events"), list | type(None)):
        items, total = as_list(body.get("events")), as_int(body.get("total"))
    else:
        return None
    events: list[Event] = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        message_field = "message" if as_text(item.get("message")) else "info"
        message = as_text(item.get(message_field))
        if message is None:
            continue
        time = as_text(item.get("time")) or as_text(item.get("occur_time"))
        events.append(
            Event(
                index=index,
                time=time,
                level=as_text(item.get("level")),
                message=message,
                source=as_text(item.get("source")) or as_text(item.get("type")),
                message_field=message_field,
            )
        )
    return EventPage(events=events, total=total)

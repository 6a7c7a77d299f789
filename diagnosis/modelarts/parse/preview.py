"""A log preview: `{content, current_size, full_size}`, `context` before 2022-03, or the runbook's `log`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from diagnosis.evidence.lenient import as_int, as_text


@dataclass(frozen=True)
class Preview:
    content: str
    content_field: str  # `content` (wire), `context` (before 2022-03) or `log` (runbook)
    current_size: int | None
    full_size: int | None
    has_more: bool

    @property
    def truncated(self) -> bool:
        if self.has_more:
            return True
        return (
            self.full_size is not None
            and self.current_size is not None
            and self.full_size > self.current_size
        )


def parse_preview(body: Any, text: str | None = None) -> Preview | None:
    if isinstance(body, dict):
        for key in ("content", "context", "log"):
            value = body.get(key)
            if isinstance(value, str):
                return Preview(
                    content=value,
                    content_field=key,
                    current_size=as_int(body.get("current_size")),
                    full_size=as_int(body.get("full_size")),
                    has_more=bool(as_text(body.get("next_marker"))),
                )
        return None
    if text is not None:
        return Preview(
            content=text, content_field="(text)", current_size=None, full_size=None, has_more=False
        )
    return None

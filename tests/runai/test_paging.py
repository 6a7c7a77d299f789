"""When a list read may stop before its last page: only a page wholly before the lookback that
comes after answers read newest first (no API version documents the history's order)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from diagnosis.runai.paging import all_older_than, event_created_at

NOW = datetime(2026, 5, 6, 9, 0, tzinfo=UTC)
CUT = NOW - timedelta(days=7)


def page(*days_ago: float | None) -> list[dict[str, Any]]:
    return [
        {"createdAt": None if days is None else (NOW - timedelta(days=days)).isoformat()} for days in days_ago
    ]


def test_newest_first_pages_stop_at_the_first_page_before_the_cut() -> None:
    stop = all_older_than(CUT, event_created_at)
    assert stop(page(1, 2, 5)) is False
    assert stop(page(6, 8)) is False  # not wholly before the cut
    assert stop(page(8, 9)) is True


def test_oldest_first_pages_never_stop_early() -> None:
    stop = all_older_than(CUT, event_created_at)
    assert stop(page(90, 60, 30)) is False  # wholly before the cut, but ascending
    assert stop(page(20, 10)) is False


def test_an_order_broken_across_pages_ends_the_early_stop() -> None:
    stop = all_older_than(CUT, event_created_at)
    assert stop(page(8, 9)) is True  # what the first page shows permits the stop
    stop = all_older_than(CUT, event_created_at)
    assert stop(page(1, 3)) is False
    assert stop(page(2, 8)) is False  # 2 days is newer than the 3 read before
    assert stop(page(9, 10)) is False


def test_an_item_without_a_time_ends_the_early_stop() -> None:
    stop = all_older_than(CUT, event_created_at)
    assert stop(page(8, None, 9)) is False
    assert stop(page(10, 11)) is False


def test_each_read_has_its_own_memory() -> None:
    first = all_older_than(CUT, event_created_at)
    assert first(page(30, 10)) is False  # ascending: this read never stops early
    second = all_older_than(CUT, event_created_at)
    assert second(page(10, 30)) is True

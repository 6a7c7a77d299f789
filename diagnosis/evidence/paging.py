"""Caps every paged read shares, whatever the platform: how many pages of one list, and how many
items of one page, are read. A server whose `next` never ends, or whose pages hold thousands of
records, costs a bounded number of calls and bounded memory, and the cap that was hit is said.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

# Pages read of one list at most (100 pages of 100 items: 10,000 records).
MAX_PAGES = 100

Item = TypeVar("Item")


def within_page_size(items: Sequence[Item], page_size: int) -> tuple[Sequence[Item], bool]:
    """The items of a page up to the page size asked for, and whether the page held more (a
    broken or hostile server: the rest is not read)."""
    if len(items) > page_size:
        return items[:page_size], True
    return items, False

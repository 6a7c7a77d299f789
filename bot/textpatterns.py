"""Regular expressions over text people send through Slack, run by RE2 (google-re2).

RE2 matches in time linear in the text whatever the pattern, where Python's backtracking `re`
can take quadratic time on a crafted message (`"ab-" * 13333` against a region pattern took
seconds): https://github.com/google/re2/wiki/WhyRE2. RE2's `\\w`, `\\d` and `\\b` are ASCII;
write `[\\p{L}\\p{N}_]` where letters and digits of any script count.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Protocol

import re2


class TextMatch(Protocol):
    def group(self, index: int = 0, /) -> str | None: ...

    def start(self, index: int = 0, /) -> int: ...

    def end(self, index: int = 0, /) -> int: ...


class TextPattern(Protocol):
    def search(self, text: str, /) -> TextMatch | None: ...

    def match(self, text: str, /) -> TextMatch | None: ...

    def fullmatch(self, text: str, /) -> TextMatch | None: ...

    def finditer(self, text: str, /) -> Iterator[TextMatch]: ...

    def sub(self, replacement: str | Callable[[TextMatch], str], text: str, /) -> str: ...


def linear(pattern: str, *, ignore_case: bool = False) -> TextPattern:
    """`pattern` compiled by RE2 (`ignore_case`: Unicode case folding, as `re.IGNORECASE`)."""
    compiled: TextPattern = re2.compile(f"(?i){pattern}" if ignore_case else pattern)
    return compiled


def escape(literal: str) -> str:
    """`literal` as a pattern that matches exactly it."""
    escaped: str = re2.escape(literal)
    return escaped

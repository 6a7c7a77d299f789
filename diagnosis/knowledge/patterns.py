"""A rule table's regular expression, compiled the first time it is used: importing a table
compiles none of its patterns, and a command compiles only those its texts reach."""

from __future__ import annotations

import re


class LazyPattern:
    """`re.compile(source, flags)`, done on the first search or match."""

    __slots__ = ("_compiled", "flags", "source")

    def __init__(self, source: str, flags: int = 0) -> None:
        self.source = source
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self.source, self.flags)
        return self._compiled

    def search(self, text: str) -> re.Match[str] | None:
        return self.compiled.search(text)

    def match(self, text: str) -> re.Match[str] | None:
        return self.compiled.match(text)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LazyPattern):
            return NotImplemented
        return (self.source, self.flags) == (other.source, other.flags)

    def __hash__(self) -> int:
        return hash((self.source, self.flags))

    def __repr__(self) -> str:
        return f"LazyPattern({self.source!r}, {self.flags!r})"

"""The literal strings a regular expression cannot match without: a rule's keyword prefilter.

A rule's keywords are derived from its pattern, never copied by hand: for a pattern P the result
is a set of lower-case strings such that every text P matches contains at least one of them. A
5 MB log is then searched for those few strings first (`str.find` is fast), and the pattern only
runs on the lines they point at. The derivation reads the pattern's parse tree (the standard
library's own regular-expression parser), so it follows exactly the syntax `re` compiles.
"""

from __future__ import annotations

import re
from re import _constants as sre_constants  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]

# Shorter literals select nearly every line: a pattern whose best literal is shorter needs
# rewriting (or no prefilter at all).
MIN_KEYWORD_CHARS = 3

_REPEATS = {sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT, sre_constants.POSSESSIVE_REPEAT}
Alternatives = frozenset[str]


def _score(choice: Alternatives) -> int:
    return min(len(text) for text in choice)


def _best(choices: list[Alternatives]) -> Alternatives | None:
    return max(choices, key=_score) if choices else None


def _sequence(items: sre_parse.SubPattern) -> Alternatives | None:
    """One concatenation: each literal run, or each item that requires a literal, is a candidate."""
    choices: list[Alternatives] = []
    run: list[str] = []

    def close_run() -> None:
        if run:
            choices.append(frozenset({"".join(run)}))
            run.clear()

    for op, value in items:
        if op is sre_constants.LITERAL:
            run.append(chr(value))
            continue
        close_run()
        found = _item(op, value)
        if found is not None:
            choices.append(found)
    close_run()
    return _best(choices)


def _item(op: object, value: object) -> Alternatives | None:
    if op is sre_constants.SUBPATTERN:
        return _sequence(value[-1])  # type: ignore[index]
    if op is sre_constants.ATOMIC_GROUP:
        return _sequence(value)  # type: ignore[arg-type]
    if op is sre_constants.BRANCH:
        branches = [_sequence(branch) for branch in value[1]]  # type: ignore[index]
        if any(branch is None for branch in branches):
            return None
        return frozenset().union(*(branch for branch in branches if branch is not None))
    if op in _REPEATS:
        low: int = value[0]  # type: ignore[index]
        inner: sre_parse.SubPattern = value[2]  # type: ignore[index]
        return _sequence(inner) if low >= 1 else None
    # Character classes, anchors, `\b`, `.`, look-arounds and back-references require no literal.
    return None


def required_literals(pattern: str | re.Pattern[str]) -> tuple[str, ...]:
    """Lower-case strings of which every match of `pattern` contains one, sorted.

    Raises ValueError when the pattern does not require a literal of MIN_KEYWORD_CHARS characters
    (it would select every line: such a rule declares that it has no prefilter instead).
    """
    source = pattern.pattern if isinstance(pattern, re.Pattern) else pattern
    found = _sequence(sre_parse.parse(source))
    if found is None or _score(found) < MIN_KEYWORD_CHARS:
        raise ValueError(f"pattern requires no literal of {MIN_KEYWORD_CHARS}+ characters: {source!r}")
    return tuple(sorted({text.lower() for text in found}))

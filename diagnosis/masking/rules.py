"""Masking rules as data, and applying them in linear time.

Two kinds of rule:

- `Rule`: one pattern, one replacement per match (`pattern.sub`). Its pattern opens with a literal
  or a narrow class and consumes what it matches once, so one pass is linear in the text.
- `KeyedRule`: an assignment (`KEY=value`, `"key": "value"`, `--key value`, …). Its `key` pattern
  finds a key and its separator; the value is read (with `value`) only when the key names a secret,
  and then skipped. A key that names nothing is stepped over without reading its value, so a secret
  assignment inside another value (`EXTRA_ARGS=--hf-token=…`) is still found, and a megabyte of
  `a=b,c=d,…` costs one pass instead of one pass per key.

`needles`: lower-case substrings of which one must occur in the text for the rule to run at all.
A rule's patterns are compiled the first time it runs: importing masking compiles none of them, and
a text compiles only the rules its needles let run.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

Replace = Callable[[re.Match[str]], str]
# (key match, value text) → the kind to mask the value with, or None to leave it.
KindOf = Callable[[re.Match[str], str], str | None]
# (key match, value match, kind) → the replacement of the value.
ValueReplace = Callable[[re.Match[str], re.Match[str], str], str]
# A pattern as written (compiled on the rule's first run), or already compiled.
Pattern = str | re.Pattern[str]


def _compiled(pattern: Pattern) -> re.Pattern[str]:
    return pattern if isinstance(pattern, re.Pattern) else re.compile(pattern)


@dataclass(frozen=True)
class Rule:
    name: str
    pattern: Pattern
    replace: Replace
    needles: tuple[str, ...] = ()

    @cached_property
    def regex(self) -> re.Pattern[str]:
        return _compiled(self.pattern)

    def compile(self) -> None:
        """Compile the pattern now rather than on the rule's first run."""
        self.__dict__.setdefault("regex", _compiled(self.pattern))


@dataclass(frozen=True)
class KeyedRule:
    name: str
    key: Pattern
    value: Pattern
    kind_of: KindOf
    replace_value: ValueReplace
    needles: tuple[str, ...] = ()
    # A cheap first look at the key alone (None: it names no secret, its value is not read).
    key_kind: Callable[[re.Match[str]], str | None] | None = None

    @cached_property
    def key_regex(self) -> re.Pattern[str]:
        return _compiled(self.key)

    @cached_property
    def value_regex(self) -> re.Pattern[str]:
        return _compiled(self.value)

    def compile(self) -> None:
        """Compile the patterns now rather than on the rule's first run."""
        self.__dict__.setdefault("key_regex", _compiled(self.key))
        self.__dict__.setdefault("value_regex", _compiled(self.value))


AnyRule = Rule | KeyedRule


def apply_keyed(rule: KeyedRule, text: str) -> str:
    pieces: list[str] = []
    copied = 0
    position = 0
    key_regex = rule.key_regex
    key_search = key_regex.search
    value_match = rule.value_regex.match
    key_kind = rule.key_kind
    has_key_group = "key" in key_regex.groupindex
    while (key := key_search(text, position)) is not None:
        after_key = key.end()
        # A key that is not taken is stepped over up to the end of its name only: what follows
        # its separator may start a key of its own (`RuntimeError:   - password: …`).
        skip_to = max(key.end("key") if has_key_group else after_key, key.start() + 1)
        if key_kind is not None and key_kind(key) is None:
            position = skip_to
            continue
        value = value_match(text, after_key)
        if value is not None and _is_masked_already(value.group(0)):
            value = None
        kind = None if value is None else rule.kind_of(key, value.group(0))
        if value is None or kind is None:
            position = skip_to
            continue
        replacement = rule.replace_value(key, value, kind)
        pieces.append(text[copied : value.start()])
        pieces.append(replacement)
        copied = position = value.end() if value.end() > key.start() else key.start() + 1
    if not pieces:
        return text
    pieces.append(text[copied:])
    return "".join(pieces)


_MARKER_START = re.compile(r"\\?[\"']?\[MASKED:[a-z_]+\]")
_TOKEN_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-.~%")


def _is_masked_already(value: str) -> bool:
    """The value is a marker (maybe quoted) followed by nothing that goes on with it: what comes
    after (`]`, `)`, a full-width bracket, `;EndpointSuffix=…`) is the text around it."""
    marker = _MARKER_START.match(value)
    if marker is None:
        return False
    return marker.end() == len(value) or value[marker.end()] not in _TOKEN_CHARACTERS


# A marker's kind (`[MASKED:password]`) names a credential: the needles look past markers, so that
# what an earlier rule masked does not send the later ones through the whole text again.
_MARKER = re.compile(r"\[masked:[a-z_]+\]")


def _needle_text(text: str) -> str:
    lowered = text.lower()
    return _MARKER.sub(" ", lowered) if "[masked:" in lowered else lowered


def apply_rules(rules: tuple[AnyRule, ...], text: str) -> str:
    lowered: str | None = None
    for rule in rules:
        if rule.needles:
            lowered = _needle_text(text) if lowered is None else lowered
            if not any(needle in lowered for needle in rule.needles):
                continue
        updated = (
            apply_keyed(rule, text) if isinstance(rule, KeyedRule) else rule.regex.sub(rule.replace, text)
        )
        if updated != text:
            text, lowered = updated, None
    return text


def splice(match: re.Match[str], group: str, replacement: str) -> str:
    """The whole match with one named group replaced."""
    start = match.start(group) - match.start()
    end = match.end(group) - match.start()
    whole = match.group(0)
    return whole[:start] + replacement + whole[end:]


def constant(kind: str) -> Replace:
    """Replace the whole match by the marker of `kind`."""
    marker = f"[MASKED:{kind}]"

    def replace(match: re.Match[str]) -> str:
        return marker

    return replace


def value_as(kind: str, group: str = "value") -> Replace:
    """Replace one group (default `value`) by the marker of `kind`; an empty or masked one stays."""
    marker = f"[MASKED:{kind}]"

    def replace(match: re.Match[str]) -> str:
        value = match.group(group)
        if not value or value.startswith("[MASKED:"):
            return match.group(0)
        return splice(match, group, marker)

    return replace

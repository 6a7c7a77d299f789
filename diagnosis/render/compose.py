"""Templates filled with values that bring their own punctuation.

A catalogue sentence ends with its full stop ("… failed by itself: {signature}."), and so does
many a quoted platform message ("… of which 1.02 GiB is free.", "Please try again later."):
formatted as they are, the report reads "is free.." or "later.;". Here, where every template meets
its values, a value's closing full stop gives way to the template's punctuation right after the
placeholder (a full stop, a semicolon, a comma, a colon), and a value that ends its sentence
with ! ? or an ellipsis keeps it in place of the template's full stop. Nothing else changes: a
stop inside a value, or one the template puts after a closing quote or bracket, stays.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from typing import Any

_FORMATTER = string.Formatter()
# Punctuation a template may put right after a placeholder, per script.
_AFTER_LATIN = ".;,:"
_AFTER_CJK = "。；，："
# What a value's sentence may end with.
_ELLIPSES = ("...", "…")


def _joined(value: str, following: str) -> tuple[str, str]:
    """`value` and the template text after it, with one of two clashing marks dropped."""
    if not value or not following:
        return value, following
    mark = following[0]
    if value.endswith(_ELLIPSES) or value[-1] in "!?！？":
        # The value's own ending stands: the template's full stop would only repeat it.
        return value, following[1:] if mark in ".。" else following
    if value[-1] == "." and mark in _AFTER_LATIN:
        return value[:-1], following
    if value[-1] == "。" and mark in _AFTER_CJK:
        return value[:-1], following
    return value, following


def compose(template: str, values: Mapping[str, Any]) -> str:
    """`template.format(**values)`, without doubled sentence punctuation at the seams."""
    pieces: list[str] = []
    pending: str | None = None  # the last value placed, until the literal after it is known
    for literal, field, spec, conversion in _FORMATTER.parse(template):
        if pending is not None:
            pending, literal = _joined(pending, literal)
            pieces.append(pending)
            pending = None
        pieces.append(literal)
        if field is None:
            continue
        value, _key = _FORMATTER.get_field(field, (), values)
        value = _FORMATTER.convert_field(value, conversion)
        pending = _FORMATTER.format_field(value, _FORMATTER.vformat(spec or "", (), values))
    if pending is not None:
        pieces.append(pending)
    return "".join(pieces)

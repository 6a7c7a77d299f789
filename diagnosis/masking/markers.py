"""The `[MASKED:<kind>]` marker, and replacing a value by one while keeping its quotes."""

from __future__ import annotations

import re

MASK_PREFIX = "[MASKED:"
MASKED_TOKEN = re.compile(r"\[MASKED:[a-z_]+\]")
MASKED_PATTERN = r"\[MASKED:[a-z_]+\]"
# A constant is never a secret: `token_rotation_enabled: false`, `"token": null`.
CONSTANTS = frozenset({"None", "True", "False", "null", "true", "false", "nil"})


def masked(kind: str) -> str:
    """The marker that replaces a secret of this kind."""
    return f"[MASKED:{kind}]"


def is_masked(value: str) -> bool:
    return MASKED_TOKEN.fullmatch(value) is not None


def strip_quotes(value: str) -> tuple[str, str]:
    """(quote, inner) of a quoted value; ("", value) when unquoted."""
    if len(value) >= 2 and value[0] in "\"'\\":
        for quote in ('\\"', '"', "'"):
            if len(value) >= 2 * len(quote) and value.startswith(quote) and value.endswith(quote):
                return quote, value[len(quote) : -len(quote)]
    return "", value


def mask_value(value: str, kind: str) -> str:
    """Mask a value, keeping its quotes and trailing blanks; empty and already-masked values stay."""
    quote, inner = strip_quotes(value)
    stripped = inner.rstrip()
    if not stripped.strip() or is_masked(stripped):
        return value
    return quote + masked(kind) + inner[len(stripped) :] + quote

"""Characters a reader never sees, taken out before masking.

A control character (`\\x00`, `\\x08`, `\\x7f`, C1 controls) or an invisible format character
(zero-width space and joiners, soft hyphen, word joiner, BOM, bidi embeddings, overrides and
isolates, tag characters: Unicode category Cf) inside a token would break it in two for every rule,
and Slack and terminals then draw nothing for it: the reader sees the whole token. They are removed
before any rule runs (never after), together with terminal escape sequences (colours, cursor moves),
so what is masked is what will be seen. Tabs, newlines and carriage returns stay.
"""

from __future__ import annotations

import re

import re2

# Unicode categories Cc (but tab, LF, CR) and Cf, as code point ranges (Unicode 14).
INVISIBLE_RANGES: tuple[tuple[int, int], ...] = (
    (0x0000, 0x0008), (0x000B, 0x000C), (0x000E, 0x001F), (0x007F, 0x009F), (0x00AD, 0x00AD),
    (0x0600, 0x0605), (0x061C, 0x061C), (0x06DD, 0x06DD), (0x070F, 0x070F), (0x0890, 0x0891),
    (0x08E2, 0x08E2), (0x180E, 0x180E), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x2064),
    (0x2066, 0x206F), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD), (0x110CD, 0x110CD),
    (0x13430, 0x13438), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0001, 0xE0001), (0xE0020, 0xE007F),
)  # fmt: skip
# Looked for with RE2 in the UTF-8 bytes (a DFA: a megabyte in about a millisecond).
_INVISIBLE_RE2 = re2.compile(
    "[" + "".join(f"\\x{{{low:x}}}-\\x{{{high:x}}}" for low, high in INVISIBLE_RANGES) + "]"
)
# ECMA-48 sequences: CSI (`ESC [ … final`, colours and cursor moves), OSC (`ESC ] … BEL|ST`, window
# titles, hyperlinks) and two-character escapes.
_TERMINAL_ESCAPE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]")
ASCII_INVISIBLE = bytes([*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F])
_DELETE_TABLE = dict.fromkeys(code for low, high in INVISIBLE_RANGES for code in range(low, high + 1))


def has_invisible(data: bytes) -> bool:
    """`data` (UTF-8) holds a control or invisible character."""
    return _INVISIBLE_RE2.search(data) is not None


def strip_invisible(text: str) -> str:
    """`text` without terminal escape sequences, control characters (but tab, LF, CR) and Cf."""
    if "\x1b" in text:
        text = _TERMINAL_ESCAPE.sub("", text)
    return text.translate(_DELETE_TABLE)


def normalise_ascii(text: str, data: bytes) -> tuple[str, bytes]:
    """The fast path for ASCII text (`data` its bytes): only ASCII controls can be there."""
    cleaned = data.translate(None, ASCII_INVISIBLE)
    if len(cleaned) == len(data):
        return text, data
    text = strip_invisible(text)
    return text, text.encode("ascii")


def normalise(text: str, data: bytes) -> tuple[str, bytes]:
    """`text` and its UTF-8 bytes `data`, without the characters a reader never sees."""
    if not has_invisible(data):
        return text, data
    text = strip_invisible(text)
    return text, text.encode("utf-8", "surrogatepass")

"""Private key blocks (PEM, OpenSSH, PGP): the whole block becomes one marker, in linear time.

A block starts at `-----BEGIN <…>PRIVATE KEY-----` and runs over the lines that follow while each
holds base64, a PEM header (`Proc-Type: …`, `DEK-Info: …`) or nothing, up to its END line; when
the END line was cut off (a truncated log), the block ends at the first line that is none of these.
Lines may be separated by raw newlines, by `\\n` escapes (a key inside JSON text) or by blanks (a
key squashed onto one line), and every line may carry the prefix its BEGIN line carries (`[worker-0]
`, a CRI timestamp `2025-01-10T08:00:01.123Z stdout F `): lines whose prefix has the same shape
(digits aside) belong to the block, and the whole block, prefixes included, becomes one marker.

The scan walks forward only: each character is looked at a bounded number of times whatever the
input (`-----BEGIN RSA PRIVATE KEY-----` repeated, a BEGIN without END, a megabyte of base64).
"""

from __future__ import annotations

import re

from diagnosis.masking.markers import masked

_BEGIN = "-----BEGIN "
_BEGIN_LINE = re.compile(r"-----BEGIN (?P<label>[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?)-----")
# One line separator: a raw newline, an escaped one inside JSON text, or blanks.
_SEPARATOR = re.compile(r"\r?\n|(?:\\r)?\\n|[ \t]+")
_BASE64 = re.compile(r"[A-Za-z0-9+/=]+")
_PEM_HEADER = re.compile(r"[A-Za-z][A-Za-z\-]{0,40}: [^\r\n\\\"]{0,400}")
_DIGITS = re.compile(r"[0-9]+")
_MAX_PREFIX = 120


def _prefix_shape(prefix: str) -> str:
    return _DIGITS.sub("0", prefix)


def _line_prefix(text: str, begin: int) -> str:
    """What stands before BEGIN on its line (bounded); "" when BEGIN is not preceded by a newline
    within the bound or follows other text on a line that is not a log prefix."""
    start = max(0, begin - _MAX_PREFIX)
    newline = text.rfind("\n", start, begin)
    if newline < 0 and start > 0:
        return ""
    return text[newline + 1 : begin]


def _ends_chunk(text: str, index: int, *, blanks: bool = False) -> bool:
    """A body chunk ends here: at a line end (raw or escaped), a quote, the text's end (or blanks,
    for a key squashed onto one line)."""
    if index >= len(text):
        return True
    ends = '\r\n" \t' if blanks else '\r\n"'
    return text[index] in ends or text.startswith(("\\n", "\\r"), index)


def _at_line_end(text: str, index: int) -> bool:
    return index < len(text) and (text[index] in "\r\n" or text.startswith(("\\n", "\\r"), index))


def _block_end(text: str, position: int, label: str, prefix_shape: str, prefix_length: int) -> int:
    """Where the block whose BEGIN marker ends at `position` ends."""
    end_marker = f"-----END {label}-----"
    end = position
    while True:
        separator = _SEPARATOR.match(text, end)
        if separator is None:
            return end
        cursor = separator.end()
        if not separator.group(0).strip(" \t"):
            # Blanks: a key squashed onto one line goes on with a long base64 chunk or its END.
            if text.startswith(end_marker, cursor):
                return cursor + len(end_marker)
            body = _BASE64.match(text, cursor)
            if body is None or body.end() - cursor < 16 or not _ends_chunk(text, body.end(), blanks=True):
                return end
            end = body.end()
            continue
        starts = [cursor]
        if prefix_shape:
            offset = _line_body_start(text[cursor : cursor + prefix_length + 16], prefix_shape)
            if offset is not None:
                starts.insert(0, cursor + offset)
        for start in starts:
            if text.startswith(end_marker, start):
                return start + len(end_marker)
            chunk_end = _chunk(text, start)
            if chunk_end is not None:
                end = chunk_end
                break
            if _at_line_end(text, start):
                end = start  # an empty line inside the block (after PEM headers)
                break
        else:
            return end


def _chunk(text: str, start: int) -> int | None:
    """The end of a base64 chunk or PEM header that fills the line from `start`, else None."""
    for pattern in (_BASE64, _PEM_HEADER):
        body = pattern.match(text, start)
        if body is not None and _ends_chunk(text, body.end()):
            return body.end()
    return None


_PREFIX_END = re.compile(r"[\s\]|>:]")


def _line_body_start(line: str, prefix_shape: str) -> int | None:
    """The offset after a prefix of `line` shaped like the BEGIN line's prefix, or like its end
    (`[worker-0] ` when the BEGIN line was `message; [worker-0] -----BEGIN …`): prefixes end at a
    blank, `]`, `|`, `>` or `:`; the longest that fits wins."""
    best: int | None = None
    for boundary in _PREFIX_END.finditer(line, 0, len(prefix_shape) + 16):
        length = boundary.end()
        if prefix_shape.endswith(_prefix_shape(line[:length])):
            best = length
    return best


def mask_private_keys(text: str) -> str:
    """Every private key block of `text` as one `[MASKED:private_key]` marker."""
    position = text.find(_BEGIN)
    if position < 0:
        return text
    pieces: list[str] = []
    copied = 0
    while position >= 0:
        begin = _BEGIN_LINE.match(text, position)
        if begin is None:
            position = text.find(_BEGIN, position + len(_BEGIN))
            continue
        prefix = _line_prefix(text, position)
        shape = _prefix_shape(prefix) if prefix.strip() else ""
        end = _block_end(text, begin.end(), begin["label"], shape, len(prefix))
        pieces.append(text[copied:position])
        pieces.append(masked("private_key"))
        copied = end
        position = text.find(_BEGIN, end)
    pieces.append(text[copied:])
    return "".join(pieces)

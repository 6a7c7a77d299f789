"""Which lines can hold anything to mask: one RE2 pass over the text finds them.

Most log text (progress lines, metrics, tracebacks) holds no secret and no address. Every rule
needs one of a few triggers on its line: a secret-name stem (`passw`, `secret`, `token`, `key`,
`auth`, a whole `ak`/`sk` component, a Chinese or Japanese key word), a token prefix (`eyJ`,
`xox`, `ghp_`, `hf_`, `AKIA`, `ya29.`, `pypi-`, …), `://`, a tool name (`curl`, `mysql`, …), a
`%XX` escape, twenty upper-case letters and digits (a Huawei AK), or something shaped like an IP
address. The triggers are one combined pattern run by RE2 (a DFA: linear time, several hundred
MB/s) over the UTF-8 bytes; the rules then run only on windows of the lines around each hit (the
line before, for a YAML `value:` written before its `name:`, and the lines after, for a YAML value
on the next line, a netrc file and a wrapped secret).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import re2

from diagnosis.masking.wrapping import wraps

TRIGGERS: tuple[str, ...] = (
    # Secret-name stems; `token`, `auth`, `key` only as a whole word start (`tokens/s`,
    # `tokenizer`, `author`, `keyword` are no secret names).
    r"(?i:passw|passph|sshpass|pwd|secret|credential|cookie|bearer|authoriz|private|signature)",
    r"(?i:token|auth|key)(?:[^a-z]|$)",
    r"(?:^|[^A-Za-z])(?i:ak|sk)(?:[^a-z]|$)",
    r"[a-z0-9](?:AK|SK|Ak|Sk)(?:[^a-z]|$)",
    # Token shapes and URLs.
    r"://|eyJ|(?i:xox[a-z]|xapp-)|gh[pousr]_|github_pat_|glpat-|hf_|AIza|Access=|ya29\.|pypi-",
    r"A(?:KIA|SIA|GPA|IDA|ROA|IPA|NPA|NVA|BIA|CCA)",
    r"(?:^|[^A-Za-z0-9])[A-Z0-9]{20}(?:[^A-Za-z0-9]|$)",
    # Tools that take a password as an argument, and netrc files.
    r"(?i:login|curl|--user|mysql|mariadb|redis-cli|obsutil|configure|machine|wandb|mc alias|mc config)",
    # Key names in Chinese and Japanese.
    r"密码|口令|密钥|秘钥|令牌|凭证|凭据|私钥|パスワード|暗証番号|秘密鍵|トークン",
    # %-escapes (an encoded URL or query), and what an IPv4 or IPv6 address looks like.
    r"%[0-9A-Fa-f]{2}",
    r"[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}",
    r"::|[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}:",
)
# Lines after a hit that are also masked (a YAML value on the next line, netrc's `password` two
# lines below `machine`), and at most how many more while a wrapped line goes on.
_LINES_AFTER = 1
_MAX_WRAPPED_LINES = 64


def _compile() -> Any:
    options = re2.Options()
    options.never_capture = True
    options.max_mem = 64 << 20
    return re2.compile("(?m)" + "|".join(f"(?:{pattern})" for pattern in TRIGGERS), options)


_PATTERN = _compile()
_RAW = getattr(_PATTERN, "_regexp", None)
_UNANCHORED = getattr(getattr(re2, "_Anchor", None), "UNANCHORED", None)


def _search(data: bytes, position: int) -> int:
    """The start of the next trigger in `data` at or after `position`, else -1."""
    if _RAW is not None and _UNANCHORED is not None:
        return int(_RAW.Match(_UNANCHORED, data, position, len(data))[0][0])
    found = _PATTERN.search(data, position)
    return -1 if found is None else int(found.start())


def _line_start(data: bytes, position: int) -> int:
    return data.rfind(b"\n", 0, position) + 1


def _line_end(data: bytes, position: int) -> int:
    """Just past the newline that ends the line holding `position` (or the end of `data`)."""
    newline = data.find(b"\n", position)
    return len(data) if newline < 0 else newline + 1


def byte_windows(data: bytes) -> Iterator[tuple[int, int]]:
    """Merged (start, end) byte spans of the lines worth masking, in order."""
    window_start = window_end = -1
    position = 0
    size = len(data)
    while position < size:
        hit = _search(data, position)
        if hit < 0:
            break
        line_start = _line_start(data, hit)
        start = _line_start(data, line_start - 1) if line_start > 0 else 0
        line_end = _line_end(data, hit)
        end = line_end
        for _ in range(_LINES_AFTER):
            end = _line_end(data, end)
        end = _follow_wrapped(data, end)
        if window_end >= 0 and start <= window_end:
            window_end = max(window_end, end)
        else:
            if window_end >= 0:
                yield window_start, window_end
            window_start, window_end = start, end
        # The next hit is looked for from the window's last line on (the lines before it are in
        # the window already): each line is looked at a bounded number of times.
        position = max(line_end, _line_start(data, end - 1) if end > 0 else 0)
    if window_end >= 0:
        yield window_start, window_end


def _follow_wrapped(data: bytes, end: int) -> int:
    """Extend a window past its last line while that line is wrapped onto the next."""
    for _ in range(_MAX_WRAPPED_LINES):
        if end >= len(data) or end == 0:
            return end
        last_start = _line_start(data, end - 1)
        following_end = _line_end(data, end)
        last = data[last_start : end - 1].rstrip(b"\r").decode("utf-8", "replace")
        following = data[end:following_end].rstrip(b"\r\n").decode("utf-8", "replace")
        if not wraps(last, following):
            return end
        end = following_end
    return end


_MARKER = re.compile(rb"\[MASKED:[a-z_]+\]")


def _blank_marker(match: re.Match[bytes]) -> bytes:
    return b"#" * len(match.group(0))


def windows(text: str, data: bytes) -> list[tuple[int, int]]:
    """(start, end) character spans of `text` (whose UTF-8 bytes are `data`) worth masking.

    A `[MASKED:…]` marker names a kind (`password`, `token`) but triggers nothing: text masked
    once costs no more the second time."""
    if b"[MASKED:" in data:
        data = _MARKER.sub(_blank_marker, data)
    spans = list(byte_windows(data))
    if len(data) == len(text) or not spans:
        return spans
    # Non-ASCII text: turn byte offsets into character offsets, one pass over the text.
    result: list[tuple[int, int]] = []
    byte_position = char_position = 0
    for start, end in spans:
        char_position += len(data[byte_position:start].decode("utf-8", "surrogatepass"))
        window_chars = len(data[start:end].decode("utf-8", "surrogatepass"))
        result.append((char_position, char_position + window_chars))
        char_position += window_chars
        byte_position = end
    return result

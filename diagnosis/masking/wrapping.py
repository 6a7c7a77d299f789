"""Secrets wrapped over several lines: a terminal, `fold` or a log collector cut a long line.

A line is taken to go on on the next one when it ends with `\\` (a shell continuation), or when it
is long (60 characters or more), ends with a run of token characters and the next line starts with
one and not with what starts a log record (a date, a time, a glog prefix, a traceback's header).
Then, after the lines were masked each on its own (masking never adds or removes a line):

- when the masked line ends with a marker (a secret's value ran to the end of the line), the word
  that opens the next line (base64 or URL-safe characters, nothing else on it before a blank) is
  the rest of that value and is masked too, and so on while lines go on;
- else the last word of the line and the first word of the next one are masked joined: when the
  joint is no longer visible (a token cut in two halves that no rule knows alone, `hf_…` cut after
  ten characters), the joined, masked word ends the first line and the second loses its first word.

Each line is looked at once, with at most its own last word and the next line's first word masked
again: linear in the text.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-.~%")
_WRAP_WIDTH = 60
# What starts a log record: a date, a time, a glog prefix, or a Python traceback's header.
_RECORD_START = re.compile(
    r"\d{4}-\d\d-\d\d|\d\d:\d\d:\d\d|[IWEFD]\d{4}[ .]|\d{8}[ T]|Traceback \(most recent call last\)"
)
_TAIL = re.compile(r"[A-Za-z0-9+/=_\-.~%]{8}$")
# The rest of a wrapped value opening a line: base64 / URL-safe characters (padding only at its
# end), up to a blank, a quote, `,` `;` or the line end.
_CONTINUATION = re.compile(r"[A-Za-z0-9+/_\-.~%]+={0,2}(?=[\s\"',;]|$)")
_LAST_WORD = re.compile(r"[^\s\"'`]{1,4096}$")
_MARKER_KIND = re.compile(r"\[MASKED:([a-z_]+)\]\\?$")
# A token prefix a cut can leave without the length its rule wants (`hf_` and ten characters).
_SHAPE_PREFIX = re.compile(r"eyJ|hf_|xox|xapp-|gh[pousr]_|github_pat_|glpat-|sk-|A[KS]IA|ya29\.|pypi-|AIza")
_MAX_LINES = 16
_MAX_JOINED = 4096


def wraps(line: str, following: str) -> bool:
    """`line` (without its newline) goes on on `following`."""
    if not following or following[0] not in _TOKEN_CHARS:
        return False
    if line.endswith("\\"):
        return True
    if len(line) < _WRAP_WIDTH or _TAIL.search(line) is None:
        return False
    return _RECORD_START.match(following) is None


def _whole_line_word(line: str) -> re.Match[str] | None:
    word = _CONTINUATION.match(line)
    return word if word is not None and word.end() >= len(line.rstrip("\r")) else None


class _WrappedLines:
    """The masked lines being mended, with the lines that turned out to be the rest of a secret."""

    def __init__(self, raw_lines: list[str], lines: list[str], mask_text: Callable[[str], str]) -> None:
        self.raw_lines = raw_lines
        self.lines = lines
        self.mask_text = mask_text
        self.dropped: set[int] = set()
        self.open_kind: str | None = None  # a masked value that ran to the end of the previous line

    def step(self, index: int) -> int:
        """Mend line `index` and the next one; the index of the line to look at next."""
        line = self.lines[index].rstrip("\r")
        marker = _MARKER_KIND.search(line)
        kind = self.open_kind or (marker.group(1) if marker else None)
        self.open_kind = None
        word = _CONTINUATION.match(self.lines[index + 1])
        if word is None or not wraps(self.raw_lines[index].rstrip("\r"), self.raw_lines[index + 1]):
            return index + 1
        if kind is not None:
            self._value_goes_on(index, kind, word)
            return index + 1
        return self._join_cut_token(index, line, word)

    def _value_goes_on(self, index: int, kind: str, word: re.Match[str]) -> None:
        """The value ran to the end of the line: the next line's first word is its rest."""
        rest = self.lines[index + 1][word.end() :]
        if rest.strip():
            self.lines[index + 1] = f"[MASKED:{kind}]" + rest
        else:
            self.dropped.add(index + 1)
            self.open_kind = kind

    def _words_after(self, index: int, word: re.Match[str]) -> tuple[int, list[str]]:
        """The first words of the lines a cut token runs on, and the last of those lines."""
        end = index + 1
        words = [word.group(0)]
        while (
            end + 1 < len(self.lines)
            and end - index < _MAX_LINES
            and sum(map(len, words)) < _MAX_JOINED
            and _whole_line_word(self.lines[end]) is not None
            and wraps(self.raw_lines[end].rstrip("\r"), self.raw_lines[end + 1])
            and (following_word := _CONTINUATION.match(self.lines[end + 1])) is not None
        ):
            end += 1
            words.append(following_word.group(0))
        return end, words

    def _join_cut_token(self, index: int, line: str, word: re.Match[str]) -> int:
        """A token cut in pieces that no rule knows alone: join it over the lines it runs on."""
        last = _LAST_WORD.search(line)
        if last is None or _SHAPE_PREFIX.search(last.group(0)) is None:
            return index + 1
        end, words = self._words_after(index, word)
        hidden = self.mask_text(last.group(0) + "".join(words))
        if last.group(0)[-4:] + words[0][:4] in hidden:
            return index + 1
        self.lines[index] = line[: last.start()] + hidden + ("\r" if self.lines[index].endswith("\r") else "")
        self.dropped.update(range(index + 1, end))
        rest = self.lines[end][len(words[-1]) :]
        if rest.strip():
            self.lines[end] = rest
        else:
            self.dropped.add(end)
            marker = _MARKER_KIND.search(hidden)
            self.open_kind = marker.group(1) if marker else None
        return end


def continue_wrapped(raw: str, masked_text: str, mask_text: Callable[[str], str]) -> str:
    """`masked_text` (the masking of `raw`, line for line) with the wrapped parts of secrets masked."""
    if "\n" not in raw:
        return masked_text
    raw_lines = raw.split("\n")
    lines = masked_text.split("\n")
    if len(lines) != len(raw_lines):
        return masked_text  # cannot happen (rules keep lines); nothing to align
    mending = _WrappedLines(raw_lines, lines, mask_text)
    index = 0
    while index < len(lines) - 1:
        index = mending.step(index)
    if not mending.dropped and lines == masked_text.split("\n"):
        return masked_text
    return "\n".join(line for number, line in enumerate(lines) if number not in mending.dropped)

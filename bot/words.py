"""The words of a command as Slack sends them: its references unwrapped, split as a shell would,
refused unread when too long; and what an identifier may look like."""

from __future__ import annotations

import re

from bot.textpatterns import linear

# The longest text parsed from Slack: a real command or question is a few hundred characters (an
# identifier is at most 200); a longer one gets a one-line answer instead of a parse.
MAX_TEXT_CHARS = 4000

# Every pattern on text from Slack runs in linear time (RE2): any channel member can send the text.
UUID = linear(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
UUID_IN_TEXT = linear(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b")
REGION = linear(r"[a-z]{2}(?:-[a-z]+)+-\d{1,2}")
REGION_IN_TEXT = linear(r"\b[a-z]{2}(?:-[a-z]+)+-\d{1,2}\b")
# Identifiers as platforms spell them: letters, digits and - _ . : / (no spaces, no markup), at most
# IDENTIFIER_MAX_CHARS long. The length is checked first, so this anchored one-class pattern runs
# on at most 200 characters (Python's `re`: it is called once per word, where RE2's wrapper costs
# microseconds a call).
IDENTIFIER_MAX_CHARS = 200
_IDENTIFIER = re.compile(r"\w[\w.:/\-]*")
# Slack's references (`<@U1|name>`, `<#C1|inc-42>`, `<https://x|x>`): a label never holds `<` or `>`
# (Slack escapes them), so each attempt stops at the next `<` or `>` and never backtracks
# (possessive): linear in Python's `re`, which is many times cheaper a match than RE2's wrapper.
_SLACK_REF = re.compile(r"<([^<>|]*+)(?:\|([^<>]*+))?>")
# The lexemes of shell-like words (shlex itself copies the word for each character: quadratic on a
# long word). Each alternative consumes its run in one forward pass (possessive, nothing to backtrack
# into), and the only scan that can fail (a quote never closed) ends the tokenizing: linear. Python's
# `re` here, not RE2: a word per few characters, and RE2's Python wrapper costs microseconds a match.
_LEXEME = re.compile(r"""\s++|"[^"]*+"|'[^']*+'|[^\s"']++|["']""")


def is_identifier(value: str) -> bool:
    """Whether `value` can be a job, workload, cluster, project or region identifier."""
    return len(value) <= IDENTIFIER_MAX_CHARS and _IDENTIFIER.fullmatch(value) is not None


def unwrap_slack(text: str) -> str:
    """`<#C1|inc-42>` → `inc-42`, `<https://x|x>` → `x`, `<foo>` → `foo` (escaped commands)."""
    return _SLACK_REF.sub(_shown_part, text)


def _shown_part(reference: re.Match[str]) -> str:
    return reference.group(2) or reference.group(1) or ""


def shell_words(text: str) -> list[str]:
    """Words split as a shell would (quotes group, and are dropped); with a quote left open, at
    whitespace only."""
    words: list[str] = []
    word: list[str] | None = None
    for lexeme in _LEXEME.finditer(text):
        part = lexeme.group(0)
        if part[0] in "\"'":
            if len(part) == 1:
                return text.split()
            part = part[1:-1]
        elif part.isspace():
            if word is not None:
                words.append("".join(word))
            word = None
            continue
        if word is None:
            word = []
        word.append(part)
    if word is not None:
        words.append("".join(word))
    return words

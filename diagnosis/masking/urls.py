"""URLs: userinfo passwords, pre-signed query strings, Slack webhooks, and %-encoded credentials.

Userinfo with a password (`https://user:pass@host`) becomes `[MASKED:url_credentials]`, even when
the password holds `/`, `#`, `?` or `@` (DSNs are written by hand: `postgresql://app:pa/ss#1@db`);
a pre-signed URL (a signature, credential or token query parameter, or any other secret-named one)
loses its whole query string and fragment; a Slack webhook loses its path; a URL inside the query
(`?next=https://…`) is masked as a URL of its own. Scheme, host and path stay readable.

A %-encoded word (`https%3A%2F%2Fuser%3Apw%40host`, `token%3Dabc`, twice encoded `%253A`) is
decoded (up to four times) and masked as the text it stands for; when that hides something, the
decoded, masked text replaces the word.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Callable

from diagnosis.masking.markers import MASK_PREFIX, MASKED_TOKEN, masked
from diagnosis.masking.names import is_secret_name, normalised_name
from diagnosis.masking.rules import Rule

_QUERY_SEPARATOR = re.compile(r"&|\\u0026|;")
_SLACK_WEBHOOK = re.compile(r"(?i)://hooks\.slack\.com/(?:services|workflows|triggers)/")
# Query parameters that make a URL pre-signed (S3/OBS/GCS `Signature`, Azure SAS `sig`, …).
SIGNED_QUERY_COMPONENTS = frozenset({"signature", "sig", "credential", "credentials", "token"})
_HOST = re.compile(
    r"(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9][A-Za-z0-9.\-_]*|ip-[0-9a-f]{8})(?::[0-9]{1,5})?(?=[/?#]|$)"
)
_PORT_AND_PATH = re.compile(r"[0-9]{1,5}(?:[/?#]|$)")
_URL_TRAILING_PUNCTUATION = ".,;:!?)]}"
_ENDS_MASKED = re.compile(r"\[MASKED:[a-z_]+\]$")
_MAX_NESTED_URLS = 3


def query_is_signed(query: str) -> bool:
    for param in _QUERY_SEPARATOR.split(MASKED_TOKEN.sub("", query)):
        name = param.split("=", 1)[0]
        if not name:
            continue
        components = set(normalised_name(name).split("_"))
        if components & SIGNED_QUERY_COMPONENTS or is_secret_name(name):
            return True
    return False


def _userinfo_end(tail: str) -> int:
    """The index of the `@` that ends a userinfo holding a password in `tail` (after `://`), or -1.

    The userinfo is `user:password`; the user holds no `/`; the password may hold `/`, `#`, `?` or
    `@`; after the `@` comes a host. Of the candidate `@`s, the last one whose userinfo holds no `?`
    wins (a query may hold an e-mail address), else the last one.
    """
    # Markers are blanked first: the colon inside `[MASKED:token]` is no userinfo separator.
    tail = MASKED_TOKEN.sub(lambda marker: "#" * len(marker.group(0)), tail)
    colon = tail.find(":", 3)
    if colon < 0:
        return -1
    user = tail[3:colon]
    if any(char in user for char in "/?#@"):
        return -1
    if _PORT_AND_PATH.match(tail, colon + 1):
        return -1  # `host:8080/path`: a port, not a password
    best = fallback = -1
    at = tail.find("@", colon)
    while at >= 0:
        if _HOST.match(tail, at + 1):
            fallback = at
            if "?" not in tail[colon:at]:
                best = at
        at = tail.find("@", at + 1)
    return best if best >= 0 else fallback


def mask_after_scheme(tail: str, *, depth: int = 0) -> str:
    """Mask a URL from its `://` on (the scheme itself never carries a secret)."""
    webhook = _SLACK_WEBHOOK.match(tail)
    if webhook:
        if tail[webhook.end() :].startswith(MASK_PREFIX):
            return tail
        return webhook.group(0) + masked("slack_webhook")
    at = _userinfo_end(tail)
    if at >= 0:
        tail = "://" + masked("url_credentials") + tail[at:]
    authority_end = len(tail)
    for separator in "/?#":
        position = tail.find(separator, 3)
        if 0 <= position < authority_end:
            authority_end = position
    authority = tail[3:authority_end]
    path, question, query = tail[authority_end:].partition("?")
    if question and query_is_signed(query.split("#", 1)[0]):
        # Pre-signed (or carrying a secret): the query is the credential; it goes whole, with any
        # fragment.
        return "://" + authority + path.split("#", 1)[0]
    if question and "://" in query:
        if depth >= _MAX_NESTED_URLS:
            return "://" + authority + path
        query = _mask_nested(query, depth=depth + 1)
    return "://" + authority + path + question + query


def _mask_nested(query: str, *, depth: int) -> str:
    scheme_end = query.find("://")
    return query[:scheme_end] + mask_after_scheme(query[scheme_end:], depth=depth)


def mask_url(url: str) -> str:
    """Mask the credentials a URL carries (see the module docstring); addresses are left to `mask`."""
    scheme_end = url.find("://")
    if scheme_end < 0:
        return url
    return url[:scheme_end] + mask_after_scheme(url[scheme_end:])


def _replace_url(match: re.Match[str]) -> str:
    tail = match.group(0)
    end = len(tail)
    # Sentence punctuation after a URL is not part of it; the `]` closing a marker is.
    while end > 3 and tail[end - 1] in _URL_TRAILING_PUNCTUATION:
        if tail[end - 1] == "]" and _ENDS_MASKED.search(tail, 0, end):
            break
        end -= 1
    return mask_after_scheme(tail[:end]) + tail[end:]


URL_RULE = Rule(
    "url",
    # a URL ends at blanks, quotes, `<>`, a backtick or `|` (Slack's `<url|label>` links)
    r"""://(?<=[A-Za-z0-9+.\-]://)(?:[^\s"'<>`|\\]++|\\(?![\\"'nrt]))+""",
    _replace_url,
    needles=("://",),
)


# ---------------------------------------------------------------------------------------------------
# %-encoded words

# A word (up to blanks, quotes, `<>`, a backtick or a backslash) that holds at least one `%XX`;
# possessive loops keep the search linear on long words without one.
_ENCODED_WORD = re.compile(
    r"""(?:(?<=[\s"'<>`\\])|^)(?:[^\s"'<>`\\%]++|%(?![0-9A-Fa-f]{2}))*+%[0-9A-Fa-f]{2}[^\s"'<>`\\]*+""",
    re.MULTILINE,
)
# `user:password@host` with no scheme: only inside decoded text, where `%3A…%40` stood.
_BARE_USERINFO = re.compile(
    r"(?<![\w.\-%\[])(?P<user>[\w.\-~]{1,100}):(?P<value>[^\s@/]{1,200})@(?=[A-Za-z0-9])"
)
_MAX_DECODINGS = 4


def decoded(word: str) -> str:
    """`word` %-decoded until nothing changes (at most four times: a URL inside a URL inside …)."""
    for _ in range(_MAX_DECODINGS):
        once = urllib.parse.unquote(word, errors="surrogateescape")
        if once == word:
            break
        word = once
    return word


def encoded_rule(mask_decoded: Callable[[str], str]) -> Rule:
    """The rule for %-encoded words; `mask_decoded` masks the decoded text (the whole pipeline)."""

    def replace(match: re.Match[str]) -> str:
        word = match.group(0)
        plain = decoded(word)
        if plain == word:
            return word
        hidden = _BARE_USERINFO.sub(_mask_userinfo, mask_decoded(plain))
        if hidden == plain:
            return word
        # Masking keeps lines: a decoded line break goes back to its escape.
        return hidden.replace("\r", "%0D").replace("\n", "%0A")

    return Rule("encoded_word", _ENCODED_WORD, replace, needles=("%",))


def _mask_userinfo(match: re.Match[str]) -> str:
    if match["value"].startswith(MASK_PREFIX):
        return match.group(0)
    return masked("url_credentials") + "@"

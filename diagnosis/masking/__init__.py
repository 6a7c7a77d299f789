"""No secret leaves: one masking function for every string the product emits (contracts §3, rulings G12).

Secrets become `[MASKED:<kind>]`; IP addresses become `ip-` + the first 8 hex digits of the SHA-256 of
the address, so two hosts stay distinguishable without being named (loopback and unspecified
addresses, the same on every machine, stay as they are). Masking is idempotent and keeps the words
that carry a diagnosis: exception names, error codes (`APIGW.0306`, `ModelArts.0010`), reasons
(`OOMKilled`), exit codes, file paths, version numbers, UUIDs and timestamps.

`mask` runs three stages of rules, each rule one regex and one replacement:

1. addresses: IPv6 then IPv4, with or without a port (`(172.17.0.9, 46229)`, `[fe80::1]:8080`);
2. shapes, anywhere in the text: PEM private keys (also with newlines escaped as `\\n` in JSON text,
   and when the END line was cut off), URLs (userinfo passwords; pre-signed query strings removed
   whole; Slack webhooks), `Authorization` header values (the scheme word stays readable), JWTs,
   Slack, GitHub, GitLab and Hugging Face tokens, `sk-…` keys, AWS key ids, Google API keys,
   `Bearer <token>`, the AK of a Huawei signer header (`Access=<AK>`);
3. assignments whose key names a secret (G12), on the lines holding a secret-name stem:
   `KEY=value`, `--key=value`, `--key value`, `?key=value` / `&key=value`, JSON / Python
   `"key": "value"`, `KEY: value` where KEY begins a line or follows `{`, `,` or `;`, argv lists
   (`"--hf-token", "hf_…"`) and env pairs (`{"name": "HF_TOKEN", "value": …}` in JSON or YAML).

Every rule leaves an existing `[MASKED:…]` marker alone, which is what makes `mask` idempotent.
`mask_obj` walks parsed JSON (bundles, API answers): a secret-named dict key masks its value
whatever it is, and env pairs and argv lists are read as such.
"""

from __future__ import annotations

import hashlib
import ipaddress
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TypeVar, cast

from diagnosis.models import Diagnosis

T = TypeVar("T")

MASK_PREFIX = "[MASKED:"
MASKED_TOKEN = re.compile(r"\[MASKED:[a-z_]+\]")


def masked(kind: str) -> str:
    """The marker that replaces a secret of this kind."""
    return f"[MASKED:{kind}]"


def ip_token(address: str) -> str:
    """`ip-` + 8 hex digits of SHA-256 of the canonical address: same host, same token (G12)."""
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        canonical = address.lower()
    else:
        # An IPv4-mapped IPv6 address (::ffff:10.0.0.1) is the same host as its IPv4 form.
        mapped = getattr(parsed, "ipv4_mapped", None)
        canonical = str(mapped if mapped is not None else parsed)
    return "ip-" + hashlib.sha256(canonical.encode("ascii", "replace")).hexdigest()[:8]


# ---------------------------------------------------------------------------------------------------
# Secret names (G12)

# Substrings of the normalised (snake_case, lower) name, checked in order; the first gives the kind.
_SECRET_STEMS: tuple[tuple[str, str], ...] = (
    ("private_key", "private_key"),
    ("privatekey", "private_key"),
    ("password", "password"),
    ("passwd", "password"),
    ("passphrase", "password"),
    ("secret_access_key", "sk"),
    ("secret_key", "sk"),
    ("secretkey", "sk"),
    ("access_key", "ak"),
    ("accesskey", "ak"),
    ("api_key", "api_key"),
    ("apikey", "api_key"),
    ("credential", "secret"),
    ("secret", "secret"),
)
# Whole components (split on `_`, `-`, `.` and camelCase): `HF_TOKEN`, `--auth-token`, `X-Auth-Token`,
# `HUAWEICLOUD_SDK_AK`, the `[basic] ak / sk` keys of ~/.huaweicloud/credentials; never
# `max_new_tokens`, `--tokenizer`, `author`, `authority`.
_SECRET_COMPONENTS: dict[str, str] = {
    "token": "token",
    "auth": "token",
    "authorization": "token",
    "cookie": "token",
    "pwd": "password",
    "ak": "ak",
    "sk": "sk",
}
# Query parameters that make a URL pre-signed (S3/OBS/GCS `Signature`, Azure SAS `sig`, …).
_SIGNED_QUERY_COMPONENTS = frozenset({"signature", "sig", "credential", "credentials", "token"})
# A key ending in one of these names a place, not the secret itself, when its value is a path or URL
# (`--password-file /run/secrets/pw`, `GOOGLE_APPLICATION_CREDENTIALS_FILE=…`, `auth_url=https://…`).
_LOCATION_COMPONENTS = frozenset({"file", "path", "dir", "directory", "url", "uri", "endpoint"})
_LOOKS_LIKE_LOCATION = re.compile(r"(?:/|~/|\./|\.\./|[A-Za-z]:\\|[A-Za-z][A-Za-z0-9+.\-]*://)")
# `KEY: value` at the start of a line is also how a traceback ends (`InvalidTokenError: …`): an
# exception name is never an assignment key, so its message stays readable.
_EXCEPTION_NAME = re.compile(r"(?:Error|Exception|Warning|Failure|Exit|Interrupt)$")
_AUTHORIZATION_NAMES = frozenset({"authorization", "proxy_authorization"})

_CAMEL_LOWER_UPPER = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_CAMEL_ACRONYM_END = re.compile(r"(?<=[A-Z])(?=[A-Z][a-z])")
_NON_ALNUM = re.compile(r"[^a-z0-9]+")


@lru_cache(maxsize=4096)
def _normalised_name(name: str) -> str:
    """`secretAccessKey` / `X-Auth-Token` / `--hf_token` → `secret_access_key` / `x_auth_token` / `hf_token`."""
    spaced = _CAMEL_ACRONYM_END.sub("_", _CAMEL_LOWER_UPPER.sub("_", name))
    return _NON_ALNUM.sub("_", spaced.lower()).strip("_")


@lru_cache(maxsize=4096)
def secret_kind(name: str) -> str | None:
    """The mask kind when `name` names a secret (G12), else None."""
    normalised = _normalised_name(name)
    if not normalised:
        return None
    for stem, kind in _SECRET_STEMS:
        if stem in normalised:
            return kind
    for component in normalised.split("_"):
        if component in _SECRET_COMPONENTS:
            return _SECRET_COMPONENTS[component]
    return None


def is_secret_name(name: str) -> bool:
    return secret_kind(name) is not None


def _names_a_location(name: str, value: str) -> bool:
    """A secret-named key that holds where a secret lives (a path or URL), not the secret."""
    normalised = _normalised_name(name)
    last = normalised.rsplit("_", 1)[-1]
    if name.lstrip("-") == "PWD":  # the shell's working directory, not a password
        return value.startswith("/")
    return last in _LOCATION_COMPONENTS and bool(_LOOKS_LIKE_LOCATION.match(value))


def _is_masked(value: str) -> bool:
    return MASKED_TOKEN.fullmatch(value) is not None


# ---------------------------------------------------------------------------------------------------
# Regex building blocks

_MASKED = r"\[MASKED:[a-z_]+\]"
# A quoted value: JSON string (with escapes), single-quoted, or `\"…\"` inside JSON text.
_QUOTED = r"""(?:"(?:[^"\\\n]++|\\.)*"|'[^'\n]*'|\\"(?:[^\\\n]++|\\(?!"))*\\")"""
# An unquoted value of an `=` form: ends at whitespace, at a quote, or at an escaped quote/newline.
_BARE = r"""(?:[^\s"'`\\]++|\\(?![\\"'nrt]))+"""
_KEY = r"[A-Za-z_][\w.\-]{0,100}"
_URL_TRAILING_PUNCTUATION = ".,;:!?)]}"


@dataclass(frozen=True)
class Rule:
    """One masking rule: a pattern and what replaces each match.

    Patterns open with a literal where they can (a lookbehind after it checks the word boundary):
    Python's regex engine then skips ahead to that literal, which keeps a megabyte of log fast.
    `needles`: lower-case substrings of which one must occur for the rule to run at all.
    `rescan_group`: when a match is left as it was (its key names no secret), look again from the
    start of this group, which may hold a match of its own (`client=Client(token="…")`).
    """

    name: str
    pattern: re.Pattern[str]
    replace: Callable[[re.Match[str]], str]
    needles: tuple[str, ...] = ()
    rescan_group: str | None = None


@dataclass(frozen=True)
class Stage:
    """Rules applied in order, either to the whole text or only to the lines an anchor finds.

    `anchor` (searched in the lower-cased text) selects the lines worth the rules' time, plus
    `following_lines` after each (a YAML env pair puts its value on the next line).
    """

    name: str
    rules: tuple[Rule, ...]
    anchor: re.Pattern[str] | None = None
    following_lines: int = 0


def _splice(match: re.Match[str], group: str, replacement: str) -> str:
    """The whole match with one named group replaced."""
    start = match.start(group) - match.start()
    end = match.end(group) - match.start()
    whole = match.group(0)
    return whole[:start] + replacement + whole[end:]


def _strip_quotes(value: str) -> tuple[str, str]:
    """(quote, inner) of a quoted value; ("", value) when unquoted."""
    if len(value) >= 2 and value[0] in "\"'\\":
        for quote in ('\\"', '"', "'"):
            if len(value) >= 2 * len(quote) and value.startswith(quote) and value.endswith(quote):
                return quote, value[len(quote) : -len(quote)]
    return "", value


def _mask_value(value: str, kind: str) -> str:
    """Mask a value, keeping its quotes and trailing blanks; empty and already-masked values stay."""
    quote, inner = _strip_quotes(value)
    stripped = inner.rstrip()
    if not stripped.strip() or _is_masked(stripped):
        return value
    return quote + masked(kind) + inner[len(stripped) :] + quote


@lru_cache(maxsize=4096)
def _text_key_kind(key: str) -> str | None:
    """The kind of a key met in text (`--auth-token`, `HF_TOKEN`), else None.

    `Authorization` is left to its own rule (which keeps the scheme word), and an exception name
    (`InvalidTokenError: …` ends a traceback) is never a key.
    """
    bare_key = key.lstrip("-")
    if _EXCEPTION_NAME.search(bare_key) or _normalised_name(bare_key) in _AUTHORIZATION_NAMES:
        return None
    return secret_kind(bare_key)


def _assignment_kind(key: str, value: str) -> str | None:
    """The kind to mask `value` with when `key` names a secret in a text assignment, else None."""
    kind = _text_key_kind(key)
    if kind is None or _names_a_location(key.lstrip("-"), _strip_quotes(value)[1].strip()):
        return None
    return kind


# `token = tokenizer(text)` in a traceback's source line is code, not a secret: with blanks around
# `=`, an unquoted value that calls or indexes stays.
_CODE_VALUE = re.compile(r"[A-Za-z_][\w.]*[(\[]")
# A constant is never a secret: `token_rotation_enabled: false`, `"token": null`.
_CONSTANTS = frozenset({"None", "True", "False", "null", "true", "false", "nil"})


def _replace_assignment(match: re.Match[str]) -> str:
    kind = _assignment_kind(match["key"], match["value"])
    if kind is None:
        return match.group(0)
    value = match["value"]
    if value.strip() in _CONSTANTS:
        return match.group(0)
    separator = match.groupdict().get("sep") or ""
    if separator.strip() != separator and _CODE_VALUE.match(value):
        return match.group(0)
    return _splice(match, "value", _mask_value(match["value"], kind))


def _replace_env_pair(match: re.Match[str]) -> str:
    kind = secret_kind(match["name"])
    if kind is None:
        return match.group(0)
    return _splice(match, "value", _mask_value(match["value"], kind))


# ---------------------------------------------------------------------------------------------------
# URLs

_QUERY_SEPARATOR = re.compile(r"&|\\u0026|;")
_SLACK_WEBHOOK = re.compile(r"(?i)://hooks\.slack\.com/(?:services|workflows|triggers)/")


def _query_is_signed(query: str) -> bool:
    for param in _QUERY_SEPARATOR.split(MASKED_TOKEN.sub("", query)):
        name = param.split("=", 1)[0]
        if not name:
            continue
        components = set(_normalised_name(name).split("_"))
        if components & _SIGNED_QUERY_COMPONENTS or is_secret_name(name):
            return True
    return False


def _mask_after_scheme(tail: str) -> str:
    """Mask a URL from its `://` on (the scheme itself never carries a secret)."""
    webhook = _SLACK_WEBHOOK.match(tail)
    if webhook:
        if tail[webhook.end() :].startswith(MASK_PREFIX):
            return tail
        return webhook.group(0) + masked("slack_webhook")
    authority_end = len(tail)
    for separator in "/?#":
        position = tail.find(separator, 3)
        if 0 <= position < authority_end:
            authority_end = position
    userinfo, at, host = tail[3:authority_end].rpartition("@")
    authority = tail[3:authority_end]
    if at and ":" in MASKED_TOKEN.sub("", userinfo):  # a password after the colon
        authority = masked("url_credentials") + "@" + host
    path, question, query = tail[authority_end:].partition("?")
    if question and _query_is_signed(query.split("#", 1)[0]):
        # Pre-signed (or carrying a secret): the query is the credential; it goes whole, with any
        # fragment (G12).
        return "://" + authority + path.split("#", 1)[0]
    return "://" + authority + path + question + query


def mask_url(url: str) -> str:
    """Mask the credentials a URL carries.

    Userinfo with a password (`https://user:pass@host`) becomes `[MASKED:url_credentials]`; a
    pre-signed URL (a signature, credential or token query parameter, or any other secret-named
    one: `api_key`, `password`) loses its whole query string and fragment (G12); a Slack webhook
    loses its path. Scheme, host and path stay readable. Hosts that are IP addresses are left to `mask`.
    """
    scheme_end = url.find("://")
    if scheme_end < 0:
        return url
    return url[:scheme_end] + _mask_after_scheme(url[scheme_end:])


_ENDS_MASKED = re.compile(r"\[MASKED:[a-z_]+\]$")


def _replace_url(match: re.Match[str]) -> str:
    tail = match.group(0)
    end = len(tail)
    # Sentence punctuation after a URL is not part of it; the `]` closing a marker is.
    while end > 3 and tail[end - 1] in _URL_TRAILING_PUNCTUATION:
        if tail[end - 1] == "]" and _ENDS_MASKED.search(tail, 0, end):
            break
        end -= 1
    return _mask_after_scheme(tail[:end]) + tail[end:]


# ---------------------------------------------------------------------------------------------------
# Authorization headers, bearer tokens, private keys

_AUTH_SCHEME = (
    r"(?i:bearer|basic|digest|token|negotiate|ntlm|oauth|jwt|[a-z0-9]+(?:-[a-z0-9]+)*-hmac-[a-z0-9]+)"
)


def _begins_line(match: re.Match[str]) -> bool:
    """The match starts a line (or follows `{`, `,`, `;`, or a YAML `- `)."""
    text = match.string
    line_start = text.rfind("\n", 0, match.start()) + 1
    before = text[line_start : match.start()].strip()
    return before in ("", "-") or before.endswith(("{", ",", ";"))


def _replace_authorization(match: re.Match[str]) -> str:
    credential = match["cred"].rstrip()
    if not credential or _is_masked(credential):
        return match.group(0)
    scheme = (match["scheme"] or "").strip().lower()
    if not scheme and not match["keyquote"] and not _begins_line(match):
        # `… may require authorization: server message: …` is prose, not a header (G12).
        return match.group(0)
    kind = {"bearer": "bearer", "basic": "password"}.get(scheme, "token")
    return _splice(match, "cred", _mask_value(match["cred"], kind))


def _looks_like_credential(value: str) -> bool:
    """A bearer value rather than a prose word (`Bearer realm=…`, `bearer token expired`)."""
    stripped = value.rstrip("=")
    if len(stripped) >= 20:
        return True
    return len(stripped) >= 6 and any(c.isdigit() for c in stripped)


def _replace_bearer(match: re.Match[str]) -> str:
    if not _looks_like_credential(match["value"]):
        return match.group(0)
    return _splice(match, "value", masked("bearer"))


def _constant(kind: str) -> Callable[[re.Match[str]], str]:
    def replace(match: re.Match[str]) -> str:
        return masked(kind)

    return replace


def _value_as(kind: str) -> Callable[[re.Match[str]], str]:
    def replace(match: re.Match[str]) -> str:
        return _splice(match, "value", masked(kind))

    return replace


# ---------------------------------------------------------------------------------------------------
# IP addresses

# Four dotted numbers, not inside a longer dotted number (1.3.6.1.4.1) or a word (v1.2.3.4), not a
# package pin (`==1.2.3.4`, `8.9.2.26-1+cuda12.1`; a range `10.0.0.1-10.0.0.9` is two addresses);
# `ipaddress` rejects octets over 255.
_IPV4 = r"[0-9](?<![A-Za-z0-9.][0-9])(?<!==[0-9])[0-9]{0,2}(?:\.[0-9]{1,3}){3}(?![0-9A-Za-z_]|\.[0-9]|[+~][0-9]|-[0-9](?![0-9]{0,2}(?:\.[0-9]{1,3}){3}))"
# A version string that happens to have four parts (cuDNN 8.9.2.26, TensorRT 8.6.1.6).
_VERSION_WORD = re.compile(r"(?i)(?:version|ver|release|build|cudnn|tensorrt|trt|driver|nccl|cuda)[\s:=]*$")
# IPv6 candidates (validated by `ipaddress`), never inside a word or a C++ name (`c10d::ProcessGroup`),
# nor right after a `]` (what follows a `[MASKED:…]` marker was part of a word before it: idempotence).
_IPV6 = (
    r"(?<![\w:.\]])(?:[0-9A-Fa-f]{0,4}:){2,7}"
    r"(?:[0-9]{1,3}(?:\.[0-9]{1,3}){3}|[0-9A-Fa-f]{1,4})?(?![\w:]|\.[0-9])"
)


def _names_no_host(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Loopback (127.0.0.1, ::1) and unspecified (0.0.0.0, ::) are the same string on every machine:
    they identify no host, and `MASTER_ADDR=127.0.0.1` on a multi-node job is itself a finding."""
    return address.is_loopback or address.is_unspecified


def _replace_ipv4(match: re.Match[str]) -> str:
    candidate = match.group(0)
    try:
        address = ipaddress.IPv4Address(candidate)
    except ValueError:
        return candidate  # 999.1.2.3, leading zeros: not an address
    if _names_no_host(address):
        return candidate
    before = match.string[max(0, match.start() - 16) : match.start()]
    if _VERSION_WORD.search(before):
        return candidate
    return ip_token(candidate)


def _replace_ipv6(match: re.Match[str]) -> str:
    candidate = match.group(0)
    if "::" not in candidate and candidate.count(":") < 7:
        return candidate  # a time (10:04:10), a MAC address: too few groups for an address
    if not any(c.isdigit() for c in candidate):
        return candidate  # `::`, `a::b`: a separator or a name, not a host
    try:
        address = ipaddress.IPv6Address(candidate)
    except ValueError:
        return candidate  # `1:2::3:4::5`: not an address
    if _names_no_host(address) or (address.ipv4_mapped is not None and _names_no_host(address.ipv4_mapped)):
        return candidate
    groups = [group for group in candidate.split(":") if group]
    if len(groups) < 3 and all(len(group) < 3 for group in groups):
        return candidate  # `1::2`, `::1`: a Python slice or loopback, not an identifying host
    return ip_token(candidate)


# ---------------------------------------------------------------------------------------------------
# The stages, in order

# Whole text: blocks, URLs, headers and well-known token shapes, each opening with its literal.
_WHOLE_TEXT_RULES: tuple[Rule, ...] = (
    Rule(
        "private_key",
        re.compile(
            r"-----BEGIN (?P<label>[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?)-----"
            # the whole block; when its END was cut off (a truncated log), every following line
            # that is base64 or a PEM header (`Proc-Type: …`), newlines raw or escaped as `\n`
            r"(?:.*?-----END (?P=label)-----"
            r"|(?:(?:\r?\n|(?:\\r)?\\n)(?:[A-Za-z0-9+/=]+|[A-Za-z\-]+: [^\r\n\\]*)?(?=\r?\n|(?:\\r)?\\n|\"|$))*)",
            re.DOTALL,
        ),
        _constant("private_key"),
        needles=("private key",),
    ),
    Rule(
        "url",
        # a URL ends at blanks, quotes, `<>`, a backtick or `|` (Slack's `<url|label>` links)
        re.compile(r"""://(?<=[A-Za-z0-9+.\-]://)(?:[^\s"'<>`|\\]++|\\(?![\\"'nrt]))+"""),
        _replace_url,
        needles=("://",),
    ),
    Rule(
        "authorization",
        re.compile(
            r"(?P<key>(?i:authorization))(?<![A-Za-z0-9_](?i:authorization))"
            r"(?P<keyquote>\\?[\"'])?[ \t]*[:=][ \t]*\\?[\"']?"
            r"(?P<scheme>" + _AUTH_SCHEME + r"[ \t]+)?"
            # The credential runs to the line end, a quote, a backtick or `|` (the gateway's
            # canonical-request dump writes `|` for newlines).
            r"(?P<cred>(?:[^\r\n\"'`|\\]++|\\(?![\\\"'nrt]))+)"
        ),
        _replace_authorization,
        needles=("authorization",),
        rescan_group="cred",
    ),
    Rule(
        "jwt",
        re.compile(r"eyJ(?<![A-Za-z0-9_\-]eyJ)[A-Za-z0-9_\-]{4,}\.eyJ[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]*"),
        _constant("jwt"),
        needles=("eyj",),
    ),
    Rule(
        "slack_token",
        re.compile(r"x(?<![A-Za-z0-9_\-]x)(?:ox[a-z](?:\.xox[a-z])?|app)-[A-Za-z0-9\-]{6,}"),
        _constant("slack_token"),
        needles=("xox", "xapp-"),
    ),
    Rule(
        "github_token",
        re.compile(r"g(?<![A-Za-z0-9_]g)(?:h[pousr]_[A-Za-z0-9]{20,}|ithub_pat_[A-Za-z0-9_]{20,})"),
        _constant("token"),
        needles=("gh", "github_pat_"),
    ),
    Rule(
        "gitlab_token",
        re.compile(r"glpat-(?<![A-Za-z0-9_\-]glpat-)[A-Za-z0-9_\-]{20,}"),
        _constant("token"),
        needles=("glpat-",),
    ),
    Rule(
        "huggingface_token",
        re.compile(r"hf_(?<![A-Za-z0-9_]hf_)[A-Za-z0-9]{20,}"),
        _constant("token"),
        needles=("hf_",),
    ),
    Rule(
        "sk_key",
        # OpenAI-style keys and the SK of the signer docs (`sk-test-example-secret`).
        re.compile(r"sk-(?<![A-Za-z0-9_\-]sk-)[A-Za-z0-9][A-Za-z0-9_\-]{14,}"),
        _constant("sk"),
        needles=("sk-",),
    ),
    Rule(
        "aws_key",
        re.compile(
            r"A(?<![A-Za-z0-9]A)(?:KIA|SIA|GPA|IDA|ROA|IPA|NPA|NVA|BIA|CCA)[A-Z0-9]{16}(?![A-Za-z0-9])"
        ),
        _constant("aws_key"),
        needles=("akia", "asia", "agpa", "aida", "aroa", "aipa", "anpa", "anva", "abia", "acca"),
    ),
    Rule(
        "google_api_key",
        re.compile(r"AIza(?<![A-Za-z0-9_\-]AIza)[0-9A-Za-z_\-]{35}(?![A-Za-z0-9_\-])"),
        _constant("api_key"),
        needles=("aiza",),
    ),
    Rule(
        "bearer",
        re.compile(
            r"(?i:bearer)(?<![A-Za-z0-9_\-](?i:bearer))[ \t]+(?!\[MASKED)(?P<value>[A-Za-z0-9\-._~+/]+=*)"
        ),
        _replace_bearer,
        needles=("bearer",),
        rescan_group="value",
    ),
    Rule(
        "signer_access_key",
        # `SDK-HMAC-SHA256 Access=<AK>, …` outside a header (e.g. quoted in a gateway error).
        re.compile(r"Access=(?<![A-Za-z0-9_\-]Access=)(?P<value>[A-Z0-9]{10,64})(?![A-Za-z0-9])"),
        _value_as("ak"),
        needles=("access=",),
    ),
)

# Just after `SomeError: ` (one fixed-width look-behind per suffix `_EXCEPTION_NAME` knows).
_AFTER_EXCEPTION_NAME = "|".join(
    rf"(?<={suffix}: )" for suffix in ("Error", "Exception", "Warning", "Failure", "Exit", "Interrupt")
)

# Assignments whose key names a secret (G12); run only on the lines holding a secret-name stem.
_ASSIGNMENT_RULES: tuple[Rule, ...] = (
    Rule(
        "env_pair_json",
        # {"name": "HF_TOKEN", "value": "…"}
        re.compile(
            r"(?P<q>\\?[\"'])(?i:name)(?P=q)\s*:\s*(?P=q)(?P<name>[^\"'\\\s]{1,200})(?P=q)"
            r"\s*,\s*(?P=q)(?i:value)(?P=q)\s*:\s*(?P<value>" + _QUOTED + r")"
        ),
        _replace_env_pair,
    ),
    Rule(
        "env_pair_yaml",
        # - name: HF_TOKEN
        #   value: …
        re.compile(
            r"(?m)^[ \t]*(?:-[ \t]+)?name:[ \t]*[\"']?(?P<name>[\w.\-]{1,200})[\"']?[ \t]*\r?\n"
            r"[ \t]*value:[ \t]*(?P<value>" + _QUOTED + r"|[^\r\n]+)"
        ),
        _replace_env_pair,
    ),
    Rule(
        "quoted_key",
        # JSON `"key": "value"`, Python `{'key': 'value'}`, and `\"key\": \"value\"` inside JSON text.
        re.compile(r"(?P<q>\\?[\"'])(?P<key>" + _KEY + r")(?P=q)[ \t]*:[ \t]*(?P<value>" + _QUOTED + r")"),
        _replace_assignment,
        rescan_group="value",
    ),
    Rule(
        "quoted_key_scalar",
        # JSON `"key": 12345`. The colon must touch the key: in `volume "hf-token" : secret "x" not
        # found` (kubelet's FailedMount) the quoted word is a volume name, not a key.
        re.compile(
            r"(?P<q>\\?[\"'])(?P<key>" + _KEY + r")(?P=q):[ \t]*"
            r"(?P<value>(?![\[{]|null\b|true\b|false\b|None\b|True\b|False\b)[^\s,}\]\"'\\]+)"
        ),
        _replace_assignment,
        rescan_group="value",
    ),
    Rule(
        "subscript",
        # os.environ["HF_TOKEN"] = "…"
        re.compile(
            r"\[(?P<q>[\"'])(?P<key>" + _KEY + r")(?P=q)\][ \t]*=(?!=)[ \t]*"
            r"(?P<value>" + _QUOTED + "|" + _BARE + r")"
        ),
        _replace_assignment,
        rescan_group="value",
    ),
    Rule(
        "query_param",
        # ?key=value / &key=value (outside a full URL, e.g. a logged request path)
        re.compile(r"(?<=[?&])(?P<key>" + _KEY + r")=(?P<value>[^&#\s\"'`<>\\]+)"),
        _replace_assignment,
        rescan_group="value",
    ),
    Rule(
        "equals",
        # KEY=value, --key=value, export KEY="…", INI `sk = …`; the value ends at whitespace (G12)
        re.compile(
            r"(?<![\w.\-?&])(?P<key>-{0,2}" + _KEY + r")(?P<sep>[ \t]*=(?!=)[ \t]*)"
            r"(?P<value>" + _QUOTED + "|" + _BARE + r")"
        ),
        _replace_assignment,
        rescan_group="value",
    ),
    Rule(
        "flag_value",
        # --key value (the next word, unless it is another --flag)
        re.compile(
            r"(?P<key>--(?<![\w\-]--)" + _KEY + r")[ \t]+(?P<value>" + _QUOTED + r"|(?!--)" + _BARE + r")"
        ),
        _replace_assignment,
        rescan_group="value",
    ),
    Rule(
        "argv_list",
        # ["--hf-token", "hf_…"] in JSON or a Python repr of argv
        re.compile(r"(?P<q>\\?[\"'])(?P<key>--" + _KEY + r")(?P=q)[ \t]*,[ \t]*(?P<value>" + _QUOTED + r")"),
        _replace_assignment,
        rescan_group="value",
    ),
    Rule(
        "colon",
        # KEY: value only where KEY begins a line (YAML, headers, env dumps), follows `{` `,` `;`,
        # or begins the message of an exception line (`RuntimeError: X-Auth-Token: …`); the value
        # ends at the closing quote, else at the line end or the next `,` `;` `}` `]` (G12).
        re.compile(
            r"(?m)(?:^|(?<=[{,;])|" + _AFTER_EXCEPTION_NAME + r")[ \t]*(?:-[ \t]+)?(?P<key>" + _KEY + r")"
            r"[ \t]*:(?!//)[ \t]*"
            r"(?P<value>" + _QUOTED + r"|(?:[^\r\n,;}\]\[]++|" + _MASKED + r"|\[)+)"
        ),
        _replace_assignment,
        rescan_group="value",
    ),
    Rule(
        "colon_escaped_line",
        # `…\npassword: X\n…` inside JSON-escaped text (a log or config quoted in an API answer):
        # KEY begins an escaped line (after a literal \n, \r or \t); the value ends at the next
        # escape (\n, \") or the closing quote, or as the colon rule's value does.
        re.compile(
            r"(?:(?<=\\n)|(?<=\\r)|(?<=\\t))[ \t]*(?:-[ \t]+)?(?P<key>" + _KEY + r")"
            r"[ \t]*:(?!//)[ \t]*"
            r"(?P<value>(?:[^\r\n,;}\]\[\\\"]++|\\(?![nrt\"])|" + _MASKED + r")+)"
        ),
        _replace_assignment,
        rescan_group="value",
    ),
)

_IP_RULES: tuple[Rule, ...] = (
    # IPv6 first: an IPv4-mapped address (::ffff:10.0.0.1) is one host, one token.
    Rule("ipv6", re.compile(_IPV6), _replace_ipv6),
    Rule("ipv4", re.compile(_IPV4), _replace_ipv4),
)

# Every name `secret_kind` accepts contains one of these (lower-case) stems.
_SECRET_STEM = re.compile(r"pass|pwd|secret|credential|key|token|auth|ak|sk|cookie")
_IP_HINT = re.compile(r"\.[0-9]{1,3}\.[0-9]{1,3}\.|::|:[0-9a-f]{1,4}:[0-9a-f]{1,4}:")

# Addresses go first: later rules then see `ip-…` tokens on the first pass just as they would on a
# second one (`xoxb-10.0.0.1` must not turn into a Slack token only when masked again).
STAGES: tuple[Stage, ...] = (
    Stage("addresses", _IP_RULES, anchor=_IP_HINT),
    Stage("shapes", _WHOLE_TEXT_RULES),
    Stage("assignments", _ASSIGNMENT_RULES, anchor=_SECRET_STEM, following_lines=1),
)


# ---------------------------------------------------------------------------------------------------
# Public API


def _apply_rules(rules: tuple[Rule, ...], text: str) -> str:
    lowered: str | None = None
    for rule in rules:
        if rule.needles:
            lowered = text.lower() if lowered is None else lowered
            if not any(needle in lowered for needle in rule.needles):
                continue
        updated = _apply_rule(rule, text)
        if updated != text:
            text, lowered = updated, None
    return text


# What a value must hold to hide a match of its own (a secret-name stem or a header word).
_NESTED_HINT = re.compile(r"pass|pwd|secret|credential|key|token|auth|ak|sk|cookie|bearer")


def _apply_rule(rule: Rule, text: str) -> str:
    if rule.rescan_group is None:
        return rule.pattern.sub(rule.replace, text)
    rescan_group = rule.rescan_group
    nested = False

    def replace(match: re.Match[str]) -> str:
        nonlocal nested
        replacement = rule.replace(match)
        if not nested and replacement == match.group(0):
            nested = _NESTED_HINT.search(match.group(rescan_group).lower()) is not None
        return replacement

    updated = rule.pattern.sub(replace, text)
    # Rare: a value left alone may hide another match; search again, match by match.
    return _substitute(rule, updated, rescan_group) if nested else updated


def _substitute(rule: Rule, text: str, rescan_group: str) -> str:
    """`rule.pattern.sub(rule.replace, text)`, but an unchanged match is searched again from a group."""
    pieces: list[str] = []
    copied_to = 0
    search_from = 0
    while (match := rule.pattern.search(text, search_from)) is not None:
        replacement = rule.replace(match)
        if replacement == match.group(0):
            search_from = max(match.start(rescan_group), match.start() + 1)
            continue
        pieces.append(text[copied_to : match.start()])
        pieces.append(replacement)
        copied_to = search_from = match.end()
    pieces.append(text[copied_to:])
    return "".join(pieces)


def _anchored_windows(text: str, anchor: re.Pattern[str], following_lines: int) -> list[tuple[int, int]]:
    """Merged (start, end) spans of the lines where `anchor` matches, plus the lines after them."""
    lowered = text.lower()
    if len(lowered) != len(text):  # rare Unicode whose lower case changes length: take all of it
        return [(0, len(text))] if anchor.search(lowered) else []
    windows: list[tuple[int, int]] = []
    position = 0
    while (found := anchor.search(lowered, position)) is not None:
        start = text.rfind("\n", 0, found.start()) + 1
        line_end = _line_end(text, found.end())
        end = line_end
        for _ in range(following_lines):
            end = _line_end(text, end)
        if windows and start <= windows[-1][1]:
            windows[-1] = (windows[-1][0], max(end, windows[-1][1]))
        else:
            windows.append((start, end))
        position = line_end  # the next line may hold an anchor of its own
        if position >= len(text):
            break
    return windows


def _line_end(text: str, position: int) -> int:
    """The index just past the newline ending the line at `position` (or the text's end)."""
    newline = text.find("\n", position)
    return len(text) if newline < 0 else newline + 1


def _apply_stage(stage: Stage, text: str) -> str:
    if stage.anchor is None:
        return _apply_rules(stage.rules, text)
    windows = _anchored_windows(text, stage.anchor, stage.following_lines)
    if not windows:
        return text
    pieces: list[str] = []
    position = 0
    for start, end in windows:
        pieces.append(text[position:start])
        pieces.append(_apply_rules(stage.rules, text[start:end]))
        position = end
    pieces.append(text[position:])
    return "".join(pieces)


def mask(text: str) -> str:
    """Mask every secret and IP address in `text`; idempotent (`mask(mask(x)) == mask(x)`)."""
    if not text or not isinstance(text, str):
        return text
    for stage in STAGES:
        text = _apply_stage(stage, text)
    return text


_PAIR_NAME_KEYS = ("name", "Name", "key", "Key")
_PAIR_VALUE_KEYS = ("value", "Value")


def mask_obj(value: T) -> T:
    """Mask every string inside dicts, lists and tuples; dict keys are kept.

    A dict key that names a secret masks its value whatever it is (nested structures keep their shape,
    every string or number inside is masked). A `{"name": "HF_TOKEN", "value": …}` pair (how Run:ai
    specs and Kubernetes carry environment variables) masks its value. In a list of strings, the item
    after a secret-named `--flag` is masked (argv). Other types are returned unchanged.
    """
    return cast(T, _mask_any(value, forced_kind=None))


def _mask_any(value: Any, *, forced_kind: str | None) -> Any:
    if isinstance(value, str):
        if forced_kind is not None:
            return _mask_value(value, forced_kind) if value.strip() else value
        return mask(value)
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        return masked(forced_kind) if forced_kind is not None else value
    if isinstance(value, dict):
        return _mask_dict(value, forced_kind=forced_kind)
    if isinstance(value, list):
        return _mask_sequence(value, forced_kind=forced_kind)
    if isinstance(value, tuple):
        return tuple(_mask_sequence(list(value), forced_kind=forced_kind))
    return value


def _mask_dict(data: dict[Any, Any], *, forced_kind: str | None) -> dict[Any, Any]:
    pair_kind = None
    if forced_kind is None:
        for name_key in _PAIR_NAME_KEYS:
            pair_name = data.get(name_key)
            if isinstance(pair_name, str) and any(k in data for k in _PAIR_VALUE_KEYS):
                pair_kind = secret_kind(pair_name)
                if pair_kind is not None:
                    break
    result: dict[Any, Any] = {}
    for key, item in data.items():
        kind = forced_kind
        if kind is None and isinstance(key, str):
            if pair_kind is not None and key in _PAIR_VALUE_KEYS:
                kind = pair_kind
            else:
                kind = _dict_key_kind(key, item)
        result[key] = _mask_any(item, forced_kind=kind)
    return result


def _dict_key_kind(key: str, item: Any) -> str | None:
    kind = secret_kind(key)
    if kind is None:
        return None
    if isinstance(item, str):
        if _names_a_location(key, item):
            return None
        if _normalised_name(key) in _AUTHORIZATION_NAMES and item.lower().startswith("bearer "):
            return "bearer"
    return kind


def _mask_sequence(items: list[Any], *, forced_kind: str | None) -> list[Any]:
    result: list[Any] = []
    previous: Any = None
    for item in items:
        kind = forced_kind if forced_kind is not None else _argv_value_kind(previous, item)
        result.append(_mask_any(item, forced_kind=kind))
        previous = item
    return result


def _argv_value_kind(flag: Any, item: Any) -> str | None:
    """`["--hf-token", "hf_…"]`: the item after a secret-named flag is its value (argv)."""
    if not isinstance(flag, str) or not isinstance(item, str):
        return None
    if not flag.startswith("--") or "=" in flag or item.startswith("--"):
        return None
    return _assignment_kind(flag, item)


def mask_diagnosis(diagnosis: Diagnosis) -> Diagnosis:
    """A copy of `diagnosis` with every string masked; numbers untouched."""
    data: Any = mask_obj(diagnosis.model_dump(mode="json", by_alias=True))
    return Diagnosis.model_validate(data)


class MaskingFilter(logging.Filter):
    """Masks each log record so the product's own log lines never carry a secret.

    The message is rendered (`msg % args`), masked and stored back with the args cleared; exception
    and stack text are formatted and masked too (formatters reuse `record.exc_text`). Attach it to
    the handlers (a logger's filters do not see records propagated from child loggers).
    """

    _formatter = logging.Formatter()

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a bad format string must not lose the line, nor let args through unmasked
            message = f"{record.msg} {record.args!r}" if record.args else str(record.msg)
        record.msg = mask(message)
        record.args = ()
        if record.exc_info and not record.exc_text:
            record.exc_text = self._formatter.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = mask(record.exc_text)
        if record.stack_info:
            record.stack_info = mask(record.stack_info)
        return True

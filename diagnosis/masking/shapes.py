"""Secrets recognised by their shape or by the header that carries them, anywhere in the text.

`Authorization` header values (the scheme word stays readable), `Bearer <token>`, JWTs, Slack,
GitHub, GitLab, Hugging Face, OpenAI-style `sk-…`, Google (`AIza…` API keys, `ya29.…` OAuth
access tokens) and PyPI (`pypi-…`) tokens, AWS key ids, the AK of a Huawei signer header
(`Access=<AK>`) and a bare Huawei AK (20 upper-case letters and digits), Azure storage connection
string parts (`AccountKey=`, `SharedAccessSignature=`), and the token headers of Huawei IAM, Vault,
GitLab and API gateways (`X-Auth-Token`, `X-Subject-Token`, `X-Security-Token`, `PRIVATE-TOKEN`…).
"""

from __future__ import annotations

import re

from diagnosis.masking.markers import is_masked, mask_value, masked
from diagnosis.masking.names import normalised_name
from diagnosis.masking.rules import AnyRule, KeyedRule, Rule, constant, value_as

_AUTH_SCHEME = (
    r"(?i:bearer|basic|digest|token|negotiate|ntlm|oauth|jwt|[a-z0-9]+(?:-[a-z0-9]+)*-hmac-[a-z0-9]+)"
)


def begins_line(text: str, start: int) -> bool:
    """Only blanks (or a YAML `- `, or `{`, `,`, `;` and blanks) stand before `start` on its line
    (looking back a bounded distance, so that a long line costs no more than a short one)."""
    window_start = max(0, start - 64)
    before = text[window_start:start]
    newline = before.rfind("\n")
    if newline >= 0:
        before = before[newline + 1 :]
    stripped = before.strip()
    return stripped in ("", "-") or stripped.endswith(("{", ",", ";"))


def _authorization_kind(key: re.Match[str], value: str) -> str | None:
    credential = value.rstrip()
    if not credential or is_masked(credential):
        return None
    scheme = (key["scheme"] or "").strip().lower()
    if not scheme and not key["keyquote"] and not begins_line(key.string, key.start()):
        # `… may require authorization: server message: …` is prose, not a header.
        return None
    return {"bearer": "bearer", "basic": "password"}.get(scheme, "token")


def _mask_whole_value(key: re.Match[str], value: re.Match[str], kind: str) -> str:
    return mask_value(value.group(0), kind)


def _looks_like_credential(value: str) -> bool:
    """A bearer value rather than a prose word (`Bearer realm=…`, `bearer token expired`)."""
    stripped = value.rstrip("=")
    if len(stripped) >= 20:
        return True
    return len(stripped) >= 6 and any(c.isdigit() for c in stripped)


def _bearer_kind(key: re.Match[str], value: str) -> str | None:
    return "bearer" if _looks_like_credential(value) else None


def _marker(key: re.Match[str], value: re.Match[str], kind: str) -> str:
    return masked(kind)


_AZURE_KINDS = {"accountkey": "sk", "sharedaccesskey": "sk", "sharedaccesssignature": "token"}


def _replace_access_key(match: re.Match[str]) -> str:
    candidate = match.group(0)
    if candidate.isdigit() or candidate.isalpha():
        return candidate
    return masked("ak")


def _replace_azure(match: re.Match[str]) -> str:
    return value_as(_AZURE_KINDS[match["key"].lower()])(match)


# Header names that carry a credential whatever comes before them (normalised).
_TOKEN_HEADERS = frozenset(
    {
        "x_auth_token",
        "x_subject_token",
        "x_security_token",
        "x_vault_token",
        "private_token",
        "x_api_key",
        "x_goog_api_key",
        "api_key",
        "ocp_apim_subscription_key",
        "x_functions_key",
    }
)


def _token_header_kind(key: re.Match[str], value: str) -> str | None:
    if normalised_name(key["key"]) not in _TOKEN_HEADERS or is_masked(value):
        return None
    return "api_key" if normalised_name(key["key"]).endswith("key") else "token"


SHAPE_RULES: tuple[AnyRule, ...] = (
    KeyedRule(
        "authorization",
        (
            r"(?P<key>(?i:authorization))(?<![A-Za-z0-9_](?i:authorization))"
            r"(?P<keyquote>\\?[\"'])?[ \t]*[:=][ \t]*\\?[\"']?"
            r"(?P<scheme>" + _AUTH_SCHEME + r"[ \t]+)?"
        ),
        # The credential runs to the line end, a quote, a backtick or `|` (the gateway's
        # canonical-request dump writes `|` for newlines).
        r"(?:[^\r\n\"'`|\\]++|\\(?![\\\"'nrt]))+",
        _authorization_kind,
        _mask_whole_value,
        needles=("authorization",),
    ),
    KeyedRule(
        "token_header",
        (
            r"(?P<key>(?i:x-auth-token|x-subject-token|x-security-token|x-vault-token|private-token|"
            r"x-api-key|x-goog-api-key|api-key|ocp-apim-subscription-key|x-functions-key))"
            r"(?<![A-Za-z0-9_](?i:x-auth-token))\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?"
        ),
        r"[^\s\"'\\,;]+",
        _token_header_kind,
        _marker,
        needles=("-token", "-key"),
    ),
    Rule(
        "jwt",
        r"eyJ(?<![A-Za-z0-9_\-]eyJ)[A-Za-z0-9_\-]{4,}\.eyJ[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]*",
        constant("jwt"),
        needles=("eyj",),
    ),
    Rule(
        "slack_token",
        r"x(?<![A-Za-z0-9_\-]x)(?:ox[a-z](?:\.xox[a-z])?|app)-[A-Za-z0-9\-]{6,}",
        constant("slack_token"),
        needles=("xox", "xapp-"),
    ),
    Rule(
        "github_token",
        r"g(?<![A-Za-z0-9_]g)(?:h[pousr]_[A-Za-z0-9]{20,}|ithub_pat_[A-Za-z0-9_]{20,})",
        constant("token"),
        needles=("gh", "github_pat_"),
    ),
    Rule(
        "gitlab_token",
        r"glpat-(?<![A-Za-z0-9_\-]glpat-)[A-Za-z0-9_\-]{20,}",
        constant("token"),
        needles=("glpat-",),
    ),
    Rule(
        "huggingface_token",
        r"hf_(?<![A-Za-z0-9_]hf_)[A-Za-z0-9]{20,}",
        constant("token"),
        needles=("hf_",),
    ),
    Rule(
        "sk_key",
        # OpenAI-style keys and the SK of the signer docs (`sk-test-example-secret`).
        r"sk-(?<![A-Za-z0-9_\-]sk-)[A-Za-z0-9][A-Za-z0-9_\-]{14,}",
        constant("sk"),
        needles=("sk-",),
    ),
    Rule(
        "google_oauth_token",
        # OAuth 2.0 access tokens of Google accounts and service accounts (`ya29.a0…`, `ya29.c.…`).
        r"ya29\.(?<![A-Za-z0-9_\-.]ya29\.)[0-9A-Za-z_\-.]{20,}",
        constant("token"),
        needles=("ya29.",),
    ),
    Rule(
        "pypi_token",
        # PyPI API tokens are macaroons: `pypi-` and base64url (https://pypi.org/help/#apitoken).
        r"pypi-(?<![A-Za-z0-9_\-]pypi-)[A-Za-z0-9_\-]{50,}",
        constant("token"),
        needles=("pypi-",),
    ),
    Rule(
        "aws_key",
        r"A(?<![A-Za-z0-9]A)(?:KIA|SIA|GPA|IDA|ROA|IPA|NPA|NVA|BIA|CCA)[A-Z0-9]{16}(?![A-Za-z0-9])",
        constant("aws_key"),
        needles=("akia", "asia", "agpa", "aida", "aroa", "aipa", "anpa", "anva", "abia", "acca"),
    ),
    Rule(
        "google_api_key",
        r"AIza(?<![A-Za-z0-9_\-]AIza)[0-9A-Za-z_\-]{35}(?![A-Za-z0-9_\-])",
        constant("api_key"),
        needles=("aiza",),
    ),
    KeyedRule(
        "bearer",
        r"(?i:bearer)(?<![A-Za-z0-9_\-](?i:bearer))[ \t]+(?!\[MASKED)",
        r"[A-Za-z0-9\-._~+/]+=*",
        _bearer_kind,
        _marker,
        needles=("bearer",),
    ),
    Rule(
        "signer_access_key",
        # `SDK-HMAC-SHA256 Access=<AK>, …` outside a header (e.g. quoted in a gateway error).
        r"Access=(?<![A-Za-z0-9_\-]Access=)(?P<value>[A-Z0-9]{10,64})(?![A-Za-z0-9])",
        value_as("ak"),
        needles=("access=",),
    ),
    Rule(
        "azure_connection_string",
        # `DefaultEndpointsProtocol=https;AccountName=…;AccountKey=…;EndpointSuffix=…` and SAS
        # connection strings (`SharedAccessSignature=sv=…&sig=…`): a part ends at `;`.
        (
            r"(?P<key>(?i:AccountKey|SharedAccessKey|SharedAccessSignature))"
            r"(?<![A-Za-z0-9_](?i:AccountKey))(?<![A-Za-z0-9_](?i:SharedAccessKey))"
            r"(?<![A-Za-z0-9_](?i:SharedAccessSignature))[ \t]*=[ \t]*(?P<value>[^;\s\"'\\]+)"
        ),
        _replace_azure,
        needles=("accountkey", "sharedaccess"),
    ),
    Rule(
        "huawei_access_key",
        # A Huawei Cloud AK: 20 upper-case letters and digits (at least one of each), standing alone.
        r"[A-Z0-9](?<![A-Za-z0-9+/=_\-][A-Z0-9])[A-Z0-9]{19}(?![A-Za-z0-9+/_\-]|=[A-Za-z0-9])",
        _replace_access_key,
    ),
)

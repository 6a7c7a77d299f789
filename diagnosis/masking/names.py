"""Which names name a secret, and with which marker kind.

A name is normalised to snake_case (`secretAccessKey`, `X-Auth-Token`, `--hf_token` →
`secret_access_key`, `x_auth_token`, `hf_token`); it names a secret when it contains a stem
(`password`, `secret`, `access_key`, …), when one of its components is a credential word
(`token`, `auth`, `pwd`, `ak`, `sk`, …: never `max_new_tokens`, `--tokenizer`, `author`), or when
a `key` component follows a word that makes it a credential (`AccountKey`, `--wandb_key`,
`SUBSCRIPTION_KEY`, but not `sort_key`, `cache_key`, `object_key`). Key names written in Chinese
or Japanese (`密码`, `口令`, `密钥`, `令牌`, `パスワード`, …) name a secret when they end with one
of those words (`数据库密码`, but not `密码错误`, "wrong password").
"""

from __future__ import annotations

import itertools
import re
from functools import lru_cache

# Substrings of the normalised name, checked in order; the first gives the kind.
SECRET_STEMS: tuple[tuple[str, str], ...] = (
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
    # Azure SAS (`SharedAccessSignature=sv=…&sig=…`) and Huawei STS JSON (`"securitytoken"`).
    ("access_signature", "token"),
    ("securitytoken", "token"),
    ("credential", "secret"),
    ("secret", "secret"),
)
# Whole components: `HF_TOKEN`, `--auth-token`, `X-Auth-Token`, `HUAWEICLOUD_SDK_AK`, the `[basic]
# ak / sk` keys of ~/.huaweicloud/credentials; never `max_new_tokens`, `--tokenizer`, `author`.
SECRET_COMPONENTS: dict[str, str] = {
    "token": "token",
    "auth": "token",
    "authorization": "token",
    "cookie": "token",
    "pwd": "password",
    "ak": "ak",
    "sk": "sk",
}
# Words before a `key` component that make it a credential: storage account keys (Azure
# `AccountKey`, `--account-key`), API keys of ML services (`--wandb_key`, `COMET_KEY`), keys that
# sign or encrypt. A `key` alone, or after any other word (`sort_key`, `object_key`), is no secret.
KEY_QUALIFIERS: dict[str, str] = {
    "account": "sk",
    "storage": "sk",
    "shared": "sk",
    "master": "sk",
    "hmac": "sk",
    "signing": "sk",
    "encryption": "sk",
    "decryption": "sk",
    "client": "api_key",
    "consumer": "api_key",
    "license": "api_key",
    "subscription": "api_key",
    "service": "api_key",
    "app": "api_key",
    "wandb": "api_key",
    "comet": "api_key",
    "neptune": "api_key",
    "openai": "api_key",
    "anthropic": "api_key",
    "cohere": "api_key",
    "kaggle": "api_key",
    "pinecone": "api_key",
    "mlflow": "api_key",
    "clearml": "api_key",
    "ssh": "private_key",
    "gpg": "private_key",
    "pgp": "private_key",
    "session": "token",
    "sas": "token",
}
# Key names in Chinese and Japanese, with their kind: the name must end with one of them.
CJK_SECRET_WORDS: tuple[tuple[str, str], ...] = (
    ("密码", "password"),
    ("口令", "password"),
    ("パスワード", "password"),
    ("暗証番号", "password"),
    ("秘密鍵", "private_key"),
    ("私钥", "private_key"),
    ("密钥", "sk"),
    ("秘钥", "sk"),
    ("令牌", "token"),
    ("トークン", "token"),
    ("凭证", "secret"),
    ("凭据", "secret"),
)
# A key ending in one of these names a place, not the secret itself, when its value is a path or URL
# (`--password-file /run/secrets/pw`, `GOOGLE_APPLICATION_CREDENTIALS_FILE=…`, `auth_url=https://…`).
LOCATION_COMPONENTS = frozenset({"file", "path", "dir", "directory", "url", "uri", "endpoint"})
LOOKS_LIKE_LOCATION = re.compile(r"(?:/|~/|\./|\.\./|[A-Za-z]:\\|[A-Za-z][A-Za-z0-9+.\-]*://)")
# `KEY: value` at the start of a line is also how a traceback ends (`InvalidTokenError: …`): an
# exception name is never an assignment key, so its message stays readable.
EXCEPTION_NAME = re.compile(r"(?:Error|Exception|Warning|Failure|Exit|Interrupt)$")
AUTHORIZATION_NAMES = frozenset({"authorization", "proxy_authorization"})

_CAMEL_LOWER_UPPER = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_CAMEL_ACRONYM_END = re.compile(r"(?<=[A-Z])(?=[A-Z][a-z])")
_NON_ALNUM = re.compile(r"[^a-z0-9]+")


@lru_cache(maxsize=8192)
def normalised_name(name: str) -> str:
    """`secretAccessKey` / `X-Auth-Token` / `--hf_token` → `secret_access_key` / `x_auth_token` / `hf_token`."""
    spaced = _CAMEL_ACRONYM_END.sub("_", _CAMEL_LOWER_UPPER.sub("_", name))
    return _NON_ALNUM.sub("_", spaced.lower()).strip("_")


@lru_cache(maxsize=8192)
def secret_kind(name: str) -> str | None:
    """The mask kind when `name` names a secret, else None."""
    cjk = cjk_secret_kind(name)
    if cjk is not None:
        return cjk
    normalised = normalised_name(name)
    if not normalised:
        return None
    for stem, kind in SECRET_STEMS:
        if stem in normalised:
            return kind
    components = normalised.split("_")
    for component in components:
        if component in SECRET_COMPONENTS:
            return SECRET_COMPONENTS[component]
    for before, component in itertools.pairwise(components):
        if component == "key" and before in KEY_QUALIFIERS:
            return KEY_QUALIFIERS[before]
    return None


def cjk_secret_kind(name: str) -> str | None:
    """`数据库密码` → `password`; `密码错误` ("wrong password") → None."""
    stripped = name.rstrip(" \t")
    if not stripped or stripped.isascii():
        return None
    for word, kind in CJK_SECRET_WORDS:
        if stripped.endswith(word):
            return kind
    # `访问密钥ID` (access key id), `令牌值` (token value): one trailing qualifier word.
    for suffix in ("ID", "Id", "id", "值"):
        if stripped.endswith(suffix):
            return cjk_secret_kind(stripped[: -len(suffix)])
    return None


def is_secret_name(name: str) -> bool:
    return secret_kind(name) is not None


def names_a_location(name: str, value: str) -> bool:
    """A secret-named key that holds where a secret lives (a path or URL), not the secret."""
    normalised = normalised_name(name)
    last = normalised.rsplit("_", 1)[-1]
    if name.lstrip("-") == "PWD":  # the shell's working directory, not a password
        return value.startswith("/")
    return last in LOCATION_COMPONENTS and bool(LOOKS_LIKE_LOCATION.match(value))


@lru_cache(maxsize=8192)
def text_key_kind(key: str) -> str | None:
    """The kind of a key met in text (`--auth-token`, `HF_TOKEN`), else None.

    `Authorization` is left to its own rule (which keeps the scheme word), and an exception name
    (`InvalidTokenError: …` ends a traceback) is never a key.
    """
    bare_key = key.lstrip("-")
    if EXCEPTION_NAME.search(bare_key) or normalised_name(bare_key) in AUTHORIZATION_NAMES:
        return None
    return secret_kind(bare_key)

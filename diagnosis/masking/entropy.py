"""A second layer for shapes no rule names: a random-looking word next to a credential word.

`loaded secret eEQVSmZ1…`, `exec plugin: token nEQik…`, kaggle.json's `"key":"35nRCF…"`: after a
credential word (`token`, `secret`, `password`, `credential`, `api key`, `access key`, `auth`,
`login`, a JSON `key`), optionally followed by `:`, `=`, quotes or `is`, a word of 16 or more
base64/url-safe characters whose Shannon entropy is high and which mixes letters with digits (or
upper with lower case) is masked. What a diagnosis needs stays readable: words of one character
class (`unexpected`, `tokenization_failed`), paths, URLs, dotted names (`torch.nn.functional`),
file names, UUIDs, and hex digests (commit ids, `sha256:` image digests) unless the credential
word is `token`, `secret`, `password` or `key` right before them.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from diagnosis.masking.markers import MASK_PREFIX, masked
from diagnosis.masking.rules import Rule, splice

_CONTEXT = re.compile(
    r"(?i)(?<![\w\-])(?P<word>tokens?|secrets?|passwords?|passwd|passphrase|pwd|credentials?|"
    r"api[ _\-]?keys?|access[ _\-]?keys?|secret[ _\-]?keys?|private[ _\-]?keys?|keys?|auth|login|apikey)"
    r"(?![\w\-])(?P<gap>\\?[\"']?[ \t]*(?:[:=][ \t]*)?\\?[\"']?|[ \t]+(?:is|was|of|=|:)[ \t]+)"
    r"(?P<value>[A-Za-z0-9+/_\-.~]{16,}={0,2})(?![A-Za-z0-9+/_\-.~=\[])"
)
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_HEX = re.compile(r"[0-9a-f]+|[0-9A-F]+")
_DOTTED_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
_FILE_NAME = re.compile(
    r".*\.(?:py|json|ya?ml|txt|log|sh|cfg|ini|toml|model|bin|pt|pth|safetensors|gguf|ckpt|csv|tar|gz|zip)$"
)
_WORDLIKE = re.compile(r"[A-Za-z]+(?:[_\-][A-Za-z]+)*[0-9]{0,4}")
# A hex value counts only after a word that says it is a credential (a W&B or Jupyter key is hex;
# after `login` or `auth` hex is more often a commit or a digest).
_HEX_CREDENTIAL_WORDS = frozenset(
    {"token", "tokens", "secret", "secrets", "password", "passwords", "key", "keys"}
)
_MIN_ENTROPY = 3.6


def shannon_entropy(text: str) -> float:
    counts = Counter(text)
    length = len(text)
    return -sum(count / length * math.log2(count / length) for count in counts.values())


def _plainly_not_a_secret(value: str, core: str) -> bool:
    """Short values, paths, URLs, masks, UUIDs, dotted names, file names, words and word paths."""
    if len(core) < 16 or value.startswith(("/", "./", "~", MASK_PREFIX)) or "://" in value:
        return True
    if _UUID.fullmatch(core) or _DOTTED_NAME.fullmatch(core) or _FILE_NAME.match(core):
        return True
    if _WORDLIKE.fullmatch(core):
        return True
    # a path of words (`team-a/hf-credentials` has a dash, also a word path)
    return "/" in core and all(part.isalpha() for part in core.split("/") if part)


def _mixes_character_classes(core: str) -> bool:
    """Digits with letters, or upper with lower case letters."""
    has_digit = any(char.isdigit() for char in core)
    has_upper = any(char.isupper() for char in core)
    has_lower = any(char.islower() for char in core)
    return (has_digit and (has_upper or has_lower)) or (has_upper and has_lower)


def looks_random(value: str, *, context_word: str) -> bool:
    """A credential rather than a word a diagnosis needs (see the module docstring)."""
    core = value.rstrip("=")
    if _plainly_not_a_secret(value, core):
        return False
    if _HEX.fullmatch(core):
        return context_word.lower() in _HEX_CREDENTIAL_WORDS and len(core) >= 32
    if not _mixes_character_classes(core):
        return False
    threshold = min(_MIN_ENTROPY, 0.8 * math.log2(len(core)))
    return shannon_entropy(core) >= threshold


def _replace(match: re.Match[str]) -> str:
    if not looks_random(match["value"], context_word=match["word"]):
        return match.group(0)
    kind = "token"
    word = match["word"].lower()
    if word.startswith(("pass", "pwd")):
        kind = "password"
    elif word.startswith(("secret", "credential", "private")):
        kind = "secret"
    elif "key" in word:
        kind = "api_key"
    return splice(match, "value", masked(kind))


ENTROPY_RULE = Rule(
    "entropy_near_credential_word",
    _CONTEXT,
    _replace,
    needles=("token", "secret", "pass", "pwd", "credential", "key", "auth", "login"),
)

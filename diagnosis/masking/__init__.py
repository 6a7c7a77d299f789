"""No secret leaves: one masking function for every string the product emits.

Secrets become `[MASKED:<kind>]`; IP addresses become `ip-` + the first 8 hex digits of the SHA-256 of
the address, so two hosts stay distinguishable without being named (loopback and unspecified
addresses, the same on every machine, stay as they are). Masking is idempotent and keeps the words
that carry a diagnosis: exception names, error codes (`APIGW.0306`, `ModelArts.0010`), reasons
(`OOMKilled`), exit codes, file paths, version numbers, UUIDs and timestamps.

`mask(text)`, in order, each step linear in the length of the text:

1. `normalise`: control and invisible characters (and terminal escapes) are taken out;
2. `blocks`: private key blocks become one marker;
3. `prefilter`: one RE2 pass finds the lines that can hold anything to mask; everything else is
   returned as it is, which is what makes ordinary log text fast;
4. on those lines (a window: a hit's line with the line before and after, and wrapped lines):
   the rules: `addresses`, %-encoded words (`urls`), `urls`, `shapes`, `commands`, `assignments`,
   and last `entropy` (a random-looking word next to a credential word, for shapes no rule names);
   then `wrapping` masks the rest of a secret wrapped onto the next lines.

Every rule leaves an existing `[MASKED:…]` marker alone, which is what makes `mask` idempotent.
`mask_obj` walks parsed JSON (bundles, API answers): a secret-named dict key masks its value
whatever it is, and env pairs and argv lists are read as such (see `structured`).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TypeVar

from diagnosis.masking import structured
from diagnosis.masking.addresses import ADDRESS_RULES, ip_token
from diagnosis.masking.assignments import ASSIGNMENT_RULES
from diagnosis.masking.blocks import mask_private_keys
from diagnosis.masking.commands import COMMAND_RULES
from diagnosis.masking.entropy import ENTROPY_RULE
from diagnosis.masking.logs import MaskingFilter, mask_root_logging
from diagnosis.masking.markers import MASK_PREFIX, MASKED_TOKEN, masked
from diagnosis.masking.names import is_secret_name, secret_kind
from diagnosis.masking.normalise import normalise, normalise_ascii
from diagnosis.masking.prefilter import windows
from diagnosis.masking.rules import AnyRule, apply_rules
from diagnosis.masking.shapes import SHAPE_RULES
from diagnosis.masking.urls import URL_RULE, encoded_rule, mask_url
from diagnosis.masking.wrapping import continue_wrapped
from diagnosis.models import Diagnosis

__all__ = [
    "MASKED_TOKEN",
    "MASK_PREFIX",
    "MaskingFilter",
    "compile_rules",
    "forget_cached",
    "ip_token",
    "is_secret_name",
    "mask",
    "mask_diagnosis",
    "mask_obj",
    "mask_root_logging",
    "mask_url",
    "masked",
    "secret_kind",
]

T = TypeVar("T")

# Texts up to this length are cached (masking is a pure function of the text).
_SHORT = 512

# The rules after the addresses, in order (a %-encoded word is decoded and masked by all of them).
_TEXT_RULES: tuple[AnyRule, ...] = (
    URL_RULE,
    *SHAPE_RULES,
    *COMMAND_RULES,
    *ASSIGNMENT_RULES,
    ENTROPY_RULE,
)


@lru_cache(maxsize=4096)
def _mask_decoded(text: str) -> str:
    """The rules on the text a %-encoded word stands for (no further decoding)."""
    return apply_rules(_TEXT_RULES, apply_rules(ADDRESS_RULES, text))


# Addresses go first: later rules then see `ip-…` tokens on the first pass just as they would on a
# second one (`xoxb-10.0.0.1` must not turn into a Slack token only when masked again).
_WINDOW_RULES: tuple[AnyRule, ...] = (*ADDRESS_RULES, encoded_rule(_mask_decoded), *_TEXT_RULES)


def _mask_lines(text: str) -> str:
    return apply_rules(_WINDOW_RULES, text)


def _mask_window(text: str) -> str:
    if len(text) <= _SHORT:
        return _mask_short_window(text)
    return continue_wrapped(text, _mask_lines(text), _mask_lines)


@lru_cache(maxsize=16384)
def _mask_short_window(text: str) -> str:
    """Windows repeat (the same NCCL line with the same address on every rank): masked once."""
    return continue_wrapped(text, _mask_lines(text), _mask_lines)


def _mask_normalised(text: str, data: bytes) -> str:
    if b"-----BEGIN " in data:
        text = mask_private_keys(text)
        data = text.encode("utf-8", "surrogatepass")
    spans = windows(text, data)
    if not spans:
        return text
    pieces: list[str] = []
    position = 0
    for start, end in spans:
        pieces.append(text[position:start])
        pieces.append(_mask_window(text[start:end]))
        position = end
    pieces.append(text[position:])
    return "".join(pieces)


@lru_cache(maxsize=16384)
def _mask_short(text: str) -> str:
    return _mask_text(text)


def _mask_text(text: str) -> str:
    if text.isascii():
        text, data = normalise_ascii(text, text.encode("ascii"))
        return _mask_normalised(text, data)
    return _mask_normalised(*normalise(text, text.encode("utf-8", "surrogatepass")))


def compile_rules() -> None:
    """Compile every rule's patterns now (each is otherwise compiled the first time it runs)."""
    for rule in _WINDOW_RULES:
        rule.compile()


def forget_cached() -> None:
    """Empty the caches of texts masked before (a measurement of masking itself starts cold)."""
    for cached in (_mask_decoded, _mask_short_window, _mask_short):
        cached.cache_clear()


def mask(text: str) -> str:
    """Mask every secret and IP address in `text`; idempotent (`mask(mask(x)) == mask(x)`)."""
    if not text or not isinstance(text, str):
        return text
    if len(text) <= _SHORT:
        return _mask_short(text)
    return _mask_text(text)


def mask_obj(value: T) -> T:
    """Mask every string inside dicts, lists and tuples; dict keys are kept.

    A dict key that names a secret masks its value whatever it is (nested structures keep their shape,
    every string or number inside is masked). A `{"name": "HF_TOKEN", "value": …}` pair (how Run:ai
    specs and Kubernetes carry environment variables) masks its value. In a list of strings, the item
    after a secret-named `--flag` is masked (argv). Other types are returned unchanged.
    """
    return structured.mask_obj(value, mask_text=mask)


def mask_diagnosis(diagnosis: Diagnosis) -> Diagnosis:
    """A copy of `diagnosis` with every string masked; numbers untouched."""
    return structured.mask_diagnosis(diagnosis, mask_text=mask)

"""Masking parsed JSON (bundles, API answers) and diagnoses, where structure says what a value is.

A dict key that names a secret masks its value whatever it is (nested structures keep their shape,
every string or number inside is masked). A `{"name": "HF_TOKEN", "value": …}` pair (how Run:ai
specs and Kubernetes carry environment variables) masks its value. In a list of strings, the item
after a secret-named `--flag` is masked (argv). Every other string goes through `mask`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from diagnosis.masking.markers import mask_value, masked
from diagnosis.masking.names import (
    AUTHORIZATION_NAMES,
    names_a_location,
    normalised_name,
    secret_kind,
    text_key_kind,
)
from diagnosis.models import Diagnosis

T = TypeVar("T")
MaskText = Callable[[str], str]

_PAIR_NAME_KEYS = ("name", "Name", "key", "Key")
_PAIR_VALUE_KEYS = ("value", "Value")


def mask_obj(value: T, *, mask_text: MaskText) -> T:
    """Mask every string inside dicts, lists and tuples; dict keys are kept (see the module docstring).
    Other types are returned unchanged."""
    return cast(T, _mask_any(value, forced_kind=None, mask_text=mask_text))


def _mask_any(value: Any, *, forced_kind: str | None, mask_text: MaskText) -> Any:
    if isinstance(value, str):
        if forced_kind is not None:
            return mask_value(value, forced_kind) if value.strip() else value
        return mask_text(value)
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        return masked(forced_kind) if forced_kind is not None else value
    if isinstance(value, dict):
        return _mask_dict(value, forced_kind=forced_kind, mask_text=mask_text)
    if isinstance(value, list):
        return _mask_sequence(value, forced_kind=forced_kind, mask_text=mask_text)
    if isinstance(value, tuple):
        return tuple(_mask_sequence(list(value), forced_kind=forced_kind, mask_text=mask_text))
    return value


def _mask_dict(data: dict[Any, Any], *, forced_kind: str | None, mask_text: MaskText) -> dict[Any, Any]:
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
        result[key] = _mask_any(item, forced_kind=kind, mask_text=mask_text)
    return result


def _dict_key_kind(key: str, item: Any) -> str | None:
    kind = secret_kind(key)
    if kind is None:
        return None
    if isinstance(item, str):
        if names_a_location(key, item):
            return None
        if normalised_name(key) in AUTHORIZATION_NAMES and item.lower().startswith("bearer "):
            return "bearer"
    return kind


def _mask_sequence(items: list[Any], *, forced_kind: str | None, mask_text: MaskText) -> list[Any]:
    result: list[Any] = []
    previous: Any = None
    for item in items:
        kind = forced_kind if forced_kind is not None else _argv_value_kind(previous, item)
        result.append(_mask_any(item, forced_kind=kind, mask_text=mask_text))
        previous = item
    return result


def _argv_value_kind(flag: Any, item: Any) -> str | None:
    """`["--hf-token", "hf_…"]`: the item after a secret-named flag is its value (argv)."""
    if not isinstance(flag, str) or not isinstance(item, str):
        return None
    if not flag.startswith("--") or "=" in flag or item.startswith("--"):
        return None
    kind = text_key_kind(flag)
    if kind is None or names_a_location(flag.lstrip("-"), item.strip()):
        return None
    return kind


def mask_diagnosis(diagnosis: Diagnosis, *, mask_text: MaskText) -> Diagnosis:
    """A copy of `diagnosis` with every string masked; numbers untouched."""
    data: Any = mask_obj(diagnosis.model_dump(mode="json", by_alias=True), mask_text=mask_text)
    return Diagnosis.model_validate(data)

"""PLACEHOLDER interface; the full implementation replaces this file (rulings G12)."""

from __future__ import annotations

from typing import Any, TypeVar

from diagnosis.models import Diagnosis

T = TypeVar("T")


def mask(text: str) -> str:
    return text


def mask_obj(value: T) -> T:
    return value


def mask_diagnosis(diagnosis: Diagnosis) -> Diagnosis:
    data: Any = mask_obj(diagnosis.model_dump(mode="json", by_alias=True))
    return Diagnosis.model_validate(data)

"""Reading wire values leniently, for the platforms' parse modules: any field may be absent, null
or of an unexpected type, and reading it never raises."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict

_INTEGER = re.compile(r"\s*-?\d+\s*")


def as_int(value: Any) -> int | None:
    """An integer from a number or from its decimal text; None for anything else (`true` too)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and _INTEGER.fullmatch(value):
        return int(value)
    return None


def as_dict(value: Any) -> dict[str, Any]:
    """The object itself, or an empty one for anything else."""
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    """The array itself, or an empty one for anything else."""
    return value if isinstance(value, list) else []


def as_text(value: Any) -> str | None:
    """A scalar as text; None for null, an object, an array or blank text."""
    if value is None or isinstance(value, dict | list):
        return None
    text = str(value)
    return text if text.strip() else None


# --- pydantic field types of lenient views ------------------------------------------------------


def _scalar_text(value: Any) -> str | None:
    if value is None or isinstance(value, dict | list):
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _objects(value: Any) -> list[Any]:
    """A list of objects: null -> [], non-list -> [], non-object items dropped."""
    if not isinstance(value, list):
        return []
    return [item for item in value if isinstance(item, dict)]


def _object(value: Any) -> Any:
    return value if isinstance(value, dict) else None


def _strings(value: Any) -> list[str]:
    if not isinstance(value, list):
        return []
    return [str(item) for item in value if isinstance(item, str | int | float) and not isinstance(item, bool)]


Text = Annotated[str | None, BeforeValidator(_scalar_text)]
Int = Annotated[int | None, BeforeValidator(as_int)]
Strings = Annotated[list[str], BeforeValidator(_strings)]


OBJECTS = BeforeValidator(_objects)
OBJECT = BeforeValidator(_object)


class View(BaseModel):
    """A wire object: unknown fields ignored, every declared field optional."""

    # Built on first use: a diagnosis reads a few of the platforms' views, never all of them.
    model_config = ConfigDict(extra="ignore", populate_by_name=True, defer_build=True)

"""What the contracts' models share: declared fields only in what the product writes, further keys
read past in what it reads, and JSON Schemas that stay open to readers of a later version."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict
from pydantic.json_schema import JsonDict

# Marks a property that the JSON leaves out when unknown; diagnosis.contract_schemas takes it out
# of `required` (and drops the mark) when it writes the schema files.
OMITTED_WHEN_UNKNOWN = "x-omitted-when-unknown"


def omitted_when_unknown(schema: JsonDict) -> None:
    """JSON Schema of an optional field that the JSON leaves out when unknown, never `null`."""
    branches = schema.pop("anyOf", None)
    if isinstance(branches, list):
        kept = [branch for branch in branches if branch != {"type": "null"}]
        if len(kept) == 1 and isinstance(kept[0], dict):
            schema.update(kept[0])
        else:
            schema["anyOf"] = kept
    schema.pop("default", None)
    schema[OMITTED_WHEN_UNKNOWN] = True


def _open_to_readers(schema: JsonDict, model: type[BaseModel] | None = None) -> None:
    """The contracts let a reader meet keys it does not know (a later version may add some), so the
    schemas stay open even though the models themselves write and accept only declared fields."""
    schema["additionalProperties"] = True


class ProductModel(BaseModel):
    """What the product writes: declared fields only (anything else is a programming error).

    The JSON Schemas describe what the product writes: a field with a default is always
    written (null or empty when unknown), so it is required there unless marked above."""

    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
        json_schema_serialization_defaults_required=True,
        json_schema_extra=_open_to_readers,
        # Built on first use: a command builds only the models it reads or writes.
        defer_build=True,
    )


class InputModel(ProductModel):
    """What the product reads from outside (a bundle file): evidence-bundle/v1 allows further keys,
    which are read past and not kept."""

    model_config = ConfigDict(extra="ignore")


def unset(value: object) -> bool:
    return value is None


def keys_where_known(schema: JsonDict, model: type[BaseModel]) -> None:
    """JSON Schema of an object whose keys are each present only where known (null allowed)."""
    schema.pop("required", None)
    _open_to_readers(schema)

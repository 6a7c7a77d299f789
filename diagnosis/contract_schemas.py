"""The JSON Schemas of the two contracts, generated from the pydantic models (diagnosis.models, diagnosis.bundle).

The committed files under `diagnosis/schemas/` are this module's output; a test fails when they
differ from what the models generate. After changing a model, regenerate them:

    python -m diagnosis.contract_schemas          (or `make schemas`)

`--check` exits 1, naming the stale file, instead of writing.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, JsonDict

from diagnosis.bundle import Bundle
from diagnosis.contract_base import OMITTED_WHEN_UNKNOWN
from diagnosis.models import Diagnosis

SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"
DRAFT = "https://json-schema.org/draft/2020-12/schema"


class _ContractSchema(GenerateJsonSchema):
    """pydantic's generator without a title on every field (the field names say it)."""

    def field_title_should_be_set(self, schema: object) -> bool:
        return False


def _drop_omitted_from_required(node: object) -> None:
    """Properties marked `OMITTED_WHEN_UNKNOWN` are optional in the JSON; the mark goes."""
    if isinstance(node, dict):
        properties = node.get("properties")
        if isinstance(properties, dict):
            omitted = {
                name
                for name, prop in properties.items()
                if isinstance(prop, dict) and prop.pop(OMITTED_WHEN_UNKNOWN, False)
            }
            required = node.get("required")
            if omitted and isinstance(required, list):
                kept = [name for name in required if name not in omitted]
                if kept:
                    node["required"] = kept
                else:
                    node.pop("required")
        for value in node.values():
            _drop_omitted_from_required(value)
    elif isinstance(node, list):
        for item in node:
            _drop_omitted_from_required(item)


def _contract(model: type[BaseModel], *, schema_id: str, title: str) -> JsonDict:
    generated = model.model_json_schema(mode="serialization", schema_generator=_ContractSchema)
    _drop_omitted_from_required(generated)
    generated.pop("title", None)
    return {"$schema": DRAFT, "$id": schema_id, "title": title, **generated}


def diagnosis_schema() -> JsonDict:
    return _contract(Diagnosis, schema_id="diagnosis/v1", title="Diagnosis result (diagnosis/v1)")


def bundle_schema() -> JsonDict:
    return _contract(
        Bundle,
        schema_id="evidence-bundle/v1",
        title="Evidence bundle (evidence-bundle/v1): every platform API answer one diagnosis used",
    )


# File name → generator, one row per contract.
SCHEMA_FILES: dict[str, Callable[[], JsonDict]] = {
    "diagnosis.v1.json": diagnosis_schema,
    "evidence-bundle.v1.json": bundle_schema,
}


def schema_text(schema: JsonDict) -> str:
    """The committed form: two-space indent, keys in the models' order, a final newline."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def stale_files(folder: Path = SCHEMA_DIR) -> list[Path]:
    """The schema files under `folder` that are missing or differ from the generated ones."""
    stale = []
    for name, generate in SCHEMA_FILES.items():
        path = folder / name
        if not path.is_file() or path.read_text(encoding="utf-8") != schema_text(generate()):
            stale.append(path)
    return stale


def write_schemas(folder: Path = SCHEMA_DIR) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, generate in SCHEMA_FILES.items():
        path = folder / name
        path.write_text(schema_text(generate()), encoding="utf-8")
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m diagnosis.contract_schemas",
        description="Write (or --check) the contracts' JSON Schemas generated from the models.",
    )
    parser.add_argument("--out", type=Path, default=SCHEMA_DIR, help="folder of the schema files")
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 when a file is stale")
    options = parser.parse_args(argv)
    if options.check:
        stale = stale_files(options.out)
        for path in stale:
            print(f"{path} is stale: run `make schemas` and commit the result", file=sys.stderr)
        return 1 if stale else 0
    for path in write_schemas(options.out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())

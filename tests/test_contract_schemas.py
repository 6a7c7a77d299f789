"""The contracts' JSON Schemas: committed as generated from the models, and they hold the examples."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from diagnosis.contract_schemas import SCHEMA_FILES, main, schema_text, stale_files, write_schemas
from diagnosis.models import Diagnosis
from tests.conftest import EXAMPLES, SCHEMAS, load_json

WORKED = sorted(path.name.removesuffix(".bundle.json") for path in EXAMPLES.glob("*.bundle.json"))


@pytest.mark.parametrize("name", sorted(SCHEMA_FILES))
def test_committed_schema_is_the_generated_one(name: str) -> None:
    committed = (SCHEMAS / name).read_text(encoding="utf-8")
    assert committed == schema_text(SCHEMA_FILES[name]()), (
        f"diagnosis/schemas/{name} differs from the models: run `make schemas` and commit the result"
    )


@pytest.mark.parametrize("name", sorted(SCHEMA_FILES))
def test_schemas_are_valid_draft_2020_12(name: str) -> None:
    schema = load_json(SCHEMAS / name)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)


def test_check_mode_names_a_stale_file_and_write_fixes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_schemas(tmp_path)
    assert stale_files(tmp_path) == []
    assert main(["--check", "--out", str(tmp_path)]) == 0
    stale = tmp_path / "diagnosis.v1.json"
    stale.write_text(stale.read_text(encoding="utf-8").replace('"unreachable",', ""), encoding="utf-8")
    assert main(["--check", "--out", str(tmp_path)]) == 1
    assert "diagnosis.v1.json is stale: run `make schemas`" in capsys.readouterr().err
    assert main(["--out", str(tmp_path)]) == 0
    assert stale_files(tmp_path) == []


def test_the_outcomes_of_the_contract_are_in_the_schema(diagnosis_schema: dict[str, Any]) -> None:
    outcomes = set(diagnosis_schema["properties"]["outcome"]["enum"])
    assert {"diagnosed", "permission_denied", "unreachable", "auth_failed"} <= outcomes
    assert len(outcomes) == 11


def test_the_diagnosis_schema_rejects_what_the_contract_forbids(diagnosis_schema: dict[str, Any]) -> None:
    valid = load_json(EXAMPLES / "runai-preempted.diagnosis.json")
    jsonschema.validate(valid, diagnosis_schema)
    broken: list[dict[str, Any]] = [
        {**valid, "outcome": "maybe"},
        {**valid, "schema": "diagnosis/v2"},
        {key: value for key, value in valid.items() if key != "calls"},
        {**valid, "measurements": {"exit_code": None}},  # unknown measurements are left out, never null
        {**valid, "measurements": {"memory_peak_bytes": "16 GB"}},
        {**valid, "recurrence": {"count": -1, "window": "7d", "recurring": False}},
        {**valid, "questions": [{"key": "workload", "prompt": "Which?", "choices": None}]},
    ]
    for data in broken:
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(data, diagnosis_schema)


def test_the_bundle_schema_rejects_what_the_contract_forbids(bundle_schema: dict[str, Any]) -> None:
    valid = load_json(EXAMPLES / "runai-preempted.bundle.json")
    jsonschema.validate(valid, bundle_schema)
    exchange = valid["exchanges"][0]
    broken: list[dict[str, Any]] = [
        {**valid, "platform": "aws"},
        {key: value for key, value in valid.items() if key != "captured_at"},
        {**valid, "exchanges": [{**exchange, "status": 99}]},
        {**valid, "exchanges": [{"op": exchange["op"], "status": 200}]},  # args missing
        {**valid, "exchanges": [{**exchange, "text": None}]},
    ]
    for data in broken:
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(data, bundle_schema)


@pytest.mark.parametrize("name", WORKED)
def test_worked_examples_hold_to_the_schemas(
    name: str, bundle_schema: dict[str, Any], diagnosis_schema: dict[str, Any]
) -> None:
    jsonschema.validate(load_json(EXAMPLES / f"{name}.bundle.json"), bundle_schema)
    diagnosis = load_json(EXAMPLES / f"{name}.diagnosis.json")
    jsonschema.validate(diagnosis, diagnosis_schema)
    # The model reads the example back to the same JSON (nothing it does not know is lost); the
    # model writes every target key, null where unknown.
    again = Diagnosis.model_validate(diagnosis).to_json_dict()
    target = again.pop("target")
    assert again == {key: value for key, value in diagnosis.items() if key != "target"}
    assert {key: value for key, value in target.items() if key in diagnosis["target"]} == diagnosis["target"]
    assert all(target[key] is None for key in set(target) - set(diagnosis["target"]))


def test_every_worked_example_has_its_three_files() -> None:
    assert len(WORKED) == 5
    for name in WORKED:
        for suffix in (".bundle.json", ".diagnosis.json", ".md"):
            assert (EXAMPLES / f"{name}{suffix}").is_file(), f"{name}{suffix}"
    names = {path.name for path in EXAMPLES.iterdir()}
    assert len(names) == 3 * len(WORKED), sorted(names)


def test_the_schema_files_are_pretty_printed_json() -> None:
    for name in SCHEMA_FILES:
        text = (SCHEMAS / name).read_text(encoding="utf-8")
        assert json.loads(text) and text.endswith("}\n") and '\n  "$id": ' in text

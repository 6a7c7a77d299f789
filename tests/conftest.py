"""Shared fixtures: the product's own contracts (JSON Schemas) and their worked examples."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from diagnosis.contract_schemas import SCHEMA_DIR

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = SCHEMA_DIR
# The worked examples of the contracts: bundle, diagnosis and Markdown report of each.
EXAMPLES = SCHEMAS / "examples"


def load_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def diagnosis_schema() -> dict[str, Any]:
    result: dict[str, Any] = load_json(SCHEMAS / "diagnosis.v1.json")
    return result


@pytest.fixture(scope="session")
def bundle_schema() -> dict[str, Any]:
    result: dict[str, Any] = load_json(SCHEMAS / "evidence-bundle.v1.json")
    return result

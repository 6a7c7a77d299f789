"""Shared fixtures: paths to the shared contracts and examples."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
EXAMPLES = SHARED / "examples"
SCHEMAS = SHARED / "spec" / "schema"


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

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


# The suite runs on pytest-xdist workers (`make unit`). The tests that start real processes and
# measure what a user waits for (the bot's acks and restarts, MCP sessions, the playground's
# browser, the safety figures, the benchmarks' smoke runs) share one worker, one file after
# another, so that two of them never compete for the machine; every other file is a group of
# its own, spread over the remaining workers (module-scoped fixtures are built once per file).
PROCESS_LANE = ("bot", "bench", "mcp_face", "playground", "safety", "blocks/preview")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        relative = item.path.resolve().relative_to(ROOT / "tests").as_posix()
        in_lane = any(relative.startswith(f"{folder}/") for folder in PROCESS_LANE)
        item.add_marker(pytest.mark.xdist_group("processes" if in_lane else relative))

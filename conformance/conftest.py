"""`make conformance SHARED=<folder>`: the product against an outside copy of its contracts.

The folder holds `examples/NAME.bundle.json|.diagnosis.json|.md` and
`spec/schema/{evidence-bundle,diagnosis}.v1.json`. Nothing in `make test` reads it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--shared", default=None, help="folder with examples/ and spec/schema/")


def shared_folder(config: pytest.Config) -> Path:
    value = config.getoption("--shared")
    if not value:
        raise pytest.UsageError("conformance needs --shared <folder> (make conformance SHARED=<folder>)")
    folder = Path(str(value)).resolve()
    for needed in ("examples", "spec/schema/diagnosis.v1.json", "spec/schema/evidence-bundle.v1.json"):
        if not (folder / needed).exists():
            raise pytest.UsageError(f"{folder} has no {needed}")
    return folder


def pytest_configure(config: pytest.Config) -> None:
    config.stash[SHARED_KEY] = shared_folder(config)


SHARED_KEY = pytest.StashKey[Path]()


def shared_examples(config: pytest.Config) -> list[str]:
    folder = config.stash[SHARED_KEY] / "examples"
    return sorted(path.name.removesuffix(".bundle.json") for path in folder.glob("*.bundle.json"))


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "shared_example" in metafunc.fixturenames:
        metafunc.parametrize("shared_example", shared_examples(metafunc.config))


@pytest.fixture(scope="session")
def shared(pytestconfig: pytest.Config) -> Path:
    return pytestconfig.stash[SHARED_KEY]


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="session")
def shared_diagnosis_schema(shared: Path) -> dict[str, Any]:
    return _load(shared / "spec" / "schema" / "diagnosis.v1.json")


@pytest.fixture(scope="session")
def shared_bundle_schema(shared: Path) -> dict[str, Any]:
    return _load(shared / "spec" / "schema" / "evidence-bundle.v1.json")

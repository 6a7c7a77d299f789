"""Helpers for the ModelArts tests: bundle paths, replay, schema checks."""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from diagnosis import engine
from diagnosis.bundle import Bundle
from diagnosis.evidence.bundles import load_bundle, parse_bundle
from diagnosis.models import Diagnosis
from tests.conftest import EXAMPLES as EXAMPLES  # the worked examples, for the ModelArts tests

HERE = Path(__file__).resolve().parent
BUNDLES = HERE / "bundles"
GOLDEN = HERE / "golden"
ROOT = HERE.parent.parent
DEMO_BUNDLES = ROOT / "diagnosis" / "examples" / "modelarts"


# The shared examples were recorded before the platform's documented diagnosis call
# (`ShowTrainingJobUserDiagnosis`) was part of the extended path: compared without it.
USER_DIAGNOSIS = "ShowTrainingJobUserDiagnosis"


def without_user_diagnosis(calls: list[str]) -> list[str]:
    return [call for call in calls if call != USER_DIAGNOSIS]


def before_user_diagnosis(report: str) -> str:
    """A report as it read before the diagnosis call was listed among the `trainJob:get` calls."""
    return report.replace(f"、{USER_DIAGNOSIS}", "")


def bundle_path(name: str) -> Path:
    """A ModelArts bundle by its short name: the product's example, else a test-only bundle."""
    example = DEMO_BUNDLES / f"modelarts-{name}.bundle.json"
    return example if example.exists() else BUNDLES / f"{name}.bundle.json"


def project_of(bundle: Bundle) -> str:
    """The project id a bundle's calls were recorded with (the live client must ask the same)."""
    for exchange in bundle.exchanges:
        if "project_id" in exchange.args:
            return str(exchange.args["project_id"])
    raise ValueError("the bundle records no project id")


def load(name: str) -> Bundle:
    return load_bundle(bundle_path(name))


def raw(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(bundle_path(name).read_text(encoding="utf-8"))
    return data


def variant(name: str, change: Callable[[dict[str, Any]], None]) -> Bundle:
    """A copy of a bundle with one change applied (for families of the same branch)."""
    data = copy.deepcopy(raw(name))
    change(data)
    return parse_bundle(data)


def replay(bundle: Bundle, lang: str = "zh") -> Diagnosis:
    return asyncio.run(engine.replay(bundle, lang=lang))


@pytest.fixture
def check_schema(diagnosis_schema: dict[str, Any]) -> Callable[[Diagnosis], dict[str, Any]]:
    def check(diagnosis: Diagnosis) -> dict[str, Any]:
        data = diagnosis.to_json_dict()
        jsonschema.validate(data, diagnosis_schema)
        return data

    return check

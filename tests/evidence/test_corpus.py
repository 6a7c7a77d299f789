"""Every bundle in the corpus, replayed against the verdict it carries (`expected`).

The corpus is every `*.bundle.json` under the product's examples and the tests' `bundles/`
folders: a new bundle is found here without editing any list, and a bundle without its expected
verdict fails. Only the fields a bundle's `expected` states are compared.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from diagnosis import engine
from diagnosis.bundle import Bundle, Expected
from diagnosis.engine import DEFAULT_LANG
from diagnosis.evidence.bundles import load_bundle
from diagnosis.render import render_markdown
from tests.conftest import ROOT

CORPUS = sorted(
    [
        *(ROOT / "diagnosis" / "examples").rglob("*.bundle.json"),
        *(ROOT / "tests").glob("*/bundles/*.bundle.json"),
    ]
)


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT))


def differences(expected: Expected, got: dict[str, Any], *, report: str = "") -> list[str]:
    """The stated fields of `expected` that the replayed diagnosis (its JSON, and `report`, its
    Markdown) does not match."""
    stated = expected.model_fields_set - {"reason"}
    wrong: list[str] = []
    plain = {"outcome", "route", "category", "confidence", "fault_level", "signature", "calls"}
    for field in sorted(stated & plain):
        if got[field] != getattr(expected, field):
            wrong.append(f"{field}: expected {getattr(expected, field)!r}, got {got[field]!r}")
    if "signature_contains" in stated and (expected.signature_contains or "") not in (got["signature"] or ""):
        wrong.append(
            f"signature: expected to contain {expected.signature_contains!r}, got {got['signature']!r}"
        )
    if "exit_code" in stated and got["measurements"].get("exit_code") != expected.exit_code:
        wrong.append(
            f"exit_code: expected {expected.exit_code!r}, got {got['measurements'].get('exit_code')!r}"
        )
    if "recurrence" in stated:
        want = expected.recurrence.model_dump() if expected.recurrence is not None else None
        have = got["recurrence"]
        if want is None and (have or {}).get("count") is not None:
            wrong.append(f"recurrence: expected none, got {have!r}")
        if want is not None and (have is None or {key: have.get(key) for key in want} != want):
            wrong.append(f"recurrence: expected {want!r}, got {have!r}")
    wrong.extend(_text_differences(expected, got, report=report))
    return wrong


def _text_differences(expected: Expected, got: dict[str, Any], *, report: str) -> list[str]:
    """What a reader must or must not find in the root cause, the evidence, or anywhere."""
    wrong: list[str] = []
    root_cause = got.get("root_cause") or ""
    evidence = [item["text"] for item in got.get("evidence") or []]
    shown = json.dumps(got, ensure_ascii=False) + "\n" + report
    for part in expected.root_cause_contains or []:
        if part not in root_cause:
            wrong.append(f"root_cause: expected to contain {part!r}, got {root_cause!r}")
    for part in expected.root_cause_lacks or []:
        if part in root_cause:
            wrong.append(f"root_cause: expected not to contain {part!r}, got {root_cause!r}")
    for part in expected.evidence_contains or []:
        if not any(part in text for text in evidence):
            wrong.append(f"evidence: expected a text containing {part!r}, got {evidence!r}")
    for part in expected.never_shows or []:
        if part in shown:
            wrong.append(f"output shows {part[:6]!r}… which must never be shown")
    return wrong


def _replay(bundle: Bundle) -> tuple[dict[str, Any], str]:
    diagnosis = asyncio.run(engine.replay(bundle))
    return diagnosis.to_json_dict(), render_markdown(diagnosis, lang=DEFAULT_LANG[bundle.platform])


def test_the_corpus_is_found() -> None:
    platforms = {load_bundle(path).platform for path in CORPUS}
    assert len(CORPUS) >= 70 and platforms == {"runai", "modelarts"}


@pytest.mark.parametrize("path", CORPUS, ids=_name)
def test_bundle_gives_its_expected_verdict(path: Path) -> None:
    bundle = load_bundle(path)
    assert bundle.expected is not None, f"{_name(path)} carries no expected verdict"
    got, report = _replay(bundle)
    assert differences(bundle.expected, got, report=report) == []


def test_a_wrong_expectation_is_reported() -> None:
    """The comparison can fail: a stated field that differs is named, an unstated one is not."""
    got = {
        "outcome": "diagnosed",
        "route": None,
        "category": "OOM_KILLED",
        "confidence": "HIGH",
        "fault_level": None,
        "signature": "OOMKilled",
        "calls": ["get_workload_status"],
        "measurements": {"exit_code": 137},
        "recurrence": {"count": 1, "recurring": False, "window": "7d"},
    }
    right = Expected(outcome="diagnosed", category="OOM_KILLED", signature_contains="OOM", reason="r")
    assert differences(right, got) == []
    wrong = Expected(
        outcome="diagnosed",
        category="NODE_FAILURE",
        exit_code=1,
        recurrence={"count": 2, "recurring": True, "window": "7d"},  # type: ignore[arg-type]
        reason="r",
    )
    assert [line.split(":")[0] for line in differences(wrong, got)] == ["category", "exit_code", "recurrence"]
    told = {
        **got,
        "root_cause": "The init container fetch-weights exited with code 1: RepositoryNotFoundError",
        "evidence": [
            {"source": "k8s.read_pod_log", "field": "line 3", "text": "RepositoryNotFoundError: 401"}
        ],
    }
    said = Expected(
        outcome="diagnosed",
        root_cause_contains=["fetch-weights", "RepositoryNotFoundError"],
        root_cause_lacks=["insufficient"],
        evidence_contains=["401"],
        never_shows=["hf_QeLwTzVbRyNuXc"],
        reason="r",
    )
    assert differences(said, told, report="## OOM_KILLED") == []
    unsaid = Expected(
        outcome="diagnosed",
        root_cause_contains=["wait-for-dataset"],
        root_cause_lacks=["fetch-weights"],
        evidence_contains=["403"],
        never_shows=["RepositoryNotFound", "## OOM"],
        reason="r",
    )
    assert [
        line.split(":")[0].split(" ")[0] for line in differences(unsaid, told, report="## OOM_KILLED")
    ] == [
        "root_cause",
        "root_cause",
        "evidence",
        "output",
        "output",
    ]
    with pytest.raises(ValueError):
        Expected.model_validate({"outcome": "diagnosed", "reason": "r", "categroy": "OOM_KILLED"})

"""The scan summary (scan/v1 → Block Kit) for both platforms, and the help in every language."""

from __future__ import annotations

import json
from typing import Any

import pytest

from blocks.labels import LABELS
from blocks.messages import scan_message, usage_message, usage_problem
from tests.blocks.checks import assert_message_within_limits

LANGUAGES = ("en", "zh", "fr", "ja")


def runai_scan(**extra: Any) -> dict[str, Any]:
    return {
        "schema": "scan/v1",
        "platform": "runai",
        "cluster_id": "3f1c-prod-a",
        "project": None,
        "lookback": "3d",
        "scanned": 0,
        "by_category": {},
        "recurring_causes": [],
        "results": [],
        **extra,
    }


def blocks_text(scan: dict[str, Any], lang: str = "en") -> str:
    message = scan_message(scan, lang=lang)
    assert_message_within_limits(message.payload())
    return json.dumps(message.blocks, ensure_ascii=False)


def test_a_runai_scan_names_its_cluster_lookback_and_the_causes_by_kind() -> None:
    results = [
        {"target": {"name": name}, "category": category, "confidence": "HIGH", "outcome": "diagnosed"}
        for name, category in (("a", "IMAGE_PULL_FAILED"), ("b", "OOM_KILLED"), ("c", "OOM_KILLED"))
    ]
    causes = [
        {"kind": "signature", "value": "OOMKilled", "count": 2, "workloads": ["b", "c"]},
        {"kind": "node", "value": "gpu-<node>-7", "count": 2, "workloads": ["a", "b"]},
    ]
    scan = runai_scan(
        project="ml-team",
        scanned=4,
        by_category={"IMAGE_PULL_FAILED": 1, "OOM_KILLED": 2},
        results=results,
        recurring_causes=causes,
        limitations=["the list answered 400 to the phaseUpdatedAt filter: the lookback was applied here"],
    )
    text = blocks_text(scan)
    assert "Scan: Run:ai cluster 3f1c-prod-a, project ml-team, last 3d" in text
    assert "4 workload(s) listed, 3 failed workload(s) diagnosed" in text
    # The most frequent category first, in the counts and in the list.
    assert text.index("*OOM_KILLED*\\n2") < text.index("*IMAGE_PULL_FAILED*\\n1")
    assert text.index("*OOM_KILLED* (2)") < text.index("*IMAGE_PULL_FAILED* (1)")
    assert "same error `OOMKilled` — 2 jobs: b, c" in text
    assert "same node `gpu-&lt;node&gt;-7` — 2 jobs: a, b" in text, "values are escaped"
    assert "*Limitations*" in text and "the lookback was applied here" in text


def test_nothing_failed_and_a_refused_list_are_said_plainly() -> None:
    assert "No failed workload in the last 3d." in blocks_text(runai_scan())
    refused = runai_scan(error={"outcome": "permission_denied", "root_cause": "HTTP 403 on list_workloads"})
    text = blocks_text(refused, "ja")
    assert "失敗したワークロードを一覧できませんでした：HTTP 403 on list_workloads" in text
    assert "直近 3d に失敗したワークロードはありません" not in text


def test_a_huge_scan_stays_within_slack_limits_and_says_it_was_cut() -> None:
    names = [f"train-{n:04d}" for n in range(400)]
    scan = runai_scan(
        scanned=900,
        by_category={f"CATEGORY_{n}": 1 for n in range(30)},
        results=[
            {"target": {"name": name}, "category": "OOM_KILLED", "signature": "x" * 400} for name in names
        ],
        recurring_causes=[
            {"kind": "image", "value": f"registry/{n}:" + "v" * 300, "count": 400, "workloads": names}
            for n in range(40)
        ],
    )
    message = scan_message(scan, lang="fr")
    assert_message_within_limits(message.payload())
    assert message.truncated
    text = json.dumps(message.blocks, ensure_ascii=False)
    assert "400 jobs\u00a0:" in text and "+388" in text, "a cause names a dozen jobs, then how many more"


def test_a_modelarts_scan_without_recurring_causes_falls_back_to_shared_signatures() -> None:
    results = [
        {
            "target": {"name": name},
            "category": "CRASH_APP_ERROR",
            "outcome": "diagnosed",
            "signature": "E: boom",
        }
        for name in ("j1", "j2")
    ]
    scan = {"platform": "modelarts", "region": "cn-north-4", "scanned": 5, "results": results}
    text = blocks_text(scan)
    assert "Scan: ModelArts cn-north-4" in text and "5 job(s) listed, 2 diagnosed" in text
    assert "same error `E: boom` — 2 jobs: j1, j2" in text


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_help_in_every_language_lists_every_form(lang: str) -> None:
    message = usage_message(
        problem=usage_problem("unknown_key", {"key": "x<y"}, lang=lang, english="?"), lang=lang
    )
    assert_message_within_limits(message.payload())
    text = json.dumps(message.blocks, ensure_ascii=False)
    for form in (
        "/diagnose runai cluster=",
        "/diagnose modelarts job=",
        "/diagnose scan runai cluster=",
        "/diagnose scan modelarts",
        "/diagnose explain 137",
        "lang=en|fr|zh|ja",
    ):
        assert form in text, form
    assert "x&lt;y" in text and message.text != "?"
    assert all(LABELS[lang]["usage.help"].startswith("**/diagnose**") for lang in LANGUAGES)


def test_an_unknown_problem_code_keeps_the_english_sentence() -> None:
    assert usage_problem("no_such_code", {}, lang="fr", english="something odd") == "something odd"
    assert usage_problem("generic", {}, lang="ja", english="something odd") == "something odd"

"""Markdown reports: the runbook's zh template exactly (goldens), en/ja renderings of the same structure."""

from __future__ import annotations

import os
import re

import pytest

from diagnosis.evidence.bundles import load_bundle
from diagnosis.models import Diagnosis
from diagnosis.render import render_markdown
from tests.modelarts.conftest import EXAMPLES, GOLDEN, before_user_diagnosis, load, replay

GOLDEN_NAMES = [
    "early-exit-file-not-found",
    "early-exit-cuda-oom",
    "platform-analysis",
    "error-event-image-pull",
    "multi-task-logs",
    "exit-137-killed",
    "exit-137-unexplained",
    "running-stalled",
    "running-healthy",
    "completed",
    "pending-resources",
    "unauthorized-401",
    "details-503",
    "vague-message",
    "name-several-matches",
    "creating",
    "terminated",
    "not-found",
]

# Regenerate with DIAGNOSE_UPDATE_GOLDEN=1 after a deliberate change, then review the diff.
UPDATE = os.environ.get("DIAGNOSE_UPDATE_GOLDEN") == "1"


@pytest.mark.parametrize("name", GOLDEN_NAMES)
def test_zh_golden(name: str) -> None:
    text = render_markdown(replay(load(name)), lang="zh") + "\n"
    golden = GOLDEN / f"{name}.md"
    if UPDATE:
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["modelarts-early-exit-traceback", "modelarts-permission-denied"])
def test_shared_example_reports_are_reproduced_byte_for_byte(name: str) -> None:
    diagnosis = replay(load_bundle(EXAMPLES / f"{name}.bundle.json"))
    report = before_user_diagnosis(render_markdown(diagnosis, lang="zh"))
    assert report + "\n" == (EXAMPLES / f"{name}.md").read_text(encoding="utf-8")


def test_insufficient_information_variant_has_the_runbook_sections() -> None:
    diagnosis = replay(load_bundle(EXAMPLES / "modelarts-insufficient-info.bundle.json"))
    text = render_markdown(diagnosis, lang="zh")
    want = (EXAMPLES / "modelarts-insufficient-info.md").read_text(encoding="utf-8")
    # Same head, same section titles, one 已收集信息 row per call, numbered 建议补充信息 with reasons.
    assert text.split("## 已收集信息")[0] == want.split("## 已收集信息")[0]
    assert re.findall(r"^## .+$", text, re.M) == re.findall(r"^## .+$", want, re.M)
    rows = re.findall(r"^\| (\w+) \|", text.split("## 已收集信息")[1], re.M)
    assert rows[1:] == diagnosis.calls
    steps = re.findall(r"^\d+\. .+$", text, re.M)
    assert len(steps) == len(diagnosis.next_steps) and all("（原因：" in step for step in steps)
    assert steps[-1].startswith(f"{len(steps)}. 建议排查方向：")


def _structure(text: str) -> list[str]:
    """The report's skeleton: headings, table rows' shape, plan titles, note and list markers."""
    shape = []
    for line in text.splitlines():
        if line.startswith("#"):
            shape.append(re.sub(r"\d+", "N", line.split(" ")[0]))
        elif line.startswith("|"):
            shape.append("|" * line.count(" | "))
        elif line.startswith("> "):
            shape.append(">")
        elif re.match(r"^\d+\. ", line):
            shape.append("1.")
        elif line.startswith("- "):
            shape.append("-")
    return shape


@pytest.mark.parametrize(
    "name", ["early-exit-file-not-found", "details-503", "unauthorized-401", "running-stalled"]
)
@pytest.mark.parametrize("lang", ["en", "ja"])
def test_en_and_ja_render_the_same_structure(name: str, lang: str) -> None:
    zh = render_markdown(replay(load(name), lang="zh"), lang="zh")
    other = render_markdown(replay(load(name), lang=lang), lang=lang)
    assert _structure(other) == _structure(zh)
    assert "诊断结论" not in other and "根因" not in other


def test_english_labels() -> None:
    text = render_markdown(replay(load("early-exit-file-not-found"), lang="en"), lang="en")
    assert text.startswith("## Diagnosis\n\n| Item | Value |")
    assert "(confidence: HIGH)" in text and "### Option 1" in text
    assert "> Note: the steps above involve changes a person must confirm" in text


def test_japanese_labels() -> None:
    text = render_markdown(replay(load("details-503"), lang="ja"), lang="ja")
    assert text.startswith("## 診断結論\n\n| 項目 | 値 |")
    assert "（確信度：LOW）" in text and "## 収集済みの情報" in text and "## 追加で必要な情報" in text


@pytest.mark.parametrize(
    ("name", "first_line"),
    [
        ("name-several-matches", "Needs input: "),
        ("creating", "Observe: Creating"),
        ("pending-short", "Observe: Pending"),
        ("terminated", "Out of scope: Terminated"),
        ("not-found", "Not found: 5c7e9a1b-3f6d-4840-8cde-46f8a0c2e479"),
    ],
)
def test_outcomes_without_the_table_open_with_the_g13_line(name: str, first_line: str) -> None:
    for lang in ("zh", "en", "ja"):
        text = render_markdown(replay(load(name), lang=lang), lang=lang)
        assert text.splitlines()[0].startswith(first_line)
        assert "|------|" not in text


def test_template_outcomes_open_with_the_conclusion() -> None:
    for name in ("completed", "exit-code-139"):
        assert render_markdown(replay(load(name)), lang="zh").startswith("## 诊断结论\n")
    # Rejected credentials are no diagnosis: the report opens with what happened.
    assert render_markdown(replay(load("unauthorized-401")), lang="zh").startswith(
        "Authentication failed: ShowTrainingJobDetails\n"
    )


def test_read_only_advice_says_so_in_the_note() -> None:
    diagnosis = replay(load("pending-resources"))
    only_read = diagnosis.model_copy(
        update={"recommendations": [r for r in diagnosis.recommendations if not r.changes_resources]}
    )
    assert render_markdown(only_read, lang="zh").rstrip().endswith("> 注意：以上操作涉及只读查询")


def test_report_shows_nothing_that_is_not_in_the_diagnosis() -> None:
    """G10: strip the fixed labels and every remaining line comes from the diagnosis."""
    diagnosis: Diagnosis = replay(load("multi-task-logs"))
    text = render_markdown(diagnosis, lang="zh")
    assert diagnosis.root_cause in text
    for recommendation in diagnosis.recommendations:
        assert recommendation.text in text
    assert "worker-1" in text and "sd-xl-finetune" in text

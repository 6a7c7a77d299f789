"""Every built-in demo bundle, replayed by the engine, renders to Block Kit within Slack's limits,
in each language the platform offers."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from blocks.messages import evidence_message, history_message, logs_message, why_message
from blocks.prompts import question_message
from blocks.report import report_message
from diagnosis import engine
from diagnosis.evidence.bundles import load_bundle
from tests.blocks.checks import assert_message_within_limits
from tests.conftest import ROOT

BUILTIN = ROOT / "diagnosis" / "examples"
BUNDLES = sorted(BUILTIN.rglob("*.bundle.json"))


@pytest.mark.parametrize("path", BUNDLES, ids=lambda p: p.name.removesuffix(".bundle.json"))
def test_builtin_example_renders_within_limits(path: Path) -> None:
    bundle = load_bundle(path)
    for lang in engine.backend(bundle.platform).languages:
        diagnosis = asyncio.run(engine.replay(bundle, lang=lang))
        message = report_message(diagnosis, lang=lang, requested_by="U0ALICE01")
        assert_message_within_limits(message.payload())
        text = json.dumps(message.blocks, ensure_ascii=False)
        for item in diagnosis.evidence:
            assert item.source in text
        for follow_up in (evidence_message, history_message, logs_message, why_message):
            assert_message_within_limits(follow_up(diagnosis, lang=lang).payload())
        for question in diagnosis.questions:
            assert_message_within_limits(question_message(question, pending_id="p" * 20, lang=lang).payload())


def test_there_are_builtin_examples() -> None:
    assert len(BUNDLES) >= 10

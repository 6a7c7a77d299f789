"""Guarantee 3: hostile log lines and events render inert and change neither verdict nor calls."""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path

import pytest

from diagnosis import engine
from tests.safety.bundles import plant_text, scenarios
from tests.safety.corpus import INJECTIONS
from tests.safety.injection import (
    BIDI,
    SLACK_CONTROL,
    InjectionResult,
    inject_untrusted,
    markdown_problems,
    slack_problems,
)
from tests.safety.outputs import slack_messages
from tests.safety.slackbot import bot_running, bundles_backend, unique_commands

# Scenarios whose logs, events and messages a report quotes (both platforms).
QUOTING = (
    "examples/runai/runai-crash-app-error",
    "examples/modelarts/modelarts-multi-task-logs",
    "examples/modelarts/modelarts-platform-analysis",
)


@pytest.fixture(scope="module")
def result() -> InjectionResult:
    chosen = [item for item in scenarios() if item.name in QUOTING]
    return inject_untrusted(chosen)


def test_every_injection_renders_inert(result: InjectionResult) -> None:
    assert result.crashes == []
    assert result.tried == len(QUOTING) * len(INJECTIONS)
    assert result.failures == []
    assert result.inert == result.tried


def test_no_injection_changes_a_verdict_or_triggers_a_call(result: InjectionResult) -> None:
    assert result.verdicts_changed == [] and result.calls_changed == []


def test_the_hostile_text_does_reach_the_reports(result: InjectionResult) -> None:
    # Inert because it was made so, not because nobody showed it.
    for kind in ("slack_control", "layout", "invisible", "instruction"):
        assert result.reached_by_kind[kind] > 0, kind


def test_the_checks_catch_what_they_look_for() -> None:
    original = "Root cause: the job failed.\n\n- Log line: boom\n"
    linked = "Root cause: the job failed [fix](https://evil.example).\n\n- Log line: boom\n"
    assert markdown_problems(linked, original) == ["Markdown structure changed"]
    assert markdown_problems(original.replace("boom", "boom \u202e"), original) != []
    assert SLACK_CONTROL.search("hello <!channel>") and not SLACK_CONTROL.search("hello &lt;!channel&gt;")
    assert BIDI.search("a\u2067b")


def test_hostile_text_in_every_field_keeps_slack_messages_valid_and_inert() -> None:
    scenario = next(item for item in scenarios() if item.name == QUOTING[0])
    for injection in INJECTIONS:
        planted, sites = plant_text(scenario.bundle, injection.text)
        assert sites > 3
        diagnosis = asyncio.run(engine.replay(planted))
        assert slack_problems(slack_messages(diagnosis, lang="en")) == [], injection.kind


def test_the_bot_posts_hostile_log_lines_inertly() -> None:
    """End to end: `diagnose bot --bundles` over bundles whose logs ping the channel."""
    hostile = " ".join(item.text for item in INJECTIONS if item.kind == "slack_control")
    planted = [plant_text(item.bundle, hostile)[0] for item in scenarios() if item.name in QUOTING]
    with tempfile.TemporaryDirectory() as folder:
        backend = bundles_backend(planted, Path(folder))
        commands = unique_commands(backend)
        assert commands
        with bot_running(backend=backend, log_level="INFO") as run:
            for _bundle, command in commands:
                run.ask(command, follow_ups=("evidence", "logs", "why"))
            calls = list(run.api.calls)
    posted = [
        call for call in calls if call.method in ("chat.postMessage", "chat.update", "chat.postEphemeral")
    ]
    assert posted
    for call in posted:
        text = json.dumps([call.body.get("text"), call.json_arg("blocks")], ensure_ascii=False)
        for injection in INJECTIONS:
            for raw in injection.raw:
                assert raw not in text, (call.method, raw)
        assert call.body.get("link_names") in (False, "false", "0", None)
    assert any("&lt;!channel&gt;" in json.dumps(call.json_arg("blocks")) for call in posted), (
        "the text was shown"
    )

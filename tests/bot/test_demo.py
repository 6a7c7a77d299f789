"""The demo (`make bot` = `diagnose bot --bundles diagnosis/examples`): when a demo request needs a
choice between candidates, every candidate leads to a report, from its own demo bundle."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import jsonschema
import pytest

from blocks.report_lines import headline
from bot.backends import BundlesBackend
from bot.commands import RequestDraft
from bot.state.store import StateStore
from cli.bot import BUILTIN_BUNDLES
from diagnosis import engine
from diagnosis.bundle import Bundle
from playground.slack_api import Call, SlackApiStandIn
from tests.bot.harness import running_bot

DEMO = BundlesBackend(BUILTIN_BUNDLES)
LISTING_OPS = ("ListTrainingJobs", "list_workloads")


def candidate_questions() -> list[tuple[str, Bundle, int, str]]:
    """(scenario, bundle, choice index, choice value) for every choice of every demo scenario that
    ends in a question with candidates (its first question: the one the bot asks)."""
    found = []
    for bundle in DEMO.bundles:
        if not any(exchange.op in LISTING_OPS for exchange in bundle.exchanges):
            continue  # candidates come from a search by name: no listing, no candidates
        diagnosis = asyncio.run(engine.replay(bundle))
        if diagnosis.outcome != "needs_input" or not diagnosis.questions:
            continue
        for index, choice in enumerate(diagnosis.questions[0].choices or []):
            scenario = str(bundle.request.get("job_name") or bundle.request.get("workload_name"))
            found.append((scenario, bundle, index, choice.value))
    return found


CANDIDATES = candidate_questions()


def answered(bundle: Bundle, value: str) -> RequestDraft:
    """The scenario's request with its question answered, as the bot resumes it."""
    question = asyncio.run(engine.replay(bundle)).questions[0]
    draft = RequestDraft.model_validate({**bundle.request, "platform": bundle.platform})
    return draft.with_answer(question.key, value)


def test_the_demo_has_scenarios_with_candidates() -> None:
    assert len(CANDIDATES) >= 2, "the several-matches scenario offers its candidates"


def test_each_candidate_has_a_consistent_demo_bundle(bundle_schema: dict[str, Any]) -> None:
    for path in sorted(BUILTIN_BUNDLES.rglob("*-candidate-*.bundle.json")):
        jsonschema.validate(json.loads(path.read_text(encoding="utf-8")), bundle_schema)
    for _scenario, bundle, _index, value in CANDIDATES:
        listing = next(e for e in bundle.exchanges if isinstance(e.body, dict) and "items" in e.body)
        listed = next(item for item in listing.body["items"] if item["metadata"]["id"] == value)
        matched = DEMO.matches(answered(bundle, value))
        assert len(matched) == 1, f"one demo bundle answers candidate {value}"
        details = matched[0].exchanges[0].body
        # The candidate's bundle is the job the listing showed: same name, phase, creation time.
        assert details["metadata"]["name"] == listed["metadata"]["name"]
        assert details["metadata"]["create_time"] == listed["metadata"]["create_time"]
        assert details["status"]["phase"] == listed["status"]["phase"]


def prompt_of(api: SlackApiStandIn) -> Call:
    return api.wait_for("chat.postMessage", where=lambda c: "question|" in json.dumps(c.body.get("blocks")))[
        0
    ]


@pytest.mark.parametrize(
    ("scenario", "bundle", "index", "value"),
    CANDIDATES,
    ids=[f"{scenario}-{index}" for scenario, _bundle, index, _value in CANDIDATES],
)
def test_choosing_a_candidate_in_demo_mode_posts_its_report(
    slack_api: SlackApiStandIn,
    sqlite_store: StateStore,
    scenario: str,
    bundle: Bundle,
    index: int,
    value: str,
) -> None:
    command = RequestDraft.model_validate({**bundle.request, "platform": bundle.platform}).as_command()
    with running_bot(slack_api, backend=DEMO, store=sqlite_store) as bot:
        bot.slack.command(command + " lang=en")
        prompt = prompt_of(slack_api)
        bot.slack.click(prompt, f"answer_choice_{index}")
        report = slack_api.wait_for(
            "chat.update",
            where=lambda c: (
                c.body["ts"] != prompt.response["ts"]
                and "Demo mode" in json.dumps(c.body.get("blocks"))
                and value in json.dumps(c.body.get("blocks"))
            ),
        )[0]
        slack_api.wait_for("files.completeUploadExternal")
        bot.idle()
    text = json.dumps(report.body["blocks"], ensure_ascii=False)
    chosen = DEMO.matches(answered(bundle, value))[0]
    expected = asyncio.run(engine.replay(chosen, lang="en"))
    assert headline(expected, lang="en") in text, "the chosen job's own diagnosis"
    assert "Needs input" not in report.body["text"] and scenario in text

"""Demo mode: requests matched to recorded bundles and replayed through the real engine."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime

import pytest

from bot.backends import BundlesBackend, NoMatchingBundle
from bot.commands import RequestDraft
from bot.state.store import StateStore
from playground.slack_api import SlackApiStandIn
from tests.bot.harness import running_bot
from tests.conftest import EXAMPLES, load_json

NOW = datetime(2030, 1, 1, tzinfo=UTC)


@pytest.fixture(scope="module")
def bundles() -> BundlesBackend:
    return BundlesBackend(EXAMPLES)


def test_only_bundles_are_loaded(bundles: BundlesBackend) -> None:
    assert len(bundles.bundles) == len(list(EXAMPLES.glob("*.bundle.json")))


@pytest.mark.parametrize(
    "name", sorted(p.name.removesuffix(".bundle.json") for p in EXAMPLES.glob("*.bundle.json"))
)
def test_each_example_request_replays_to_its_worked_diagnosis(
    bundles: BundlesBackend, name: str, diagnosis_schema: dict
) -> None:
    import jsonschema

    bundle = load_json(EXAMPLES / f"{name}.bundle.json")
    expected = load_json(EXAMPLES / f"{name}.diagnosis.json")
    draft = RequestDraft.model_validate({**bundle["request"], "platform": bundle["platform"]})
    steps: list[str] = []
    run = asyncio.run(bundles.diagnose(draft.to_request(), lang=None, observer=steps.append, now=NOW))
    diagnosis = run.diagnosis
    jsonschema.validate(diagnosis.to_json_dict(), diagnosis_schema)
    assert (diagnosis.outcome, diagnosis.category, diagnosis.route) == (
        expected["outcome"],
        expected["category"],
        expected["route"],
    )
    assert steps == diagnosis.calls, "each op is reported to the progress observer, in order"


def test_ids_and_names_match_exactly(bundles: BundlesBackend) -> None:
    by_name = RequestDraft(
        platform="runai",
        cluster_id="4a9e2c17-5b3d-4f80-9c61-2d7be0f4a315",
        workload_name="segformer-finetune",
        project="vision-lab",
    )
    assert len(bundles.matches(by_name)) == 1
    assert bundles.matches(by_name.model_copy(update={"workload_name": "Segformer-finetune"})) == []
    assert bundles.matches(by_name.model_copy(update={"project": "other"})) == []
    with pytest.raises(NoMatchingBundle) as caught:
        asyncio.run(
            bundles.diagnose(
                by_name.model_copy(update={"workload_name": "x"}).to_request(),
                lang=None,
                observer=None,
                now=NOW,
            )
        )
    assert len(caught.value.available) == len(bundles.bundles)


def test_suggestions_come_from_the_bundles(bundles: BundlesBackend) -> None:
    clusters = bundles.suggestions(
        RequestDraft(platform="runai", workload_name="segformer-finetune"), "cluster_id"
    )
    assert [c.value for c in clusters] == ["4a9e2c17-5b3d-4f80-9c61-2d7be0f4a315"]
    projects = bundles.suggestions(
        RequestDraft(platform="runai", workload_name="segformer-finetune", cluster_id=clusters[0].value),
        "project",
    )
    assert [(c.value, c.label) for c in projects] == [("vision-lab", "vision-lab (segformer-finetune)")]
    assert bundles.suggestions(RequestDraft(platform="runai", workload_name="nope"), "cluster_id") == []


def test_demo_bot_answers_from_bundles_and_lists_what_it_knows(
    slack_api: SlackApiStandIn, sqlite_store: StateStore, bundles: BundlesBackend
) -> None:
    with running_bot(slack_api, backend=bundles, store=sqlite_store) as bot:
        bot.slack.command("modelarts job=5f0c9a6e-81d2-4b7f-a3e4-6c2d19b8f07a region=cn-north-4")
        report = slack_api.wait_for(
            "chat.update", where=lambda c: "CRASH_APP_ERROR" in c.body.get("text", "")
        )[0]
        text = json.dumps(report.body["blocks"], ensure_ascii=False)
        assert "ModuleNotFoundError" in text and "演示模式" in text, (
            "ModelArts labels default to Chinese (G9)"
        )
        assert "log_link" not in text, "demo bundles hold no log link"
        slack_api.wait_for("files.completeUploadExternal")
        bot.idle()
        bot.slack.command("modelarts job=no-such-job")
        listing = slack_api.wait_for(
            "chat.update", where=lambda c: "/diagnose runai cluster=4a9e2c17" in json.dumps(c.body["blocks"])
        )[0]
        assert "没有与 ModelArts job no-such-job 匹配的演示证据包" in listing.body["text"]
        bot.idle()
    upload = next(c for c in slack_api.calls if c.method.startswith("upload/"))
    assert "## 诊断结论" in upload.raw.decode(), "the full report is the engine's Markdown (zh template)"

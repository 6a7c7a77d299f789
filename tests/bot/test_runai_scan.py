"""`/diagnose scan runai cluster=<id> [project=<p>] [lookback=7d]` in Slack, and the same from a
mention: the placeholder shows the listing, then failed workloads done / total (coalesced), then the
summary grouped by category with the causes several workloads share, and the scan chart and the
scan/v1 JSON in its thread. A missing cluster is asked; the access policy applies to the whole scope.

The recorded scan is the Run:ai scan world of tests/runai (five failed workloads, items the list
must drop, two pages), written as a bundle for the demo backend and served live by the simulator.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.backends import BundlesBackend, LiveBackend, ScanScope
from bot.policy import Policy
from bot.state.store import StateStore
from diagnosis.evidence.bundles import parse_bundle
from diagnosis.models import Choice
from playground.slack_api import Call, SlackApiStandIn
from simulator.server import SimServer
from tests.bot.examples import OOM, example_diagnosis
from tests.bot.harness import CHANNEL, ScriptedBackend, running_bot
from tests.runai import scan_world
from tests.runai.scan_world import CLUSTER, EXPECTED, scan_bundle

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
PROGRESS = re.compile(r"(\d+)/(\d+) failed workload\(s\) diagnosed")
NOISE = ("still-running", "failed-long-ago", "other-cluster-job")
# What the recorded list answered: the five failed workloads and three items the scan must drop.
LISTED = len(EXPECTED) + len(NOISE)


@pytest.fixture
def recorded_scan(tmp_path: Path) -> Path:
    """A folder holding the recorded Run:ai scan, as `diagnose bot --bundles DIR` reads it."""
    (tmp_path / "runai-scan.bundle.json").write_text(json.dumps(scan_bundle()), encoding="utf-8")
    return tmp_path


def on_placeholder(api: SlackApiStandIn, placeholder: Call) -> list[Call]:
    ts = placeholder.response["ts"]
    return [call for call in api.calls_to("chat.update") if call.body.get("ts") == ts]


def progress_counts(updates: list[Call]) -> list[tuple[int, int]]:
    found = (PROGRESS.search(json.dumps(call.body.get("blocks"))) for call in updates)
    return [(int(match.group(1)), int(match.group(2))) for match in found if match]


def shared_by_design(column: int) -> dict[str, list[str]]:
    """Images (column 1) or nodes (column 2) that two or more workloads of the world share."""
    names: dict[str, list[str]] = defaultdict(list)
    for name, row in EXPECTED.items():
        if row[column]:
            names[str(row[column])].append(name)
    return {value: found for value, found in names.items() if len(found) >= 2}


def assert_summary_of_the_world(summary: Call) -> None:
    text = json.dumps(summary.body["blocks"], ensure_ascii=False)
    assert f"Scan: Run:ai cluster {CLUSTER}, last 7d" in text
    assert (
        f"{LISTED} workload(s) listed, {len(EXPECTED)} failed workload(s) diagnosed" in summary.body["text"]
    )
    # Grouped by category, the most frequent first, each workload under its category.
    categories: dict[str, list[str]] = defaultdict(list)
    for name, (category, _image, _node) in EXPECTED.items():
        categories[category].append(name)
    top = max(categories, key=lambda category: len(categories[category]))
    others = [category for category in categories if category != top]
    assert all(text.index(f"*{top}* ({len(categories[top])})") < text.index(f"*{c}* (1)") for c in others)
    for name in categories[top]:
        assert (
            text.index(f"*{top}* (") < text.index(f"`{name}`") < min(text.index(f"*{c}* (") for c in others)
        )
    for noise in NOISE:
        assert noise not in text, f"{noise} is not a failure of this cluster within the lookback"
    # The recurring causes: the same image, the same node, each with the workloads sharing it.
    shared = text[text.index("Causes shared by several jobs") :]
    for kind, column in (("image", 1), ("node", 2)):
        for value, names in shared_by_design(column).items():
            line = next(line for line in shared.split("\\n") if f"same {kind} `{value}`" in line)
            assert f"{len(names)} jobs" in line and all(name in line for name in names), line


def test_a_recorded_runai_scan_shows_listing_progress_then_the_grouped_summary(
    slack_api: SlackApiStandIn, sqlite_store: StateStore, recorded_scan: Path
) -> None:
    with running_bot(slack_api, backend=BundlesBackend(recorded_scan), store=sqlite_store) as bot:
        reply = bot.slack.command(f"scan runai cluster={CLUSTER} lang=en")
        assert reply.status == 200 and reply.body == "", "acked at once, nothing said in the ack"
        slack_api.wait_for("files.completeUploadExternal", count=2)
        bot.idle()
    placeholder = slack_api.calls_to("chat.postMessage")[0]
    assert "Listing the failed workloads" in json.dumps(placeholder.body["blocks"])
    assert "thread_ts" not in placeholder.body, "a slash command's scan starts in the channel"
    updates = on_placeholder(slack_api, placeholder)
    counts = progress_counts(updates)
    assert counts and {total for _, total in counts} == {len(EXPECTED)}
    assert [done for done, _ in counts] == sorted(done for done, _ in counts), "never goes backwards"
    summary = updates[-1]
    assert PROGRESS.search(json.dumps(summary.body["blocks"])) is None, "the summary replaces the progress"
    assert_summary_of_the_world(summary)
    assert "Demo mode" in json.dumps(summary.body["blocks"]), "a recorded scan says so"
    thread = placeholder.response["ts"]
    uploads = slack_api.uploads()
    assert [upload.filename for upload in uploads] == [
        f"scan-runai-{CLUSTER}.json",
        f"scan-runai-{CLUSTER}.png",
    ]
    assert all((upload.channel, upload.thread_ts) == (CHANNEL, thread) for upload in uploads)
    scan = json.loads(uploads[0].data)
    assert (scan["schema"], scan["platform"], scan["cluster_id"]) == ("scan/v1", "runai", CLUSTER)
    assert sorted(item["target"]["name"] for item in scan["results"]) == sorted(EXPECTED)
    assert uploads[1].data.startswith(PNG_MAGIC)
    assert CLUSTER in uploads[1].title


def test_a_mention_with_the_same_keys_scans_in_its_own_thread(
    slack_api: SlackApiStandIn, sqlite_store: StateStore, recorded_scan: Path
) -> None:
    with running_bot(slack_api, backend=BundlesBackend(recorded_scan), store=sqlite_store) as bot:
        bot.slack.mention(f"scan runai cluster={CLUSTER} lookback=7d", ts="1767225600.000100")
        slack_api.wait_for("files.completeUploadExternal", count=2)
        bot.idle()
    placeholder = slack_api.calls_to("chat.postMessage")[0]
    assert placeholder.body["thread_ts"] == "1767225600.000100", "answered in the mention's thread"
    assert_summary_of_the_world(on_placeholder(slack_api, placeholder)[-1])
    assert {upload.thread_ts for upload in slack_api.uploads()} == {"1767225600.000100"}


@pytest.fixture
def runai_scan_sim(monkeypatch: pytest.MonkeyPatch) -> Iterator[SimServer]:
    """The scan world served live by the simulator; the Run:ai client pointed at it (no Tier 2)."""
    with SimServer([parse_bundle(scan_bundle())]) as sim:
        monkeypatch.setenv("RUNAI_URL", sim.base_url)
        monkeypatch.setenv("RUNAI_CLIENT_ID", "diag-client")
        monkeypatch.setenv("RUNAI_CLIENT_SECRET", "diag-secret-value-123")
        monkeypatch.setenv("KUBECONFIG", os.devnull)
        monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
        yield sim


def test_a_live_runai_scan_reads_the_cluster_through_the_engine(
    slack_api: SlackApiStandIn, sqlite_store: StateStore, runai_scan_sim: SimServer
) -> None:
    # "Now" is the world's moment, so that the lookback covers its failures; the simulator takes
    # more than the engine's polite default rate.
    backend = LiveBackend(scan_rate_per_second=500)
    with running_bot(slack_api, backend=backend, store=sqlite_store, now=scan_world.T) as bot:
        bot.slack.command(f"scan runai cluster={CLUSTER} lang=en")
        slack_api.wait_for("files.completeUploadExternal", count=2, timeout=30)
        bot.idle(30)
    placeholder = slack_api.calls_to("chat.postMessage")[0]
    summary = on_placeholder(slack_api, placeholder)[-1]
    assert_summary_of_the_world(summary)
    assert "Demo mode" not in json.dumps(summary.body["blocks"])
    assert runai_scan_sim.op_count("list_workloads") >= 2, "every page of the list was read live"


def scan_of(names: list[str], *, cluster: str, project: str | None = None) -> dict[str, Any]:
    results = []
    for name in names:
        item = example_diagnosis(OOM).to_json_dict()
        item["target"]["name"] = name
        results.append(item)
    return {
        "schema": "scan/v1",
        "platform": "runai",
        "cluster_id": cluster,
        "project": project,
        "lookback": "7d",
        "scanned": len(names),
        "by_category": {"OOM_KILLED": len(names)},
        "recurring_causes": [],
        "results": results,
    }


def test_a_missing_cluster_is_asked_and_the_answer_resumes_the_scan(
    slack_api: SlackApiStandIn, any_store: StateStore
) -> None:
    backend = ScriptedBackend(
        answer=lambda request: example_diagnosis(OOM),
        known={"cluster_id": [Choice(value="3f1c-prod-a", label="prod-a")]},
        scan_result=scan_of(["train-1", "train-2"], cluster="3f1c-prod-a", project="ml-team"),
        scan_jobs=2,
    )
    with running_bot(slack_api, backend=backend, store=any_store) as bot:
        bot.slack.command("scan runai project=ml-team lookback=3d")
        prompt = slack_api.wait_for(
            "chat.postMessage", where=lambda c: "question|" in json.dumps(c.body.get("blocks"))
        )[0]
        placeholder = slack_api.calls_to("chat.postMessage")[0]
        assert prompt.body["thread_ts"] == placeholder.response["ts"], "asked in the scan's thread"
        assert "Which Run:ai cluster" in json.dumps(prompt.body["blocks"])
        waiting = slack_api.wait_for("chat.update", where=lambda c: "Waiting for an answer" in c.body["text"])
        assert waiting[0].body["ts"] == placeholder.response["ts"]
        assert backend.scans == [], "nothing is listed before the cluster is known"
        bot.slack.click(prompt, "answer_choice_0")
        slack_api.wait_for("files.completeUploadExternal")
        bot.idle()
    assert backend.scans == [
        ScanScope(platform="runai", cluster_id="3f1c-prod-a", project="ml-team", lookback="3d")
    ]
    updates = on_placeholder(slack_api, placeholder)
    assert any("Scanning Run:ai cluster 3f1c-prod-a" in call.body["text"] for call in updates)
    assert "2 failed workload(s) diagnosed" in updates[-1].body["text"]
    assert {upload.thread_ts for upload in slack_api.uploads()} == {placeholder.response["ts"]}


POLICY = Policy.model_validate(
    {
        "cluster_aliases": {"prod-a": "3f1c-prod-a"},
        "rules": [
            {
                "channels": [CHANNEL],
                "platforms": ["runai"],
                "clusters": ["3f1c-prod-a"],
                "projects": ["ml-team"],
            },
            {"channels": [CHANNEL], "platforms": ["modelarts"]},
        ],
    }
)


def test_the_access_policy_covers_the_whole_scope_and_a_denial_reveals_nothing(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    backend = ScriptedBackend(
        answer=lambda request: example_diagnosis(OOM),
        scan_result=scan_of(["train-1"], cluster="3f1c-prod-a", project="ml-team"),
        scan_jobs=1,
    )
    refused = [
        "scan runai cluster=prod-a",  # the whole cluster: other projects' workloads
        "scan runai cluster=9d9d-other project=ml-team",  # another cluster
        "runai cluster=9d9d-other workload=train-1 project=ml-team",  # a single diagnosis, for the words
    ]
    with running_bot(slack_api, backend=backend, store=sqlite_store, policy=POLICY) as bot:
        for number, command in enumerate(refused, start=1):
            bot.slack.command(command)
            slack_api.wait_for(f"commands/T0ACME001/{number}/resp")
        bot.slack.command("scan runai cluster=prod-a project=ml-team", channel="C0ELSEWHERE")
        slack_api.wait_for("commands/T0ACME001/4/resp")
        bot.slack.command("scan runai cluster=prod-a project=ml-team")
        slack_api.wait_for("files.completeUploadExternal")
        bot.idle()
    denials = [slack_api.calls_to(f"commands/T0ACME001/{n}/resp")[0].body for n in range(1, 5)]
    assert all(denial["response_type"] == "ephemeral" for denial in denials)
    assert len({json.dumps(denial["blocks"]) for denial in denials}) == 1, "one wording for every denial"
    assert "may not run this diagnosis" in denials[0]["text"]
    assert backend.scans == [ScanScope(platform="runai", cluster_id="3f1c-prod-a", project="ml-team")], (
        "only the allowed scope was scanned, the alias resolved to its id"
    )
    assert backend.requests == []
    placeholders = slack_api.calls_to("chat.postMessage")
    assert len(placeholders) == 1, "a refused scan posts nothing in the channel"


def test_a_cluster_answered_outside_the_policy_is_refused_without_scanning(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    with running_bot(slack_api, backend=backend, store=sqlite_store, policy=POLICY) as bot:
        bot.slack.command("scan runai")
        prompt = slack_api.wait_for(
            "chat.postMessage", where=lambda c: "question|" in json.dumps(c.body.get("blocks"))
        )[0]
        bot.slack.click(prompt, "answer_other")
        view = slack_api.wait_for("views.open")[0].body["view"]
        bot.slack.submit_view(view, "prod-a")
        placeholder = slack_api.calls_to("chat.postMessage")[0]
        slack_api.wait_for(
            "chat.update",
            where=lambda c: (
                c.body.get("ts") == placeholder.response["ts"] and "may not run" in c.body["text"]
            ),
        )
        bot.idle()
    assert backend.scans == [], "the whole cluster was asked for, the policy allows one project"


def test_runai_scan_progress_is_coalesced(slack_api: SlackApiStandIn, sqlite_store: StateStore) -> None:
    interval = 0.3
    jobs = 10
    backend = ScriptedBackend(
        answer=lambda request: example_diagnosis(OOM),
        scan_result=scan_of([f"train-{n}" for n in range(jobs)], cluster="3f1c-prod-a"),
        scan_jobs=jobs,
        scan_delay=0.06,
    )
    with running_bot(slack_api, backend=backend, store=sqlite_store, progress_interval=interval) as bot:
        bot.slack.command("scan runai cluster=3f1c-prod-a")
        slack_api.wait_for("files.completeUploadExternal")
        bot.idle()
    updates = on_placeholder(slack_api, slack_api.calls_to("chat.postMessage")[0])
    progress = [call for call in updates if PROGRESS.search(json.dumps(call.body.get("blocks")))]
    assert len(progress) >= 2, "the count moves while the scan runs"
    elapsed = progress[-1].at - progress[0].at
    assert len(progress) <= 2 + math.ceil(elapsed / interval), f"{len(progress)} updates in {elapsed:.2f}s"
    assert len(progress) < jobs
    assert f"{jobs} failed workload(s) diagnosed" in updates[-1].body["text"], "the summary comes last"

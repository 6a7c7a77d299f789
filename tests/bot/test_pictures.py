"""Pictures in threads: the memory-vs-limit PNG under an OOM report, the scan chart under a scan,
nothing for a report without samples or when matplotlib is missing (the report says why)."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.backends import BundlesBackend, LiveBackend
from bot.state.store import StateStore
from diagnosis.evidence.bundles import load_bundle
from diagnosis.render.charts.figure import png_size
from playground.slack_api import SlackApiStandIn, Upload
from simulator.server import SimServer
from tests.bot.harness import CHANNEL, running_bot
from tests.bot.test_bundles_backend import bundles  # noqa: F401  (module fixture)
from tests.conftest import EXAMPLES, ROOT

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
OOM_COMMAND = (
    "runai cluster=4a9e2c17-5b3d-4f80-9c61-2d7be0f4a315 workload=segformer-finetune project=vision-lab"
)
CRASH_COMMAND = "modelarts job=5f0c9a6e-81d2-4b7f-a3e4-6c2d19b8f07a region=cn-north-4"
# A recorded `diagnose modelarts scan` (listing pages, then each abnormal job's details).
SCAN_CAPTURE = ROOT / "tests" / "modelarts" / "bundles" / "scan-pages.bundle.json"


def pictures(api: SlackApiStandIn) -> list[Upload]:
    return [upload for upload in api.uploads() if upload.filename.endswith(".png")]


def report_thread(api: SlackApiStandIn) -> str:
    """The thread a slash command's report lives in: the placeholder it posted in the channel."""
    placeholder = api.calls_to("chat.postMessage")[0]
    assert "thread_ts" not in placeholder.body
    return str(placeholder.response["ts"])


def test_an_oom_report_gets_its_memory_chart_in_the_thread(
    slack_api: SlackApiStandIn,
    sqlite_store: StateStore,
    bundles: BundlesBackend,  # noqa: F811
) -> None:
    with running_bot(slack_api, backend=bundles, store=sqlite_store) as bot:
        bot.slack.command(OOM_COMMAND)
        slack_api.wait_for("chat.update", where=lambda c: "OOM_KILLED" in c.body.get("text", ""))
        slack_api.wait_for("files.completeUploadExternal", count=2)
        bot.idle()
    thread = report_thread(slack_api)
    uploads = slack_api.uploads()
    assert [upload.filename for upload in uploads] == [
        "diagnosis-segformer-finetune.md",
        "memory-segformer-finetune.png",
    ], "the full report, then the picture"
    chart = uploads[1]
    assert (chart.channel, chart.thread_ts) == (CHANNEL, thread), "in the report's thread"
    assert chart.data.startswith(PNG_MAGIC) and png_size(chart.data) == (1200, 600)
    assert chart.title == "Memory use vs limit: segformer-finetune"
    url_request = next(
        c for c in slack_api.calls_to("files.getUploadURLExternal") if c.body["filename"].endswith(".png")
    )
    assert int(url_request.body["length"]) == len(chart.data)
    assert "OOM kills marked" in url_request.body["alt_txt"], "the picture is described for screen readers"


def test_a_crash_report_gets_no_picture(
    slack_api: SlackApiStandIn,
    sqlite_store: StateStore,
    bundles: BundlesBackend,  # noqa: F811
) -> None:
    with running_bot(slack_api, backend=bundles, store=sqlite_store) as bot:
        bot.slack.command(CRASH_COMMAND)
        slack_api.wait_for("chat.update", where=lambda c: "CRASH_APP_ERROR" in c.body.get("text", ""))
        slack_api.wait_for("files.completeUploadExternal")
        bot.idle()
    assert [upload.filename for upload in slack_api.uploads()] == ["diagnosis-dish-classifier-vit-b16.md"], (
        "no memory samples: no picture and nothing else extra"
    )


def test_without_matplotlib_the_report_is_unchanged_and_no_picture_is_posted(
    slack_api: SlackApiStandIn,
    sqlite_store: StateStore,
    bundles: BundlesBackend,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # `import matplotlib` now fails, as on an install without the `charts` extra.
    for name in [name for name in sys.modules if name == "matplotlib" or name.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with running_bot(slack_api, backend=bundles, store=sqlite_store) as bot:
        bot.slack.command(OOM_COMMAND)
        report = slack_api.wait_for("chat.update", where=lambda c: "OOM_KILLED" in c.body.get("text", ""))
        slack_api.wait_for("files.completeUploadExternal")
        bot.idle()
    assert "segformer-finetune" in str(report[0].body["blocks"])
    assert [upload.filename for upload in slack_api.uploads()] == ["diagnosis-segformer-finetune.md"]


@pytest.fixture
def runai_sim(monkeypatch: pytest.MonkeyPatch) -> Iterator[SimServer]:
    """The shared OOM example served live by the simulator; the Run:ai client pointed at it."""
    bundle = load_bundle(EXAMPLES / "runai-optb-oom-recurring.bundle.json")
    with SimServer([bundle]) as sim:
        monkeypatch.setenv("RUNAI_URL", sim.base_url)
        monkeypatch.setenv("RUNAI_CLIENT_ID", "diag-client")
        monkeypatch.setenv("RUNAI_CLIENT_SECRET", "diag-secret-value-123")
        monkeypatch.setenv("KUBECONFIG", os.devnull)
        monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
        yield sim


def test_a_live_diagnosis_draws_from_what_it_read(
    slack_api: SlackApiStandIn, sqlite_store: StateStore, runai_sim: SimServer
) -> None:
    captured_at = load_bundle(EXAMPLES / "runai-optb-oom-recurring.bundle.json").captured_at
    # "Now" is the incident's moment, so that the metric window covers the recorded samples.
    with running_bot(slack_api, backend=LiveBackend(), store=sqlite_store, now=captured_at) as bot:
        bot.slack.command(OOM_COMMAND)
        slack_api.wait_for("chat.update", where=lambda c: "OOM_KILLED" in c.body.get("text", ""), timeout=30)
        slack_api.wait_for("files.completeUploadExternal", count=2, timeout=30)
        bot.idle()
    chart = pictures(slack_api)
    assert len(chart) == 1 and chart[0].thread_ts == report_thread(slack_api)
    assert chart[0].data.startswith(PNG_MAGIC)
    assert "get_workload_metrics" in runai_sim.ops, "the samples were read live, then drawn"


def test_a_scan_gets_its_chart_in_the_scan_thread(
    slack_api: SlackApiStandIn, sqlite_store: StateStore, tmp_path: Path
) -> None:
    shutil.copy(SCAN_CAPTURE, tmp_path / SCAN_CAPTURE.name)
    with running_bot(slack_api, backend=BundlesBackend(tmp_path), store=sqlite_store) as bot:
        bot.slack.command("scan modelarts region=cn-north-4 lang=en")
        slack_api.wait_for("files.completeUploadExternal", count=2)
        bot.idle()
    thread = report_thread(slack_api)
    uploads = slack_api.uploads()
    assert [upload.filename for upload in uploads] == [
        "scan-modelarts-cn-north-4.json",
        "scan-modelarts-cn-north-4.png",
    ]
    assert all((upload.channel, upload.thread_ts) == (CHANNEL, thread) for upload in uploads)
    assert uploads[1].data.startswith(PNG_MAGIC)

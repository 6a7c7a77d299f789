"""`/diagnose scan modelarts` in Slack: a placeholder that shows jobs done / total while the scan
runs (at most one chat.update per interval), then the summary grouped by category, in its place."""

from __future__ import annotations

import json
import math
import re
import shutil
import threading
from pathlib import Path

from bot.backends import BundlesBackend
from bot.background import Background
from bot.progress import ScanProgressReporter
from bot.state.store import StateStore
from diagnosis.scan import ScanProgress
from playground.slack_api import Call, SlackApiStandIn
from tests.bot.examples import OOM, example_diagnosis
from tests.bot.harness import ScriptedBackend, running_bot

SCAN_CAPTURE = Path(__file__).resolve().parents[1] / "modelarts" / "bundles" / "scan-pages.bundle.json"
PROGRESS = re.compile(r"(\d+)/(\d+) abnormal job\(s\) diagnosed")


def status_updates(api: SlackApiStandIn, placeholder: Call) -> list[Call]:
    ts = placeholder.response["ts"]
    return [call for call in api.calls_to("chat.update") if call.body.get("ts") == ts]


def progress_counts(updates: list[Call]) -> list[tuple[int, int]]:
    counts = []
    for call in updates:
        found = PROGRESS.search(json.dumps(call.body.get("blocks")))
        if found:
            counts.append((int(found.group(1)), int(found.group(2))))
    return counts


def test_a_recorded_scan_shows_its_progress_then_the_grouped_summary(
    slack_api: SlackApiStandIn, sqlite_store: StateStore, tmp_path: Path
) -> None:
    shutil.copy(SCAN_CAPTURE, tmp_path / SCAN_CAPTURE.name)
    with running_bot(slack_api, backend=BundlesBackend(tmp_path), store=sqlite_store) as bot:
        bot.slack.command("scan modelarts region=cn-north-4 lang=en")
        slack_api.wait_for("files.completeUploadExternal")
        bot.idle()
    placeholder = slack_api.calls_to("chat.postMessage")[0]
    assert "Listing the training jobs" in json.dumps(placeholder.body["blocks"])
    updates = status_updates(slack_api, placeholder)
    counts = progress_counts(updates)
    # Jobs done out of the 4 abnormal ones listed (the last count may be overtaken by the summary).
    assert counts and {total for _, total in counts} == {4}
    assert [done for done, _ in counts] == sorted(done for done, _ in counts), "never goes backwards"
    summary = updates[-1]
    assert PROGRESS.search(json.dumps(summary.body["blocks"])) is None, "the summary replaces the progress"
    text = json.dumps(summary.body["blocks"], ensure_ascii=False)
    assert "52 job(s) listed, 4 diagnosed" in summary.body["text"]
    # Grouped: the most frequent category first, its jobs under it; then what several jobs share.
    assert text.index("*CRASH_APP_ERROR* (3)") < text.index("*permission_denied* (1)")
    for name in ("scan-oom-a", "scan-oom-b", "scan-module"):
        assert text.index(name) < text.index("*permission_denied* (1)")
    # The scan's recurring causes, most jobs first: the same image (3 jobs), the same error (2).
    shared = text[text.index("Causes shared by several jobs") :]
    assert shared.index("same image `PyTorch:pytorch_2.1.0") < shared.index(
        "same error `torch.OutOfMemoryError"
    )
    assert "3 jobs: scan-oom-a, scan-oom-b, scan-module" in shared


def test_progress_updates_are_coalesced_while_a_long_scan_runs(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    interval = 0.5
    jobs = 12
    result = {
        "schema": "scan/v1",
        "platform": "modelarts",
        "region": "cn-north-4",
        "scanned": 40,
        "by_category": {"OOM_KILLED": jobs},
        "results": [example_diagnosis(OOM).to_json_dict() for _ in range(jobs)],
    }
    backend = ScriptedBackend(
        answer=lambda request: example_diagnosis(OOM), scan_result=result, scan_jobs=jobs, scan_delay=0.1
    )
    with running_bot(slack_api, backend=backend, store=sqlite_store, progress_interval=interval) as bot:
        bot.slack.command("scan modelarts region=cn-north-4 lang=en")
        slack_api.wait_for("files.completeUploadExternal")
        bot.idle()
    placeholder = slack_api.calls_to("chat.postMessage")[0]
    updates = status_updates(slack_api, placeholder)
    progress = [call for call in updates if PROGRESS.search(json.dumps(call.body.get("blocks")))]
    assert len(progress) >= 2, "the count moves while the scan runs"
    elapsed = progress[-1].at - progress[0].at
    assert len(progress) <= 2 + math.ceil(elapsed / interval), (
        f"{len(progress)} updates in {elapsed:.2f}s: at most one per {interval}s ({jobs + 1} states)"
    )
    assert len(progress) < jobs
    assert "40 job(s) listed, 12 diagnosed" in updates[-1].body["text"], "the summary comes last"


class RecordingClient:
    def __init__(self) -> None:
        self.updates: list[str] = []
        self.lock = threading.Lock()

    def chat_update(self, **kwargs: object) -> None:
        with self.lock:
            self.updates.append(str(kwargs.get("text")))


def test_scan_progress_sends_the_latest_count_once_per_interval() -> None:
    client = RecordingClient()
    background = Background()
    clock = [0.0]
    reporter = ScanProgressReporter(
        client=client,  # type: ignore[arg-type]
        background=background,
        channel="C1",
        ts="1.1",
        what="modelarts scan cn-north-4",
        user="U1",
        lang="ja",
        interval=60.0,
        clock=lambda: clock[0],
    )
    for done in range(5):
        reporter(ScanProgress(done=done, total=30, job_name=f"job-{done}"))
        clock[0] += 1.0
    background.wait_idle(5)
    # One update within the interval, showing the latest count it had when it went out.
    assert len(client.updates) == 1
    assert re.fullmatch(
        r"U1 さんの依頼で modelarts scan cn-north-4 をスキャン中… 異常なジョブ 30 件中 [0-4] 件を診断済み",
        client.updates[0],
    )
    clock[0] += 60.0
    reporter(ScanProgress(done=17, total=30, job_name="job-17"))
    background.wait_idle(5)
    assert len(client.updates) == 2 and "30 件中 17 件" in client.updates[1]
    reporter.close()
    reporter(ScanProgress(done=30, total=30, job_name="job-30"))
    background.wait_idle(5)
    assert len(client.updates) == 2, "nothing after close: the summary is never overwritten"
    background.shutdown()

"""`diagnose bot --http` on one machine: this process serves HTTP and starts a worker at a lower CPU
priority, whose diagnosis threads run lower still; if the worker dies the bot stops with a log line, and the next start answers what the
dead worker held, once, in its placeholder. Apart (`--role web`, `--role worker`, as Kubernetes runs
them) a request typed while no worker runs is acked at once and answered when one starts."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import httpx

from bot.launch import WORKER_NICE
from playground.slack_api import Call, SlackApiStandIn
from tests.bot.harness import SlackSender
from tests.bot.processes import START_SECONDS, logged_bot_process, worker_process

PREEMPTED = "runai id=2e6b8f31-d4a0-4c97-95e2-a13f7b0c8d46 cluster=91c0d5e8-2f47-4a3b-b6e1-7c8a0f2d4e59"


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                found.append(int(entry.name))
    return found


def command_line(pid: int) -> list[str]:
    return (Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0"))[:-1]


def the_worker_of(pid: int) -> int:
    deadline = time.monotonic() + START_SECONDS
    while True:
        workers = [child for child in children_of(pid) if command_line(child)[-2:] == ["--role", "worker"]]
        if workers:
            (worker,) = workers
            return worker
        assert time.monotonic() < deadline, "no worker process"
        time.sleep(0.1)


def thread_niceness(pid: int) -> dict[int, int]:
    """Each thread's niceness (Linux gives every thread its own: /proc/PID/task/TID/stat)."""
    found = {}
    for entry in Path(f"/proc/{pid}/task").iterdir():
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        found[int(entry.name)] = int(fields[16])
    return found


def is_report(call: Call) -> bool:
    return call.method == "chat.update" and "Routed: preempted" in call.body.get("text", "")


def test_the_bot_answers_through_its_own_low_priority_worker(
    slack_api: SlackApiStandIn, tmp_path: Path
) -> None:
    with logged_bot_process(slack_api, tmp_path) as bot:
        worker = the_worker_of(bot.process.pid)
        health = httpx.get(bot.url + "/healthz", timeout=5).json()
        assert health == {"ok": True, "checks": {"state": True, "queue": True}}
        slack = SlackSender(bot.url, slack_api)
        assert slack.command(PREEMPTED).status == 200
        slack_api.wait_until(is_report, timeout=30)
        # The worker yields the CPU to the process that acks Slack, a little; the thread that ran
        # the diagnosis yields it further, to the worker's chat tasks too.
        ours = os.getpriority(os.PRIO_PROCESS, 0)  # what the bot was started with
        niceness = thread_niceness(worker)
        assert niceness[worker] == min(ours + WORKER_NICE, 19), niceness
        assert max(niceness.values()) > niceness[worker], niceness
        assert set(thread_niceness(bot.process.pid).values()) == {ours}
        slack.close()
    assert bot.process.returncode == 0
    for name in ("state.sqlite3", "state.queue.sqlite3", "state.diagnoses.sqlite3"):
        assert (tmp_path / name).exists(), name


def test_a_request_held_by_a_killed_worker_is_answered_once_in_its_placeholder_after_a_restart(
    slack_api: SlackApiStandIn, tmp_path: Path
) -> None:
    # The report's chat.update never reaches Slack: the worker is killed while it waits for it.
    held = slack_api.hold(is_report)
    with logged_bot_process(slack_api, tmp_path) as bot:
        slack = SlackSender(bot.url, slack_api)
        assert slack.command(PREEMPTED).status == 200
        placeholder = slack_api.wait_for("chat.postMessage", timeout=30)[0]
        assert held.arrived.wait(30), "the worker did not get to the report"
        os.kill(the_worker_of(bot.process.pid), signal.SIGKILL)
        assert bot.process.wait(timeout=30) != 0, "the bot stops when its worker dies"
        slack.close()
    assert "the worker process stopped" in (tmp_path / "bot.log").read_text()
    with logged_bot_process(slack_api, tmp_path, log_name="restarted.log"):
        report = slack_api.wait_until(is_report, timeout=45)[0]
        slack_api.wait_for("files.completeUploadExternal", timeout=30)
    assert report.body["ts"] == placeholder.response["ts"]
    assert len([call for call in slack_api.calls if is_report(call)]) == 1
    assert len(slack_api.calls_to("chat.postMessage")) == 1
    assert len([upload for upload in slack_api.uploads() if upload.filename.endswith(".md")]) == 1
    assert "queued again" in (tmp_path / "restarted.log").read_text()


def test_a_placeholder_slack_made_for_a_worker_killed_before_reading_it_is_used_after_a_restart(
    slack_api: SlackApiStandIn, tmp_path: Path
) -> None:
    # Slack creates the placeholder, and the worker is killed before it reads Slack's answer: it
    # never learnt the message's ts, so it could not remember it.
    held = slack_api.hold(lambda call: call.method == "chat.postMessage", applied=True)
    with logged_bot_process(slack_api, tmp_path) as bot:
        slack = SlackSender(bot.url, slack_api)
        assert slack.command(PREEMPTED).status == 200
        assert held.arrived.wait(30), "the worker did not post the placeholder"
        os.kill(the_worker_of(bot.process.pid), signal.SIGKILL)
        assert bot.process.wait(timeout=30) != 0, "the bot stops when its worker dies"
        slack.close()
    held.released.set()
    [placeholder] = slack_api.calls_to("chat.postMessage")
    with logged_bot_process(slack_api, tmp_path, log_name="restarted.log"):
        report = slack_api.wait_until(is_report, timeout=45)[0]
        slack_api.wait_for("files.completeUploadExternal", timeout=30)
    assert report.body["ts"] == placeholder.response["ts"], "answered in its original placeholder"
    assert len([call for call in slack_api.calls if is_report(call)]) == 1
    assert slack_api.calls_to("chat.postMessage") == [placeholder], "one placeholder, never a second"
    channel = str(placeholder.body["channel"])
    assert [message["ts"] for message in slack_api.workspace.history(channel=channel)] == [report.body["ts"]]
    assert slack_api.calls_to("conversations.history"), "the restarted worker looked for it"
    assert len([upload for upload in slack_api.uploads() if upload.filename.endswith(".md")]) == 1


def test_apart_a_request_typed_while_no_worker_runs_is_answered_once_one_starts(
    slack_api: SlackApiStandIn, tmp_path: Path
) -> None:
    with logged_bot_process(slack_api, tmp_path, "--role", "web") as web:
        assert children_of(web.process.pid) == [], "`--role web` starts no worker"
        slack = SlackSender(web.url, slack_api)
        reply = slack.command(PREEMPTED)
        assert reply.status == 200 and reply.seconds < 3
        time.sleep(1)
        assert slack_api.calls_to("chat.postMessage") == [], "nothing runs without a worker"
        with worker_process(slack_api, tmp_path):
            slack_api.wait_until(is_report, timeout=30)
            slack_api.wait_for("files.completeUploadExternal", timeout=30)
        slack.close()
    assert len([call for call in slack_api.calls if is_report(call)]) == 1
    assert len(slack_api.calls_to("chat.postMessage")) == 1

"""`diagnose bot --http` as a process tree: web processes that ack and queue, a work process at a
lower CPU priority that runs the queue, restarted if it dies, and no request lost meanwhile."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import httpx

from tests.bot.harness import SlackSender
from tests.bot.processes import START_SECONDS, logged_bot_process
from tests.fakes.slack_api import FakeSlackApi

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


def work_processes(supervisor_pid: int) -> list[int]:
    return [pid for pid in children_of(supervisor_pid) if command_line(pid)[-2:] == ["--role", "work"]]


def reports(api: FakeSlackApi) -> int:
    return sum(1 for call in api.calls_to("chat.update") if "Routed: preempted" in call.body.get("text", ""))


def test_the_work_runs_in_its_own_low_priority_process_and_survives_its_death(
    slack_api: FakeSlackApi, tmp_path: Path
) -> None:
    with logged_bot_process(slack_api, tmp_path) as bot:
        supervisor, url = bot.process, bot.url
        deadline = time.monotonic() + START_SECONDS
        while not work_processes(supervisor.pid):
            assert time.monotonic() < deadline
            time.sleep(0.1)
        (work,) = work_processes(supervisor.pid)
        while f"work process {work} ready" not in (tmp_path / "bot.log").read_text():
            assert time.monotonic() < deadline, (tmp_path / "bot.log").read_text()
            time.sleep(0.1)
        # The work process yields the CPU to the processes that ack Slack.
        assert os.sched_getscheduler(work) == os.SCHED_IDLE or os.getpriority(os.PRIO_PROCESS, work) > 0
        health = httpx.get(url + "/healthz", timeout=5).json()
        assert health == {"ok": True, "checks": {"state": True, "work": True}}
        slack = SlackSender(url, slack_api)
        assert slack.command(PREEMPTED).status == 200
        slack_api.wait_until(
            lambda call: call.method == "chat.update" and "Routed: preempted" in call.body.get("text", ""),
            timeout=30,
        )

        # The work process dies; the next command is still acked at once, and answered once a new
        # work process is up (the job waited in the store).
        os.kill(work, signal.SIGKILL)
        reply = slack.command(PREEMPTED, user="U0BOB0002")
        assert reply.status == 200 and reply.seconds < 3
        slack_api.wait_until(
            lambda call: call.method == "chat.update" and "Routed: preempted" in call.body.get("text", ""),
            count=2,
            timeout=45,
        )
        (restarted,) = work_processes(supervisor.pid)
        assert restarted != work
        slack.close()
        assert reports(slack_api) == 2
    assert supervisor.returncode == 0
    assert "work-1 exited" in (tmp_path / "bot.log").read_text()


def test_work_processes_zero_runs_everything_in_the_web_processes(
    slack_api: FakeSlackApi, tmp_path: Path
) -> None:
    with logged_bot_process(slack_api, tmp_path, "--work-processes", "0") as bot:
        server, url = bot.process, bot.url
        assert not [pid for pid in children_of(server.pid) if "--role" in command_line(pid)]
        assert httpx.get(url + "/healthz", timeout=5).json()["checks"] == {"state": True}
        slack = SlackSender(url, slack_api)
        assert slack.command(PREEMPTED).status == 200
        slack_api.wait_until(
            lambda call: call.method == "chat.update" and "Routed: preempted" in call.body.get("text", ""),
            timeout=30,
        )
        slack.close()

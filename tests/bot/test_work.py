"""The work process's job runner: what it does with jobs it cannot read or that fail, and how many
it holds at once."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from bot.jobs import AnswerJob, QueuedJob
from bot.runtime import Runtime
from bot.state.store import StateStore
from bot.work import JobRunner
from tests.bot.harness import ScriptedBackend, running_bot
from tests.fakes.slack_api import FakeSlackApi


@contextmanager
def runner_on(runtime: Runtime, api: FakeSlackApi, *, slots: int) -> Iterator[JobRunner]:
    from bot.slack_client import make_client

    runner = JobRunner(runtime, make_client(token="xoxb-test-token", base_url=api.url), slots=slots)
    thread = threading.Thread(target=runner.serve, daemon=True)
    thread.start()
    try:
        yield runner
    finally:
        runner.stop.set()
        thread.join(timeout=10)


def wait_until(condition: object, *, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_an_unreadable_job_is_dropped_with_a_log_line_and_the_next_one_runs(
    slack_api: FakeSlackApi, sqlite_store: StateStore, caplog: pytest.LogCaptureFixture
) -> None:
    backend = ScriptedBackend(answer=lambda request: pytest.fail("no diagnosis expected"))
    with running_bot(slack_api, backend=backend, store=sqlite_store, jobs_mode="local") as bot:
        sqlite_store.push_job('{"schema": "bot-job/v1", "job": {"kind": "format-disk"}}')
        sqlite_store.push_job("not json")
        # A click on a question nobody asked: the job runs and tells nobody anything, but it runs.
        sqlite_store.push_job(
            QueuedJob(
                job=AnswerJob(pending_id="p-unknown", value="c1", user="U1", channel="C1")
            ).model_dump_json(by_alias=True)
        )
        with (
            caplog.at_level(logging.ERROR, logger="diagnose.bot"),
            runner_on(bot.runtime, slack_api, slots=2),
        ):
            wait_until(lambda: sqlite_store.queued_jobs() == 0)
        dropped = [
            record.getMessage() for record in caplog.records if "unreadable job" in record.getMessage()
        ]
        assert len(dropped) == 2
        assert all("format-disk" not in line and "not json" not in line for line in dropped)


def test_the_runner_never_holds_more_jobs_than_its_slots(
    slack_api: FakeSlackApi, sqlite_store: StateStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend = ScriptedBackend(answer=lambda request: pytest.fail("no diagnosis expected"))
    running = 0
    most = 0
    lock = threading.Lock()

    def slow_answer(self: AnswerJob, runtime: Runtime, client: object) -> None:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.2)
        with lock:
            running -= 1

    monkeypatch.setattr(AnswerJob, "run", slow_answer)
    with running_bot(slack_api, backend=backend, store=sqlite_store, jobs_mode="local") as bot:
        for number in range(8):
            sqlite_store.push_job(
                QueuedJob(job=AnswerJob(pending_id=f"p{number}", value="v", user="U1")).model_dump_json(
                    by_alias=True
                )
            )
        with runner_on(bot.runtime, slack_api, slots=3):
            # Jobs beyond the free slots stay in the queue for other work processes.
            time.sleep(0.1)
            assert sqlite_store.queued_jobs() >= 5
            wait_until(lambda: sqlite_store.queued_jobs() == 0)
    assert most == 3


def test_a_job_that_raises_is_finished_and_the_runner_goes_on(
    slack_api: FakeSlackApi, sqlite_store: StateStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend = ScriptedBackend(answer=lambda request: pytest.fail("no diagnosis expected"))
    ran: list[str] = []

    def flaky(self: AnswerJob, runtime: Runtime, client: object) -> None:
        ran.append(self.pending_id)
        if self.pending_id == "boom":
            raise RuntimeError("the Web API went away")

    monkeypatch.setattr(AnswerJob, "run", flaky)
    with running_bot(slack_api, backend=backend, store=sqlite_store, jobs_mode="local") as bot:
        for pending_id in ("boom", "after"):
            sqlite_store.push_job(
                QueuedJob(job=AnswerJob(pending_id=pending_id, value="v", user="U1")).model_dump_json(
                    by_alias=True
                )
            )
        with runner_on(bot.runtime, slack_api, slots=1):
            wait_until(lambda: sqlite_store.queued_jobs() == 0)
    assert ran == ["boom", "after"]


def test_a_job_that_took_down_every_process_that_ran_it_is_dropped(
    slack_api: FakeSlackApi,
    sqlite_store: StateStore,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    from bot.work import MAX_DELIVERIES

    backend = ScriptedBackend(answer=lambda request: pytest.fail("no diagnosis expected"))
    ran: list[str] = []
    monkeypatch.setattr(AnswerJob, "run", lambda self, runtime, client: ran.append(self.pending_id))
    with running_bot(slack_api, backend=backend, store=sqlite_store, jobs_mode="local") as bot:
        for pending_id in ("poison", "healthy"):
            sqlite_store.push_job(
                QueuedJob(job=AnswerJob(pending_id=pending_id, value="v", user="U1")).model_dump_json(
                    by_alias=True
                )
            )
        # Three work processes took the first job and died before finishing it (their leases ran out).
        for _ in range(MAX_DELIVERIES):
            died_with = sqlite_store.claim_job(lease_seconds=0, wait_seconds=0)
            assert died_with is not None and '"poison"' in died_with.body
        with (
            caplog.at_level(logging.ERROR, logger="diagnose.bot"),
            runner_on(bot.runtime, slack_api, slots=1),
        ):
            wait_until(lambda: sqlite_store.queued_jobs() == 0)
    assert ran == ["healthy"]
    assert any(f"died or hung {MAX_DELIVERIES} times" in record.getMessage() for record in caplog.records)

"""What huey leaves out and `bot.queue.redelivery` adds, with real worker processes killed with
SIGKILL, on a SQLite file and on a real Redis: a task whose worker died runs again, once; a task
that kills every worker that takes it is dropped with a log line; a stop that cannot wait for a
task queues it again at once; a task queued twice under one key (by a task run again after its
worker died) runs once."""

from __future__ import annotations

import logging
import multiprocessing
import os
import pickle
import signal
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from huey.api import Task

from bot.queue import Queues, open_queues
from bot.queue.redelivery import DONE, DONE_SECONDS, ONCE, STARTS, Redelivery, once
from bot.queue.workers import Workers

BEAT = 0.1
TIMEOUT = 1.0
SPACING = 2.0


@dataclass(frozen=True)
class Place:
    """Where the queues live (a state path, or a Redis URL and namespace) and the run's log file."""

    state_path: str
    redis_url: str | None
    namespace: str
    log_path: str

    def open(self) -> Queues:
        return open_queues(redis_url=self.redis_url, state_path=self.state_path, namespace=self.namespace)

    def lines(self) -> list[str]:
        path = Path(self.log_path)
        return path.read_text().split() if path.exists() else []


def _append(place: Place, word: str) -> None:
    with open(place.log_path, "a") as log:
        log.write(word + "\n")


def register(queues: Queues, place: Place) -> dict[str, Callable[..., object]]:
    """The same tasks in the test process (which queues them) and in the workers (which run them)."""

    @queues.diagnoses.task(name="note")
    def note(word: str) -> None:
        _append(place, word)

    @queues.diagnoses.task(name="hang_first_time")
    def hang_first_time(word: str) -> None:
        marker = Path(place.log_path + ".started")
        if not marker.exists():
            marker.touch()
            _append(place, "started")
            time.sleep(3600)  # the worker is killed meanwhile
        _append(place, word)

    @queues.diagnoses.task(name="slow_note")
    def slow_note(word: str) -> None:
        Path(place.log_path + ".slow").touch()
        time.sleep(1.0)
        _append(place, word)

    @queues.diagnoses.task(name="kill_the_worker")
    def kill_the_worker(word: str) -> None:
        # Waits for the slow task to run beside it (the first time), then takes the process down.
        deadline = time.monotonic() + 3
        while not Path(place.log_path + ".slow").exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        _append(place, "died")
        os.kill(os.getpid(), signal.SIGKILL)

    @queues.diagnoses.task(name="taken_then_killed")
    def taken_then_killed(word: str) -> None:
        _append(place, word)

    @queues.chat.task(name="hand_off")
    def hand_off(word: str) -> None:
        # Queues `note` under the key `word`; the first time, waits until it finished, then dies
        # before it could remember having queued it (as a chat task queueing a diagnosis can).
        queues.diagnoses.enqueue(once(note.s(word), word))
        marker = Path(place.log_path + ".handed")
        if marker.exists():
            _append(place, "handed-again")
            return
        marker.touch()
        deadline = time.monotonic() + 10
        while queues.diagnoses.get(DONE + ONCE + word, peek=True) is None and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(os.getpid(), signal.SIGKILL)

    return {
        "note": note,
        "hang_first_time": hang_first_time,
        "slow_note": slow_note,
        "kill_the_worker": kill_the_worker,
        "hand_off": hand_off,
        "taken_then_killed": taken_then_killed,
    }


def die_after_taking(place: Place, queues: Queues) -> None:
    """The first worker that takes `taken_then_killed` dies before it can record it as running
    (a hook that runs before the redelivery's: as when another thread's task kills the process
    in that moment)."""

    def hook(task: Task) -> None:
        marker = Path(place.log_path + ".taken")
        if task.name == "taken_then_killed" and not marker.exists():
            marker.touch()
            os.kill(os.getpid(), signal.SIGKILL)

    queues.diagnoses.pre_execute(name="test-die-after-taking")(hook)


def serve(place: Place) -> None:
    """A worker process (spawned: nothing inherited from the test process)."""
    logging.basicConfig(filename=place.log_path + ".worker.log", level=logging.INFO)
    queues = place.open()
    register(queues, place)
    die_after_taking(place, queues)
    workers = Workers(
        queues,
        chat_threads=1,
        diagnosis_threads=2,
        redelivery=Redelivery(
            queues.all(), beat_seconds=BEAT, holder_timeout=TIMEOUT, spacing_seconds=SPACING
        ),
    )
    workers.start()
    while True:
        time.sleep(0.2)
        workers.check()


@pytest.fixture(params=["sqlite", "redis"])
def place(request: pytest.FixtureRequest, tmp_path: Path) -> Place:
    redis_url = request.getfixturevalue("redis_url") if request.param == "redis" else None
    return Place(
        state_path=str(tmp_path / "state.sqlite3"),
        redis_url=redis_url,
        namespace=f"test-{uuid.uuid4().hex[:10]}",
        log_path=str(tmp_path / "ran.log"),
    )


@contextmanager
def worker_process(place: Place) -> Iterator[multiprocessing.process.BaseProcess]:
    process = multiprocessing.get_context("spawn").Process(target=serve, args=(place,), daemon=True)
    process.start()
    try:
        yield process
    finally:
        if process.is_alive():
            process.kill()
        process.join(timeout=10)


def wait_until(condition: Callable[[], bool], *, timeout: float = 60.0, what: str = "") -> None:
    # A spawned worker imports the whole bot before it takes a task: seconds on a busy machine.
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def test_tasks_queued_while_no_worker_runs_are_run_when_one_starts(place: Place) -> None:
    queues = place.open()
    tasks = register(queues, place)
    for word in ("one", "two", "three"):
        tasks["note"](word)
    queues.close()
    with worker_process(place):
        wait_until(lambda: len(place.lines()) == 3, what="the queued tasks")
    assert sorted(place.lines()) == ["one", "three", "two"]


def test_a_task_whose_worker_was_killed_runs_again_once_on_the_next_worker(place: Place) -> None:
    queues = place.open()
    tasks = register(queues, place)
    tasks["hang_first_time"]("finished")
    with worker_process(place) as first:
        wait_until(lambda: place.lines() == ["started"], what="the first start")
        os.kill(first.pid, signal.SIGKILL)  # type: ignore[arg-type]
        first.join(timeout=10)
    tasks["note"]("after")
    with worker_process(place):
        wait_until(lambda: len(place.lines()) == 3, what="the task run again")
        time.sleep(3 * BEAT + TIMEOUT)  # nothing runs a third time
    assert sorted(place.lines()) == ["after", "finished", "started"]
    assert not [key for key in queues.diagnoses.all_results() if key.startswith("running:")]


def test_a_task_whose_worker_died_after_taking_it_before_starting_it_runs_on_the_next_worker(
    place: Place,
) -> None:
    queues = place.open()
    tasks = register(queues, place)
    tasks["taken_then_killed"]("ran")
    with worker_process(place) as first:
        wait_until(lambda: Path(place.log_path + ".taken").exists(), what="the task taken")
        first.join(timeout=10)
        assert first.exitcode == -signal.SIGKILL
    assert place.lines() == []
    with worker_process(place):
        wait_until(lambda: place.lines() == ["ran"], what="the task run on the next worker")
        time.sleep(3 * BEAT + TIMEOUT)  # nothing runs it a second time
    assert place.lines() == ["ran"]
    assert not [key for key in queues.diagnoses.all_results() if key.startswith(("running:", "taken:"))]


def test_a_task_that_kills_every_worker_is_dropped_with_a_log_line(place: Place) -> None:
    queues = place.open()
    tasks = register(queues, place)
    # A task that was running beside it when it first killed a worker is not taken for it.
    tasks["slow_note"]("healthy")
    tasks["kill_the_worker"]("x")
    for _ in range(3):
        count = place.lines().count("died")
        with worker_process(place) as worker:
            wait_until(lambda died=count + 1: place.lines().count("died") == died, what="a death")
            worker.join(timeout=10)
            assert worker.exitcode == -signal.SIGKILL
    tasks["note"]("next")
    log = Path(place.log_path + ".worker.log")
    with worker_process(place) as survivor:
        wait_until(lambda: {"healthy", "next"} <= set(place.lines()), what="the other tasks")
        wait_until(lambda: "dropped task" in log.read_text(), what="the log line")
        assert survivor.is_alive()
    assert place.lines().count("died") == 3
    assert place.lines().count("healthy") == 1
    dropped = [line for line in log.read_text().splitlines() if "dropped task" in line]
    assert len(dropped) == 1
    assert "(kill_the_worker): its worker stopped 3 times while running it" in dropped[0]


def test_a_stop_that_cannot_wait_queues_the_running_task_again_uncounted(place: Place) -> None:
    queues = place.open()
    tasks = register(queues, place)
    tasks["hang_first_time"]("finished")
    workers = Workers(queues, redelivery=Redelivery(queues.all(), beat_seconds=BEAT, holder_timeout=TIMEOUT))
    workers.start()
    wait_until(lambda: place.lines() == ["started"], what="the start")
    workers.stop(timeout=0.2)
    assert queues.diagnoses.pending_count() == 1
    with worker_process(place):
        wait_until(lambda: "finished" in place.lines(), what="the task run again")
    assert queues.diagnoses.storage.incr(STARTS + "nothing", 0) == 0


def test_an_unreadable_task_is_dropped_and_never_run(place: Place, caplog: pytest.LogCaptureFixture) -> None:
    queues = place.open()
    tasks = register(queues, place)

    class Exploit:
        def __reduce__(self) -> tuple[object, tuple[str]]:
            return (os.system, ("touch " + place.log_path + ".pwned",))

    queues.diagnoses.storage.enqueue(pickle.dumps(Exploit()))
    tasks["note"]("after")
    with caplog.at_level(logging.ERROR):
        workers = Workers(queues)
        workers.start()
        try:
            wait_until(lambda: place.lines() == ["after"], what="the next task")
        finally:
            workers.stop(timeout=1)
    assert not Path(place.log_path + ".pwned").exists()
    assert any(
        "posix.system" in record.getMessage() or "posix.system" in str(record.exc_info)
        for record in caplog.records
    )


def test_a_task_queued_again_by_a_task_run_again_runs_once(place: Place) -> None:
    queues = place.open()
    tasks = register(queues, place)
    tasks["hand_off"]("diagnosed")
    with worker_process(place) as first:
        first.join(timeout=30)  # it killed itself once `note` had run
        assert first.exitcode == -signal.SIGKILL
    assert place.lines() == ["diagnosed"]
    with worker_process(place):
        wait_until(lambda: "handed-again" in place.lines(), what="the hand-off run again")
        wait_until(lambda: queues.diagnoses.pending_count() == 0, what="the second copy taken")
        time.sleep(3 * BEAT + TIMEOUT)
    assert place.lines() == ["diagnosed", "handed-again"]


def test_two_copies_queued_under_one_key_run_once(place: Place) -> None:
    queues = place.open()
    tasks = register(queues, place)
    for _ in range(2):
        queues.diagnoses.enqueue(once(tasks["note"].s("only"), "same-key"))  # type: ignore[attr-defined]
    tasks["note"]("after")
    with worker_process(place):
        wait_until(lambda: "after" in place.lines(), what="the queue worked through")
        wait_until(lambda: queues.diagnoses.pending_count() == 0, what="both copies taken")
        time.sleep(3 * BEAT)
    assert sorted(place.lines()) == ["after", "only"]
    assert queues.diagnoses.get(DONE + ONCE + "same-key", peek=True) is not None


def test_a_finished_key_is_forgotten_after_a_day(place: Place) -> None:
    queues = place.open()
    now = [1_000_000.0]
    redelivery = Redelivery(queues.all(), clock=lambda: now[0])
    queues.diagnoses.put(DONE + ONCE + "old", now[0] - DONE_SECONDS - 1)
    queues.diagnoses.put(DONE + ONCE + "recent", now[0] - 60)
    redelivery.recover()
    assert queues.diagnoses.get(DONE + ONCE + "old", peek=True) is None
    assert queues.diagnoses.get(DONE + ONCE + "recent", peek=True) is not None

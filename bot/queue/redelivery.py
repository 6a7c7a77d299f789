"""A task whose worker died while running it runs again; one that killed every worker that took it
is dropped with a log line.

huey takes a task off its queue when a worker starts it and keeps no acknowledgement: a worker
killed mid-task (out of memory, SIGKILL, a lost node) loses the task
(https://huey.readthedocs.io/en/latest/consumer.html#consumer-shutdown, and the maintainer in
https://github.com/coleifer/huey/issues/418). This is the smallest acknowledgement that can be
added on huey's own extension points and its storage's key-value API, so it is the same on SQLite
and on Redis:

- pre-execute hook: `running:<task id>` records the task's message, who runs it and how many
  times it started (one run of a task at a time: a copy that finds the record does not run); a
  task that already started MAX_STARTS times without finishing once is dropped (huey's
  CancelExecution) instead of taking the next worker down too.
- between the queue and that record, what a worker took is kept under its name in the same
  atomic step as the take (bot.queue.taken), and forgotten once the record is written.
- post-execute hook: the task finished (well or not: huey's own retries take it from there), so
  the record goes.
- SIGNAL_INTERRUPTED (a stop that could not wait for the task): queued again at once, uncounted.
- A task queued with an id of its own (`once`) runs once: a second copy of it (queued by a task
  that ran again after its worker died, not knowing whether its first run had queued it) is not
  run while the first runs, nor for a day after it finished (`done:<task id>`).
- Every worker process (a "holder") writes `holder:<id>` with the time every `beat_seconds`, and
  queues again the running tasks, and the taken ones, of any holder whose beat is older than
  `holder_timeout` (or whose process is gone, on the same host). `pop_data` is atomic on both storages, so exactly one
  worker queues each of them again. Tasks caught in a second death start `spacing_seconds` apart,
  so that a task that only ran beside the one that kills workers finishes instead of being
  counted with it.

Delivery is then at least once: what a task does must survive running twice (the bot's tasks
update their placeholder in place and claim anything they post only once). The records are
written once when a task starts and deleted once when it ends; a count of starts is written only
for a task whose worker died.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from huey import Huey, signals
from huey.api import Task
from huey.constants import EmptyData
from huey.exceptions import CancelExecution
from huey.utils import normalize_time

from bot.queue.taken import TakingStorage

log = logging.getLogger("diagnose.bot")

# A task started this many times without finishing once took down (or hung) each worker that ran it.
MAX_STARTS = 3
BEAT_SECONDS = 5.0
# A holder silent this long is gone: its running tasks are queued again. Longer than any pause a
# live worker can have between two beats (a garbage collection, a slow storage call).
HOLDER_TIMEOUT_SECONDS = 30.0
# The tasks a dead worker was running start again this far apart (the first at once).
SPACING_SECONDS = 20.0

# A task queued with `once` is not run again this long after it finished.
DONE_SECONDS = 86400.0

RUNNING = "running:"
STARTS = "starts:"
HOLDER = "holder:"
CHECKPOINT = "checkpoint:"
DONE = "done:"
ONCE = "once:"


@dataclass
class _Run:
    """The task this thread runs: its huey, its id, the holder running it, its start number, and
    whether it left a checkpoint."""

    huey: Huey
    task_id: str
    holder: str
    starts: int
    remembered: bool = False


_current = threading.local()


def _running() -> _Run | None:
    run: _Run | None = getattr(_current, "run", None)
    return run


def once(task: Task, key: str) -> Task:
    """`task` with the id `once:<key>`: queued twice under the same key, it runs once."""
    task.id = ONCE + key
    task.revoke_id = f"r:{task.id}"
    return task


def still_held() -> bool:
    """Whether the task this thread runs is still this worker's: False once another worker took it
    over (this one was taken for dead: frozen longer than the holder timeout). A task checks before
    it answers, so that a late run never overwrites the answer of the run that replaced it."""
    run = _running()
    if run is None:
        return True
    record = run.huey.get(RUNNING + run.task_id, peek=True)
    return record is not None and record[0] == run.holder


def recalled(name: str) -> str | None:
    """What the task this thread runs remembered under `name` in an earlier run (one that died),
    else None: a task run again finds, say, the message it had posted, instead of posting another."""
    run = _running()
    if run is None:
        return None
    saved = run.huey.get(CHECKPOINT + run.task_id, peek=True) or {}
    value = saved.get(name)
    return None if value is None else str(value)


def remember(name: str, value: str) -> None:
    """Keep `value` for a run of this task after this one dies (forgotten when the task finishes)."""
    run = _running()
    if run is None:
        return
    saved = dict(run.huey.get(CHECKPOINT + run.task_id, peek=True) or {})
    saved[name] = value
    run.huey.put(CHECKPOINT + run.task_id, saved)
    run.remembered = True


def new_holder_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def _process_gone(holder: str) -> bool:
    """True when `holder` ran in a process of this host that no longer exists (a restart on one
    machine, or a restarted container of the same pod: no need to wait for its beat to age)."""
    host, _, rest = holder.partition(":")
    pid_text = rest.partition(":")[0]
    if host != socket.gethostname() or not pid_text.isdigit():
        return False
    pid = int(pid_text)
    if pid == os.getpid():
        return True  # this process has the pid now: the holder was an earlier one
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    try:  # Linux: killed but not yet reaped (its parent died too) is gone as well
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


class Redelivery:
    """Attach to the hueys a worker process consumes; `start()` its beat, `stop()` when the
    consumers have stopped."""

    def __init__(
        self,
        hueys: Iterable[Huey],
        *,
        holder: str | None = None,
        beat_seconds: float = BEAT_SECONDS,
        holder_timeout: float = HOLDER_TIMEOUT_SECONDS,
        max_starts: int = MAX_STARTS,
        spacing_seconds: float = SPACING_SECONDS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.hueys = list(hueys)
        self.holder = holder or new_holder_id()
        self.beat_seconds = beat_seconds
        self.holder_timeout = holder_timeout
        self.max_starts = max_starts
        self.spacing_seconds = spacing_seconds
        self.clock = clock
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._in_flight = 0
        self._lock = threading.Lock()
        self.last_beat = 0.0
        for huey in self.hueys:
            self._attach(huey)

    # ---- hooks ---------------------------------------------------------------------------------

    def _attach(self, huey: Huey) -> None:
        storage = huey.storage
        if isinstance(storage, TakingStorage):
            storage.holder = self.holder  # what this worker takes is kept under its name

        def record_start(task: Task) -> None:
            try:
                _record_start(task)
            finally:
                # Recorded as running, or refused for good: what this thread took is no longer
                # only in its taken entry. (A worker that dies before this leaves the entry.)
                if isinstance(storage, TakingStorage):
                    storage.forget_taken()

        def _record_start(task: Task) -> None:
            # Started before by a worker that died (counted when it was queued again), else never.
            starts = int(huey.get(STARTS + task.id, peek=True) or 0) + 1
            if starts > self.max_starts:
                huey.delete(STARTS + task.id)
                huey.delete(CHECKPOINT + task.id)
                log.error(
                    "dropped task %s (%s): its worker stopped %d times while running it",
                    task.id,
                    type(task).__name__,
                    starts - 1,
                )
                raise CancelExecution(retry=False)
            # Recorded first: a worker that dies right after this still leaves the task to others.
            record = huey.serializer.serialize((self.holder, huey.serialize_task(task), starts))
            if not huey.storage.put_if_empty(RUNNING + task.id, record):
                log.info("task %s (%s) not run: a copy of it runs already", task.id, type(task).__name__)
                raise CancelExecution(retry=False)
            # Looked at once this run is recorded: a copy that finished meanwhile wrote `done:` before
            # it deleted its own record.
            if task.id.startswith(ONCE) and huey.get(DONE + task.id, peek=True) is not None:
                huey.delete(RUNNING + task.id)
                log.info("task %s (%s) not run again: it ran already", task.id, type(task).__name__)
                raise CancelExecution(retry=False)
            self._count(+1)
            _current.run = _Run(huey=huey, task_id=task.id, holder=self.holder, starts=starts)

        def record_end(task: Task, value: Any, exception: BaseException | None) -> None:
            run = _running()
            _current.run = None
            self._count(-1)
            if not self._holds(huey, task.id):  # another worker took it over meanwhile
                return
            retried = exception is not None and task.retries > 0  # huey runs it again, with its id
            if task.id.startswith(ONCE) and not retried:
                huey.put(DONE + task.id, self.clock())  # before the record goes (see record_start)
            huey.delete(RUNNING + task.id)
            if (run is None or run.remembered or run.starts > 1) and not retried:
                huey.delete(CHECKPOINT + task.id)
            if run is not None and run.starts > 1:
                huey.delete(STARTS + task.id)

        def put_back(signal: str, task: Task, *args: Any, **kwargs: Any) -> None:
            # Stopped before the task could finish: not the task's fault, so not a start counted.
            run = _running()
            _current.run = None
            self._count(-1)
            earlier = (run.starts if run is not None else 1) - 1
            if earlier > 0:
                huey.put(STARTS + task.id, earlier)
            else:
                huey.delete(STARTS + task.id)
            huey.delete(RUNNING + task.id)
            huey.enqueue(task)
            log.info("task %s queued again: its worker stopped before it finished", task.id)

        huey.pre_execute(name="redelivery-start")(record_start)
        huey.post_execute(name="redelivery-end")(record_end)
        huey.signal(signals.SIGNAL_INTERRUPTED)(put_back)

    def _holds(self, huey: Huey, task_id: str) -> bool:
        record = huey.get(RUNNING + task_id, peek=True)
        return record is not None and record[0] == self.holder

    def _count(self, change: int) -> None:
        with self._lock:
            self._in_flight = max(0, self._in_flight + change)

    @property
    def in_flight(self) -> int:
        """Tasks this process is running now."""
        with self._lock:
            return self._in_flight

    # ---- beat and recovery ---------------------------------------------------------------------

    def beat(self) -> None:
        now = self.clock()
        for huey in self.hueys:
            huey.put(HOLDER + self.holder, now)
        self.last_beat = now

    def recover(self) -> int:
        """Queue again the running tasks of holders that are gone; returns how many. Forgets the
        finished `once` tasks older than DONE_SECONDS."""
        requeued = 0
        now = self.clock()
        for huey in self.hueys:
            items = huey.storage.result_items()
            beats: dict[str, float] = {}
            for key, raw in items.items():
                if key.startswith(HOLDER):
                    beats[key[len(HOLDER) :]] = float(huey.serializer.deserialize(raw))
                elif key.startswith(DONE) and now - float(huey.serializer.deserialize(raw)) > DONE_SECONDS:
                    huey.delete(key)
            left: dict[str, int] = {}
            gone_holders: set[str] = set()
            for key, raw in sorted(items.items()):
                if not key.startswith(RUNNING):
                    continue
                # (A record of the previous version has no count: one start.)
                holder, message, *count = huey.serializer.deserialize(raw)
                if holder != self.holder and self._gone(holder, beats.get(holder), now):
                    gone_holders.add(holder)
                starts = int(count[0]) if count else 1
                if holder == self.holder or not self._gone(holder, beats.get(holder), now):
                    continue
                task_id = key[len(RUNNING) :]
                # The count goes with the task (written before it is queued again; a recoverer
                # that loses the race below wrote the same number).
                huey.put(STARTS + task_id, int(starts))
                if huey.storage.pop_data(key) is EmptyData:  # atomic: one recoverer wins
                    continue
                # A worker that died once was most likely stopped from outside (a restart, the
                # node): its tasks start again at once. Tasks in a second death running together
                # start apart, so that the others finish without the culprit, which alone keeps
                # counting deaths.
                order = left.get(holder, 0)
                suspect = int(starts) > 1
                if suspect:
                    left[holder] = order + 1
                if not suspect or order == 0:
                    huey.storage.enqueue(message)
                else:
                    eta = normalize_time(delay=order * self.spacing_seconds, utc=huey.utc)
                    huey.storage.add_to_schedule(message, eta)
                requeued += 1
                log.warning("task %s queued again: its worker %s stopped while running it", task_id, holder)
            requeued += self._recover_taken(huey, items, beats, gone_holders, now)
            for holder, beat in beats.items():
                if holder != self.holder and now - beat > self.holder_timeout:
                    huey.delete(HOLDER + holder)
        return requeued

    def _recover_taken(
        self,
        huey: Huey,
        items: dict[str, bytes],
        beats: dict[str, float],
        gone_holders: set[str],
        now: float,
    ) -> int:
        """Queue again what gone holders took off the queue and never recorded as running (died in
        between: bot.queue.taken). A task that also has a running record of that holder was queued
        again with it above."""
        storage = huey.storage
        if not isinstance(storage, TakingStorage):
            return 0
        holders = gone_holders | {
            holder
            for holder, beat in beats.items()
            if holder != self.holder and self._gone(holder, beat, now)
        }
        running = {key[len(RUNNING) :] for key in items if key.startswith(RUNNING)}
        requeued = 0
        for holder in sorted(holders):
            for message in storage.pop_taken(holder):
                task_id = huey.deserialize_task(message).id
                if task_id in running:
                    continue
                huey.storage.enqueue(message)
                requeued += 1
                log.warning("task %s queued again: its worker %s stopped as it took it", task_id, holder)
        return requeued

    def _gone(self, holder: str, beat: float | None, now: float) -> bool:
        return beat is None or now - beat > self.holder_timeout or _process_gone(holder)

    def start(self) -> None:
        """Beat once and recover what earlier holders left, then keep doing both in a thread."""
        self.beat()
        self.recover()
        self._thread = threading.Thread(target=self._run, name="redelivery", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.beat_seconds):
            try:
                self.beat()
                self.recover()
            except Exception as exc:  # the storage is unreachable for a moment: next beat
                log.warning("task redelivery check failed: %s", type(exc).__name__)

    def alive(self) -> bool:
        """The beat is running and recent (the worker's liveness check)."""
        running = self._thread is not None and self._thread.is_alive()
        return running and self.clock() - self.last_beat < max(3 * self.beat_seconds, self.holder_timeout)

    def stop(self) -> None:
        """After the consumers stopped: no more beats; this holder's key goes, so anything it still
        held is taken over at once by the next worker."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        for huey in self.hueys:
            try:
                huey.delete(HOLDER + self.holder)
            except Exception:
                log.warning("could not remove this worker's beat from the queue")

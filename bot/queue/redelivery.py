"""A task whose worker died while running it runs again; one that killed every worker that took it
is dropped with a log line.

huey takes a task off its queue when a worker starts it and keeps no acknowledgement: a worker
killed mid-task (out of memory, SIGKILL, a lost node) loses the task
(https://huey.readthedocs.io/en/latest/consumer.html#consumer-shutdown, and the maintainer in
https://github.com/coleifer/huey/issues/418). This is the smallest acknowledgement that can be
added on huey's own extension points and its storage's key-value API, so it is the same on SQLite
and on Redis:

- pre-execute hook: `running:<task id>` records the task's message and who runs it, and
  `starts:<task id>` counts its starts; a task that already started MAX_STARTS times without
  finishing once is dropped (huey's CancelExecution) instead of taking the next worker down too.
- post-execute hook: the task finished (well or not: huey's own retries take it from there), so
  the record and the count go.
- SIGNAL_INTERRUPTED (a stop that could not wait for the task): queued again at once, uncounted.
- Every worker process (a "holder") writes `holder:<id>` with the time every `beat_seconds`, and
  queues again the running tasks of any holder whose beat is older than `holder_timeout` (or
  whose process is gone, on the same host). `pop_data` is atomic on both storages, so exactly one
  worker queues each of them again; they start `spacing_seconds` apart, so that a task that only
  ran beside the one that kills workers finishes instead of being counted with it.

Delivery is then at least once: what a task does must survive running twice (the bot's tasks
update their placeholder in place and claim anything they post only once).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from typing import Any

from huey import Huey, signals
from huey.api import Task
from huey.constants import EmptyData
from huey.exceptions import CancelExecution
from huey.utils import normalize_time

log = logging.getLogger("diagnose.bot")

# A task started this many times without finishing once took down (or hung) each worker that ran it.
MAX_STARTS = 3
BEAT_SECONDS = 5.0
# A holder silent this long is gone: its running tasks are queued again. Longer than any pause a
# live worker can have between two beats (a garbage collection, a slow storage call).
HOLDER_TIMEOUT_SECONDS = 30.0
# The tasks a dead worker was running start again this far apart (the first at once).
SPACING_SECONDS = 20.0

RUNNING = "running:"
STARTS = "starts:"
HOLDER = "holder:"


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
        def record_start(task: Task) -> None:
            # Recorded first: a worker that dies right after this still leaves the task to others.
            huey.put(RUNNING + task.id, (self.holder, huey.serialize_task(task)))
            starts = int(huey.storage.incr(STARTS + task.id))
            if starts > self.max_starts:
                huey.storage.delete_counter(STARTS + task.id)
                huey.delete(RUNNING + task.id)
                log.error(
                    "dropped task %s (%s): its worker stopped %d times while running it",
                    task.id,
                    type(task).__name__,
                    starts - 1,
                )
                raise CancelExecution(retry=False)
            self._count(+1)

        def record_end(task: Task, value: Any, exception: BaseException | None) -> None:
            self._count(-1)
            huey.delete(RUNNING + task.id)
            huey.storage.delete_counter(STARTS + task.id)

        def put_back(signal: str, task: Task, *args: Any, **kwargs: Any) -> None:
            # Stopped before the task could finish: not the task's fault, so not a start counted.
            self._count(-1)
            huey.storage.incr(STARTS + task.id, -1)
            huey.delete(RUNNING + task.id)
            huey.enqueue(task)
            log.info("task %s queued again: its worker stopped before it finished", task.id)

        huey.pre_execute(name="redelivery-start")(record_start)
        huey.post_execute(name="redelivery-end")(record_end)
        huey.signal(signals.SIGNAL_INTERRUPTED)(put_back)

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
        """Queue again the running tasks of holders that are gone; returns how many."""
        requeued = 0
        now = self.clock()
        for huey in self.hueys:
            items = huey.storage.result_items()
            beats: dict[str, float] = {}
            for key, raw in items.items():
                if key.startswith(HOLDER):
                    beats[key[len(HOLDER) :]] = float(huey.serializer.deserialize(raw))
            left: dict[str, int] = {}
            for key, raw in sorted(items.items()):
                if not key.startswith(RUNNING):
                    continue
                holder, message = huey.serializer.deserialize(raw)
                if holder == self.holder or not self._gone(holder, beats.get(holder), now):
                    continue
                if huey.storage.pop_data(key) is EmptyData:  # atomic: one recoverer wins
                    continue
                # One of the tasks a dead worker ran killed it, maybe: they start again apart, so
                # that the others finish without it and only the culprit keeps counting deaths.
                order = left.get(holder, 0)
                left[holder] = order + 1
                if order == 0:
                    huey.storage.enqueue(message)
                else:
                    eta = normalize_time(delay=order * self.spacing_seconds, utc=huey.utc)
                    huey.storage.add_to_schedule(message, eta)
                requeued += 1
                log.warning(
                    "task %s queued again: its worker %s stopped while running it",
                    key[len(RUNNING) :],
                    holder,
                )
            for holder, beat in beats.items():
                if holder != self.holder and now - beat > self.holder_timeout:
                    huey.delete(HOLDER + holder)
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

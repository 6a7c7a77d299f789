"""The work process: takes the jobs the HTTP processes queued and runs them on its own pools.

It runs at a lower CPU priority than the processes that ack Slack: an ack has 3 seconds, a report
that lands 100 ms later is not noticed. It never takes more jobs than it has chat slots free, so
several work processes share a burst instead of one hoarding it.
"""

from __future__ import annotations

import logging
import os
import threading

from pydantic import TypeAdapter, ValidationError
from slack_sdk import WebClient

from bot.jobs import QueuedJob
from bot.runtime import Runtime
from bot.state.store import ClaimedJob, StateStore
from diagnosis.masking import mask

log = logging.getLogger("diagnose.bot")

# Added to the process's nice value (Linux: 0 → 10 gives it about a tenth of a contended core).
WORK_NICENESS = 10
PARENT_CHECK_SECONDS = 1.0

# A job handed out this many times killed (or hung) every process that took it: a poison job. It is
# dropped instead of taking the next work process down too.
MAX_DELIVERIES = 3

# A job nobody has taken for this long means no work process is taking jobs (all dead, or stuck):
# the web side's health check then fails, so that Kubernetes restarts the pod.
STALL_SECONDS = 120.0

_QUEUED_JOB: TypeAdapter[QueuedJob] = TypeAdapter(QueuedJob)


def work_keeps_up(store: StateStore, *, stall_seconds: float = STALL_SECONDS) -> bool:
    """The web side's view of the work processes: False when a queued job has waited too long."""
    try:
        waited = store.oldest_waiting_job_seconds()
    except Exception:
        return False
    return waited is None or waited < stall_seconds


def lower_priority(increment: int = WORK_NICENESS) -> None:
    """Linux: SCHED_IDLE (runs only on CPU time nothing else wants), else nice +10."""
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        return
    except (AttributeError, OSError):
        pass
    try:
        os.nice(increment)
    except OSError:  # not allowed here (some sandboxes): run at the normal priority
        log.info("could not lower the work process's CPU priority")


class JobRunner:
    def __init__(self, runtime: Runtime, client: WebClient, *, slots: int) -> None:
        self.runtime = runtime
        self.client = client
        self.store = runtime.services.store
        self.slots = threading.BoundedSemaphore(slots)
        self.stop = threading.Event()

    def serve(self, *, parent_pid: int | None = None) -> None:
        """Until `stop` is set (or the parent process is gone): claim a job per free slot, run it."""
        while not self.stop.is_set():
            if parent_pid is not None and os.getppid() != parent_pid:
                log.warning("the bot's main process is gone: the work process stops")
                return
            if not self.slots.acquire(timeout=PARENT_CHECK_SECONDS):
                continue
            try:
                claimed = self.store.claim_job(wait_seconds=PARENT_CHECK_SECONDS)
            except Exception as exc:  # the store is unreachable for a moment: try again
                self.slots.release()
                log.warning("could not read the job queue: %s", mask(f"{type(exc).__name__}: {exc}"))
                self.stop.wait(PARENT_CHECK_SECONDS)
                continue
            if claimed is None:
                self.slots.release()
                continue
            self.runtime.services.worker.chat(self._run, claimed)

    def _run(self, claimed: ClaimedJob) -> None:
        if claimed.deliveries > MAX_DELIVERIES:
            log.error(
                "dropped job %s: its work process died or hung %d times running it",
                claimed.id,
                claimed.deliveries - 1,
            )
            self._finish(claimed)
            return
        try:
            queued = _QUEUED_JOB.validate_json(claimed.body)
        except ValidationError as exc:
            # Written by another version of the bot, or damaged: dropped, and said in the log.
            log.error("dropped an unreadable job %s: %d problems", claimed.id, exc.error_count())
            self._finish(claimed)
            return
        try:
            queued.job.run(self.runtime, self.client)
        finally:
            self._finish(claimed)

    def _finish(self, claimed: ClaimedJob) -> None:
        try:
            self.store.finish_job(claimed.id)
        finally:
            self.slots.release()

"""The worker side: huey consumers of both queues in this process, each with its own threads, and
the redelivery beat. The process that runs this (`diagnose bot --role worker`, or the child of
`diagnose bot`) owns the signals; huey's consumer here only runs threads."""

from __future__ import annotations

import logging
import os
import threading
import time

from huey import Huey
from huey.api import Task
from huey.consumer import Consumer

from bot.queue import Queues
from bot.queue.redelivery import Redelivery

log = logging.getLogger("diagnose.bot")

# How often an idle worker thread looks at a SQLite queue, at most (Redis blocks on BLMOVE instead).
CHAT_POLL_SECONDS = 0.25
DIAGNOSIS_POLL_SECONDS = 0.5
# An idle worker thread notices a stop within this (the Redis BLMOVE timeout is 1 s).
IDLE_EXIT_SECONDS = 1.5
# The diagnosis threads' niceness: they yield the CPU to the web side's acks and to the chat
# threads (placeholders, questions) when both want it, and still get their share on a busy machine.
DIAGNOSIS_NICE = 10

_thread_state = threading.local()


def lower_this_thread(nice: int) -> None:
    """Linux gives each thread its own niceness (setpriority on the thread id). Only the threads
    that run diagnoses are lowered: a whole process at a lower priority, descheduled while it holds
    a queue's or the state's write lock, made the web side wait for it (seen: acks of 2 s at load 8)."""
    if getattr(_thread_state, "nice", None) == nice:
        return
    _thread_state.nice = nice
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), nice)
    except OSError:  # not allowed here (some sandboxes): the normal priority
        log.info("could not lower a diagnosis thread's CPU priority")


class _ThreadsOnly(Consumer):  # type: ignore[misc]
    """huey's consumer without its signal handlers (the worker process has its own, and tests run
    consumers in threads of the test process)."""

    def _set_signal_handlers(self) -> None:
        return


class Workers:
    def __init__(
        self,
        queues: Queues,
        *,
        chat_threads: int = 8,
        diagnosis_threads: int = 4,
        diagnosis_nice: int = DIAGNOSIS_NICE,
        redelivery: Redelivery | None = None,
    ) -> None:
        self.queues = queues
        self.redelivery = redelivery or Redelivery(queues.all())

        def lower(task: Task) -> None:
            lower_this_thread(diagnosis_nice)

        queues.diagnoses.pre_execute(name="lower-priority")(lower)
        self.consumers = [
            self._consumer(queues.chat, threads=chat_threads, poll=CHAT_POLL_SECONDS),
            self._consumer(queues.diagnoses, threads=diagnosis_threads, poll=DIAGNOSIS_POLL_SECONDS),
        ]

    @staticmethod
    def _consumer(huey: Huey, *, threads: int, poll: float) -> Consumer:
        return _ThreadsOnly(
            huey,
            workers=threads,
            periodic=False,
            initial_delay=0.02,
            backoff=1.5,
            max_delay=poll,
            worker_type="thread",
            check_worker_health=True,
        )

    def start(self) -> None:
        """Take over what earlier workers left unfinished, then start consuming."""
        self.redelivery.start()
        for consumer in self.consumers:
            consumer.start()

    def check(self) -> bool:
        """Restart a worker thread that died (huey's own health check); True while the beat runs."""
        for consumer in self.consumers:
            consumer.check_worker_health()
        return self.redelivery.alive()

    def idle(self) -> bool:
        """Nothing queued, scheduled for a retry, or running here (tests, a graceful stop)."""
        queued = sum(huey.pending_count() + huey.scheduled_count() for huey in self.queues.all())
        return queued == 0 and self.redelivery.in_flight == 0

    def wait_idle(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        quiet = 0
        while time.monotonic() < deadline:
            # Idle twice in a row: a task between a worker's dequeue and its start is not missed.
            quiet = quiet + 1 if self.idle() else 0
            if quiet >= 2:
                return True
            time.sleep(0.02)
        return False

    def stop(self, *, timeout: float = 25.0) -> None:
        """Take no new task; give running ones `timeout` seconds, then queue them again."""
        for consumer in self.consumers:
            consumer.stop_flag.set()
        # Idle threads leave within a poll (or a Redis BLMOVE's timeout): waited for even when
        # `timeout` is shorter, so that none of them takes a task queued again below.
        deadline = time.monotonic() + max(timeout, IDLE_EXIT_SECONDS)
        for consumer in self.consumers:
            for thread in [process for _, process in consumer.worker_threads] + [consumer.scheduler]:
                thread.join(max(0.0, deadline - time.monotonic()))
        for huey in self.queues.all():
            huey.notify_interrupted_tasks()
        self.redelivery.stop()

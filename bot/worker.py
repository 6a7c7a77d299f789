"""The bot's own executors, so that Bolt's small listener pool only ever acks and hands off.

Two pools: `chat` for short Slack exchanges (placeholders, prompts, follow-ups) and `diagnoses`
for the 5–60 s workflows, bounded in concurrency and in how many may wait. A full queue refuses
at once (the user is told) rather than queueing without limit.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from diagnosis.masking import mask

log = logging.getLogger("diagnose.bot")


class Worker:
    def __init__(self, *, diagnosis_slots: int = 4, chat_slots: int = 8, max_waiting: int = 50) -> None:
        self.diagnosis_slots = diagnosis_slots
        self.chat_slots = chat_slots
        self._diagnoses = ThreadPoolExecutor(max_workers=diagnosis_slots, thread_name_prefix="diagnosis")
        self._chat = ThreadPoolExecutor(max_workers=chat_slots, thread_name_prefix="slack-chat")
        self._admission = threading.BoundedSemaphore(diagnosis_slots + max_waiting)
        self._idle = threading.Condition()
        self._in_flight = 0
        self._running_diagnoses = 0

    def chat(self, task: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        """Run a short Slack exchange off the listener pool."""
        return self._submit(self._chat, task, args, kwargs)

    def diagnosis(self, task: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any] | None:
        """Queue a diagnosis; None when the queue is full (say so to the user)."""
        if not self._admission.acquire(blocking=False):
            return None

        def admitted() -> Any:
            with self._idle:
                self._running_diagnoses += 1
            try:
                return task(*args, **kwargs)
            finally:
                with self._idle:
                    self._running_diagnoses -= 1
                self._admission.release()

        return self._submit(self._diagnoses, admitted, (), {})

    @property
    def waiting(self) -> bool:
        """Whether a newly queued diagnosis would wait for a free slot."""
        with self._idle:
            return self._running_diagnoses >= self.diagnosis_slots

    def _submit(
        self,
        pool: ThreadPoolExecutor,
        task: Callable[..., Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> Future[Any]:
        with self._idle:
            self._in_flight += 1

        def run() -> Any:
            try:
                return task(*args, **kwargs)
            except Exception:
                # Tasks report failures to the user themselves; this only keeps the pool alive.
                log.exception("bot task %s failed", mask(getattr(task, "__name__", repr(task))))
                return None
            finally:
                with self._idle:
                    self._in_flight -= 1
                    self._idle.notify_all()

        return pool.submit(run)

    def wait_idle(self, timeout: float) -> bool:
        """True once nothing is running or queued (tests, graceful shutdown)."""
        with self._idle:
            return self._idle.wait_for(lambda: self._in_flight == 0, timeout=timeout)

    def shutdown(self, *, wait: bool = True) -> None:
        self._diagnoses.shutdown(wait=wait, cancel_futures=not wait)
        self._chat.shutdown(wait=wait, cancel_futures=not wait)

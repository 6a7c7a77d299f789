"""Short Slack calls that must not hold the caller: a progress update while the workflow goes on,
a notice after an ack. One small pool per process; everything that is a request's work goes
through the task queues instead (bot.tasks)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from diagnosis.masking import mask

log = logging.getLogger("diagnose.bot")


class Background:
    def __init__(self, *, threads: int = 4) -> None:
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="slack-background")
        self._idle = threading.Condition()
        self._in_flight = 0

    def run(self, task: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        with self._idle:
            self._in_flight += 1

        def guarded() -> Any:
            try:
                return task(*args, **kwargs)
            except Exception:
                # Tasks report failures to the user themselves; this only keeps the pool alive.
                log.exception("background call %s failed", mask(getattr(task, "__name__", repr(task))))
                return None
            finally:
                with self._idle:
                    self._in_flight -= 1
                    self._idle.notify_all()

        return self._pool.submit(guarded)

    def wait_idle(self, timeout: float) -> bool:
        """True once nothing is running or waiting (tests, a graceful stop)."""
        with self._idle:
            return self._idle.wait_for(lambda: self._in_flight == 0, timeout=timeout)

    def shutdown(self, *, wait: bool = True) -> None:
        self._pool.shutdown(wait=wait, cancel_futures=not wait)

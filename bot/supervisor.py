"""HTTP mode's process tree: one web child (gunicorn, acks Slack and queues jobs) and N work children
(run the jobs), each restarted when it dies; SIGTERM/SIGINT stop them all, gracefully.

A child that dies within its first seconds and keeps doing so (a port in use, a bad setting) is not
restarted forever: the supervisor stops and exits with the child's code.
"""

from __future__ import annotations

import logging
import signal
import subprocess
import time
from dataclasses import dataclass, field
from types import FrameType

log = logging.getLogger("diagnose.bot")

EARLY_EXIT_SECONDS = 10.0
MAX_EARLY_EXITS = 3
POLL_SECONDS = 0.2
GRACE_SECONDS = 30.0
MAX_BACKOFF_SECONDS = 30.0


@dataclass
class Child:
    name: str
    command: list[str]
    process: subprocess.Popen[bytes] | None = None
    started_at: float = 0.0
    early_exits: int = 0
    restart_at: float = 0.0
    first_backoff_seconds: float = 1.0
    backoff_seconds: float = field(init=False)
    restarts: int = 0

    def __post_init__(self) -> None:
        self.backoff_seconds = self.first_backoff_seconds

    def start(self) -> None:
        self.process = subprocess.Popen(self.command)
        self.started_at = time.monotonic()


class Supervisor:
    def __init__(self, children: list[Child]) -> None:
        self.children = children
        self.stopping = False

    def _stop(self, signum: int, frame: FrameType | None) -> None:
        self.stopping = True

    def run(self) -> int:
        previous = {signum: signal.signal(signum, self._stop) for signum in (signal.SIGTERM, signal.SIGINT)}
        code = 0
        try:
            for child in self.children:
                child.start()
            while not self.stopping:
                for child in self.children:
                    exited = self._check(child)
                    if exited is not None:
                        code = exited
                        self.stopping = True
                        break
                time.sleep(POLL_SECONDS)
        finally:
            self._terminate_all()
            for signum, handler in previous.items():
                signal.signal(signum, handler)
        return code

    def _check(self, child: Child) -> int | None:
        """Restart a dead child; the exit code when the whole tree should stop."""
        now = time.monotonic()
        if child.process is None:
            if now >= child.restart_at:
                child.restarts += 1
                child.start()
            return None
        code = child.process.poll()
        if code is None:
            return None
        lived = now - child.started_at
        child.process = None
        if lived < EARLY_EXIT_SECONDS:
            child.early_exits += 1
            if child.early_exits >= MAX_EARLY_EXITS:
                log.error(
                    "%s exited %d times right after starting (code %s): stopping",
                    child.name,
                    child.early_exits,
                    code,
                )
                return code or 1
        else:
            child.early_exits = 0
            child.backoff_seconds = child.first_backoff_seconds
        log.warning("%s exited (code %s): restarting in %.0f s", child.name, code, child.backoff_seconds)
        child.restart_at = now + child.backoff_seconds
        child.backoff_seconds = min(MAX_BACKOFF_SECONDS, child.backoff_seconds * 2)
        return None

    def _terminate_all(self) -> None:
        running = [child.process for child in self.children if child.process is not None]
        for process in running:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + GRACE_SECONDS
        for process in running:
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

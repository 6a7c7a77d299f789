"""Progress of a running diagnosis on its placeholder: op name → human step, coalesced.

The engine source calls the observer before each op, from the diagnosis thread. At most one
chat.update per `interval` seconds goes out (on the chat pool, never blocking the workflow); the
latest step is sent when the interval has passed. `close()` waits for an update in flight, so the
final report is never overwritten by a late progress line.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from blocks.progress import progress_message
from bot.worker import Worker

log = logging.getLogger("diagnose.bot")


class ProgressReporter:
    def __init__(
        self,
        *,
        client: WebClient,
        worker: Worker,
        channel: str,
        ts: str,
        what: str,
        user: str,
        lang: str,
        interval: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self.worker = worker
        self.channel = channel
        self.ts = ts
        self.what = what
        self.user = user
        self.lang = lang
        self.interval = interval
        self.clock = clock
        self._lock = threading.Lock()
        self._send_lock = threading.Lock()
        self._latest: str | None = None
        self._sent: str | None = None
        self._last_sent_at = -float("inf")
        self._timer: threading.Timer | None = None
        self._closed = False
        self.updates = 0

    def __call__(self, op: str) -> None:
        with self._lock:
            if self._closed:
                return
            self._latest = op
            due = self._last_sent_at + self.interval
            now = self.clock()
            if now >= due:
                self._last_sent_at = now
                self.worker.chat(self._send)
            elif self._timer is None:
                self._timer = threading.Timer(due - now, self._trailing)
                self._timer.daemon = True
                self._timer.start()

    def _trailing(self) -> None:
        with self._lock:
            self._timer = None
            if self._closed:
                return
            self._last_sent_at = self.clock()
        self._send()

    def _send(self) -> None:
        with self._send_lock:
            with self._lock:
                step = self._latest
                if self._closed or step is None or step == self._sent:
                    return
                self._sent = step
            message = progress_message(what=self.what, user=self.user, lang=self.lang, step=step)
            try:
                self.client.chat_update(channel=self.channel, ts=self.ts, **message.payload())
                self.updates += 1
            except SlackApiError as exc:
                log.info("progress update skipped: %s", exc.response.get("error"))

    def close(self) -> None:
        """No update after this returns (one in flight is waited for)."""
        with self._lock:
            self._closed = True
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
        with self._send_lock:
            pass

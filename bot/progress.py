"""Progress on a placeholder message, coalesced: which step a diagnosis is on, how far a scan is.

The engine calls the reporter from its own thread (a source observer before each op, a scan's
progress callback after each job). At most one chat.update per `interval` seconds goes out (on the
background pool, never blocking the workflow); the latest state is sent when the interval has passed.
`close()` waits for an update in flight, so the final report is never overwritten by a late
progress line.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from blocks.kit import SlackMessage
from blocks.progress import progress_message, scan_progress_message
from bot.background import Background
from diagnosis.scan import ScanProgress

log = logging.getLogger("diagnose.bot")

State = TypeVar("State")


class CoalescedUpdates(Generic[State]):
    """Shows the latest `State` on one message, at most once per `interval` seconds."""

    def __init__(
        self,
        *,
        client: WebClient,
        background: Background,
        channel: str,
        ts: str,
        interval: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self.background = background
        self.channel = channel
        self.ts = ts
        self.interval = interval
        self.clock = clock
        self._lock = threading.Lock()
        self._send_lock = threading.Lock()
        self._latest: State | None = None
        self._sent: State | None = None
        self._last_sent_at = -float("inf")
        self._timer: threading.Timer | None = None
        self._closed = False
        self.updates = 0

    def render(self, state: State) -> SlackMessage:
        raise NotImplementedError

    def __call__(self, state: State) -> None:
        with self._lock:
            if self._closed:
                return
            self._latest = state
            due = self._last_sent_at + self.interval
            now = self.clock()
            if now >= due:
                self._last_sent_at = now
                self.background.run(self._send)
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
                state = self._latest
                if self._closed or state is None or state == self._sent:
                    return
                self._sent = state
            message = self.render(state)
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


class ProgressReporter(CoalescedUpdates[str]):
    """A running diagnosis: the op the workflow is reading, in words."""

    def __init__(
        self,
        *,
        client: WebClient,
        background: Background,
        channel: str,
        ts: str,
        what: str,
        user: str,
        lang: str,
        interval: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(
            client=client, background=background, channel=channel, ts=ts, interval=interval, clock=clock
        )
        self.what = what
        self.user = user
        self.lang = lang

    def render(self, state: str) -> SlackMessage:
        return progress_message(what=self.what, user=self.user, lang=self.lang, step=state)


class ScanProgressReporter(CoalescedUpdates[ScanProgress]):
    """A running scan: jobs diagnosed out of the abnormal jobs listed (Run:ai: failed workloads)."""

    def __init__(
        self,
        *,
        client: WebClient,
        background: Background,
        channel: str,
        ts: str,
        what: str,
        user: str,
        lang: str,
        platform: str = "modelarts",
        interval: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(
            client=client, background=background, channel=channel, ts=ts, interval=interval, clock=clock
        )
        self.what = what
        self.user = user
        self.lang = lang
        self.platform = platform

    def render(self, state: ScanProgress) -> SlackMessage:
        return scan_progress_message(
            what=self.what,
            user=self.user,
            lang=self.lang,
            done=state.done,
            total=state.total,
            platform=self.platform,
        )

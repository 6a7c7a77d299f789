"""Where a workflow gets its evidence: by op name, from the live API or a replayed bundle.

Every answer, good or bad, comes back as an `Answer`; nothing raises into a workflow. A call that
got no answer (timeout, reset, not recorded) has `status=None` and an `error`."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol

import httpx

from diagnosis.evidence.answer import Answer
from diagnosis.evidence.failures import (
    transport_error_kind,
)
from diagnosis.evidence.http.deadline import DEADLINE_EXTENSION, configured_deadline_seconds
from diagnosis.evidence.http.readonly import MutatingRequestRefused
from diagnosis.evidence.http.size_cap import AnswerTooLarge
from diagnosis.evidence.matching import identifying, wire_string
from diagnosis.evidence.messages import failure_words
from diagnosis.evidence.routes import RouteTable
from diagnosis.masking import mask, mask_obj
from diagnosis.models import Exchange

MAX_TEXT_BYTES = 1_048_576


class NotRecorded(httpx.TransportError):
    """Replay: the bundle holds no answer for this call."""


__all__ = [
    "CallLog",
    "HttpSource",
    "NotRecorded",
    "Recorder",
    "Source",
]


class Source(Protocol):
    """What a workflow reads evidence from: answers by op name, and the ops it asked for."""

    @property
    def calls(self) -> list[str]: ...

    async def fetch(self, op: str, /, *, variant: str | None = None, **args: Any) -> Answer: ...


class CallLog:
    """`calls` of the diagnosis: every call attempted (answered or not), in order, once per op+args
    (the client's own retries are not repeated)."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self._seen: set[tuple[str, str]] = set()

    def record(self, op: str, args: Mapping[str, Any]) -> None:
        key = (op, json.dumps({k: wire_string(v) for k, v in args.items()}, sort_keys=True))
        if key not in self._seen:
            self._seen.add(key)
            self.calls.append(op)


class Recorder:
    """Collects exchanges for `--capture`; masked when the bundle is written, never before use."""

    def __init__(self) -> None:
        self.exchanges: list[Exchange] = []
        self._seen: set[tuple[str, str]] = set()

    def add(self, answer: Answer) -> None:
        if answer.status is None:
            return
        args = identifying(answer.args)
        self.keep(Exchange(op=answer.op, args=args, status=answer.status, body=answer.body, text=answer.text))

    def keep(self, exchange: Exchange) -> None:
        """One exchange (another recorder's), once per op and identifying args."""
        key = (
            exchange.op,
            json.dumps({k: wire_string(v) for k, v in identifying(exchange.args).items()}, sort_keys=True),
        )
        if key in self._seen:
            return
        self._seen.add(key)
        self.exchanges.append(exchange)


class HttpSource:
    """Evidence over HTTP through a platform's route table (live, replay transport or simulator)."""

    def __init__(
        self,
        *,
        routes: RouteTable,
        client: httpx.AsyncClient,
        base_url: str,
        recorder: Recorder | None = None,
        call_log: CallLog | None = None,
        fixed_args: Mapping[str, Any] | None = None,
        observer: Callable[[str], None] | None = None,
        deadline_seconds: float | None = None,
    ) -> None:
        self.routes = routes
        self.client = client
        self.base_url = base_url
        self.recorder = recorder
        self.log = call_log or CallLog()
        self.fixed_args = dict(fixed_args or {})
        # Told the op name before each call: the bot shows which step is running.
        self.observer = observer
        # Bounds a whole diagnosis: once spent, calls answer at once with no status, so the
        # workflow still returns the best diagnosis the evidence gathered so far allows. Without
        # a value of its own, the engine's deadline (configured_deadline_seconds).
        self.deadline_seconds = deadline_seconds if deadline_seconds else configured_deadline_seconds()
        self._deadline_at: float | None = time.monotonic() + self.deadline_seconds
        # Set once a call was cut short, or not made, because the deadline ran out.
        self.deadline_reached = False

    @property
    def calls(self) -> list[str]:
        return self.log.calls

    async def fetch(self, op: str, /, *, variant: str | None = None, **args: Any) -> Answer:
        merged = {**self.fixed_args, **{k: v for k, v in args.items() if v is not None}}
        route = self.routes.route_for(op, variant)
        wanted = {k: v for k, v in merged.items() if k in route.path_params or k not in self.fixed_args}
        self.log.record(op, identifying(wanted))
        if self.observer is not None:
            self.observer(op)
        # Calls requested together are all recorded before any of them is answered, live or
        # replayed alike: `calls` lists a round in the order it was asked for, then what followed.
        await asyncio.sleep(0)
        try:
            url, query, body = route.build(self.base_url, merged)
        except ValueError as exc:
            return Answer(op=op, args=wanted, error=str(exc))
        if route.body_keys:
            query = {k: v for k, v in query.items() if k not in route.body_keys}
        query = {k: v for k, v in query.items() if k not in self.fixed_args or k in route.path_params}
        answer = await self._send(op, wanted, route.method, url, query, body, text_answer=route.text_answer)
        if answer.error_kind == "deadline":
            self.deadline_reached = True
        if self.recorder is not None:
            self.recorder.add(answer)
        return answer

    async def _send(
        self,
        op: str,
        args: dict[str, Any],
        method: str,
        url: str,
        query: dict[str, str],
        body: bytes | None,
        *,
        text_answer: bool,
    ) -> Answer:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        remaining = None if self._deadline_at is None else self._deadline_at - time.monotonic()
        if remaining is not None and remaining <= 0:
            return Answer.failed(op, args, "deadline", "failure.deadline_before")
        try:
            extensions = {DEADLINE_EXTENSION: self._deadline_at} if self._deadline_at is not None else None
            request = self.client.request(
                method, url, params=query or None, content=body, headers=headers, extensions=extensions
            )
            if remaining is None:
                response = await request
            else:
                async with asyncio.timeout(remaining):
                    response = await request
        except MutatingRequestRefused:
            request_line = f"{method.upper()} {httpx.URL(url).path}"
            return Answer.failed(op, args, "refused", "failure.refused", request=request_line)
        except NotRecorded:
            return Answer.failed(op, args, "not_recorded", "failure.not_recorded")
        except (httpx.TimeoutException, TimeoutError):
            if self._deadline_at is not None and time.monotonic() >= self._deadline_at - 0.05:
                return Answer.failed(op, args, "deadline", "failure.deadline")
            return Answer.failed(op, args, "timeout", "failure.timeout")
        except httpx.TransportError as exc:
            kind = transport_error_kind(exc)
            if kind == "unreadable":
                size = exc.shown if isinstance(exc, AnswerTooLarge) else type(exc).__name__
                return Answer.failed(op, args, kind, "failure.too_large", size=size)
            return Answer.failed(op, args, kind, f"failure.{kind}", error=type(exc).__name__)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a client-side failure must become a limitation, never a traceback
            return Answer.failed(op, args, "client", "failure.client", error=type(exc).__name__)
        return _masked(_to_answer(op, args, response, text_answer=text_answer))


def _masked(answer: Answer) -> Answer:
    """Secrets are masked on arrival (as `[MASKED:<kind>]`): a workflow that quotes, cuts or re-joins text
    can never carry a secret out, even one that only a whole line or a whole value gives away."""
    if answer.text is not None:
        answer.text = mask(answer.text)
    if answer.body is not None:
        try:
            answer.body = mask_obj(answer.body)
        except RecursionError:
            # Nested deeper than any platform answer: unreadable, and never passed on unmasked.
            answer.body = None
            answer.error = failure_words("failure.nested")
            answer.error_kind = "unreadable"
            answer.error_id = "failure.nested"
    return answer


def _to_answer(op: str, args: dict[str, Any], response: httpx.Response, *, text_answer: bool) -> Answer:
    request_id = response.headers.get("X-Request-Id")
    raw = response.content[:MAX_TEXT_BYTES] if text_answer else response.content
    if text_answer and 200 <= response.status_code < 300:
        return Answer(
            op=op,
            args=args,
            status=response.status_code,
            text=raw.decode("utf-8", errors="replace"),
            request_id=request_id,
        )
    body: Any = None
    text: str | None = None
    if raw:
        try:
            body = json.loads(raw)
        except (ValueError, UnicodeDecodeError, RecursionError):
            text = raw[:4096].decode("utf-8", errors="replace")
    answer = Answer(
        op=op, args=args, status=response.status_code, body=body, text=text, request_id=request_id
    )
    if 200 <= response.status_code < 300 and body is None and not text_answer:
        answer.error = "answer was not JSON" if text is not None else "empty answer"
    return answer

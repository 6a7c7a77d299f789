"""End-to-end harness: the bot in HTTP mode on 127.0.0.1:0, the fake Web API, signed requests.

Requests are built and signed exactly as Slack does (v0 HMAC-SHA256 over `v0:<ts>:<raw body>`,
with slack_sdk's SignatureVerifier); the diagnosis backend is a scripted stand-in (or the bundles
backend), so a test controls what the engine answers and how long it takes.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

import httpx
from slack_sdk.signature import SignatureVerifier

from bot.app import Bot, build_app, create_bot
from bot.backends import DiagnosisBackend, DiagnosisRun, Observer, ScanObserver, ScanScope
from bot.commands import RequestDraft
from bot.policy import Policy
from bot.queue import Queues, open_queues
from bot.queue.redelivery import Redelivery
from bot.queue.workers import Workers
from bot.runtime import Runtime
from bot.server import HttpServer, wsgi_app
from bot.slack_client import make_client
from bot.state.redis_store import RedisStore
from bot.state.sqlite_store import SqliteStore
from bot.state.store import StateStore
from diagnosis.models import Choice, DiagnoseRequest, Diagnosis, Exchange
from diagnosis.scan import ScanProgress
from playground.slack_api import SlackApiStandIn
from tests.blocks.checks import assert_message_within_limits, assert_view_within_limits

SIGNING_SECRET = "test-signing-secret"
CHANNEL = "C0INC0042"
USER = "U0ALICE01"
NOW = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)
MESSAGE_METHODS = ("chat.postMessage", "chat.update", "chat.postEphemeral")


@dataclass
class ScriptedBackend:
    """Answers with `answer(request)`; reports `steps` to the observer, sleeping `delay` each.

    `exchanges` are what the diagnosis was "read from" (the pictures are drawn from them); a scan
    answers `scan_result` after reporting `scan_jobs` jobs done one by one, `scan_delay` apart."""

    answer: Callable[[DiagnoseRequest], Diagnosis]
    steps: Sequence[str] = ("get_workload_status", "get_workload_events")
    delay: float = 0.0
    known: dict[str, list[Choice]] = field(default_factory=dict)
    name: str = "scripted"
    demo: bool = False
    exchanges: list[Exchange] = field(default_factory=list)
    scan_result: dict[str, Any] | None = None
    scan_jobs: int = 0
    scan_delay: float = 0.0
    requests: list[DiagnoseRequest] = field(default_factory=list)
    scans: list[ScanScope] = field(default_factory=list)
    log_urls: list[tuple[str, str]] = field(default_factory=list)

    async def diagnose(
        self, request: DiagnoseRequest, *, lang: str | None, observer: Observer | None, now: datetime
    ) -> DiagnosisRun:
        self.requests.append(request)
        for step in self.steps:
            if observer is not None:
                observer(step)
            if self.delay:
                await asyncio.sleep(self.delay)
        return DiagnosisRun(self.answer(request), list(self.exchanges))

    def suggestions(self, draft: RequestDraft, key: str) -> list[Choice]:
        return list(self.known.get(key, []))

    async def scan(
        self,
        scope: ScanScope,
        *,
        lang: str | None,
        now: datetime,
        progress: ScanObserver | None = None,
    ) -> dict[str, Any]:
        self.scans.append(scope)
        for done in range(self.scan_jobs + 1):
            if progress is not None:
                progress(ScanProgress(done=done, total=self.scan_jobs, job_name=f"job-{done}"))
            if self.scan_delay and done < self.scan_jobs:
                await asyncio.sleep(self.scan_delay)
        if self.scan_result is not None:
            return self.scan_result
        return {
            "schema": "scan/v1",
            "platform": scope.platform,
            "region": scope.region,
            "scanned": 0,
            "by_category": {},
            "results": [],
        }

    async def log_url(self, *, job_id: str, task_id: str, region: str | None) -> str:
        self.log_urls.append((job_id, task_id))
        return f"https://obs.example.com/{job_id}/{task_id}.log?AWSAccessKeyId=AKIDEXAMPLE&Signature=abc%3D&Expires=1"


@dataclass
class Reply:
    status: int
    body: str
    seconds: float

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


class SlackSender:
    """Posts signed requests to the bot as Slack would."""

    def __init__(
        self, bot_url: str, api: SlackApiStandIn, *, secret: str = SIGNING_SECRET, first_id: int = 1
    ) -> None:
        """`first_id` numbers this sender's response URLs, trigger and event ids (two senders to two
        replicas must not share them)."""
        self.url = bot_url + "/slack/events"
        self.api = api
        self.verifier = SignatureVerifier(secret)
        self.http = httpx.Client(timeout=10)
        self._ids = itertools.count(first_id)

    def close(self) -> None:
        """Close kept-alive connections."""
        self.http.close()

    def post(
        self,
        body: str,
        content_type: str,
        *,
        timestamp: int | None = None,
        headers: dict[str, str] | None = None,
        signature: str | None = None,
    ) -> Reply:
        ts = str(timestamp if timestamp is not None else int(time.time()))
        sig = signature or self.verifier.generate_signature(timestamp=ts, body=body)
        all_headers = {
            "Content-Type": content_type,
            "X-Slack-Request-Timestamp": ts,
            "X-Slack-Signature": sig or "",
            **(headers or {}),
        }
        started = time.monotonic()
        response = self.http.post(self.url, content=body.encode(), headers=all_headers)
        return Reply(response.status_code, response.text, time.monotonic() - started)

    def command(self, text: str, *, user: str = USER, channel: str = CHANNEL) -> Reply:
        number = next(self._ids)
        form = {
            "token": "legacy",
            "team_id": "T0ACME001",
            "team_domain": "acme",
            "channel_id": channel,
            "channel_name": "inc-42",
            "user_id": user,
            "user_name": "alice",
            "command": "/diagnose",
            "text": text,
            "api_app_id": "A0DIAGBOT",
            "is_enterprise_install": "false",
            "response_url": f"{self.api.url}commands/T0ACME001/{number}/resp",
            "trigger_id": f"trigger.{number}",
        }
        return self.post(urlencode(form), "application/x-www-form-urlencoded")

    def event(
        self, event: dict[str, Any], *, event_id: str | None = None, retry_num: int | None = None
    ) -> Reply:
        envelope = event_callback(event, event_id=event_id or f"Ev{next(self._ids):08d}")
        headers = (
            {"X-Slack-Retry-Num": str(retry_num), "X-Slack-Retry-Reason": "http_timeout"}
            if retry_num
            else None
        )
        return self.post(json.dumps(envelope), "application/json", headers=headers)

    def mention(
        self,
        text: str,
        *,
        ts: str,
        thread_ts: str | None = None,
        user: str = USER,
        channel: str = CHANNEL,
        event_id: str | None = None,
    ) -> Reply:
        event: dict[str, Any] = {
            "type": "app_mention",
            "user": user,
            "text": f"<@U0DIAGBOT> {text}",
            "ts": ts,
            "channel": channel,
        }
        if thread_ts:
            event["thread_ts"] = thread_ts
        return self.event(event, event_id=event_id)

    def thread_reply(
        self, text: str, *, ts: str, thread_ts: str, user: str = USER, channel: str = CHANNEL
    ) -> Reply:
        event = {
            "type": "message",
            "user": user,
            "text": text,
            "ts": ts,
            "thread_ts": thread_ts,
            "channel": channel,
            "channel_type": "channel",
        }
        return self.event(event)

    def interaction(self, payload: dict[str, Any]) -> Reply:
        return self.post(urlencode({"payload": json.dumps(payload)}), "application/x-www-form-urlencoded")

    def click(
        self,
        message_call: Any,
        action_id: str,
        *,
        value: str | None = None,
        user: str = USER,
        channel: str = CHANNEL,
    ) -> Reply:
        """Click the element `action_id` (a button, or a select with `value`) of a posted message."""
        number = next(self._ids)
        payload = click_payload(
            message_call,
            action_id,
            value=value,
            user=user,
            channel=channel,
            trigger_id=f"trigger.{number}",
            response_url=f"{self.api.url}actions/T0ACME001/{number}/resp",
        )
        return self.interaction(payload)

    def submit_view(self, view: dict[str, Any], value: str, *, user: str = USER) -> Reply:
        payload = {
            "type": "view_submission",
            "team": {"id": "T0ACME001", "domain": "acme"},
            "user": {"id": user, "username": "alice", "team_id": "T0ACME001"},
            "api_app_id": "A0DIAGBOT",
            "trigger_id": f"trigger.view.{next(self._ids)}",
            "view": {
                "id": "V0MODAL01",
                "type": "modal",
                "callback_id": view["callback_id"],
                "private_metadata": view.get("private_metadata", ""),
                "state": {"values": {"answer": {"value": {"type": "plain_text_input", "value": value}}}},
                "hash": "1.a",
            },
            "response_urls": [],
        }
        return self.interaction(payload)


def event_callback(event: dict[str, Any], *, event_id: str) -> dict[str, Any]:
    """The Events API envelope of `event` (HTTP body; the `payload` of a Socket Mode envelope)."""
    return {
        "token": "legacy",
        "team_id": "T0ACME001",
        "api_app_id": "A0DIAGBOT",
        "type": "event_callback",
        "event_id": event_id,
        "event_time": int(time.time()),
        "authorizations": [
            {
                "team_id": "T0ACME001",
                "user_id": "U0DIAGBOT",
                "is_bot": True,
                "is_enterprise_install": False,
            }
        ],
        "event": {"team": "T0ACME001", "event_ts": event.get("ts"), **event},
    }


def click_payload(
    message_call: Any,
    action_id: str,
    *,
    value: str | None = None,
    user: str = USER,
    channel: str = CHANNEL,
    trigger_id: str = "trigger.1",
    response_url: str = "",
) -> dict[str, Any]:
    """The `block_actions` payload Slack sends when the element `action_id` (a button, or a select
    option `value`) of a message the bot posted (a recorded call) is clicked."""
    blocks = message_call.json_arg("blocks") or []
    for block in blocks:
        for element in block.get("elements") or []:
            if element.get("action_id") != action_id:
                continue
            action: dict[str, Any] = {
                "type": element["type"],
                "action_id": action_id,
                "block_id": block.get("block_id", ""),
                "action_ts": "1.2",
            }
            if element["type"] == "button":
                action["value"] = element["value"]
                action["text"] = element["text"]
            else:
                option = next(o for o in element["options"] if o["value"] == value)
                action["selected_option"] = option
            ts = message_call.body.get("ts") or message_call.response.get("ts") or "1767225999.000100"
            return {
                "type": "block_actions",
                "user": {"id": user, "username": "alice", "team_id": "T0ACME001"},
                "api_app_id": "A0DIAGBOT",
                "team": {"id": "T0ACME001", "domain": "acme"},
                "channel": {"id": channel, "name": "inc-42"},
                "container": {
                    "type": "message",
                    "message_ts": ts,
                    "channel_id": channel,
                    "is_ephemeral": False,
                },
                "message": {
                    "type": "message",
                    "ts": ts,
                    "thread_ts": message_call.body.get("thread_ts") or ts,
                    "bot_id": "B0DIAGBOT",
                    "blocks": blocks,
                },
                "trigger_id": trigger_id,
                "response_url": response_url,
                "state": {"values": {}},
                "actions": [action],
            }
    raise AssertionError(f"no element {action_id} in {json.dumps(blocks)[:500]}")


def wait_until(condition: Callable[[], bool], *, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def queues_for(store: StateStore) -> Queues:
    """The bot's queues beside `store`: a SQLite file next to its file, or the same Redis under its
    namespace (each call opens them anew, as another process would)."""
    if isinstance(store, RedisStore):
        pool = store.client.connection_pool
        url = "redis://{host}:{port}/{db}".format(**pool.connection_kwargs)
        return open_queues(redis_url=url, state_path="unused", namespace=store.namespace)
    assert isinstance(store, SqliteStore)
    return open_queues(redis_url=None, state_path=store.path)


def worker_side(queues: Queues, *, diagnosis_threads: int = 4) -> Workers:
    """Workers as `diagnose bot --role worker` runs them, with a fast redelivery beat."""
    return Workers(
        queues,
        chat_threads=8,
        diagnosis_threads=diagnosis_threads,
        redelivery=Redelivery(queues.all(), beat_seconds=0.2, holder_timeout=2.0, spacing_seconds=0.5),
    )


@dataclass
class BotUnderTest:
    api: SlackApiStandIn
    bot: Bot
    server: HttpServer
    slack: SlackSender
    backend: DiagnosisBackend
    queues: Queues
    # The worker side, in threads of the test process (None while stopped: requests then wait).
    workers: Workers | None = None
    diagnosis_threads: int = 4

    @property
    def runtime(self) -> Runtime:
        return self.bot.runtime

    def start_workers(self) -> Workers:
        self.workers = worker_side(self.queues, diagnosis_threads=self.diagnosis_threads)
        self.workers.start()
        return self.workers

    def stop_workers(self, *, timeout: float = 5.0) -> None:
        if self.workers is not None:
            self.workers.stop(timeout=timeout)
            self.workers = None

    def idle(self, timeout: float = 15.0) -> None:
        """Every queued task run and every Slack call made."""
        deadline = time.monotonic() + timeout
        background = self.runtime.services.background
        while True:
            remaining = max(0.05, deadline - time.monotonic())
            quiet = self.workers is None or self.workers.wait_idle(remaining)
            if quiet and background.wait_idle(remaining) and (self.workers is None or self.workers.idle()):
                return
            assert time.monotonic() < deadline, "the bot did not finish its work in time"

    def check_every_message(self) -> None:
        """Every message the bot sent is within Block Kit limits and escapes what it must."""
        for call in self.api.calls:
            if call.method in MESSAGE_METHODS or call.method.startswith(("commands/", "actions/")):
                body = dict(call.body)
                if isinstance(body.get("blocks"), str):
                    body["blocks"] = json.loads(body["blocks"])
                if "text" in body or "blocks" in body:
                    assert_message_within_limits(body)
            if call.method == "views.open":
                assert_view_within_limits(call.body["view"])

    def stop(self) -> None:
        self.server.stop()
        self.stop_workers()
        self.runtime.services.background.shutdown(wait=True)
        self.queues.close()


@contextmanager
def running_bot(
    api: SlackApiStandIn,
    *,
    backend: DiagnosisBackend,
    store: StateStore,
    policy: Policy | None = None,
    progress_interval: float = 0.0,
    diagnosis_slots: int = 4,
    max_waiting: int = 50,
    now: datetime = NOW,
    workers: bool = True,
) -> Iterator[BotUnderTest]:
    """The bot over real loopback sockets (the production HTTP server), its queues beside `store`
    and its worker side in threads; `workers=False` starts with no worker (`start_workers()`)."""
    client = make_client(token="xoxb-test-token", base_url=api.url)
    queues = queues_for(store)
    bot = create_bot(
        backend=backend,
        store=store,
        policy=policy or Policy.default(),
        client=client,
        queues=queues,
        max_waiting=max_waiting,
        progress_interval=progress_interval,
        now=lambda: now,
    )
    app = build_app(bot)
    application = wsgi_app(
        app, signing_secret=SIGNING_SECRET, store=store, ready=lambda: {"state": store.ping()}
    )
    server = HttpServer(application).start()
    under_test = BotUnderTest(
        api=api,
        bot=bot,
        server=server,
        slack=SlackSender(server.url, api),
        backend=backend,
        queues=queues,
        diagnosis_threads=diagnosis_slots,
    )
    if workers:
        under_test.start_workers()
    try:
        yield under_test
        under_test.idle()
        under_test.check_every_message()
    finally:
        under_test.stop()

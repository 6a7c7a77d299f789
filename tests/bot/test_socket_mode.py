"""Socket Mode (the default) end to end: apps.connections.open with the app token, a WebSocket
stand-in sending envelopes (a slash command, an app_mention event, a button click), the ack frames,
and the results through the Web API."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from slack_bolt.adapter.socket_mode import SocketModeHandler

from bot.app import build_app, create_bot
from bot.backends import DiagnosisBackend
from bot.policy import Policy
from bot.queue.workers import Workers
from bot.slack_client import make_client
from bot.state.store import StateStore
from diagnosis.models import Choice
from playground.slack_api import SlackApiStandIn
from tests.bot.examples import OOM, PREEMPTED, example_diagnosis
from tests.bot.harness import (
    CHANNEL,
    USER,
    ScriptedBackend,
    click_payload,
    event_callback,
    queues_for,
    worker_side,
)
from tests.bot.processes import socket_mode_process
from tests.fakes.socket_mode_server import FakeSocketModeServer

APP_TOKEN = "xapp-1-A0DIAGBOT-test"
PREEMPTED_IDS = "runai id=2e6b8f31-d4a0-4c97-95e2-a13f7b0c8d46 cluster=91c0d5e8-2f47-4a3b-b6e1-7c8a0f2d4e59"
CLUSTER = "4a9e2c17-5b3d-4f80-9c61-2d7be0f4a315"


class Connected:
    """A Socket Mode bot and its worker side (in threads of the test process)."""

    def __init__(self, handler: SocketModeHandler, workers: Workers) -> None:
        self.handler = handler
        self.workers = workers

    def idle(self, timeout: float) -> bool:
        return self.workers.wait_idle(timeout)


Connect = Callable[[DiagnosisBackend], Connected]


@pytest.fixture
def socket_server() -> Iterator[FakeSocketModeServer]:
    server = FakeSocketModeServer().start()
    yield server
    server.stop()


@pytest.fixture
def connect(
    slack_api: SlackApiStandIn, sqlite_store: StateStore, socket_server: FakeSocketModeServer
) -> Iterator[Connect]:
    """Connects a Socket Mode bot with the given backend (as `diagnose bot` does); closed after."""
    slack_api.socket_mode_url = socket_server.url
    opened: list[Connected] = []

    def start(backend: DiagnosisBackend) -> Connected:
        client = make_client(token="xoxb-test-token", base_url=slack_api.url)
        queues = queues_for(sqlite_store)
        bot = create_bot(
            backend=backend, store=sqlite_store, policy=Policy.default(), client=client, queues=queues
        )
        workers = worker_side(queues)
        workers.start()
        handler = SocketModeHandler(build_app(bot, socket_mode=True), APP_TOKEN)
        handler.connect()
        opened.append(Connected(handler, workers))
        return opened[-1]

    yield start
    for connected in opened:
        assert connected.idle(15)
    # The server goes first: a client closing an open connection waits for its read to time out.
    socket_server.stop()
    for connected in opened:
        # The client's reader sees the server go and drops its socket; closing the handler while it
        # does would race slack_sdk's unguarded `sock is not None` check (None.close()).
        handler = connected.handler
        session = handler.client.current_session
        deadline = time.monotonic() + 5
        while session is not None and session.is_active() and time.monotonic() < deadline:
            time.sleep(0.01)
        handler.close()
        connected.workers.stop(timeout=2)
        connected.workers.queues.close()


def envelope(
    envelope_id: str, kind: str, payload: dict[str, object], *, retry_attempt: int = 0
) -> dict[str, object]:
    """A Socket Mode envelope: https://api.slack.com/apis/socket-mode#events"""
    return {
        "envelope_id": envelope_id,
        "type": kind,
        "accepts_response_payload": kind != "events_api",
        "retry_attempt": retry_attempt,
        "retry_reason": "timeout" if retry_attempt else "",
        "payload": payload,
    }


def test_a_slash_command_over_socket_mode(
    slack_api: SlackApiStandIn, socket_server: FakeSocketModeServer, connect: Connect
) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(PREEMPTED))
    socket_server.send(
        envelope(
            "e-01",
            "slash_commands",
            {
                "command": "/diagnose",
                "text": PREEMPTED_IDS,
                "user_id": USER,
                "channel_id": CHANNEL,
                "team_id": "T0ACME001",
                "api_app_id": "A0DIAGBOT",
                "response_url": f"{slack_api.url}commands/T0ACME001/1/resp",
                "trigger_id": "trigger.1",
            },
        )
    )
    connected = connect(backend)
    ack = socket_server.wait_for_ack("e-01")
    assert ack == {"envelope_id": "e-01"}
    opened = slack_api.wait_for("apps.connections.open")[0]
    assert opened.headers.get("Authorization") == f"Bearer {APP_TOKEN}"
    slack_api.wait_for("chat.update", where=lambda c: "Routed: preempted" in c.body.get("text", ""))
    assert connected.idle(15)
    assert backend.requests[0].workload_id == "2e6b8f31-d4a0-4c97-95e2-a13f7b0c8d46"


def mention(text: str, *, ts: str) -> dict[str, object]:
    return {
        "type": "app_mention",
        "user": USER,
        "text": f"<@U0DIAGBOT> {text}",
        "ts": ts,
        "channel": CHANNEL,
    }


def test_an_app_mention_over_socket_mode_is_answered_in_its_thread_once(
    slack_api: SlackApiStandIn, socket_server: FakeSocketModeServer, connect: Connect
) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(PREEMPTED))
    connected = connect(backend)
    event = event_callback(mention(PREEMPTED_IDS, ts="1767225600.000100"), event_id="Ev0MENTION1")
    socket_server.send(envelope("e-mention", "events_api", event))
    assert socket_server.wait_for_ack("e-mention") == {"envelope_id": "e-mention"}
    # Slack redelivers the same event (same event_id) on another envelope: acked, not answered again.
    socket_server.send(envelope("e-mention-retry", "events_api", event, retry_attempt=1))
    assert socket_server.wait_for_ack("e-mention-retry") == {"envelope_id": "e-mention-retry"}
    report = slack_api.wait_for("chat.update", where=lambda c: "Routed: preempted" in c.body.get("text", ""))
    slack_api.wait_for("files.completeUploadExternal")
    assert connected.idle(15)
    placeholders = slack_api.calls_to("chat.postMessage")
    assert len(placeholders) == 1, "one answer for one event"
    assert placeholders[0].body["thread_ts"] == "1767225600.000100", "in the mention's thread"
    assert report[0].body["ts"] == placeholders[0].response["ts"]
    assert len(backend.requests) == 1


def test_a_button_click_over_socket_mode_resumes_the_request(
    slack_api: SlackApiStandIn, socket_server: FakeSocketModeServer, connect: Connect
) -> None:
    backend = ScriptedBackend(
        answer=lambda request: example_diagnosis(OOM),
        known={"cluster_id": [Choice(value=CLUSTER, label="prod-a")]},
    )
    connected = connect(backend)
    question = event_callback(
        mention("workload segformer-finetune in vision-lab failed", ts="1767225700.000100"),
        event_id="Ev0MENTION2",
    )
    socket_server.send(envelope("e-ask", "events_api", question))
    socket_server.wait_for_ack("e-ask")
    prompt = slack_api.wait_for(
        "chat.postMessage", where=lambda c: "question|" in json.dumps(c.body.get("blocks"))
    )[0]
    assert backend.requests == [], "nothing runs before the question is answered"
    click = click_payload(
        prompt,
        "answer_choice_0",
        trigger_id="trigger.2",
        response_url=f"{slack_api.url}actions/T0ACME001/2/resp",
    )
    socket_server.send(envelope("e-click", "interactive", click))
    assert socket_server.wait_for_ack("e-click") == {"envelope_id": "e-click"}
    answered = slack_api.wait_for("chat.update", where=lambda c: c.body["ts"] == prompt.response["ts"])[0]
    assert "prod-a" in json.dumps(answered.body["blocks"])
    slack_api.wait_for("chat.update", where=lambda c: "OOM_KILLED" in c.body.get("text", ""))
    assert connected.idle(15)
    assert [(r.cluster_id, r.workload_name, r.project) for r in backend.requests] == [
        (CLUSTER, "segformer-finetune", "vision-lab")
    ]


def test_make_bot_serves_the_demo_over_socket_mode(
    slack_api: SlackApiStandIn, socket_server: FakeSocketModeServer, tmp_path: Path
) -> None:
    """`make bot` (`diagnose bot --bundles diagnosis/examples`) with tokens: it connects with the app
    token, asks which of two jobs was meant, and the chosen candidate's report is posted."""
    slack_api.socket_mode_url = socket_server.url
    socket_server.send(
        envelope(
            "e-demo",
            "slash_commands",
            {
                "command": "/diagnose",
                "text": "modelarts job=resnet50-imagenet lang=en",
                "user_id": USER,
                "channel_id": CHANNEL,
                "team_id": "T0ACME001",
                "api_app_id": "A0DIAGBOT",
                "response_url": f"{slack_api.url}commands/T0ACME001/1/resp",
                "trigger_id": "trigger.1",
            },
        )
    )
    arguments = ["--bundles", "diagnosis/examples"]
    with socket_mode_process(slack_api, tmp_path, app_token=APP_TOKEN, arguments=arguments) as process:
        try:
            assert socket_server.wait_for_ack("e-demo", timeout=45) == {"envelope_id": "e-demo"}
        except AssertionError:
            raise AssertionError(f"exit {process.poll()}: {(tmp_path / 'bot.log').read_text()}") from None
        opened = slack_api.wait_for("apps.connections.open")[0]
        assert opened.headers.get("Authorization") == f"Bearer {APP_TOKEN}"
        prompt = slack_api.wait_for(
            "chat.postMessage", where=lambda c: "question|" in json.dumps(c.body.get("blocks")), timeout=30
        )[0]
        click = click_payload(prompt, "answer_choice_0", trigger_id="trigger.2")
        socket_server.send(envelope("e-pick", "interactive", click))
        socket_server.wait_for_ack("e-pick", timeout=30)
        report = slack_api.wait_for(
            "chat.update", where=lambda c: "CRASH_APP_ERROR" in c.body.get("text", ""), timeout=30
        )[0]
        assert "torch.OutOfMemoryError" in json.dumps(report.body["blocks"])
        assert "Demo mode" in json.dumps(report.body["blocks"])

"""Socket Mode (the default) end to end: apps.connections.open with the app token, a WebSocket
stand-in sending a slash command envelope, the ack frame, and the report through the Web API."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from slack_bolt.adapter.socket_mode import SocketModeHandler

from bot.app import build_app, create_runtime
from bot.policy import Policy
from bot.slack_client import make_client
from bot.state.store import StateStore
from tests.bot.examples import PREEMPTED, example_diagnosis
from tests.bot.harness import CHANNEL, USER, ScriptedBackend
from tests.fakes.slack_api import FakeSlackApi
from tests.fakes.socket_mode_server import FakeSocketModeServer

APP_TOKEN = "xapp-1-A0DIAGBOT-test"


@pytest.fixture
def socket_server() -> Iterator[FakeSocketModeServer]:
    server = FakeSocketModeServer().start()
    yield server
    server.stop()


def test_a_slash_command_over_socket_mode(
    slack_api: FakeSlackApi, sqlite_store: StateStore, socket_server: FakeSocketModeServer
) -> None:
    slack_api.socket_mode_url = socket_server.url
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(PREEMPTED))
    client = make_client(token="xoxb-test-token", base_url=slack_api.url)
    runtime = create_runtime(backend=backend, store=sqlite_store, policy=Policy.default(), client=client)
    app = build_app(runtime, client=client, signing_secret=None, socket_mode=True)
    socket_server.send(
        {
            "envelope_id": "e-01",
            "type": "slash_commands",
            "accepts_response_payload": True,
            "payload": {
                "command": "/diagnose",
                "text": "runai id=2e6b8f31-d4a0-4c97-95e2-a13f7b0c8d46 cluster=91c0d5e8-2f47-4a3b-b6e1-7c8a0f2d4e59",
                "user_id": USER,
                "channel_id": CHANNEL,
                "team_id": "T0ACME001",
                "api_app_id": "A0DIAGBOT",
                "response_url": f"{slack_api.url}commands/T0ACME001/1/resp",
                "trigger_id": "trigger.1",
            },
        }
    )
    handler = SocketModeHandler(app, APP_TOKEN)
    try:
        handler.connect()
        ack = socket_server.wait_for_ack("e-01")
        assert ack == {"envelope_id": "e-01"}
        opened = slack_api.wait_for("apps.connections.open")[0]
        assert opened.headers.get("Authorization") == f"Bearer {APP_TOKEN}"
        slack_api.wait_for("chat.update", where=lambda c: "Routed: preempted" in c.body.get("text", ""))
        assert runtime.services.worker.wait_idle(15)
    finally:
        handler.close()
        runtime.services.worker.shutdown()
    assert backend.requests[0].workload_id == "2e6b8f31-d4a0-4c97-95e2-a13f7b0c8d46"

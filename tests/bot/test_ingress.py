"""The HTTP endpoint before the signature check, over real loopback sockets: bodies over the limit
refused before they are read, slow clients that cannot hold the request threads, malformed or
unsigned requests answered 401/400 without a traceback, and a replayed request run once."""

from __future__ import annotations

import json
import logging
import socket
import time
from collections.abc import Iterator
from urllib.parse import urlencode

import pytest
from slack_sdk.signature import SignatureVerifier

from blocks.prompts import ACTION_RERUN
from bot.ingress import MAX_BODY_BYTES
from bot.server import HttpServer
from bot.state.store import StateStore
from playground.slack_api import Call, SlackApiStandIn
from tests.bot.examples import OOM, example_diagnosis
from tests.bot.harness import BotUnderTest, ScriptedBackend, click_payload, running_bot

COMMAND = "runai cluster=4a9e2c17-5b3d-4f80-9c61-2d7be0f4a315 workload=segformer-finetune project=vision-lab"
SLOW_CLIENTS = 64


@pytest.fixture
def bot(slack_api: SlackApiStandIn, sqlite_store: StateStore) -> Iterator[BotUnderTest]:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM), steps=())
    with running_bot(slack_api, backend=backend, store=sqlite_store) as running:
        yield running


def connect(server: HttpServer) -> socket.socket:
    return socket.create_connection((server.host, server.port), timeout=10)


def head(content_length: int | None, **headers: str) -> bytes:
    lines = ["POST /slack/events HTTP/1.1", "Host: bot", "Content-Type: application/json"]
    if content_length is not None:
        lines.append(f"Content-Length: {content_length}")
    lines += [f"{name.replace('_', '-')}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def status_of(sock: socket.socket) -> int:
    answer = b""
    while b"\r\n" not in answer:
        data = sock.recv(4096)
        if not data:
            break
        answer += data
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/") else 0


def test_a_body_over_the_limit_is_refused_from_its_length_before_it_is_read(bot: BotUnderTest) -> None:
    with connect(bot.server) as sock:
        # 400 MB announced, none of it sent: the answer comes without waiting for the body.
        sock.sendall(head(400_000_000, X_Slack_Signature="v0=" + "0" * 64, X_Slack_Request_Timestamp="1"))
        assert status_of(sock) == 413


def test_a_chunked_body_over_the_limit_is_cut_off_as_it_comes(bot: BotUnderTest) -> None:
    chunk = b"[" * 65536
    sent = 0
    with connect(bot.server) as sock:
        sock.sendall(
            b"POST /slack/events HTTP/1.1\r\nHost: bot\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        try:
            while sent < 400_000_000:
                sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                sent += len(chunk)
        except OSError:
            pass  # the server closed the connection
        status = status_of(sock) if sent < 400_000_000 else 0
    assert status in (413, 0)
    assert sent < 32 * 1024 * 1024, f"{sent} bytes taken before the server gave up"


def test_slow_clients_cannot_hold_the_request_threads(bot: BotUnderTest) -> None:
    slow = [connect(bot.server) for _ in range(SLOW_CLIENTS)]
    try:
        for sock in slow:
            # Headers, then a little of the body, then nothing.
            sock.sendall(
                head(1000, X_Slack_Request_Timestamp=str(int(time.time())), X_Slack_Signature="v0=1")
            )
            sock.sendall(b'{"type": ')
        reply = bot.slack.command("help")
        assert reply.status == 200 and reply.seconds < 3
        assert "/diagnose" in json.dumps(reply.json())
    finally:
        for sock in slow:
            sock.close()


def test_a_request_trickled_past_the_read_deadline_is_cut_off() -> None:
    def application(environ: dict[str, object], start_response: object) -> list[bytes]:
        raise AssertionError("a trickled request never reaches the app")

    server = HttpServer(application, read_seconds=1).start()
    try:
        with connect(server) as sock:
            sock.sendall(head(1000))
            started = time.monotonic()
            closed = False
            while time.monotonic() - started < 20:
                try:
                    sock.sendall(b"x")  # one byte every 0.2 s: never idle, never done
                    sock.settimeout(0.2)
                    closed = sock.recv(1) == b""
                except TimeoutError:
                    continue
                except OSError:
                    closed = True
                if closed:
                    break
        assert closed, "the server kept a trickling connection open"
    finally:
        server.stop()


@pytest.mark.parametrize("timestamp", ["abc", "1e9", "9" * 5000, "", "-1700000000", "1700000000.5"])
def test_a_malformed_timestamp_is_401_with_no_traceback(
    bot: BotUnderTest, timestamp: str, caplog: pytest.LogCaptureFixture
) -> None:
    body = urlencode({"command": "/diagnose", "text": "help", "user_id": "U1", "channel_id": "C1"})
    with caplog.at_level(logging.DEBUG):
        reply = bot.slack.post(
            body, "application/x-www-form-urlencoded", headers={"X-Slack-Request-Timestamp": timestamp}
        )
    assert reply.status == 401
    assert not [record for record in caplog.records if record.exc_info or record.levelno >= logging.ERROR]


def test_an_unsigned_deeply_nested_body_is_401_and_a_signed_one_400_with_no_traceback(
    bot: BotUnderTest, caplog: pytest.LogCaptureFixture
) -> None:
    deep = "[" * 200_000
    with caplog.at_level(logging.DEBUG):
        unsigned = bot.slack.post(deep, "application/json", signature="v0=" + "0" * 64)
        signed = bot.slack.post(deep, "application/json")
    assert unsigned.status == 401
    assert signed.status == 400
    assert not [record for record in caplog.records if record.exc_info]
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == [
        "could not read a signed request: RecursionError"
    ]


def test_the_same_signed_request_three_times_in_the_window_runs_once(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM), steps=())
    with running_bot(slack_api, backend=backend, store=sqlite_store) as bot:
        body = urlencode(
            {
                "command": "/diagnose",
                "text": COMMAND,
                "user_id": "U0ALICE01",
                "channel_id": "C0INC0042",
                "team_id": "T0ACME001",
                "response_url": f"{slack_api.url}commands/T0ACME001/1/resp",
                "trigger_id": "trigger.1",
            }
        )
        timestamp = int(time.time())
        replies = [
            bot.slack.post(body, "application/x-www-form-urlencoded", timestamp=timestamp) for _ in range(3)
        ]
        assert [reply.status for reply in replies] == [200, 200, 200]
        slack_api.wait_for("chat.update", where=lambda c: "OOM_KILLED" in c.body.get("text", ""))
        bot.idle()
    assert len(backend.requests) == 1
    assert len(slack_api.calls_to("chat.postMessage")) == 1


def test_a_click_on_the_largest_message_the_bot_posts_is_accepted(bot: BotUnderTest) -> None:
    # A report at Block Kit's limits in CJK (12,000 characters of blocks, a 4,000-character fallback),
    # clicked: Slack sends the whole message back with the click.
    blocks = [
        {"type": "section", "block_id": f"b{number}", "text": {"type": "mrkdwn", "text": "障" * 2900}}
        for number in range(4)
    ]
    blocks.append(
        {
            "type": "actions",
            "block_id": "actions",
            "elements": [
                {
                    "type": "button",
                    "action_id": ACTION_RERUN,
                    "text": {"type": "plain_text", "text": "再実行"},
                    "value": "1767225999.000100",
                }
            ],
        }
    )
    message = Call(method="chat.postMessage", body={"blocks": blocks, "text": "障" * 4000}, headers={})
    message.response = {"ts": "1767225999.000100"}
    payload = click_payload(message, ACTION_RERUN)
    payload["message"]["text"] = "障" * 4000
    body = urlencode({"payload": json.dumps(payload, ensure_ascii=False)})
    assert len(body.encode()) < MAX_BODY_BYTES
    reply = bot.slack.interaction(payload)
    assert reply.status == 200


def test_a_request_without_a_valid_signature_reaches_no_listener(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    """Bolt does not check signatures again: the check in front of it is the only one, so a command
    or a mention that would start a diagnosis is stopped there, whatever is wrong with its signature."""
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM), steps=())
    with running_bot(slack_api, backend=backend, store=sqlite_store) as bot:
        command = urlencode(
            {
                "command": "/diagnose",
                "text": COMMAND,
                "user_id": "U0MALLORY",
                "channel_id": "C0INC0042",
                "team_id": "T0ACME001",
                "response_url": f"{slack_api.url}commands/T0ACME001/9/resp",
                "trigger_id": "trigger.9",
            }
        )
        mention = json.dumps(
            {
                "type": "event_callback",
                "team_id": "T0ACME001",
                "event_id": "Ev0FORGED1",
                "event": {
                    "type": "app_mention",
                    "user": "U0MALLORY",
                    "text": f"<@U0BOT> {COMMAND}",
                    "ts": "1700000000.000100",
                    "channel": "C0INC0042",
                },
            }
        )
        calls_at_start = len(slack_api.calls)  # the app's auth.test
        now = int(time.time())
        for body, content_type in (
            (command, "application/x-www-form-urlencoded"),
            (mention, "application/json"),
        ):
            other_secret = SignatureVerifier("not-the-signing-secret").generate_signature(
                timestamp=str(now), body=body
            )
            over_other_bytes = bot.slack.verifier.generate_signature(timestamp=str(now), body=body + " ")
            stale = now - 301
            replies = [
                bot.slack.post(body, content_type, signature=other_secret),
                bot.slack.post(body, content_type, signature=over_other_bytes),
                bot.slack.post(body, content_type, timestamp=stale),
                bot.slack.post(body, content_type, signature="v0="),
            ]
            assert [reply.status for reply in replies] == [401, 401, 401, 401]
        bot.idle()
        assert backend.requests == []
        assert slack_api.calls[calls_at_start:] == []
        # The same command, signed: it runs (what the refusals above kept from happening).
        assert bot.slack.post(command, "application/x-www-form-urlencoded").status == 200
        slack_api.wait_for("chat.update", where=lambda c: "OOM_KILLED" in c.body.get("text", ""))
        bot.idle()
    assert len(backend.requests) == 1

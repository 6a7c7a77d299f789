"""HTTP mode over real sockets: signatures, health, bursts of requests acked in time."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor

import httpx

from bot.state.store import StateStore
from playground.slack_api import SlackApiStandIn
from tests.bot.examples import OOM, example_diagnosis
from tests.bot.harness import ScriptedBackend, running_bot

COMMAND = "runai cluster=4a9e2c17-5b3d-4f80-9c61-2d7be0f4a315 workload=segformer-finetune project=vision-lab"


def test_bad_signature_and_stale_timestamp_get_401(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    with running_bot(slack_api, backend=backend, store=sqlite_store) as bot:
        body = "command=%2Fdiagnose&text=help&user_id=U1&channel_id=C1"
        forged = bot.slack.post(body, "application/x-www-form-urlencoded", signature="v0=" + "0" * 64)
        assert forged.status == 401
        stale = bot.slack.post(body, "application/x-www-form-urlencoded", timestamp=int(time.time()) - 301)
        assert stale.status == 401
        # Signed over other bytes than those sent.
        sig = bot.slack.verifier.generate_signature(timestamp=str(int(time.time())), body=body + "x")
        tampered = bot.slack.post(body, "application/x-www-form-urlencoded", signature=sig)
        assert tampered.status == 401
        fresh = bot.slack.post(body, "application/x-www-form-urlencoded", timestamp=int(time.time()) - 250)
        assert fresh.status == 200
    assert backend.requests == []


def test_health_and_url_verification(slack_api: SlackApiStandIn, sqlite_store: StateStore) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    with running_bot(slack_api, backend=backend, store=sqlite_store) as bot:
        health = httpx.get(bot.server.url + "/healthz")
        assert health.status_code == 200 and health.json() == {"ok": True, "checks": {"state": True}}
        assert httpx.get(bot.server.url + "/nope").status_code == 404
        challenge = bot.slack.post(
            json.dumps({"type": "url_verification", "challenge": "abc123", "token": "t"}), "application/json"
        )
        assert challenge.status == 200 and challenge.json() == {"challenge": "abc123"}


def test_a_burst_is_acked_in_time_while_diagnoses_queue(
    slack_api: SlackApiStandIn, sqlite_store: StateStore
) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM), delay=0.15)
    with running_bot(slack_api, backend=backend, store=sqlite_store, diagnosis_slots=2) as bot:
        with ThreadPoolExecutor(max_workers=24) as pool:
            replies = list(pool.map(lambda n: bot.slack.command(COMMAND, user=f"U{n:04d}"), range(24)))
        assert all(reply.status == 200 for reply in replies)
        assert max(reply.seconds for reply in replies) < 3.0
        slack_api.wait_for("files.completeUploadExternal", count=24, timeout=30)
        bot.idle(30)
    assert len(backend.requests) == 24


def test_responses_larger_than_the_socket_buffers_arrive_whole_on_many_connections_at_once() -> None:
    """The request threads send their responses themselves while the server's loop leaves a
    connection alone whose thread is writing: what a thread could not send, the loop sends later,
    to each client, in order."""
    from collections.abc import Iterable, Iterator
    from typing import Any

    from bot.server import HttpServer

    chunk_count, chunk_bytes = 48, 64 * 1024

    def body_for(number: int) -> Iterator[bytes]:
        for index in range(chunk_count):
            yield bytes([65 + (number + index) % 26]) * chunk_bytes

    def application(environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        number = int(environ["PATH_INFO"].rsplit("/", 1)[-1])
        start_response("200 OK", [("Content-Length", str(chunk_count * chunk_bytes))])
        return body_for(number)

    server = HttpServer(application, threads=4).start()
    try:
        with ThreadPoolExecutor(max_workers=16) as pool:
            bodies = list(
                pool.map(lambda n: httpx.get(f"{server.url}/big/{n}", timeout=30).content, range(16))
            )
    finally:
        server.stop()
    assert [body == b"".join(body_for(number)) for number, body in enumerate(bodies)] == [True] * 16

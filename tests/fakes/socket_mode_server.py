"""A local stand-in for Slack's Socket Mode WebSocket (shared/reference/slack.md 2.6, 7.2.4).

aiohttp on 127.0.0.1:0 in its own thread: on connect it sends `hello`, then every queued
envelope; it records the frames the app sends back (the acks, `{"envelope_id": …}`).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from typing import Any

from aiohttp import WSMsgType, web


class FakeSocketModeServer:
    def __init__(self) -> None:
        self.envelopes: list[dict[str, Any]] = []
        self.received: list[dict[str, Any]] = []
        self._cond = threading.Condition()
        self._loop = asyncio.new_event_loop()
        self._sockets: list[web.WebSocketResponse] = []
        self.port = 0
        self._started = threading.Event()
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name="fake-socket-mode", daemon=True)

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/link"

    def start(self) -> FakeSocketModeServer:
        self._thread.start()
        assert self._started.wait(10), "the Socket Mode stand-in did not start"
        return self

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        app = web.Application()
        app.router.add_get("/link", self._link)
        self._runner = web.AppRunner(app)
        self._loop.run_until_complete(self._runner.setup())
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        self._loop.run_until_complete(site.start())
        server = site._server
        assert server is not None
        self.port = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]
        self._started.set()
        self._loop.run_forever()

    async def _link(self, request: web.Request) -> web.WebSocketResponse:
        socket = web.WebSocketResponse()
        await socket.prepare(request)
        self._sockets.append(socket)
        await socket.send_str(
            json.dumps({"type": "hello", "num_connections": 1, "connection_info": {"app_id": "A0DIAGBOT"}})
        )
        for envelope in list(self.envelopes):
            await socket.send_str(json.dumps(envelope))
        async for message in socket:
            if message.type == WSMsgType.TEXT:
                with self._cond:
                    self.received.append(json.loads(message.data))
                    self._cond.notify_all()
        return socket

    def send(self, envelope: dict[str, Any]) -> None:
        """Queue an envelope for new connections and push it to the open ones."""
        self.envelopes.append(envelope)
        for socket in list(self._sockets):
            if not socket.closed:
                asyncio.run_coroutine_threadsafe(socket.send_str(json.dumps(envelope)), self._loop).result(5)

    def wait_for_ack(self, envelope_id: str, *, timeout: float = 10.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for frame in self.received:
                    if frame.get("envelope_id") == envelope_id:
                        return frame
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(f"no ack for {envelope_id}; frames: {self.received}")
                self._cond.wait(remaining)

    def stop(self) -> None:
        """Close every connection and the server (a second call does nothing)."""
        if self._stopped:
            return
        self._stopped = True

        async def close() -> None:
            for socket in self._sockets:
                await socket.close()
            await self._runner.cleanup()

        asyncio.run_coroutine_threadsafe(close(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)

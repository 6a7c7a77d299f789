"""A source that lets calls through in rounds: every call waits at the gate until the calls
already let through have answered and no new call has arrived for a while (counted in event-loop
turns, not time). The batches are the rounds the workflow needs when every call takes as long
as every other one."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from diagnosis.evidence.answer import Answer

QUIET_TURNS = 50


class RoundGate:
    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.rounds: list[list[tuple[str, dict[str, Any]]]] = []
        # (op, args) -> (status, the answer's body or text as JSON text)
        self.answers: dict[str, tuple[int | None, str]] = {}
        self._waiting: list[tuple[str, dict[str, Any], asyncio.Future[None]]] = []
        self._in_flight = 0
        self._releaser: asyncio.Task[None] | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def fetch(self, op: str, /, *, variant: str | None = None, **args: Any) -> Answer:
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append((op, dict(args), ready))
        if self._releaser is None or self._releaser.done():
            self._releaser = asyncio.create_task(self._release())
        await ready
        try:
            answer: Answer = await self.inner.fetch(op, variant=variant, **args)
            body = answer.text if answer.body is None else json.dumps(answer.body)
            self.answers[self.key(op, args)] = (answer.status, body or "")
            return answer
        finally:
            self._in_flight -= 1

    @staticmethod
    def key(op: str, args: dict[str, Any]) -> str:
        return json.dumps([op, {k: str(v) for k, v in args.items()}], sort_keys=True)

    async def _release(self) -> None:
        while self._waiting:
            seen = -1
            while seen != len(self._waiting) or self._in_flight:
                seen = len(self._waiting)
                for _ in range(QUIET_TURNS):
                    await asyncio.sleep(0)
            batch, self._waiting = self._waiting, []
            self.rounds.append([(op, args) for op, args, _ready in batch])
            self._in_flight += len(batch)
            for _op, _args, ready in batch:
                ready.set_result(None)

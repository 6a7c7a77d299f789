"""The shared request-rate limit: a 429 pause holds back every request, even those already queued."""

from __future__ import annotations

import asyncio
import time

from diagnosis.evidence.http.throttle import Throttle


async def test_a_pause_holds_back_requests_already_waiting_for_their_slot() -> None:
    throttle = Throttle(20.0)  # one request every 50 ms
    await throttle.acquire()

    async def let_through() -> float:
        await throttle.acquire()
        return time.monotonic()

    # Four requests queue for the slots at +50, +100, +150 and +200 ms...
    waiting = [asyncio.create_task(let_through()) for _ in range(4)]
    await asyncio.sleep(0.01)
    # ...then a 429 asks everyone to wait 0.4 s.
    throttle.pause(0.4)
    paused_until = time.monotonic() + 0.4
    sent = await asyncio.gather(*waiting)
    assert min(sent) >= paused_until - 0.02
    # After the pause the rate limit still holds: no burst of the queued requests.
    assert max(sent) - min(sent) >= 3 * 0.05 - 0.02


async def test_without_a_pause_queued_requests_keep_their_slots() -> None:
    throttle = Throttle(50.0)
    started = time.monotonic()
    await asyncio.gather(*(throttle.acquire() for _ in range(5)))
    elapsed = time.monotonic() - started
    assert 4 * 0.02 - 0.01 <= elapsed < 0.5

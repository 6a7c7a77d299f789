"""Every listener test runs twice: work on the bot's own pool (Socket Mode, the threaded server)
and work queued through the state store to a job runner (HTTP mode's web and work processes)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.bot import harness


@pytest.fixture(autouse=True, params=["local", "queued"])
def jobs_mode(request: pytest.FixtureRequest) -> Iterator[str]:
    previous = harness.JOBS_MODE
    harness.JOBS_MODE = request.param
    yield request.param
    harness.JOBS_MODE = previous

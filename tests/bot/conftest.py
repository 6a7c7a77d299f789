"""Bot test fixtures: a real Redis (tests/fakes/redis_server.py) and both state stores."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bot.state.redis_store import RedisStore
from bot.state.sqlite_store import SqliteStore
from bot.state.store import StateStore
from playground.slack_api import SlackApiStandIn, running_slack_api
from tests.fakes.redis_server import redis_url

__all__ = ["redis_url"]

StoreFactory = Callable[[], StateStore]


@pytest.fixture(params=["sqlite", "redis"])
def store_factory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreFactory]:
    """Opens stores sharing one backing state (a file, or a Redis namespace): like two replicas."""
    opened: list[StateStore] = []
    namespace = f"test-{uuid.uuid4().hex[:12]}"
    kind = request.param

    def factory() -> StateStore:
        store: StateStore
        if kind == "sqlite":
            store = SqliteStore(tmp_path / "state.sqlite3")
        else:
            url = request.getfixturevalue("redis_url")
            store = RedisStore.from_url(url, namespace=namespace)
        opened.append(store)
        return store

    yield factory
    for store in opened:
        store.close()


@pytest.fixture
def slack_api() -> Iterator[SlackApiStandIn]:
    with running_slack_api() as api:
        yield api


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Iterator[StateStore]:
    store = SqliteStore(tmp_path / "bot-state.sqlite3")
    yield store
    store.close()


@pytest.fixture(params=["sqlite", "redis"])
def any_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StateStore]:
    """The bot's state on SQLite and on a real Redis: the same behaviour is expected of both."""
    store: StateStore
    if request.param == "sqlite":
        store = SqliteStore(tmp_path / "bot-state.sqlite3")
    else:
        store = RedisStore.from_url(
            request.getfixturevalue("redis_url"), namespace=f"e2e-{uuid.uuid4().hex[:12]}"
        )
    yield store
    store.close()

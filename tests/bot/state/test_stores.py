from __future__ import annotations

import threading
from datetime import UTC, datetime
from pathlib import Path

from bot.commands import RequestDraft
from bot.state.models import PendingRequest, Place, ThreadRecord
from bot.state.sqlite_store import SqliteStore
from diagnosis.models import Choice, Question
from tests.bot.conftest import StoreFactory

NOW = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)


def pending(pending_id: str = "p1") -> PendingRequest:
    return PendingRequest(
        id=pending_id,
        kind="question",
        draft=RequestDraft(platform="runai", workload_name="train-42", project="ml-team"),
        question=Question(
            key="cluster_id", prompt="Which cluster?", choices=[Choice(value="c1", label="prod-a")]
        ),
        place=Place(channel="C1", thread_ts="100.1", status_ts="100.1"),
        prompt_ts="100.2",
        user="U1",
        created_at=NOW,
    )


def test_claim_is_won_once_across_replicas(store_factory: StoreFactory) -> None:
    first, second = store_factory(), store_factory()
    assert first.claim("event:Ev1")
    assert not first.claim("event:Ev1")
    assert not second.claim("event:Ev1")
    assert second.claim("event:Ev2")


def test_concurrent_claims_have_one_winner(store_factory: StoreFactory) -> None:
    stores = [store_factory() for _ in range(2)]
    results: list[bool] = []
    lock = threading.Lock()

    def claim(index: int) -> None:
        won = stores[index % 2].claim("msg:C1:1.2")
        with lock:
            results.append(won)

    threads = [threading.Thread(target=claim, args=(i,)) for i in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results.count(True) == 1


def test_pending_survives_a_restart_and_is_taken_once(store_factory: StoreFactory) -> None:
    before = store_factory()
    before.put_pending(pending())
    before.close()
    after = store_factory()
    assert after.get_pending("p1") == pending()
    assert after.take_pending("p1") == pending()
    assert after.take_pending("p1") is None
    assert after.get_pending("p1") is None


def test_thread_record_round_trip(store_factory: StoreFactory) -> None:
    store = store_factory()
    record = ThreadRecord(
        place=Place(channel="C1", thread_ts="100.1", status_ts="100.3"),
        draft=RequestDraft(platform="modelarts", job_id="j1"),
        diagnosis={"schema": "diagnosis/v1", "outcome": "diagnosed"},
        user="U1",
        created_at=NOW,
    )
    store.put_thread(record)
    assert store.get_thread("C1", "100.1") == record
    assert store.get_thread("C1", "100.3") is None
    assert store.get_thread("C2", "100.1") is None


def test_rate_limit_counts_per_key(store_factory: StoreFactory) -> None:
    store = store_factory()
    assert [store.allow("user:U1", limit=3, window_seconds=60) for _ in range(4)] == [True, True, True, False]
    assert store.allow("user:U2", limit=3, window_seconds=60)


def test_ping(store_factory: StoreFactory) -> None:
    assert store_factory().ping()


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def test_sqlite_expiry_frees_claims_pending_and_rate(tmp_path: Path) -> None:
    clock = FakeClock()
    store = SqliteStore(tmp_path / "s.db", clock=clock)
    assert store.claim("k", ttl_seconds=10)
    store.put_pending(pending(), ttl_seconds=10)
    assert store.allow("u", limit=1, window_seconds=10)
    assert not store.allow("u", limit=1, window_seconds=10)
    clock.now += 11
    assert store.claim("k", ttl_seconds=10)
    assert store.get_pending("p1") is None
    assert store.allow("u", limit=1, window_seconds=10)
    store.purge()
    store.close()


def test_redis_keys_carry_a_ttl(redis_url: str) -> None:
    from bot.state.redis_store import RedisStore

    store = RedisStore.from_url(redis_url, namespace="ttl-check")
    store.client.delete("ttl-check:seen:k", "ttl-check:pending:p1")
    assert store.claim("k", ttl_seconds=100)
    store.put_pending(pending(), ttl_seconds=200)
    assert 0 < store.client.ttl("ttl-check:seen:k") <= 100
    assert 100 < store.client.ttl("ttl-check:pending:p1") <= 200
    store.client.delete("ttl-check:seen:k", "ttl-check:pending:p1")
    store.close()


def test_replacing_a_pending_request_never_brings_back_an_answered_one(store_factory: StoreFactory) -> None:
    asker, answerer = store_factory(), store_factory()
    asker.put_pending(pending())
    with_prompt = pending().model_copy(update={"prompt_ts": "100.9"})
    assert asker.replace_pending(with_prompt)
    assert answerer.get_pending("p1") == with_prompt
    assert answerer.take_pending("p1") == with_prompt
    # The question was answered before the asker could record where it was posted.
    assert not asker.replace_pending(with_prompt)
    assert answerer.get_pending("p1") is None

"""The job queue the web processes fill and the work processes drain, on SQLite and on Redis."""

from __future__ import annotations

import threading
import time

from tests.bot.conftest import StoreFactory


def test_jobs_come_out_oldest_first_and_once(store_factory: StoreFactory) -> None:
    web, work = store_factory(), store_factory()
    for number in range(3):
        web.push_job(f'{{"n": {number}}}')
    claimed = [work.claim_job(wait_seconds=0) for _ in range(3)]
    assert [job.body for job in claimed if job] == ['{"n": 0}', '{"n": 1}', '{"n": 2}']
    # Held jobs are not handed out again, and stay counted until finished.
    assert work.claim_job(wait_seconds=0) is None
    assert web.queued_jobs() == 3
    for job in claimed:
        assert job is not None
        work.finish_job(job.id)
    assert web.queued_jobs() == 0
    assert work.claim_job(wait_seconds=0) is None


def test_a_queued_job_survives_the_process_that_queued_it(store_factory: StoreFactory) -> None:
    web = store_factory()
    web.push_job('{"kind": "diagnose"}')
    web.close()
    job = store_factory().claim_job(wait_seconds=0)
    assert job is not None and job.body == '{"kind": "diagnose"}'


def test_a_job_whose_holder_died_is_handed_out_again_after_the_lease(store_factory: StoreFactory) -> None:
    web, dead, alive = store_factory(), store_factory(), store_factory()
    web.push_job('{"kind": "answer"}')
    taken = dead.claim_job(lease_seconds=1, wait_seconds=0)
    assert taken is not None
    assert alive.claim_job(wait_seconds=0) is None  # still held
    time.sleep(1.3)
    again = alive.claim_job(wait_seconds=0)
    assert again is not None and again.body == '{"kind": "answer"}'
    assert (taken.deliveries, again.deliveries) == (1, 2)
    alive.finish_job(again.id)
    assert web.queued_jobs() == 0


def test_a_waiting_claim_takes_a_job_queued_meanwhile(store_factory: StoreFactory) -> None:
    web, work = store_factory(), store_factory()
    threading.Timer(0.3, web.push_job, args=('{"late": true}',)).start()
    started = time.monotonic()
    job = work.claim_job(wait_seconds=5)
    assert job is not None and job.body == '{"late": true}'
    assert time.monotonic() - started < 2
    started = time.monotonic()
    assert work.claim_job(wait_seconds=0.3) is None
    assert 0.25 <= time.monotonic() - started < 2


def test_concurrent_work_processes_never_take_the_same_job(store_factory: StoreFactory) -> None:
    web = store_factory()
    workers = [store_factory() for _ in range(3)]
    total = 60
    for number in range(total):
        web.push_job(f'{{"n": {number}}}')
    taken: list[str] = []
    lock = threading.Lock()

    def drain(index: int) -> None:
        store = workers[index % len(workers)]
        while True:
            job = store.claim_job(wait_seconds=0.1)
            if job is None:
                return
            with lock:
                taken.append(job.body)
            store.finish_job(job.id)

    threads = [threading.Thread(target=drain, args=(index,)) for index in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(taken) == sorted(f'{{"n": {number}}}' for number in range(total))
    assert web.queued_jobs() == 0


def test_the_oldest_waiting_job_is_timed_until_someone_takes_it(store_factory: StoreFactory) -> None:
    from bot.work import work_keeps_up

    web, work = store_factory(), store_factory()
    assert web.oldest_waiting_job_seconds() is None
    assert work_keeps_up(web, stall_seconds=0.2)
    web.push_job('{"n": 1}')
    time.sleep(0.3)
    waited = web.oldest_waiting_job_seconds()
    assert waited is not None and 0.25 <= waited < 5
    # Nobody took it within the stall time: the web side's health check says so.
    assert not work_keeps_up(web, stall_seconds=0.2)
    job = work.claim_job(wait_seconds=0)
    assert job is not None
    assert web.oldest_waiting_job_seconds() is None
    assert work_keeps_up(web, stall_seconds=0.2)

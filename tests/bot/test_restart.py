"""Restarts lose nothing the user typed, on SQLite and on Redis: a request typed while no worker
runs is answered once one starts; a diagnosis whose worker stopped is run again by the next worker
and answered in its original placeholder, once, even if the first worker comes back late."""

from __future__ import annotations

import threading

from diagnosis.models import DiagnoseRequest, Diagnosis
from playground.slack_api import Call, SlackApiStandIn
from tests.bot.conftest import StoreFactory
from tests.bot.examples import OOM, example_diagnosis
from tests.bot.harness import ScriptedBackend, running_bot, wait_until

COMMAND = "runai cluster=4a9e2c17-5b3d-4f80-9c61-2d7be0f4a315 workload=segformer-finetune project=vision-lab"


def _is_report(call: Call) -> bool:
    return "OOM_KILLED" in call.body.get("text", "")


def test_a_request_typed_while_no_worker_runs_is_answered_once_one_starts(
    slack_api: SlackApiStandIn, store_factory: StoreFactory
) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM), steps=())
    with running_bot(slack_api, backend=backend, store=store_factory(), workers=False) as bot:
        for number in range(3):
            assert bot.slack.command(COMMAND, user=f"U0USER{number}").status == 200
        assert bot.queues.chat.pending_count() == 3, "queued before Slack got its answer"
        assert slack_api.calls_to("chat.postMessage") == []
        bot.start_workers()
        slack_api.wait_for("chat.update", count=3, where=_is_report, timeout=30)
        bot.idle()
    placeholders = slack_api.calls_to("chat.postMessage")
    reports = [call for call in slack_api.calls_to("chat.update") if _is_report(call)]
    assert len(placeholders) == 3 and len(reports) == 3
    assert {call.body["ts"] for call in reports} == {call.response["ts"] for call in placeholders}
    assert len(backend.requests) == 3


def test_a_diagnosis_whose_worker_stopped_is_answered_in_its_placeholder_once(
    slack_api: SlackApiStandIn, store_factory: StoreFactory
) -> None:
    started = threading.Event()
    release = threading.Event()

    def held(request: DiagnoseRequest) -> Diagnosis:
        # The first worker stops answering while this runs; it returns once the test says so.
        started.set()
        release.wait(timeout=30)
        return example_diagnosis(OOM)

    first_backend = ScriptedBackend(answer=held, steps=())
    second_backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM), steps=())
    try:
        with running_bot(slack_api, backend=first_backend, store=store_factory()) as first:
            first.slack.command(COMMAND)
            placeholder = slack_api.wait_for("chat.postMessage")[0]
            assert started.wait(timeout=15), "the diagnosis did not start"
            # The worker is gone as far as the queue can tell: no more beats, its task left behind.
            assert first.workers is not None
            consumers = first.workers.consumers
            for consumer in consumers:
                consumer.stop_flag.set()
            # (Its idle threads leave first: a dead process would have none to take the task back.)
            wait_until(lambda: sum(t.is_alive() for c in consumers for _, t in c.worker_threads) == 1)
            first.workers.redelivery.stop()
            with running_bot(slack_api, backend=second_backend, store=store_factory()) as second:
                slack_api.wait_for("chat.update", where=_is_report, timeout=30)
                second.idle()
                # The first worker comes back late with the same answer.
                release.set()
                wait_until(lambda: first.workers is not None and first.workers.redelivery.in_flight == 0)
                first.workers = None
    finally:
        release.set()
    reports = [call for call in slack_api.calls_to("chat.update") if _is_report(call)]
    assert reports and {call.body["ts"] for call in reports} == {placeholder.response["ts"]}
    assert len(slack_api.calls_to("chat.postMessage")) == 1, "one placeholder, nothing posted anew"
    full_reports = [upload for upload in slack_api.uploads() if upload.filename.endswith(".md")]
    assert len(full_reports) == 1, "the full report attached once"
    rerun = second_backend.requests
    assert [request.workload_name for request in rerun] == ["segformer-finetune"]
    assert rerun[0].cluster_id == first_backend.requests[0].cluster_id


def test_a_finished_diagnosis_leaves_nothing_to_run_again(
    slack_api: SlackApiStandIn, store_factory: StoreFactory
) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM), steps=())
    with running_bot(slack_api, backend=backend, store=store_factory()) as bot:
        bot.slack.command(COMMAND)
        slack_api.wait_for("chat.update", where=_is_report)
        bot.idle()
        assert not [key for key in bot.queues.diagnoses.all_results() if key.startswith("running:")]
    again = ScriptedBackend(answer=lambda request: example_diagnosis(OOM), steps=())
    with running_bot(slack_api, backend=again, store=store_factory()) as restarted:
        restarted.idle()
    assert again.requests == []

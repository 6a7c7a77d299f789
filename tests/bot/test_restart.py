"""A bot restarted while a diagnosis runs loses nothing the user typed: the new bot runs the request
again and the report lands in the original placeholder, once, on SQLite and on Redis."""

from __future__ import annotations

import threading

from bot.grammar import RequestDraft
from bot.state.models import InflightRequest, Place
from diagnosis.models import DiagnoseRequest, Diagnosis
from tests.bot.conftest import StoreFactory
from tests.bot.examples import OOM, example_diagnosis
from tests.bot.harness import NOW, ScriptedBackend, running_bot
from tests.fakes.slack_api import Call, FakeSlackApi

COMMAND = "runai cluster=4a9e2c17-5b3d-4f80-9c61-2d7be0f4a315 workload=segformer-finetune project=vision-lab"


def _is_report(call: Call) -> bool:
    return "OOM_KILLED" in call.body.get("text", "")


def test_a_diagnosis_interrupted_by_a_restart_is_answered_in_its_placeholder_once(
    slack_api: FakeSlackApi, store_factory: StoreFactory
) -> None:
    started = threading.Event()
    release = threading.Event()

    def held(request: DiagnoseRequest) -> Diagnosis:
        # The first bot is "stopped" while this runs; it only returns once the test is over.
        started.set()
        release.wait(timeout=30)
        return example_diagnosis(OOM)

    first_backend = ScriptedBackend(answer=held, steps=())
    # Two bots start on the same state (two replicas after a deploy): one of them takes it over.
    second_backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM), steps=())
    third_backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM), steps=())
    store = store_factory()
    try:
        with running_bot(slack_api, backend=first_backend, store=store) as first:
            first.slack.command(COMMAND)
            placeholder = slack_api.wait_for("chat.postMessage")[0]
            assert started.wait(timeout=15), "the diagnosis did not start"
            first.server.stop()
            with (
                running_bot(slack_api, backend=second_backend, store=store_factory()) as second,
                running_bot(slack_api, backend=third_backend, store=store_factory()) as third,
            ):
                report = slack_api.wait_for("chat.update", where=_is_report)[0]
                second.idle()
                third.idle()
            release.set()
    finally:
        release.set()
    # The late answer of the stopped bot is dropped: the user sees one report, in the placeholder.
    assert report.body["channel"] == placeholder.body["channel"]
    assert report.body["ts"] == placeholder.response["ts"]
    assert len([call for call in slack_api.calls_to("chat.update") if _is_report(call)]) == 1
    rerun = second_backend.requests + third_backend.requests
    assert [request.workload_name for request in rerun] == ["segformer-finetune"]
    assert rerun[0].cluster_id == first_backend.requests[0].cluster_id
    assert store.list_inflight() == []


def test_a_finished_diagnosis_leaves_nothing_to_resume(
    slack_api: FakeSlackApi, store_factory: StoreFactory
) -> None:
    store = store_factory()
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM), steps=())
    with running_bot(slack_api, backend=backend, store=store) as bot:
        bot.slack.command(COMMAND)
        slack_api.wait_for("chat.update", where=_is_report)
        bot.idle()
    assert store.list_inflight() == []
    again = ScriptedBackend(answer=lambda request: example_diagnosis(OOM), steps=())
    with running_bot(slack_api, backend=again, store=store_factory()) as restarted:
        restarted.idle()
    assert again.requests == []


def test_inflight_records_round_trip(store_factory: StoreFactory) -> None:
    writer, reader = store_factory(), store_factory()
    record = InflightRequest(
        id="abc",
        draft=RequestDraft(platform="runai", workload_name="w"),
        place=Place(channel="C1", thread_ts="1.1", status_ts="1.1"),
        user="U1",
        lang="fr",
        created_at=NOW,
    )
    writer.put_inflight(record)
    assert reader.list_inflight() == [record]
    reader.remove_inflight("abc")
    assert writer.list_inflight() == []

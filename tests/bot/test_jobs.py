"""Jobs are plain data: every kind survives the trip through the store's queue unchanged."""

from __future__ import annotations

import threading
import typing
from datetime import UTC, datetime

import pytest
from pydantic import BaseModel

from bot import jobs
from bot.grammar import RequestDraft, ScanCommand
from bot.state.models import Place, ThreadRecord
from bot.state.store import StateStore
from bot.work import JobRunner
from tests.bot.examples import OOM, example_diagnosis
from tests.bot.harness import USER, ScriptedBackend, running_bot
from tests.fakes.slack_api import FakeSlackApi

RECORD = ThreadRecord(
    place=Place(channel="C1", thread_ts="100.1", status_ts="100.2"),
    draft=RequestDraft(platform="runai", workload_name="train-42", project="ml", cluster_id="c1"),
    diagnosis={"schema": "diagnosis/v1", "outcome": "diagnosed", "category": "oom_killed"},
    lang="fr",
    user="U1",
    created_at=datetime(2026, 11, 28, 9, 0, tzinfo=UTC),
)
ASKER = jobs.AskerRef(
    user="U1",
    channel="C1",
    thread_ts="100.1",
    lang="ja",
    response_url="https://hooks.slack.com/commands/T/1/x",
)
EXAMPLES: list[BaseModel] = [
    jobs.DiagnoseJob(draft=RECORD.draft, asker=ASKER),
    jobs.ExplainJob(code=137, asker=ASKER),
    jobs.ScanJob(command=ScanCommand(platform="runai", cluster_id="c1", lookback="7d"), asker=ASKER),
    jobs.TextJob(text="evidence", asker=ASKER, record=RECORD, mentioned=False),
    jobs.TextJob(text="<@U0BOT> why is train-7 failing?", asker=ASKER, record=None, mentioned=True),
    jobs.AnswerJob(pending_id="p1", value="c1", user="U1", channel=None),
    jobs.CancelJob(pending_id="p1", user="U1", channel="C1"),
    jobs.RetryJob(pending_id="p1", user="U1", channel="C1"),
    jobs.RerunJob(record=RECORD, asker=ASKER),
    jobs.LogLinkJob(record=RECORD, task="worker-1", user="U1", channel="C1"),
]


def test_every_kind_of_job_has_an_example() -> None:
    (union, *_) = typing.get_args(jobs.Job)
    assert {kind.__name__ for kind in typing.get_args(union)} == {type(job).__name__ for job in EXAMPLES}


@pytest.mark.parametrize("job", EXAMPLES, ids=lambda job: type(job).__name__)
def test_a_job_comes_out_of_the_queue_as_it_went_in(job: BaseModel) -> None:
    queued = jobs.QueuedJob(job=job)  # type: ignore[arg-type]
    body = queued.model_dump_json(by_alias=True)
    back = jobs.QueuedJob.model_validate_json(body)
    assert back == queued
    assert type(back.job) is type(job)
    assert '"schema":"bot-job/v1"' in body


def test_the_asker_answers_through_its_response_url() -> None:
    asker = ASKER.asker()
    assert asker.respond is not None
    assert getattr(asker.respond, "response_url", None) == ASKER.response_url
    assert (asker.user, asker.channel, asker.thread_ts, asker.lang) == ("U1", "C1", "100.1", "ja")
    assert jobs.AskerRef(user="U1", channel="C1").asker().respond is None
    # The response URL is a credential of sorts: never in a repr (log lines, tracebacks).
    assert "hooks.slack.com" not in repr(ASKER)


def test_when_the_store_cannot_queue_a_request_the_asker_is_told_at_once(
    slack_api: FakeSlackApi, sqlite_store: StateStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unreachable(body: str) -> str:
        raise ConnectionError("Error 111 connecting to redis:6379. Connection refused.")

    backend = ScriptedBackend(answer=lambda request: pytest.fail("nothing may run"))
    with running_bot(slack_api, backend=backend, store=sqlite_store, jobs_mode="queued") as bot:
        monkeypatch.setattr(sqlite_store, "push_job", unreachable)
        reply = bot.slack.command("runai cluster=c1 workload=train-42 project=ml")
        assert reply.status == 200
        told = slack_api.wait_for("commands/T0ACME001/1/resp")[0]
        assert "could not take this request" in told.body["text"]
        assert "ConnectionError" in told.body["text"] and told.body["response_type"] == "ephemeral"
        bot.slack.mention("<@U0DIAGBOT> diagnose runai workload train-42", ts="1700000000.000100")
        (ephemeral,) = slack_api.wait_for("chat.postEphemeral")
        assert ephemeral.body["user"] == USER and "could not take this request" in ephemeral.body["text"]
    assert not slack_api.calls_to("chat.postMessage")


def test_over_http_a_request_is_stored_before_slack_gets_its_answer(
    slack_api: FakeSlackApi, sqlite_store: StateStore
) -> None:
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM))
    with running_bot(slack_api, backend=backend, store=sqlite_store, jobs_mode="queued") as bot:
        assert bot.runner is not None and bot.runner_thread is not None
        bot.runner.stop.set()  # no work process: what the web side did is all there is
        bot.runner_thread.join(timeout=10)
        for number in range(5):
            reply = bot.slack.command(
                "runai cluster=c1 workload=train-42 project=ml", user=f"U0USER{number:03d}"
            )
            assert reply.status == 200
            assert sqlite_store.queued_jobs() == number + 1
        bot.slack.mention("diagnose runai workload train-42 project ml cluster c1", ts="1700000000.000200")
        assert sqlite_store.queued_jobs() == 6
        # The work side starts later and answers every one of them.
        bot.runner = JobRunner(bot.work_runtime, bot.runner.client, slots=4)  # type: ignore[arg-type]
        bot.runner_thread = threading.Thread(target=bot.runner.serve, daemon=True)
        bot.runner_thread.start()
        slack_api.wait_for(
            "chat.update", count=6, where=lambda c: "OOM_KILLED" in c.body.get("text", ""), timeout=30
        )
        bot.idle()
    assert len(backend.requests) == 6

"""Guarantee 6, faults: the simulator fails each op of a scenario in every way a platform does, and
Slack fails the bot's posts; the product retries within its budget, never hangs, and answers.

Engine side, for each scenario, each op it calls and each fault kind:
- transient (the fault once, then the answer): the retry recovers, the verdict is the unfaulted one;
- persistent (the fault every time): a valid diagnosis comes back within the deadline and names the
  op whose evidence is missing (in `limitations`; the first op may name it in its evidence).
Slack side (tests/bot harness, fake Web API): 429 then success on the placeholder and on the
report, a report that cannot replace the placeholder, a report that cannot be posted at all, an
attachment that cannot be uploaded, and a bot restart while a question waits for its answer.
"""

from __future__ import annotations

import asyncio
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import jsonschema

from blocks.prompts import ACTION_OTHER
from bot.state.sqlite_store import SqliteStore
from diagnosis.masking import mask
from diagnosis.models import DiagnoseRequest, Diagnosis
from playground.slack_api import SlackApiStandIn, running_slack_api
from simulator.server import Fault
from tests.bot.examples import OOM, example_diagnosis
from tests.bot.harness import BotUnderTest, ScriptedBackend, queues_for, running_bot
from tests.safety.bundles import Scenario
from tests.safety.fuzzing import DIAGNOSIS_SCHEMA
from tests.safety.live import Budget, Hung, LiveRig
from tests.safety.outputs import verdict

FAULT_KINDS: dict[str, Callable[[int], Fault]] = {
    "429 Retry-After": lambda times: Fault(status=429, retry_after=0.05, times=times),
    "429": lambda times: Fault(status=429, times=times),
    "500": lambda times: Fault(status=500, times=times),
    "502": lambda times: Fault(status=502, times=times),
    "503": lambda times: Fault(status=503, times=times),
    "reset": lambda times: Fault(reset=True, times=times),
    "timeout": lambda times: Fault(timeout=True, times=times),
    "truncated body": lambda times: Fault(truncate=True, times=times),
}
# Small budgets: a client timeout well under the simulator's hold, two attempts, short backoff.
BUDGET = Budget(
    timeout_seconds=0.25,
    attempts=2,
    base_delay=0.01,
    max_delay=0.05,
    retry_deadline=3.0,
    deadline_seconds=8.0,
)
# A fault that happens once: more attempts, so that a busy machine's slow answer after the
# injected one is not taken for a second fault.
RETRY_BUDGET = Budget(
    timeout_seconds=0.25,
    attempts=4,
    base_delay=0.01,
    max_delay=0.05,
    retry_deadline=4.0,
    deadline_seconds=8.0,
)


@dataclass
class FaultResult:
    run_by_kind: Counter[str] = field(default_factory=Counter)
    survived_by_kind: Counter[str] = field(default_factory=Counter)
    hung: list[str] = field(default_factory=list)
    # `scenario op kind mode: what went wrong`
    failures: list[str] = field(default_factory=list)
    slowest_seconds: float = 0.0

    @property
    def run(self) -> int:
        return sum(self.run_by_kind.values())

    @property
    def survived(self) -> int:
        return sum(self.survived_by_kind.values())

    def record(self, kind: str, label: str, problems: list[str]) -> None:
        self.run_by_kind[kind] += 1
        if problems:
            self.failures.extend(f"{label}: {problem}" for problem in problems)
        else:
            self.survived_by_kind[kind] += 1


def _names_missing(diagnosis: Diagnosis, op: str, baseline: Diagnosis) -> bool:
    """The missing evidence is named: the op appears in what the diagnosis says, or a limitation
    the unfaulted run did not have says what could not be read (`Node n1 could not be read …`)."""
    texts = [*diagnosis.limitations, *diagnosis.next_steps, *(item.text for item in diagnosis.evidence)]
    texts += [item.source for item in diagnosis.evidence]
    return any(op in text for text in texts) or bool(set(diagnosis.limitations) - set(baseline.limitations))


async def _one(
    rig: LiveRig, scenario: Scenario, op: str, kind: str, *, persistent: bool, baseline: Diagnosis
) -> list[str]:
    fault = FAULT_KINDS[kind](-1 if persistent else 1)
    rig.serve(scenario.bundle, faults={op: [fault]})
    try:
        live = await rig.diagnose(scenario.bundle, budget=BUDGET if persistent else RETRY_BUDGET)
    except Hung as exc:
        return [f"hung: {exc}"]
    problems: list[str] = []
    try:
        jsonschema.validate(live.diagnosis.to_json_dict(), DIAGNOSIS_SCHEMA)
    except jsonschema.ValidationError as exc:
        problems.append(f"invalid diagnosis: {exc.message[:120]}")
    if live.seconds > BUDGET.deadline_seconds:
        problems.append(f"took {live.seconds:.1f} s, past the {BUDGET.deadline_seconds:g} s deadline")
    if persistent:
        if op in baseline.calls and not _names_missing(live.diagnosis, op, baseline):
            problems.append("the missing evidence is not named")
    elif verdict(live.diagnosis) != verdict(baseline):
        problems.append(f"not recovered: {verdict(baseline)} became {verdict(live.diagnosis)}")
    return problems


async def _engine_faults(
    result: FaultResult, scenarios: Sequence[Scenario], kinds: Sequence[str], max_ops: int | None
) -> None:
    with LiveRig(timeout_hold_seconds=2.0) as rig:
        for scenario in scenarios:
            rig.serve(scenario.bundle)
            try:
                baseline = (await rig.diagnose(scenario.bundle, budget=RETRY_BUDGET)).diagnosis
            except Exception as exc:
                result.failures.append(
                    f"{scenario.name}: no baseline ({type(exc).__name__}: {mask(str(exc))[:120]})"
                )
                continue
            ops = spread_ops(list(dict.fromkeys(rig.sim.ops)), max_ops)
            for op in ops:
                for kind in kinds:
                    for persistent in (False, True):
                        mode = "persistent" if persistent else "transient"
                        label = f"{scenario.name} {op} {kind} {mode}"
                        started = time.monotonic()
                        try:
                            problems = await _one(
                                rig, scenario, op, kind, persistent=persistent, baseline=baseline
                            )
                        except Exception as exc:
                            problems = [f"crashed: {type(exc).__name__}: {mask(str(exc))[:160]}"]
                        result.slowest_seconds = max(result.slowest_seconds, time.monotonic() - started)
                        if any(problem.startswith("hung") for problem in problems):
                            result.hung.append(label)
                        result.record(kind, label, problems)


def engine_faults(
    scenarios: Sequence[Scenario], *, kinds: Sequence[str] = tuple(FAULT_KINDS), max_ops: int | None = None
) -> FaultResult:
    """Every fault kind, transient and persistent, on each op a scenario calls (at most `max_ops`
    of them, spread from the first call to the last)."""
    result = FaultResult()
    asyncio.run(_engine_faults(result, scenarios, kinds, max_ops))
    return result


def spread_ops(ops: Sequence[str], count: int | None) -> list[str]:
    if count is None or count >= len(ops):
        return list(ops)
    if count <= 1:
        return list(ops[:1])
    return list(dict.fromkeys(ops[round(index * (len(ops) - 1) / (count - 1))] for index in range(count)))


# ---------------------------------------------------------------------------------------------------
# Slack side

COMMAND = "runai cluster=4a9e2c17-5b3d-4f80-9c61-2d7be0f4a315 workload=segformer-finetune project=vision-lab"
REPORT_WORD = "OOM_KILLED"


def _reported(api: SlackApiStandIn) -> bool:
    """The report reached the channel: a successful post or update carrying it."""
    return any(
        REPORT_WORD in str(call.body.get("text", "")) and call.response.get("ok") is True
        for call in api.calls
        if call.method in ("chat.update", "chat.postMessage")
    )


def _told(api: SlackApiStandIn) -> bool:
    """The user was told the report could not be posted (ephemeral, response_url or thread)."""
    return any(
        call.method in ("chat.postEphemeral",) or call.method.startswith("commands/")
        for call in api.calls
        if "could not" in str(call.body.get("text", "")).lower()
        or "failed" in str(call.body.get("text", "")).lower()
    )


def run_slack_scenario(
    name: str,
    prepare: Callable[[SlackApiStandIn], None],
    expect: Callable[[SlackApiStandIn], bool],
    *,
    after_placeholder: Callable[[SlackApiStandIn], None] | None = None,
) -> list[str]:
    release = threading.Event()

    def answer(request: DiagnoseRequest) -> Diagnosis:
        if after_placeholder is not None:
            release.wait(10)
        return example_diagnosis(OOM)

    backend = ScriptedBackend(answer=answer, steps=())
    with running_slack_api() as api, tempfile.TemporaryDirectory(prefix="safety-slack-") as folder:
        prepare(api)
        store = SqliteStore(Path(folder) / "state.sqlite3")
        try:
            with running_bot(api, backend=backend, store=store) as bot:
                bot.slack.command(COMMAND)
                if after_placeholder is not None:
                    api.wait_for("chat.postMessage", timeout=10)
                    after_placeholder(api)
                    release.set()
                bot.idle(30)
        except AssertionError as exc:
            return [f"{name}: {str(exc).splitlines()[0][:160]}"]
        finally:
            release.set()
            store.close()
        return [] if expect(api) else [f"{name}: neither the report nor a notice reached the user"]


def _fail_everything(api: SlackApiStandIn) -> None:
    for method in ("chat.update", "chat.postMessage"):
        api.fail(method, "internal_error", times=50)


SLACK_SCENARIOS: dict[str, tuple[Callable[[SlackApiStandIn], None], Callable[[SlackApiStandIn], bool], Callable[[SlackApiStandIn], None] | None]] = {
    "chat.update 429 then success": (
        lambda api: api.rate_limit("chat.update", retry_after=1, times=1), _reported, None),
    "chat.postMessage 429 then success": (
        lambda api: api.rate_limit("chat.postMessage", retry_after=1, times=1), _reported, None),
    "chat.update keeps failing": (
        lambda api: api.fail("chat.update", "internal_error", times=50), _reported, None),
    "every post fails after the placeholder": (lambda api: None, _told, _fail_everything),
    "the full report cannot be uploaded": (
        lambda api: api.fail("files.getUploadURLExternal", "internal_error", times=5), _reported, None),
}  # fmt: skip


def slack_faults(result: FaultResult) -> None:
    for name, (prepare, expect, after) in SLACK_SCENARIOS.items():
        try:
            problems = run_slack_scenario(name, prepare, expect, after_placeholder=after)
        except Exception as exc:
            problems = [f"{name}: crashed: {type(exc).__name__}: {mask(str(exc))[:160]}"]
        result.record("Slack", name, problems)
    result.record("restart", "restart while a question waits", restart_with_a_pending_question())
    result.record("restart", "restart while a diagnosis runs", restart_during_a_diagnosis())
    result.record("worker", "worker dies holding a request", worker_dies_holding_a_request())
    result.record("worker", "queue down when a request is queued", store_down_when_queued())


def restart_with_a_pending_question() -> list[str]:
    """The bot asks for the cluster, restarts, and the answer typed afterwards still runs the
    request with everything the user typed before."""
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM), steps=())
    with running_slack_api() as api, tempfile.TemporaryDirectory(prefix="safety-restart-") as folder:
        path = Path(folder) / "state.sqlite3"
        store = SqliteStore(path)
        try:
            with running_bot(api, backend=backend, store=store) as first:
                first.slack.command("runai workload=segformer-finetune project=vision-lab")
                first.idle(30)
        finally:
            store.close()
        questions = [c for c in api.calls_to("chat.postMessage") if ACTION_OTHER in str(c.body.get("blocks"))]
        if not questions:
            return ["no question was asked"]
        store = SqliteStore(path)
        try:
            with running_bot(api, backend=backend, store=store) as second:
                second.slack.click(questions[-1], ACTION_OTHER)
                view = api.wait_for("views.open", timeout=10)[-1].body["view"]
                second.slack.submit_view(view, "4a9e2c17-5b3d-4f80-9c61-2d7be0f4a315")
                second.idle(30)
        finally:
            store.close()
    if not backend.requests:
        return ["the answer after the restart ran nothing"]
    request = backend.requests[-1]
    typed = (request.workload_name, request.project, request.cluster_id)
    if typed != ("segformer-finetune", "vision-lab", "4a9e2c17-5b3d-4f80-9c61-2d7be0f4a315"):
        return [f"the request lost what was typed: {typed}"]
    return []


def restart_during_a_diagnosis() -> list[str]:
    """The bot stops while a diagnosis runs; the bot started after it must run the request with
    everything the user typed, and the report must land in the original placeholder, once."""
    release = threading.Event()

    def held(request: DiagnoseRequest) -> Diagnosis:
        release.wait(20)  # the stopped bot's late answer, after the test is over
        return example_diagnosis(OOM)

    first_backend = ScriptedBackend(answer=held, steps=())
    second_backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM), steps=())
    with running_slack_api() as api, tempfile.TemporaryDirectory(prefix="safety-restart-") as folder:
        path = Path(folder) / "state.sqlite3"
        first_store, second_store = SqliteStore(path), SqliteStore(path)
        try:
            with running_bot(api, backend=first_backend, store=first_store) as first:
                first.slack.command(COMMAND)
                placeholder = api.wait_for("chat.postMessage", timeout=10)[0]
                stop_answering(first)  # the worker "dies": it takes nothing more, beats no more
                try:
                    with running_bot(api, backend=second_backend, store=second_store) as second:
                        api.wait_for(
                            "chat.update",
                            where=lambda call: REPORT_WORD in call.body.get("text", ""),
                            timeout=15,
                        )
                        second.idle(15)
                finally:
                    release.set()
        except AssertionError as exc:
            return [f"no report after the restart ({str(exc).splitlines()[0][:120]})"]
        finally:
            release.set()
            first_store.close()
            second_store.close()
    problems: list[str] = []
    reports = [call for call in api.calls_to("chat.update") if REPORT_WORD in call.body.get("text", "")]
    if [call.body.get("ts") for call in reports] != [placeholder.response.get("ts")]:
        problems.append("the report did not land once, in the original placeholder")
    typed = [(r.workload_name, r.project, r.cluster_id) for r in second_backend.requests]
    if typed != [("segformer-finetune", "vision-lab", "4a9e2c17-5b3d-4f80-9c61-2d7be0f4a315")]:
        problems.append(f"the request run after the restart is not what was typed: {typed}")
    return problems


def stop_answering(bot: BotUnderTest) -> None:
    """The bot's worker as the queue sees a dead one: no more tasks taken, no more beats (its
    threads are left to finish late, as a frozen process might)."""
    assert bot.workers is not None
    consumers = bot.workers.consumers
    for consumer in consumers:
        consumer.stop_flag.set()
    deadline = time.monotonic() + 10
    while sum(thread.is_alive() for c in consumers for _, thread in c.worker_threads) > 1:
        assert time.monotonic() < deadline, "the worker's idle threads did not stop"
        time.sleep(0.02)
    bot.workers.redelivery.stop()


def worker_dies_holding_a_request() -> list[str]:
    """The worker that took the queued request dies before finishing it; the next worker takes it
    over, and the report lands once."""
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM), steps=())
    with running_slack_api() as api, tempfile.TemporaryDirectory(prefix="safety-work-") as folder:
        store = SqliteStore(Path(folder) / "state.sqlite3")
        try:
            with running_bot(api, backend=backend, store=store, workers=False) as bot:
                if bot.slack.command(COMMAND).status != 200:
                    return ["the command was not acked"]
                # A worker takes the request and dies at once: the queue holds its running record.
                queues = queues_for(store)
                taken = queues.chat.storage.dequeue()
                if taken is None:
                    return ["the command was not queued"]
                message = queues.chat.serializer.deserialize(taken)
                queues.chat.put("running:" + message.id, ("gone-host:1:dead", taken))
                queues.close()
                bot.start_workers()
                try:
                    api.wait_for(
                        "chat.update", where=lambda call: REPORT_WORD in call.body.get("text", ""), timeout=20
                    )
                except AssertionError:
                    return ["no report after the worker died"]
                bot.idle(15)
        finally:
            store.close()
        reports = [call for call in api.calls_to("chat.update") if REPORT_WORD in call.body.get("text", "")]
        placeholders = api.calls_to("chat.postMessage")
    problems: list[str] = []
    if len(reports) != 1 or len(placeholders) != 1:
        problems.append(f"{len(placeholders)} placeholders and {len(reports)} reports, not one of each")
    if len(backend.requests) != 1:
        problems.append(f"the diagnosis ran {len(backend.requests)} times")
    return problems


def store_down_when_queued() -> list[str]:
    """The queue refuses the request; the asker is told at once and nothing runs."""
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM), steps=())

    def refused(data: bytes, priority: float | None = None) -> None:
        raise ConnectionError(
            "Error 111 connecting to redis://:hunter2secret@state:6379. Connection refused."
        )

    with running_slack_api() as api, tempfile.TemporaryDirectory(prefix="safety-work-") as folder:
        store = SqliteStore(Path(folder) / "state.sqlite3")
        try:
            with running_bot(api, backend=backend, store=store) as bot:
                bot.queues.chat.storage.enqueue = refused  # type: ignore[method-assign]
                if bot.slack.command(COMMAND).status != 200:
                    return ["the command was not acked"]
                try:
                    told = api.wait_for("commands/", timeout=10)[0]
                except AssertionError:
                    return ["the asker was not told"]
                bot.idle(10)
        finally:
            store.close()
    problems: list[str] = []
    if "could not take this request" not in str(told.body.get("text")):
        problems.append("the asker was not told that the request was not taken")
    if "hunter2secret" in str(told.body):
        problems.append("the store's password reached the asker")
    if backend.requests:
        problems.append("a diagnosis ran although the request was not queued")
    return problems

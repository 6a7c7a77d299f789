"""Guarantee 4, access: outside the policy a user learns nothing about a job, not even whether it
exists; people of another organisation (a Slack Connect channel) get nothing at any entry point;
clicks, modals and thread replies are checked again where they come from and against who asked;
audit records cannot be forged by quoted text; unsigned, re-signed or stale Slack requests are
refused with 401 and run nothing.

Each attack is a function returning what went wrong (nothing when it was refused as it should be).
"""

from __future__ import annotations

import json
import logging
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from slack_sdk.signature import SignatureVerifier

from blocks.prompts import (
    ACTION_CANCEL,
    ACTION_CHOICE,
    ACTION_LOG_LINK,
    ACTION_OTHER,
    ACTION_RERUN,
    ACTION_RETRY,
)
from bot.audit import AUDIT_LOGGER
from bot.policy import Policy, Rule
from bot.state.sqlite_store import SqliteStore
from diagnosis.masking import mask
from diagnosis.models import Choice, DiagnoseRequest, Diagnosis
from playground.slack_api import Call, SlackApiStandIn, running_slack_api
from tests.bot.examples import MA_DENIED, OOM, example_diagnosis
from tests.bot.harness import CHANNEL, USER, BotUnderTest, ScriptedBackend, running_bot
from tests.bot.slack_connect import (
    PARTNER_USER,
    REFUSAL,
    partner_click,
    partner_command,
    partner_mention,
    partner_reply,
    refusals_to,
    view_submission,
)

CLUSTER = "4a9e2c17-5b3d-4f80-9c61-2d7be0f4a315"
OTHER_CHANNEL = "C0ELSEWHERE"
KNOWN_ID = "c3f81d42-7a6e-4b19-8e05-91d2a7c6b038"
MISSING_ID = "0d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6"
SECRET_PROJECT = "secret-project"
# The incident channel may diagnose Run:ai in one project of one cluster, and ModelArts anywhere.
POLICY = Policy(
    rules=[
        Rule(channels=[CHANNEL], platforms=["runai"], clusters=[CLUSTER], projects=["vision-lab"]),
        Rule(channels=[CHANNEL], platforms=["modelarts"]),
        Rule(channels=[OTHER_CHANNEL], platforms=["modelarts"]),
    ]
)


@dataclass
class AccessResult:
    tried: int = 0
    refused: int = 0
    failures: list[str] = field(default_factory=list)

    def record(self, name: str, problems: list[str]) -> None:
        self.tried += 1
        if problems:
            self.failures.extend(f"{name}: {problem}" for problem in problems)
        else:
            self.refused += 1


def _answer(request: DiagnoseRequest) -> Diagnosis:
    """A job out of the channel's scope (its project is only known once read), or no job at all."""
    if request.workload_id == KNOWN_ID:
        diagnosis = example_diagnosis(OOM)
        diagnosis.target.workload_id = KNOWN_ID
        diagnosis.target.project = SECRET_PROJECT
        return diagnosis
    if request.platform == "modelarts":
        return example_diagnosis(MA_DENIED)
    missing = example_diagnosis(OOM).model_copy(
        update={
            "outcome": "not_found",
            "category": None,
            "confidence": None,
            "evidence": [],
            "recurrence": None,
        }
    )
    missing.target = missing.target.model_copy(
        update={"workload_id": request.workload_id, "name": None, "project": None}
    )
    return missing


@contextmanager
def _bot(backend: ScriptedBackend, policy: Policy) -> Iterator[tuple[BotUnderTest, SlackApiStandIn]]:
    with running_slack_api() as api, tempfile.TemporaryDirectory(prefix="safety-access-") as folder:
        store = SqliteStore(Path(folder) / "state.sqlite3")
        try:
            with running_bot(api, backend=backend, store=store, policy=policy) as bot:
                yield bot, api
        finally:
            store.close()


MALLORY = "U0MALLORY"


def _told_in(api: SlackApiStandIn, channel: str, *, since: int, timeout: float = 15.0) -> Call:
    """Wait for the bot's ephemeral answer in `channel` (how every refused click is answered)."""
    return api.wait_for(
        "chat.postEphemeral",
        where=lambda call: call.body.get("channel") == channel and api.calls.index(call) >= since,
        timeout=timeout,
    )[-1]


def _seen_by(api: SlackApiStandIn, channel: str, since: int = 0) -> str:
    """Everything the bot sent that reaches `channel` (messages, ephemerals, response_url answers)."""
    texts = []
    for call in api.calls[since:]:
        body = call.body
        if (
            body.get("channel") == channel
            or body.get("channel_id") == channel
            or call.method.startswith("commands/")
        ):
            texts.append(json.dumps(body, ensure_ascii=False, sort_keys=True))
    return "\n".join(texts)


def _denial_texts(api: SlackApiStandIn, since: int) -> list[str]:
    """The visible words of what was sent since `since`, volatile ids left out."""
    shown = []
    for call in api.calls[since:]:
        if call.method in ("chat.postMessage", "chat.update", "chat.postEphemeral") or call.method.startswith(
            "commands/"
        ):
            text = str(call.body.get("text", ""))
            blocks = call.json_arg("blocks") or []
            shown.append(text + json.dumps(blocks, sort_keys=True))
    return shown


def indistinguishable_denials() -> list[str]:
    """A job outside the scope and a job that does not exist get the same words, and neither its
    name, its project nor its verdict (before the run, and on the target after it)."""
    problems: list[str] = []
    backend = ScriptedBackend(answer=_answer, steps=())
    shown: dict[tuple[str, str], list[str]] = {}
    with _bot(backend, POLICY) as (bot, api):
        for channel in (OTHER_CHANNEL, CHANNEL):
            for workload in (KNOWN_ID, MISSING_ID):
                since = len(api.calls)
                bot.slack.command(f"runai id={workload} cluster={CLUSTER}", channel=channel)
                _wait_denial(api, since)
                bot.idle(20)
                # What the user typed is echoed back; everything else must be the same.
                shown[(channel, workload)] = [
                    text.replace(workload, "<typed id>") for text in _denial_texts(api, since)
                ]
    if shown[(OTHER_CHANNEL, KNOWN_ID)] != shown[(OTHER_CHANNEL, MISSING_ID)]:
        problems.append("a denied channel can tell an existing job from a missing one")
    if shown[(CHANNEL, KNOWN_ID)] != shown[(CHANNEL, MISSING_ID)]:
        problems.append("the check on the target tells an existing job from a missing one")
    everything = json.dumps(list(shown.values()))
    for leaked in (SECRET_PROJECT, "segformer", "OOM_KILLED"):
        if leaked in everything:
            problems.append(f"a denial shows {leaked!r}")
    return problems


def _commands(api: SlackApiStandIn) -> int:
    return sum(1 for call in api.calls if call.method.startswith("commands/"))


def _wait_denial(api: SlackApiStandIn, since: int, timeout: float = 15.0) -> None:
    """Until the bot answered the request made at `since` with its one generic denial."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any("may not" in text for text in _denial_texts(api, since)):
            return
        time.sleep(0.02)
    raise AssertionError("no denial arrived")


def _report_and_calls(bot: BotUnderTest, api: SlackApiStandIn, command: str) -> tuple[Call, str]:
    bot.slack.command(command)
    report = api.wait_for("chat.update", where=lambda c: "OOM_KILLED" in c.body.get("text", ""), timeout=20)[
        -1
    ]
    bot.idle(20)
    thread = str(api.calls_to("chat.postMessage")[0].response["ts"])
    return report, thread


def forwarded_rerun_button() -> list[str]:
    """The Re-run button of a report, clicked from another channel (a copied payload)."""
    policy = Policy(rules=[Rule(channels=[CHANNEL, OTHER_CHANNEL], platforms=["runai"])])
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM), steps=())
    with _bot(backend, policy) as (bot, api):
        report, _thread = _report_and_calls(
            bot, api, f"runai cluster={CLUSTER} workload=segformer-finetune project=vision-lab"
        )
        since = len(api.calls)
        bot.slack.click(report, ACTION_RERUN, channel=OTHER_CHANNEL, user=MALLORY)
        _told_in(api, OTHER_CHANNEL, since=since)
        bot.idle(20)
        seen = _seen_by(api, OTHER_CHANNEL, since)
    problems = []
    if len(backend.requests) != 1:
        problems.append("a copied Re-run button ran the diagnosis again in another channel")
    if "OOM_KILLED" in seen or "segformer" in seen:
        problems.append("the other channel was shown the report")
    return problems


def forwarded_choice_button() -> list[str]:
    """A question's answer button, clicked from another channel: not an answer."""
    backend = ScriptedBackend(
        answer=lambda request: example_diagnosis(OOM),
        steps=(),
        known={"cluster_id": [Choice(value=CLUSTER, label="prod-a")]},
    )
    policy = Policy(rules=[Rule(channels=[CHANNEL, OTHER_CHANNEL], platforms=["runai"])])
    with _bot(backend, policy) as (bot, api):
        bot.slack.command("runai workload=segformer-finetune project=vision-lab")
        bot.idle(20)
        question = [
            c for c in api.calls_to("chat.postMessage") if f"{ACTION_CHOICE}_0" in str(c.body.get("blocks"))
        ]
        if not question:
            return ["no question with a choice was asked"]
        # Mallory's copied click, then the asker's own: whichever the bot reads first, only the
        # asker's may answer (the answered prompt names who answered).
        bot.slack.click(question[-1], f"{ACTION_CHOICE}_0", channel=OTHER_CHANNEL, user=MALLORY)
        bot.slack.click(question[-1], f"{ACTION_CHOICE}_0")
        api.wait_for("chat.update", where=lambda call: "OOM_KILLED" in call.body.get("text", ""), timeout=20)
        bot.idle(20)
        answered_by_mallory = [
            call
            for call in api.calls_to("chat.update")
            if MALLORY in json.dumps(call.body) and "answered" in json.dumps(call.body).lower()
        ]
    problems = []
    if answered_by_mallory:
        problems.append("a click from another channel answered the question")
    if len(backend.requests) != 1:
        problems.append(f"the question was answered {len(backend.requests)} times, not once")
    return problems


def forwarded_retry_button() -> list[str]:
    """The Retry button of a permission denial, clicked from another channel: refused, and the
    button still works in its own channel."""
    answers = [example_diagnosis(MA_DENIED), example_diagnosis("modelarts-early-exit-traceback")]
    backend = ScriptedBackend(answer=lambda request: answers[min(len(backend.requests), 2) - 1], steps=())
    with _bot(backend, POLICY) as (bot, api):
        bot.slack.command("modelarts job=a4e7b1c9-0d23-4f6a-8e5b-c19d2f0a7b84 region=cn-southwest-2")
        report = api.wait_for(
            "chat.update", where=lambda c: c.body.get("text", "").startswith(":lock:"), timeout=20
        )[-1]
        bot.idle(20)
        since = len(api.calls)
        bot.slack.click(report, ACTION_RETRY, channel=OTHER_CHANNEL, user=MALLORY)
        _told_in(api, OTHER_CHANNEL, since=since)
        bot.idle(20)
        ran_elsewhere = len(backend.requests) - 1
        bot.slack.click(report, ACTION_RETRY)
        api.wait_for(
            "chat.update", where=lambda call: "CRASH_APP_ERROR" in call.body.get("text", ""), timeout=20
        )
        bot.idle(20)
    problems = []
    if ran_elsewhere:
        problems.append("a Retry from another channel ran the diagnosis")
    if len(backend.requests) != 2:
        problems.append(
            "after a Retry click from another channel, the Retry in its own channel no longer works"
        )
    return problems


def revoked_thread_follow_up() -> list[str]:
    """A thread reply after the channel lost access: refused."""
    policy = Policy(rules=[Rule(channels=[CHANNEL], platforms=["runai"])])
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM), steps=())
    with _bot(backend, policy) as (bot, api):
        _report, thread = _report_and_calls(
            bot, api, f"runai cluster={CLUSTER} workload=segformer-finetune project=vision-lab"
        )
        policy.rules[0].channels = ["C0SOMEWHERE"]
        since = len(api.calls)
        bot.slack.thread_reply("evidence", ts="1767229000.000001", thread_ts=thread)
        _told_in(api, CHANNEL, since=since)
        bot.idle(20)
        seen = " ".join(_denial_texts(api, since))
    problems = []
    if "OOM_KILLED" in seen or "k8s.read_pod_log" in seen:
        problems.append("a follow-up after access was revoked got the evidence")
    if "may not" not in seen:
        problems.append("the refused follow-up was not told why")
    return problems


OPEN = Policy(rules=[Rule()])
REPORT_COMMAND = f"runai cluster={CLUSTER} workload=segformer-finetune project=vision-lab"
ASKING_COMMAND = "runai workload=segformer-finetune project=vision-lab"
# What of the report must never reach a refused person.
REPORT_WORDS = ("OOM_KILLED", "segformer", "k8s.read_pod_log", "vision-lab")


def _asking_backend() -> ScriptedBackend:
    """Diagnoses after asking for the cluster (a question with choices and "Type another value…")."""
    return ScriptedBackend(
        answer=lambda request: example_diagnosis(OOM),
        steps=(),
        known={"cluster_id": [Choice(value=CLUSTER, label="prod-a")]},
    )


def _question(bot: BotUnderTest, api: SlackApiStandIn) -> Call:
    bot.slack.command(ASKING_COMMAND)
    bot.idle(20)
    asked = [c for c in api.calls_to("chat.postMessage") if f"{ACTION_CHOICE}_0" in str(c.body.get("blocks"))]
    if not asked:
        raise AssertionError("no question with a choice was asked")
    return asked[-1]


def _actions_of(message: Call) -> set[str]:
    blocks = message.json_arg("blocks") or []
    return {str(element.get("action_id")) for block in blocks for element in block.get("elements") or []}


def _reached(api: SlackApiStandIn, since: int, words: tuple[str, ...] = REPORT_WORDS) -> list[str]:
    sent = json.dumps([call.body for call in api.calls[since:]], ensure_ascii=False)
    return [word for word in words if word in sent]


def _refused_partner(api: SlackApiStandIn, since: int, expected: int) -> list[str]:
    """The refused person of another organisation was told, `expected` times, and only that."""
    try:
        api.wait_for(
            "chat.postEphemeral",
            count=expected,
            where=lambda call: call.body.get("user") == PARTNER_USER and api.calls.index(call) >= since,
            timeout=15,
        )
    except AssertionError:
        return [f"the person of another organisation was not told why ({expected} expected)"]
    told = refusals_to(api, PARTNER_USER, since=since)
    return [] if all(REFUSAL in call.body.get("text", "") for call in told) else ["told something else"]


def other_organisation_command() -> list[str]:
    """`/diagnose` from a workspace the policy does not name: refused in the ack, nothing runs."""
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM), steps=())
    with _bot(backend, OPEN) as (bot, api):
        reply = partner_command(bot, REPORT_COMMAND)
        bot.idle(20)
        posted = api.calls_to("chat.postMessage")
    problems = []
    if reply.status != 200 or REFUSAL not in (reply.json() or {}).get("text", ""):
        problems.append(f"the command was not refused in its ack ({reply.status} {reply.body[:80]!r})")
    if backend.requests or posted:
        problems.append("a command from another organisation ran or posted")
    return problems


def other_organisation_mention() -> list[str]:
    """An @mention by a person of another organisation in a shared channel."""
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM), steps=())
    with _bot(backend, OPEN) as (bot, api):
        partner_mention(bot, f"diagnose {REPORT_COMMAND}", ts="1767225600.000100")
        problems = _refused_partner(api, 0, 1)
        bot.idle(20)
        if backend.requests or api.calls_to("chat.postMessage"):
            problems.append("a mention from another organisation ran or posted")
    return problems


def other_organisation_thread_reply() -> list[str]:
    """Follow-up words in a report's thread by a person of another organisation."""
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM), steps=())
    words = ("evidence", "json", "logs", "history", "why", "rerun")
    with _bot(backend, OPEN) as (bot, api):
        _report, thread = _report_and_calls(bot, api, REPORT_COMMAND)
        since = len(api.calls)
        for number, word in enumerate(words):
            partner_reply(bot, word, ts=f"1767229000.00010{number}", thread_ts=thread)
        problems = _refused_partner(api, since, len(words))
        bot.idle(20)
        leaked = _reached(api, since)
    if leaked:
        problems.append(f"the thread replies got {leaked}")
    if len(backend.requests) != 1:
        problems.append("a `rerun` from another organisation ran the diagnosis again")
    return problems


def other_organisation_clicks() -> list[str]:
    """Re-run, the full-log link, a question's answer and "Type another value…", clicked by a person
    of another organisation."""
    backend = _asking_backend()
    with _bot(backend, OPEN) as (bot, api):
        question = _question(bot, api)
        since = len(api.calls)
        for action in (f"{ACTION_CHOICE}_0", ACTION_OTHER, ACTION_CANCEL):
            partner_click(bot, question, action)
        problems = _refused_partner(api, since, 3)
        bot.idle(20)
        pending_kept = not backend.requests and not api.calls_to("views.open")
        bot.slack.click(question, f"{ACTION_CHOICE}_0")
        report = api.wait_for(
            "chat.update", where=lambda call: "OOM_KILLED" in call.body.get("text", ""), timeout=20
        )[-1]
        bot.idle(20)
        since = len(api.calls)
        actions = [action for action in (ACTION_RERUN, ACTION_LOG_LINK) if action in _actions_of(report)]
        for action in actions:
            partner_click(bot, report, action)
        problems += _refused_partner(api, since, len(actions))
        bot.idle(20)
        leaked = _reached(api, since)
        opened = api.calls_to("views.open")
    if not pending_kept:
        problems.append("a click from another organisation answered, cancelled or opened the question")
    if len(backend.requests) != 1 or opened:
        problems.append("a Re-run or full-log click from another organisation ran or opened a modal")
    if leaked:
        problems.append(f"the clicks got {leaked}")
    return problems


def other_organisation_modal() -> list[str]:
    """The answer modal submitted by a person of another organisation."""
    backend = _asking_backend()
    with _bot(backend, OPEN) as (bot, api):
        question = _question(bot, api)
        bot.slack.click(question, ACTION_OTHER)
        view = api.wait_for("views.open", timeout=20)[0].body["view"]
        reply = bot.slack.interaction(view_submission(view, CLUSTER, user=PARTNER_USER, team="T0PARTNER"))
        bot.idle(20)
    answer = reply.json() or {}
    problems = []
    if answer.get("response_action") != "errors" or REFUSAL not in json.dumps(answer.get("errors")):
        problems.append(f"the submission was not refused in the modal ({reply.body[:80]!r})")
    if backend.requests:
        problems.append("a modal from another organisation answered the question")
    return problems


def answer_other_from_elsewhere() -> list[str]:
    """ "Type another value…" clicked from another channel (a copied button) and by someone other
    than the asker in the question's channel: no modal opens for either."""
    backend = _asking_backend()
    with _bot(backend, OPEN) as (bot, api):
        question = _question(bot, api)
        since = len(api.calls)
        bot.slack.click(question, ACTION_OTHER, channel=OTHER_CHANNEL, user=MALLORY)
        bot.slack.click(question, ACTION_OTHER, user=MALLORY)
        api.wait_for(
            "chat.postEphemeral",
            count=2,
            where=lambda call: call.body.get("user") == MALLORY and api.calls.index(call) >= since,
            timeout=15,
        )
        bot.idle(20)
        opened = api.calls_to("views.open")
        bot.slack.click(question, ACTION_OTHER)
        api.wait_for("views.open", timeout=20)
    problems = []
    if opened:
        problems.append(
            f"the modal opened for {len(opened)} click(s) that are not the asker's in its channel"
        )
    if backend.requests:
        problems.append("a refused click answered the question")
    return problems


def forged_modal_metadata() -> list[str]:
    """A submission of the answer modal whose private_metadata names someone else's question (its
    channel, or the attacker's): refused in the modal, and the question still the asker's."""
    backend = _asking_backend()
    with _bot(backend, OPEN) as (bot, api):
        question = _question(bot, api)
        bot.slack.click(question, ACTION_OTHER)
        view = api.wait_for("views.open", timeout=20)[0].body["view"]
        real = json.loads(view["private_metadata"])
        replies = [
            bot.slack.interaction(view_submission(view, CLUSTER, user=MALLORY)),
            bot.slack.interaction(
                view_submission(
                    view,
                    CLUSTER,
                    user=MALLORY,
                    private_metadata=json.dumps({**real, "channel": OTHER_CHANNEL}),
                )
            ),
            bot.slack.interaction(
                view_submission(
                    view, CLUSTER, user=USER, private_metadata=json.dumps({**real, "channel": OTHER_CHANNEL})
                )
            ),
        ]
        bot.idle(20)
        refused_runs = len(backend.requests)
        good = bot.slack.interaction(view_submission(view, CLUSTER, user=USER))
        api.wait_for("chat.update", where=lambda call: "OOM_KILLED" in call.body.get("text", ""), timeout=20)
        bot.idle(20)
    problems = []
    for reply in replies:
        if (reply.json() or {}).get("response_action") != "errors":
            problems.append(f"a forged submission was accepted ({reply.body[:80]!r})")
    if refused_runs:
        problems.append("a forged submission answered the question")
    if good.status != 200 or len(backend.requests) != 1:
        problems.append("after the forged submissions the asker's own answer no longer worked")
    return problems


def copied_cancel_button() -> list[str]:
    """A question's Cancel button clicked from another channel: the question stays answerable."""
    backend = _asking_backend()
    with _bot(backend, OPEN) as (bot, api):
        question = _question(bot, api)
        bot.slack.click(question, ACTION_CANCEL, channel=OTHER_CHANNEL, user=MALLORY)
        _told_in(api, OTHER_CHANNEL, since=0)
        bot.idle(20)
        cancelled = [call for call in api.calls_to("chat.update") if "Cancelled" in call.body.get("text", "")]
        bot.slack.click(question, f"{ACTION_CHOICE}_0")
        api.wait_for("chat.update", where=lambda call: "OOM_KILLED" in call.body.get("text", ""), timeout=20)
        bot.idle(20)
    problems = []
    if cancelled:
        problems.append("a Cancel from another channel cancelled the question")
    if len(backend.requests) != 1:
        problems.append("the question could not be answered after a copied Cancel")
    return problems


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def forged_audit_fields() -> list[str]:
    """A mention and a command quoting `key=value` fields, quotes and a line break: every audit
    record stays one JSON object, with the sender's real user, channel and outcome."""
    forged = 'x" outcome=diagnosed category=OOM_KILLED user=U0ADMIN channel="C0ADMIN\n{"event":"forged"}'
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM), steps=())
    capture = _Lines()
    logger = logging.getLogger(AUDIT_LOGGER)
    level = logger.level
    logger.addHandler(capture)
    logger.setLevel(logging.INFO)
    try:
        with _bot(backend, OPEN) as (bot, api):
            bot.slack.mention(forged, ts="1767225600.000100")
            bot.slack.command(f"runai workload={forged}")
            api.wait_for("chat.postMessage", timeout=20)
            bot.idle(20)
    finally:
        logger.removeHandler(capture)
        logger.setLevel(level)
    problems = []
    records: list[dict[str, Any]] = []
    for line in capture.lines:
        try:
            parsed = json.loads(line)
        except ValueError:
            problems.append(f"an audit line is not JSON: {line[:80]!r}")
            continue
        if len(line.splitlines()) != 1 or not isinstance(parsed, dict):
            problems.append(f"an audit record is not one object on one line: {line[:80]!r}")
            continue
        records.append(parsed)
    if len(records) != 2:
        problems.append(f"{len(records)} audit records for 2 requests")
    for record in records:
        if (
            record.get("user") != USER
            or record.get("channel") != CHANNEL
            or record.get("outcome") == "diagnosed"
        ):
            problems.append(f"quoted text forged an audit field: {json.dumps(record)[:120]}")
    return problems


def _signed_attacks(bot: BotUnderTest, body: str) -> dict[str, int]:
    """Status of each forged request: none may get past the signature check."""
    now = int(time.time())
    form = "application/x-www-form-urlencoded"

    def sign(*, timestamp: str, body: str) -> str:
        return str(bot.slack.verifier.generate_signature(timestamp=timestamp, body=body))

    other = SignatureVerifier("not-the-signing-secret").generate_signature
    return {
        "forged signature": bot.slack.post(body, form, signature="v0=" + "0" * 64).status,
        "signed with another secret": bot.slack.post(
            body, form, signature=other(timestamp=str(now), body=body)
        ).status,
        "body changed after signing": bot.slack.post(
            body, form, signature=sign(timestamp=str(now), body=body.replace("segformer", "other-job"))
        ).status,
        "replayed after 6 minutes": bot.slack.post(
            body, form, timestamp=now - 360, signature=sign(timestamp=str(now - 360), body=body)
        ).status,
        "timestamp 6 minutes ahead": bot.slack.post(body, form, timestamp=now + 360).status,
        "v1 signature scheme": bot.slack.post(
            body, form, signature=sign(timestamp=str(now), body=body).replace("v0=", "v1=")
        ).status,
    }


def signature_attacks() -> list[tuple[str, list[str]]]:
    """Forged and stale requests for a real diagnosis: 401 each, and nothing runs, nothing is posted."""
    backend = ScriptedBackend(answer=lambda request: example_diagnosis(OOM), steps=())
    open_policy = Policy(rules=[Rule()])
    with _bot(backend, open_policy) as (bot, api):
        body = urlencode(
            {
                "command": "/diagnose",
                "text": f"runai cluster={CLUSTER} workload=segformer-finetune project=vision-lab",
                "user_id": USER,
                "channel_id": CHANNEL,
                "team_id": "T0ACME001",
                "response_url": f"{api.url}commands/T0ACME001/1/resp",
                "trigger_id": "trigger.1",
            }
        )
        calls_before = len(api.calls)
        statuses = _signed_attacks(bot, body)
        bot.idle(10)
        calls_after = len(api.calls)
        runs_after = len(backend.requests)
        genuine = bot.slack.post(body, "application/x-www-form-urlencoded", timestamp=int(time.time()) - 240)
        bot.idle(20)
    results = [
        (name, [] if status == 401 else [f"answered {status}, not 401"]) for name, status in statuses.items()
    ]
    nothing: list[str] = []
    if runs_after or calls_after != calls_before:
        nothing.append("a forged request ran a diagnosis or made the bot call Slack")
    if genuine.status != 200 or len(backend.requests) != 1:
        nothing.append(f"the genuine request, 4 minutes old, was not served once ({genuine.status})")
    results.append(("forged requests run nothing", nothing))
    return results


ATTACKS: dict[str, Callable[[], list[str]]] = {
    "denials do not tell whether a job exists": indistinguishable_denials,
    "copied Re-run button from another channel": forwarded_rerun_button,
    "copied answer button from another channel": forwarded_choice_button,
    "copied Retry button from another channel": forwarded_retry_button,
    "copied Cancel button from another channel": copied_cancel_button,
    "thread follow-up after access was revoked": revoked_thread_follow_up,
    "another organisation (Slack Connect): /diagnose": other_organisation_command,
    "another organisation (Slack Connect): @mention": other_organisation_mention,
    "another organisation (Slack Connect): thread replies": other_organisation_thread_reply,
    "another organisation (Slack Connect): button clicks": other_organisation_clicks,
    "another organisation (Slack Connect): modal submission": other_organisation_modal,
    '"Type another value…" from another channel or user': answer_other_from_elsewhere,
    "answer modal with forged private_metadata": forged_modal_metadata,
    "audit fields forged by quoted text": forged_audit_fields,
}


def access_attacks() -> AccessResult:
    result = AccessResult()
    for name, attack in ATTACKS.items():
        try:
            problems = attack()
        except Exception as exc:
            problems = [f"crashed: {type(exc).__name__}: {mask(str(exc))[:160]}"]
        result.record(name, problems)
    try:
        for name, problems in signature_attacks():
            result.record(f"Slack signature: {name}", problems)
    except Exception as exc:
        result.record("Slack signature", [f"crashed: {type(exc).__name__}: {mask(str(exc))[:160]}"])
    return result

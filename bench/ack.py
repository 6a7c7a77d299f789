"""Benchmark: slash-command ack latency of the HTTP-mode bot under 200 concurrent commands, its
memory, and a restart while diagnoses are queued.

The bot runs as the product runs it on one machine, with its defaults: `diagnose bot --http`, that
is one process (waitress) that verifies, acks and queues each request, and the worker process it
starts that runs the queues (placeholders and questions on its chat threads, diagnoses and reports
on its diagnosis threads, which run at a lower CPU priority), both on the SQLite files beside the
state, answering from the example bundles (`--bundles diagnosis/examples`), with its Web API
calls sent to the local Slack stand-in (playground/slack_api.py, SLACK_API_URL). 200 `/diagnose`
commands, signed as Slack signs them (v0 HMAC over `v0:<ts>:<body>`), from 200 different users
(the per-user rate limit is not what is measured), are fired at once; each ack's latency is the
time from sending the request to reading the HTTP response. Then every command must get its
report: the placeholder posted for it (chat.postMessage), replaced by the report (chat.update on
the same ts), and the full report attached in its thread (files.completeUploadExternal), within a
bounded wait.

The bot's diagnosis queue is raised to hold all 200 (DIAGNOSE_BOT_QUEUE); with the default of 50
waiting, the surplus would be told at once that the bot is busy. The resident memory of each process
(/proc: VmRSS, summed for the target, which counts the pages the two processes share twice, and
PSS, which counts them once) is read after the 200 reports and the 200 mentions. Then the restart: 20 commands,
the whole bot killed (SIGKILL, web and worker) while they are queued or running, two of them with
their placeholder created by Slack but its answer (the ts) not yet read by the worker, started again
on the same files: each must be answered once, in its placeholder.

    python -m bench.ack [--commands 200]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import itertools
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

from slack_sdk.signature import SignatureVerifier

from bench.harness import BenchResult, Check, percentile, project_root
from bot.backends import BundlesBackend
from diagnosis import engine
from playground.slack_api import BOT_USER_ID, Call, Hold, SlackApiStandIn
from tests.bot.harness import event_callback

SIGNING_SECRET = "bench-signing-secret"
CHANNEL = "C0BENCH001"
DEFAULT_COMMANDS = 200
P99_CEILING_SECONDS = 0.3
SLACK_DEADLINE_SECONDS = 3.0
STARTUP_SECONDS = 60.0
PROGRESS_EMOJI = ":hourglass_flowing_sand:"  # the placeholder's first block (blocks/progress.py)
MENTION = re.compile(r"<@(U[A-Z0-9]+)>")


@dataclass(frozen=True)
class SignedCommand:
    user: str
    text: str
    body: bytes
    headers: dict[str, str]


def example_commands() -> list[str]:
    """`/diagnose` texts answered by the example bundles with a full report (not a question)."""
    backend = BundlesBackend(project_root() / "diagnosis" / "examples")
    texts: list[str] = []
    for bundle, draft in zip(backend.bundles, backend.drafts(), strict=True):
        diagnosis = asyncio.run(engine.replay(bundle))
        if diagnosis.outcome != "needs_input" and len(backend.matches(draft)) == 1:
            texts.append(draft.as_command())
    return texts


def signed_commands(
    count: int, *, api_url: str, texts: list[str], user_prefix: str = "U0BENCH"
) -> list[SignedCommand]:
    """`count` commands cycling through `texts`, one user each (`<prefix>001`, …)."""
    verifier = SignatureVerifier(SIGNING_SECRET)
    cycle = itertools.cycle(texts)
    commands: list[SignedCommand] = []
    for number in range(1, count + 1):
        user = f"{user_prefix}{number:03d}"
        text = next(cycle)
        form = {
            "token": "legacy",
            "team_id": "T0ACME001",
            "team_domain": "acme",
            "channel_id": CHANNEL,
            "channel_name": "ml-incidents",
            "user_id": user,
            "user_name": f"bench{number}",
            "command": "/diagnose",
            "text": text,
            "api_app_id": "A0DIAGBOT",
            "is_enterprise_install": "false",
            "response_url": f"{api_url}commands/T0ACME001/{number}/resp",
            "trigger_id": f"trigger.{number}",
        }
        commands.append(_signed(verifier, user, text, urlencode(form), "application/x-www-form-urlencoded"))
    return commands


def _signed(verifier: SignatureVerifier, user: str, text: str, body: str, content_type: str) -> SignedCommand:
    """A request body with the headers Slack signs it with (v0 HMAC over `v0:<ts>:<body>`)."""
    timestamp = str(int(time.time()))
    headers = {
        "Content-Type": content_type,
        "X-Slack-Request-Timestamp": timestamp,
        "X-Slack-Signature": verifier.generate_signature(timestamp=timestamp, body=body) or "",
    }
    return SignedCommand(user=user, text=text, body=body.encode(), headers=headers)


def signed_mentions(count: int, *, texts: list[str], user_prefix: str = "U0MENT") -> list[SignedCommand]:
    """`count` @mentions at channel level (Events API `app_mention`, JSON), one user each; each
    is answered in its own thread."""
    verifier = SignatureVerifier(SIGNING_SECRET)
    cycle = itertools.cycle(texts)
    base_ts = time.time()
    mentions: list[SignedCommand] = []
    for number in range(1, count + 1):
        user = f"{user_prefix}{number:03d}"
        text = next(cycle)
        event = {
            "type": "app_mention",
            "user": user,
            "text": f"<@{BOT_USER_ID}> {text}",
            "ts": f"{base_ts + number / 1000:.6f}",
            "channel": CHANNEL,
        }
        body = json.dumps(event_callback(event, event_id=f"EvBENCH{number:05d}"))
        mentions.append(_signed(verifier, user, text, body, "application/json"))
    return mentions


@dataclass
class Running:
    url: str
    process: subprocess.Popen[str]


@contextmanager
def bot_process(
    api: SlackApiStandIn,
    folder: Path,
    *,
    queue: int,
    options: tuple[str, ...] = (),
    log_name: str = "bot.log",
) -> Iterator[Running]:
    """`diagnose bot --http` (and its worker) on a free loopback port."""
    env = {
        **os.environ,
        "SLACK_BOT_TOKEN": "xoxb-bench-token",
        "SLACK_SIGNING_SECRET": SIGNING_SECRET,
        "SLACK_API_URL": api.url,
        "DIAGNOSE_STATE_PATH": str(folder / "state.sqlite3"),
        "DIAGNOSE_BOT_QUEUE": str(queue),
        "HOME": str(folder),
        "LOG_LEVEL": "WARNING",
    }
    for name in ("REDIS_URL", "DIAGNOSE_POLICY", "SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET", "SLACK_APP_TOKEN"):
        env.pop(name, None)
    command = [
        sys.executable,
        "-c",
        "import sys; from cli.main import main; sys.exit(main())",
        "bot",
        "--http",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--bundles",
        str(project_root() / "diagnosis" / "examples"),
        *options,
    ]
    log = (folder / log_name).open("w")
    process = subprocess.Popen(
        command, cwd=project_root(), env=env, stdout=subprocess.PIPE, stderr=log, text=True
    )
    try:
        assert process.stdout is not None
        deadline = time.monotonic() + STARTUP_SECONDS
        url: str | None = None
        while url is None:
            line = process.stdout.readline()
            if line.startswith("listening on "):
                url = line.split()[-1]
            elif not line and process.poll() is not None:
                raise RuntimeError(f"the bot exited: {(folder / log_name).read_text()[-2000:]}")
            if time.monotonic() > deadline:
                raise RuntimeError("the bot did not start in time")
        if not url.startswith("http"):
            url = f"http://{url}"
        yield Running(url=url, process=process)
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


# The load generator runs in its own small process: no other thread of ours (the Slack stand-in
# serves the bot's Web API calls from this process) can delay it reading an ack.
LOAD_CLIENT = """
import asyncio, base64, json, sys, time

job = json.load(sys.stdin)

async def main():
    gate = asyncio.Event()

    async def one(payload):
        reader, writer = await asyncio.open_connection(job["host"], job["port"])
        await gate.wait()
        started = time.perf_counter()
        try:
            writer.write(payload)
            await writer.drain()
            answer = await asyncio.wait_for(reader.read(), timeout=30)  # Connection: close
        except (OSError, asyncio.TimeoutError):
            return [time.perf_counter() - started, 0]
        finally:
            writer.close()
        seconds = time.perf_counter() - started
        parts = answer.split(b"\\r\\n", 1)[0].split()
        return [seconds, int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0]

    tasks = [asyncio.create_task(one(base64.b64decode(item))) for item in job["payloads"]]
    await asyncio.sleep(0.3)  # every connection open and waiting at the gate
    gate.set()
    print(json.dumps(await asyncio.gather(*tasks)))

asyncio.run(main())
"""


def _raw_request(address: str, command: SignedCommand) -> bytes:
    """The exact HTTP/1.1 request bytes (one connection per command, as Slack sends them)."""
    head = [
        "POST /slack/events HTTP/1.1",
        f"Host: {address}",
        f"Content-Length: {len(command.body)}",
        "Connection: close",
        *(f"{name}: {value}" for name, value in command.headers.items()),
    ]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + command.body


def fire(url: str, commands: list[SignedCommand]) -> list[tuple[float, int]]:
    """All commands at once; per command, the seconds from sending the request to having the whole
    response, and the HTTP status (0: no answer)."""
    address = url.split("://", 1)[-1].rstrip("/")
    host, _, port = address.partition(":")
    job = {
        "host": host,
        "port": int(port or 80),
        "payloads": [base64.b64encode(_raw_request(address, command)).decode() for command in commands],
    }
    done = subprocess.run(
        [sys.executable, "-c", LOAD_CLIENT],
        input=json.dumps(job),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the load generator failed: {done.stderr[-2000:]}")
    return [(float(seconds), int(status)) for seconds, status in json.loads(done.stdout)]


def _blocks(call: Call) -> list[dict[str, object]]:
    blocks = call.json_arg("blocks")
    return [block for block in blocks if isinstance(block, dict)] if isinstance(blocks, list) else []


def _placeholder_user(call: Call) -> str | None:
    """The asker of a progress placeholder (`:hourglass_flowing_sand: … <@U…>`), else None."""
    blocks = _blocks(call)
    text = str(blocks[0].get("text")) if blocks else ""
    if PROGRESS_EMOJI not in text:
        return None
    found = MENTION.search(text)
    return found.group(1) if found else None


def _is_report(call: Call) -> bool:
    """A report message opens with a header block (progress messages and notices do not)."""
    blocks = _blocks(call)
    return bool(blocks) and blocks[0].get("type") == "header"


@dataclass
class Delivery:
    placeholders: int
    reports: int
    attached: int
    missing: list[str]
    seconds: float
    # When each user's placeholder (their first sight of an answer) was posted, monotonic clock.
    placeholder_times: list[float] = field(default_factory=list)


def _placeholders(api: SlackApiStandIn) -> tuple[dict[str, str], dict[str, float]]:
    """Each user's first placeholder message: its ts, and when it was posted."""
    placeholders: dict[str, str] = {}
    posted_at: dict[str, float] = {}
    for call in api.calls_to("chat.postMessage"):
        user = _placeholder_user(call)
        ts = call.response.get("ts")
        if user and ts and user not in placeholders:
            placeholders[user] = str(ts)
            posted_at[user] = call.at
    return placeholders, posted_at


def wait_for_reports(
    api: SlackApiStandIn, users: list[str], *, timeout: float, require_file: bool = True
) -> Delivery:
    """Poll the fake Web API until every user's placeholder was replaced by a report with its file
    (`require_file=False`: the report alone; a mention's file goes to the mention's thread)."""
    started = time.monotonic()
    while True:
        placeholders, posted_at = _placeholders(api)
        reported = {str(call.body.get("ts")) for call in api.calls_to("chat.update") if _is_report(call)}
        attached = {str(call.body.get("thread_ts")) for call in api.calls_to("files.completeUploadExternal")}
        shown = [(user, placeholders.get(user)) for user in users]
        complete = [user for user, ts in shown if ts in reported and (not require_file or ts in attached)]
        elapsed = time.monotonic() - started
        if len(complete) == len(users) or elapsed > timeout:
            return Delivery(
                placeholders=len(placeholders),
                reports=sum(1 for _user, ts in shown if ts in reported),
                attached=sum(1 for _user, ts in shown if ts in attached),
                missing=[user for user in users if user not in complete],
                seconds=elapsed,
                placeholder_times=[posted_at[user] for user in users if user in posted_at],
            )
        time.sleep(0.25)


def resident_megabytes(pid: int) -> float:
    """VmRSS: every page the process has in memory, shared ones (libraries, the interpreter) included."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def proportional_megabytes(pid: int) -> float | None:
    """PSS (Linux 4.14+, /proc/<pid>/smaps_rollup): each page shared by n processes counted 1/n in
    each, so the processes' PSS add up to what they hold together; None where it is not readable."""
    try:
        lines = Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        if line.startswith("Pss:"):
            return int(line.split()[1]) / 1024
    return None


def process_tree(pid: int) -> dict[str, int]:
    """The bot's processes by role: itself ("web") and its children ("worker")."""
    found = {"web": pid}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                found["worker"] = int(entry.name)
    return found


@dataclass
class Burst:
    acks: list[tuple[float, int]]
    fired_seconds: float
    delivery: Delivery
    helps: list[tuple[float, int]]
    started_at: float  # monotonic, when the burst was fired
    mentions: list[tuple[float, int]] = field(default_factory=list)
    mention_delivery: Delivery | None = None
    # Resident megabytes per process after the reports (VmRSS), and their PSS where readable.
    memory: dict[str, float] = field(default_factory=dict)
    proportional: dict[str, float] = field(default_factory=dict)

    def placeholder_seconds(self) -> list[float]:
        """Per command, seconds from the burst to its placeholder in the channel."""
        return [at - self.started_at for at in self.delivery.placeholder_times]


def burst(
    api: SlackApiStandIn,
    texts: list[str],
    *,
    commands: int,
    report_timeout: float,
    options: tuple[str, ...] = (),
    with_help: bool = True,
    with_mentions: bool = True,
) -> Burst:
    """One bot (with `options`), warmed up, then `commands` at once; optionally as many @mentions
    at once, then `help` at once."""
    with tempfile.TemporaryDirectory(prefix="bench-ack-") as directory:
        api.calls.clear()
        # The queue holds the burst (and the warm-up, whichever is larger).
        with bot_process(api, Path(directory), queue=max(commands, len(texts)), options=options) as bot:
            url = bot.url
            # Warm-up: every example command once, so that first-use costs (imports, the first
            # chart's matplotlib) are paid before the burst, as in a bot that has run a while.
            warm = signed_commands(len(texts), api_url=api.url, texts=texts, user_prefix="U0WARM")
            fire(url, warm)
            wait_for_reports(api, [command.user for command in warm], timeout=report_timeout)
            api.calls.clear()
            commanded = signed_commands(commands, api_url=api.url, texts=texts)
            started_at = time.monotonic()  # the stand-in stamps calls with this clock
            started = time.perf_counter()
            acks = fire(url, commanded)
            fired = time.perf_counter() - started
            delivery = wait_for_reports(api, [command.user for command in commanded], timeout=report_timeout)
            mentions: list[tuple[float, int]] = []
            mention_delivery: Delivery | None = None
            if with_mentions:
                api.calls.clear()
                mentioned = signed_mentions(commands, texts=texts)
                mentions = fire(url, mentioned)
                mention_delivery = wait_for_reports(
                    api, [mention.user for mention in mentioned], timeout=report_timeout, require_file=False
                )
            tree = process_tree(bot.process.pid)
            memory = {role: resident_megabytes(pid) for role, pid in tree.items()}
            proportional = {
                role: megabytes
                for role, megabytes in ((role, proportional_megabytes(pid)) for role, pid in tree.items())
                if megabytes is not None
            }
            helps: list[tuple[float, int]] = []
            if with_help:
                # The ack path alone: `help` is answered in the ack itself and starts no background
                # work (the burst's diagnoses are all done by now).
                helps = fire(
                    url, signed_commands(commands, api_url=api.url, texts=["help"], user_prefix="U0HELP")
                )
    return Burst(
        acks=acks,
        fired_seconds=fired,
        delivery=delivery,
        helps=helps,
        started_at=started_at,
        mentions=mentions,
        mention_delivery=mention_delivery,
        memory=memory,
        proportional=proportional,
    )


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


RESTART_COMMANDS = 20
MEMORY_CEILING_MB = 300.0


@dataclass
class Restart:
    commands: int
    answered_once: int
    placeholders: int
    reports_outside_placeholder: int
    killed_after_placeholders: int
    seconds: float
    # Placeholders Slack had created whose answer (their ts) the killed worker never read.
    unread_placeholders: int = 0


# Placeholders after this many are created by Slack but their answer held back until the kill, as
# when the bot is killed with a chat.postMessage in flight: the worker never learns their ts.
PLACEHOLDERS_BEFORE_UNREAD = 4
UNREAD_PLACEHOLDERS = 2


def _unread_placeholders(api: SlackApiStandIn, *, commands: int) -> Hold:
    """Placeholders after the first few created by Slack, their answer held back (the worker never
    reads their ts before it is killed)."""
    posted = itertools.count()
    return api.hold(
        lambda call: (
            call.method == "chat.postMessage"
            and _placeholder_user(call) is not None
            and next(posted) >= PLACEHOLDERS_BEFORE_UNREAD
        ),
        times=UNREAD_PLACEHOLDERS if commands > PLACEHOLDERS_BEFORE_UNREAD else 0,
        applied=True,
    )


def _wait_held(hold: Hold, *, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while hold.held < hold.times and time.monotonic() < deadline:
        time.sleep(0.05)


def _answered(api: SlackApiStandIn, users: list[str]) -> tuple[int, int, int]:
    """(users answered once in their one placeholder, placeholders posted, reports elsewhere)."""
    reports: dict[str, list[str]] = {}
    placeholders: dict[str, list[str]] = {}
    for call in api.calls_to("chat.postMessage"):
        user = _placeholder_user(call)
        if user:
            placeholders.setdefault(user, []).append(str(call.response.get("ts")))
    for call in api.calls_to("chat.update"):
        if _is_report(call):
            reports.setdefault(str(call.body.get("ts")), []).append(call.method)
    once = sum(
        1
        for user in users
        if len(placeholders.get(user, [])) == 1 and len(reports.get(placeholders[user][0], [])) == 1
    )
    every_placeholder = {ts for found in placeholders.values() for ts in found}
    outside = sum(1 for ts in reports if ts not in every_placeholder)
    return once, len(every_placeholder), outside


def restart(api: SlackApiStandIn, texts: list[str], *, commands: int, report_timeout: float) -> Restart:
    """`commands` at once; the whole bot killed (SIGKILL, web and worker) once the first
    placeholders are up, most requests still queued; started again on the same files."""
    with tempfile.TemporaryDirectory(prefix="bench-restart-") as directory:
        folder = Path(directory)
        api.calls.clear()
        # Each report's update held back a moment: the bot is killed with work in every state.
        held = api.hold(lambda call: call.method == "chat.update" and _is_report(call), times=3)
        unread = _unread_placeholders(api, commands=commands)
        signed = signed_commands(commands, api_url=api.url, texts=texts, user_prefix="U0RSTRT")
        users = [command.user for command in signed]
        with bot_process(api, folder, queue=commands, log_name="first.log") as bot:
            fire(bot.url, signed)
            held.arrived.wait(60)
            _wait_held(unread, timeout=60)
            shown = len(api.calls_to("chat.postMessage"))
            tree = process_tree(bot.process.pid)
            for pid in tree.values():
                os.kill(pid, signal.SIGKILL)
            bot.process.wait(timeout=30)
        unread_count = unread.held
        for hold in (held, unread):
            hold.times = hold.held  # nothing more is held back
            hold.released.set()
        started = time.monotonic()
        with bot_process(api, folder, queue=commands, log_name="restarted.log"):
            wait_for_reports(api, users, timeout=report_timeout)
            time.sleep(2)  # anything answered twice shows up meanwhile
        once, placeholders, outside = _answered(api, users)
    return Restart(
        commands=commands,
        answered_once=once,
        placeholders=placeholders,
        reports_outside_placeholder=outside,
        killed_after_placeholders=shown,
        seconds=time.monotonic() - started,
        unread_placeholders=unread_count,
    )


def _print_mentions(main: Burst) -> tuple[float, int, int] | None:
    """The @mention burst's line; (ack p99, acks late or refused, mentions without a report)."""
    mention_latencies = [seconds for seconds, _status in main.mentions]
    mention_p99 = percentile(mention_latencies, 0.99) if mention_latencies else 0.0
    mentions_late = sum(1 for seconds in mention_latencies if seconds > SLACK_DEADLINE_SECONDS)
    mentions_failed = sum(1 for _seconds, status in main.mentions if status != 200)
    mentions_missing = len(main.mention_delivery.missing) if main.mention_delivery else 0
    if mention_latencies and main.mention_delivery:
        print(
            f"@mentions: {len(mention_latencies)} app_mention events at once: p50 "
            f"{_ms(percentile(mention_latencies, 0.5))}, p99 {_ms(mention_p99)}; over 3 s: {mentions_late}; "
            f"not HTTP 200: {mentions_failed}; {len(mention_latencies) - mentions_missing}/{len(mention_latencies)} "
            f"answered with a report within {main.mention_delivery.seconds:.1f} s"
        )
    if not mention_latencies:
        return None
    return mention_p99, mentions_late + mentions_failed, mentions_missing


def run(
    *,
    commands: int = DEFAULT_COMMANDS,
    report_timeout: float = 300.0,
    restart_commands: int = RESTART_COMMANDS,
) -> BenchResult:
    result = BenchResult(title="ack")
    print(f"Slash-command acks: {commands} signed /diagnose commands at once against `diagnose bot --http`")
    api = SlackApiStandIn().start()
    try:
        texts = example_commands()
        print(f"{min(len(texts), commands)} different example commands, {commands} users")
        print(
            "default layout: one web process (acks and queues), its worker process (diagnosis threads"
            " at a lower CPU priority), the queues in SQLite"
        )
        main = burst(api, texts, commands=commands, report_timeout=report_timeout)
        restarted = restart(api, texts, commands=restart_commands, report_timeout=report_timeout)
    finally:
        api.stop()
    latencies = [seconds for seconds, _status in main.acks]
    failed = [status for _seconds, status in main.acks if status != 200]
    p50, p99, worst = percentile(latencies, 0.5), percentile(latencies, 0.99), max(latencies)
    late = sum(1 for seconds in latencies if seconds > SLACK_DEADLINE_SECONDS)
    delivery = main.delivery
    print(
        f"\nacks: {len(main.acks)} in {main.fired_seconds:.2f} s; p50 {_ms(p50)}, p99 {_ms(p99)}, max {_ms(worst)}"
    )
    print(f"  over 3 s: {late}; not HTTP 200: {len(failed)}")
    print(
        f"reports: {delivery.reports}/{commands} placeholders replaced by a report, {delivery.attached}/{commands} "
        f"with the report file, all within {delivery.seconds:.1f} s of the burst"
    )
    shown = main.placeholder_seconds()
    if shown:
        print(
            f"placeholders (what the asker sees first) posted p50 {percentile(shown, 0.5):.2f} s, "
            f"p99 {percentile(shown, 0.99):.2f} s after the burst"
        )
    mentions = _print_mentions(main)
    help_latencies = [seconds for seconds, _status in main.helps]
    help_p50, help_p99 = percentile(help_latencies, 0.5), percentile(help_latencies, 0.99)
    print(
        f"the ack path alone, {len(main.helps)} `/diagnose help` at once (answered in the ack, no background "
        f"work): p50 {_ms(help_p50)}, p99 {_ms(help_p99)}; burst / ack path alone p99: {p99 / help_p99:.2f}"
    )
    if delivery.missing:
        print(f"  missing: {', '.join(delivery.missing[:10])}{' ...' if len(delivery.missing) > 10 else ''}")
    total_mb = sum(main.memory.values())
    per_process = ", ".join(f"{role} {megabytes:.0f} MB" for role, megabytes in main.memory.items())
    print(f"resident memory (VmRSS) after the reports: {per_process}; all processes {total_mb:.0f} MB")
    shared_counted_once = ""
    if main.proportional and main.proportional.keys() == main.memory.keys():
        pss_total = sum(main.proportional.values())
        pss_per_process = ", ".join(
            f"{role} {megabytes:.0f} MB" for role, megabytes in main.proportional.items()
        )
        shared_counted_once = f"; PSS {pss_total:.0f} MB ({pss_per_process})"
        print(f"  PSS (shared pages divided among the processes): {pss_per_process}; all {pss_total:.0f} MB")
    print(
        f"restart: {restarted.commands} commands, the bot killed (SIGKILL) with {restarted.killed_after_placeholders} "
        f"placeholders up ({restarted.unread_placeholders} of them created by Slack while the worker still "
        f"waited for the answer); after the restart {restarted.answered_once}/{restarted.commands} answered once, in "
        f"their placeholder ({restarted.placeholders} placeholders, {restarted.reports_outside_placeholder} "
        f"reports elsewhere) within {restarted.seconds:.1f} s"
    )
    result.checks += [
        Check("ack p99", p99 * 1000, P99_CEILING_SECONDS * 1000, "ms"),
        Check("acks over 3 s", float(late), 0),
        Check("acks not HTTP 200", float(len(failed)), 0),
        Check("commands without their report", float(len(delivery.missing)), 0),
        Check("resident memory, all processes", total_mb, MEMORY_CEILING_MB, "MB"),
        Check(
            "restarted requests not answered exactly once in their placeholder",
            float(restarted.commands - restarted.answered_once),
            0,
        ),
    ]
    if mentions is not None:
        mention_p99, mentions_refused, mentions_missing = mentions
        result.checks += [
            Check("@mention ack p99", mention_p99 * 1000, P99_CEILING_SECONDS * 1000, "ms"),
            Check("@mention acks over 3 s or not HTTP 200", float(mentions_refused), 0),
            Check("@mentions without their report", float(mentions_missing), 0),
        ]
        result.figures["@mention p99"] = _ms(mention_p99)
    result.figures.update(
        {
            "p50": _ms(p50),
            "p99": _ms(p99),
            "max": _ms(worst),
            "help p99": _ms(help_p99),
            "reports": f"{commands - len(delivery.missing)}/{commands} in {delivery.seconds:.0f} s",
            "memory": f"VmRSS {total_mb:.0f} MB ({per_process}){shared_counted_once}",
            "restart": f"{restarted.answered_once}/{restarted.commands} answered once",
        }
    )
    result.print_checks()
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.ack", description=__doc__)
    parser.add_argument("--commands", type=int, default=DEFAULT_COMMANDS, help="concurrent slash commands")
    parser.add_argument(
        "--report-timeout", type=float, default=300.0, help="seconds to wait for every report"
    )
    parser.add_argument(
        "--restart-commands", type=int, default=RESTART_COMMANDS, help="commands queued across the restart"
    )
    options = parser.parse_args(argv)
    run(
        commands=max(1, options.commands),
        report_timeout=options.report_timeout,
        restart_commands=max(1, options.restart_commands),
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

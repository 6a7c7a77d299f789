"""Guarantee 5, bad input: hypothesis over every place the product reads what it did not write.

Targets (each case either gives a clear answer or a partial diagnosis; an exception, an invalid
diagnosis or a message outside Slack's limits is a crash):
- `slash grammar`: `/diagnose` text (bot.grammar.parse_command), usage replies within limits;
- `mentions`: @mention sentences and thread follow-ups (bot.mentions);
- `bundle loading`: `parse_bundle` on arbitrary JSON, `load_bundle` on arbitrary bytes;
- `API answers`: scenario bundles whose answers are replaced by random JSON (wrong types, nulls,
  empty lists, deep nesting) and random statuses, replayed through the platform parsers and
  workflows, then rendered (Markdown, Slack);
- `non-UTF-8 logs`: logs and log previews sent as raw bytes that are not UTF-8;
- `huge payloads`: a long log through the streaming log scanner (100 MB in --full) and a long
  answer through a diagnosis.
"""

from __future__ import annotations

import asyncio
import functools
import io
import json
import random
import tempfile
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from blocks.messages import usage_message
from blocks.report import report_message
from bot.commands import DiagnoseCommand, UsageProblem
from bot.grammar import parse_command
from bot.mentions import parse_follow_up, parse_mention, strip_mentions
from diagnosis import engine
from diagnosis.bundle import Bundle
from diagnosis.contract_schemas import SCHEMA_DIR
from diagnosis.evidence.bundles import BundleError, load_bundle, parse_bundle
from diagnosis.logs.scan import scan_stream
from diagnosis.masking import mask
from diagnosis.models import Diagnosis
from diagnosis.render import render_markdown
from tests.blocks.checks import assert_message_within_limits
from tests.safety.bundles import Scenario
from tests.safety.sources import replay_over

DIAGNOSIS_SCHEMA: dict[str, Any] = json.loads((SCHEMA_DIR / "diagnosis.v1.json").read_text(encoding="utf-8"))
MEGABYTE = 1024 * 1024


@dataclass
class FuzzResult:
    cases_by_target: Counter[str] = field(default_factory=Counter)
    crashes_by_target: Counter[str] = field(default_factory=Counter)
    # `target: what happened` (masked, cut), a few per target.
    examples: list[str] = field(default_factory=list)
    seconds_by_target: dict[str, float] = field(default_factory=dict)

    @property
    def cases(self) -> int:
        return sum(self.cases_by_target.values())

    @property
    def crashes(self) -> int:
        return sum(self.crashes_by_target.values())

    def run(self, target: str, check: Callable[[], None]) -> None:
        """One case: `check` raises when the product crashed or answered badly."""
        self.cases_by_target[target] += 1
        try:
            check()
        except Exception as exc:  # every failure is a figure, never a traceback
            self.crashes_by_target[target] += 1
            if sum(1 for line in self.examples if line.startswith(target)) < 5:
                self.examples.append(f"{target}: {type(exc).__name__}: {mask(str(exc))[:240]}")


def _hypothesis(max_examples: int) -> settings:
    return settings(
        max_examples=max_examples,
        deadline=None,
        database=None,
        derandomize=True,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )


# ---------------------------------------------------------------------------------------------------
# Strategies

_WORDS = [
    "runai", "run:ai", "modelarts", "ma", "scan", "explain", "help", "rerun", "evidence", "logs", "json",
    "cluster=", "workload=", "project=", "id=", "name=", "job=", "job_id=", "region=", "lang=", "lookback=",
    "intent=", "intent=active", "lang=zh", "lookback=7d", "lookback=0s", "lookback=99999w", "cn-north-4",
    "3f1c2d4e-0000-4000-8000-00000000beef", "137", "-1", "99999", "=", "==", "'", '"', "\\", "<", ">",
    "<!channel>", "<@U0BOSS01>", "<@U0DIAGBOT>", "<#C0INC0042|inc>", "<https://evil.example|x>",
    "\u00a0", "\u200b", "\u202e", "`", "```", "*", "--", "job", "cluster", "in", "on", "for", "why",
    "did", "fail", "crash-looping", "keeps restarting", "train-42", "ml-team", "prod-a", "yesterday",
]  # fmt: skip
_text_words = st.lists(st.one_of(st.sampled_from(_WORDS), st.text(max_size=16)), max_size=10).map(" ".join)
command_texts = st.one_of(_text_words, st.text(max_size=300))

_KEYS = [
    "id", "name", "type", "phase", "phaseMessage", "clusterId", "projectName", "namespace", "conditions",
    "events", "records", "pods", "workloads", "next", "meta", "spec", "event", "phaseUpdate", "reason",
    "message", "createdAt", "k8sPhase", "measurements", "values", "value", "timestamp", "status",
    "containerStatuses", "state", "lastState", "terminated", "exitCode", "items", "metadata", "kind",
    "task_statuses", "exit_code", "task", "tasks", "secondary_phase", "start_time", "duration",
    "create_time", "running_records", "stages", "content", "total", "error_code", "error_msg", "algorithm",
    "failureAnalysisResult", "analysis_results", "info", "level", "occur_time", "code_dir", "metrics",
    "cpuMemory", "limit", "compute", "containers", "nodeName", "schema", "platform", "captured_at",
    "request", "exchanges", "op", "args", "body", "text",
]  # fmt: skip
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**64),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(
        ["Failed", "Running", "Pending", "OOMKilled", "", "2026-05-06T08:00:00Z", "16Gi", "-1", "null", "137"]
    ),
    st.text(max_size=40),
)
json_values: st.SearchStrategy[Any] = st.recursive(
    _scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=5),
        st.dictionaries(st.one_of(st.sampled_from(_KEYS), st.text(max_size=8)), children, max_size=6),
    ),
    max_leaves=30,
)


def deeply_nested(depth: int) -> Any:
    """`{"events": [{"events": [...]}]}`, `depth` levels: a parser that recurses must not fall over."""
    value: Any = {"message": "bottom"}
    for level in range(depth):
        value = {"events": [value]} if level % 2 else [value]
    return value


_STATUSES = [200, 200, 200, 200, 201, 204, 207, 400, 401, 403, 404, 409, 429, 500, 502, 503]


# ---------------------------------------------------------------------------------------------------
# Checks


def _check_command(text: str) -> None:
    command = parse_command(text)
    if isinstance(command, UsageProblem):
        if not command.problem.strip():
            raise AssertionError("a usage problem without a reason")
        assert_message_within_limits(usage_message(problem=command.problem).payload())
    if isinstance(command, DiagnoseCommand):
        command.draft.describe()
        command.draft.missing()


def _check_mention(text: str) -> None:
    stripped = strip_mentions(text, "U0DIAGBOT")
    command = parse_mention(stripped)
    if isinstance(command, UsageProblem) and not command.problem.strip():
        raise AssertionError("a usage problem without a reason")
    parse_follow_up(text)


def _check_bundle_json(data: Any) -> None:
    try:
        parse_bundle(data)
    except BundleError as exc:
        if not str(exc).strip() or "\n" in str(exc):
            raise AssertionError("a bundle error must be one clear line") from None


def _check_bundle_bytes(raw: bytes, folder: Path) -> None:
    path = folder / "fuzz.bundle.json"
    path.write_bytes(raw)
    try:
        load_bundle(path)
    except BundleError as exc:
        if not str(exc).strip() or "\n" in str(exc):
            raise AssertionError("a bundle error must be one clear line") from None


def check_diagnosis(diagnosis: Diagnosis, *, lang: str | None = None) -> None:
    """Valid diagnosis/v1, and it renders: Markdown, and a report message within Slack's limits."""
    jsonschema.validate(diagnosis.to_json_dict(), DIAGNOSIS_SCHEMA)
    language = engine.resolve_lang(diagnosis.platform, lang)
    render_markdown(diagnosis, lang=language)
    assert_message_within_limits(report_message(diagnosis, lang=language).payload())


def randomised(bundle: Bundle, rng: random.Random, bodies: list[Any], statuses: list[int]) -> Bundle:
    """The bundle with its answers' bodies (or texts) and statuses replaced, in turn."""
    data = bundle.to_json_dict()
    for number, exchange in enumerate(data["exchanges"]):
        if rng.random() < 0.25:
            continue  # some answers stay as recorded, so the workflow gets past its first step
        body = bodies[number % len(bodies)]
        exchange["status"] = statuses[number % len(statuses)]
        if exchange.get("text") is not None:
            exchange["text"] = body if isinstance(body, str) else json.dumps(body, default=str)[:4000]
        else:
            exchange["body"] = body
    return parse_bundle(json.loads(json.dumps(data, default=str, allow_nan=True)))


def with_raw_bytes(bundle: Bundle, noise: bytes) -> Bundle | None:
    """Logs and log previews with bytes that are not UTF-8 spliced in; None when it has none."""
    data = bundle.to_json_dict()
    touched = False
    garbage = noise.decode("utf-8", errors="surrogateescape")
    for exchange in data["exchanges"]:
        if isinstance(exchange.get("text"), str):
            text = exchange["text"]
            exchange["text"] = text[: len(text) // 2] + garbage + text[len(text) // 2 :]
            touched = True
        elif isinstance(exchange.get("body"), dict) and isinstance(exchange["body"].get("content"), str):
            body = dict(exchange["body"])
            body["content"] = body["content"] + garbage
            exchange["body"] = {"__raw__": json.dumps(body, ensure_ascii=False)}
            touched = True
    if not touched:
        return None
    return Bundle.model_validate(data)


# ---------------------------------------------------------------------------------------------------
# Huge payloads


class GeneratedLog(io.RawIOBase):
    """About `size` bytes of a training log made on the fly (never held in memory), ending in a CUDA OOM
    traceback, with a few bytes that are not UTF-8 and some very long lines on the way."""

    TAIL = (
        b"Traceback (most recent call last):\n"
        b'  File "/workspace/train.py", line 42, in <module>\n'
        b"    loss.backward()\n"
        b"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
    )

    def __init__(self, size: int) -> None:
        self.body_bytes = max(0, size - len(self.TAIL))
        self.made = 0
        self.line = 0
        self.pending = b""
        self.ended = False

    def readable(self) -> bool:
        return True

    def _next_line(self) -> bytes:
        self.line += 1
        if self.line % 50_000 == 0:
            return b"tensor dump " + b"0123456789abcdef" * 8192 + b"\n"
        if self.line % 9_973 == 0:
            return b"2026-05-06T08:00:00Z INFO bad bytes \xff\xfe\xc3\x28 in a line\n"
        return b"2026-05-06T08:00:00Z INFO step %d loss=0.%04d lr=3e-4\n" % (self.line, self.line % 9999)

    def readinto(self, buffer: Any) -> int:
        wanted = len(buffer)
        chunks = [self.pending]
        have = len(self.pending)
        while have < wanted and not self.ended:
            if self.made >= self.body_bytes:
                piece, self.ended = self.TAIL, True
            else:
                piece = self._next_line()  # whole lines: the log ends a little past `size`
                self.made += len(piece)
            chunks.append(piece)
            have += len(piece)
        data = b"".join(chunks)
        out, self.pending = data[:wanted], data[wanted:]
        buffer[: len(out)] = out
        return len(out)


def huge_log(
    size_bytes: int, *, memory_limit_bytes: int = 256 * MEGABYTE, seconds_limit: float = 600.0
) -> str:
    """Scan a generated log of `size_bytes`; raises unless the OOM at its end is found in bounded
    memory and time. Returns a one-line summary."""
    started = time.monotonic()
    tracemalloc.start()
    try:
        findings = scan_stream(io.BufferedReader(GeneratedLog(size_bytes), buffer_size=MEGABYTE))
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    seconds = time.monotonic() - started
    primary = findings.primary()
    if primary is None or primary.kind != "cuda_oom":
        raise AssertionError(f"the CUDA OOM at the end of a {size_bytes} byte log was not found ({primary})")
    if peak > memory_limit_bytes:
        raise AssertionError(f"scanning {size_bytes} bytes peaked at {peak} bytes of memory")
    if seconds > seconds_limit:
        raise AssertionError(f"scanning {size_bytes} bytes took {seconds:.0f} s")
    return f"{size_bytes // MEGABYTE} MB scanned in {seconds:.1f} s, peak {peak // MEGABYTE} MB"


_GROWABLE = ("events", "pods", "items", "records", "workloads", "task_statuses")


def growable(bundle: Bundle) -> bool:
    return any(
        isinstance(exchange.body, dict)
        and any(isinstance(exchange.body.get(key), list) and exchange.body[key] for key in _GROWABLE)
        for exchange in bundle.exchanges
    )


def huge_answer(scenario: Scenario, count: int) -> None:
    """The scenario with every list of its answers (events, pods, history…) grown to `count` items:
    a diagnosis that still fits Slack's limits."""
    data = scenario.bundle.to_json_dict()
    for exchange in data["exchanges"]:
        body = exchange.get("body")
        if not isinstance(body, dict):
            continue
        for key in _GROWABLE:
            items = body.get(key)
            if isinstance(items, list) and items:
                body[key] = [items[number % len(items)] for number in range(count)]
    diagnosis = asyncio.run(engine.replay(parse_bundle(data)))
    check_diagnosis(diagnosis)


# ---------------------------------------------------------------------------------------------------
# The suite


def fuzz(
    scenarios: Sequence[Scenario], *, max_examples: int, huge_log_bytes: int, huge_answer_items: int
) -> FuzzResult:
    result = FuzzResult()

    def timed(target: str, run: Callable[[], None]) -> None:
        started = time.monotonic()
        run()
        result.seconds_by_target[target] = (
            result.seconds_by_target.get(target, 0.0) + time.monotonic() - started
        )

    @_hypothesis(max_examples)
    @given(text=command_texts)
    def slash(text: str) -> None:
        result.run("slash grammar", lambda: _check_command(text))

    @_hypothesis(max_examples)
    @given(text=command_texts)
    def mentions(text: str) -> None:
        result.run("mentions", lambda: _check_mention(text))

    folder = Path(tempfile.mkdtemp(prefix="safety-fuzz-"))
    bundle_like = st.fixed_dictionaries(
        {
            "schema": st.just("evidence-bundle/v1"),
            "platform": json_values,
            "exchanges": st.lists(json_values),
        },
        optional={"captured_at": json_values, "request": json_values},
    )

    @_hypothesis(max_examples)
    @given(data=st.one_of(json_values, bundle_like), raw=st.binary(max_size=200))
    def bundles(data: Any, raw: bytes) -> None:
        result.run("bundle loading", lambda: _check_bundle_json(data))
        result.run("bundle loading", lambda: _check_bundle_bytes(raw, folder))

    chosen = list(scenarios)

    @_hypothesis(max_examples)
    @given(
        index=st.integers(min_value=0, max_value=max(0, len(chosen) - 1)),
        bodies=st.lists(json_values, min_size=1, max_size=6),
        statuses=st.lists(st.sampled_from(_STATUSES), min_size=1, max_size=4),
        seed=st.integers(min_value=0, max_value=2**16),
    )
    def answers(index: int, bodies: list[Any], statuses: list[int], seed: int) -> None:
        def check() -> None:
            bundle = randomised(chosen[index].bundle, random.Random(seed), bodies, statuses)
            check_diagnosis(asyncio.run(engine.replay(bundle)))

        result.run("API answers", check)

    with_logs = [item for item in chosen if with_raw_bytes(item.bundle, b"x") is not None]

    @_hypothesis(max(1, max_examples // 2))
    @given(
        index=st.integers(min_value=0, max_value=max(0, len(with_logs) - 1)),
        noise=st.binary(min_size=1, max_size=64).map(lambda data: data + b"\xff\xfe\x80"),
    )
    def raw_logs(index: int, noise: bytes) -> None:
        def check() -> None:
            bundle = with_raw_bytes(with_logs[index].bundle, noise)
            if bundle is not None:
                check_diagnosis(asyncio.run(replay_over(bundle)))

        result.run("non-UTF-8 logs", check)

    timed("slash grammar", slash)
    timed("mentions", mentions)
    timed("bundle loading", bundles)
    if chosen:
        timed("API answers", answers)
        for depth in (50, 400, 3000):
            for scenario in chosen[:2]:
                result.run("API answers", functools.partial(_deep, scenario, depth))
    if with_logs:
        timed("non-UTF-8 logs", raw_logs)
    timed("huge payloads", lambda: result.run("huge payloads", lambda: _quiet(huge_log(huge_log_bytes))))
    for scenario in [item for item in chosen if growable(item.bundle)][:2]:
        grown = functools.partial(huge_answer, scenario, huge_answer_items)
        timed("huge payloads", functools.partial(result.run, "huge payloads", grown))
    return result


def _quiet(_summary: str) -> None:
    return None


def _deep(scenario: Scenario, depth: int) -> None:
    """Every answer of the scenario replaced by one nested `depth` levels deep."""
    data = scenario.bundle.to_json_dict()
    for exchange in data["exchanges"]:
        exchange["body"] = deeply_nested(depth)
        exchange["text"] = None
        exchange["status"] = 200
    check_diagnosis(asyncio.run(engine.replay(Bundle.model_validate(data))))

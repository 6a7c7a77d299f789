"""Guarantee 5: bad input of every kind gives a clear message or a partial diagnosis, never a crash."""

from __future__ import annotations

import asyncio
import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from diagnosis import engine
from diagnosis.evidence.bundles import parse_bundle
from diagnosis.logs.scan import scan_stream
from tests.safety import checks
from tests.safety.bundles import scenarios
from tests.safety.fuzzing import (
    MEGABYTE,
    FuzzResult,
    GeneratedLog,
    check_diagnosis,
    deeply_nested,
    huge_log,
    with_raw_bytes,
)
from tests.safety.live import LiveRig
from tests.safety.sources import replay_over


@pytest.fixture(scope="module")
def result() -> FuzzResult:
    return checks.fuzz(checks.SMALL)


def test_no_fuzz_case_crashes(result: FuzzResult) -> None:
    assert result.examples == []
    assert result.crashes == 0


def test_every_target_was_fuzzed(result: FuzzResult) -> None:
    for target in (
        "slash grammar",
        "mentions",
        "bundle loading",
        "API answers",
        "non-UTF-8 logs",
        "huge payloads",
    ):
        assert result.cases_by_target[target] > 0, target


def test_a_crash_is_counted_not_raised() -> None:
    counted = FuzzResult()
    counted.run("demo", lambda: (_ for _ in ()).throw(ValueError("token: abc123secret")))
    assert counted.crashes == 1 and "abc123secret" not in counted.examples[0]


@pytest.mark.parametrize("depth", [400, 3000])
def test_a_deeply_nested_answer_over_the_wire_is_a_limitation(depth: int) -> None:
    """Live client against the simulator: json.loads and masking both recurse; neither may crash."""
    scenario = next(item for item in scenarios("runai") if item.name.endswith("runai-crash-app-error"))
    data = scenario.bundle.to_json_dict()
    for exchange in data["exchanges"]:
        if exchange["op"] == "get_workload_events":
            exchange["body"] = deeply_nested(depth)
    bundle = parse_bundle(data)
    with LiveRig() as rig:
        rig.serve(bundle)
        live = asyncio.run(rig.diagnose(bundle))
    check_diagnosis(live.diagnosis)
    assert live.diagnosis.category == "CRASH_APP_ERROR"


def test_logs_that_are_not_utf8_give_the_same_verdict() -> None:
    for scenario in scenarios():
        noisy = with_raw_bytes(scenario.bundle, b"\xff\xfe\xc3\x28 \x80\x81 binary")
        if noisy is None:
            continue
        diagnosis = asyncio.run(replay_over(noisy))
        check_diagnosis(diagnosis)
        if scenario.bundle.platform == "runai":
            # Run:ai pod logs are plain text: undecodable bytes are replaced, the rest is read.
            assert diagnosis.category == asyncio.run(engine.replay(scenario.bundle)).category, scenario.name


def test_a_long_log_is_scanned_in_bounded_memory() -> None:
    assert "peak" in huge_log(4 * MEGABYTE, memory_limit_bytes=96 * MEGABYTE)


def test_the_generated_log_ends_with_its_traceback() -> None:
    stream = io.BufferedReader(GeneratedLog(300_000))
    data = stream.read()
    assert 300_000 <= len(data) < 450_000 and data.endswith(GeneratedLog.TAIL)
    findings = scan_stream(io.BytesIO(data))
    assert findings.primary() is not None and findings.primary().kind == "cuda_oom"  # type: ignore[union-attr]


@settings(max_examples=25, deadline=None)
@given(text=st.text(max_size=2000), cut=st.integers(min_value=0, max_value=2000))
def test_any_log_text_scans(text: str, cut: int) -> None:
    """The scanner over arbitrary text, fed in arbitrary chunks (line and chunk boundaries anywhere)."""
    raw = text.encode("utf-8", errors="surrogatepass")
    findings = scan_stream(io.BytesIO(raw), chunk_size=max(1, cut))
    assert findings.lines_scanned >= 0

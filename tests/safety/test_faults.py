"""Guarantee 6: faults on every op are retried within a budget or named, and Slack failures never
lose the report or leave the user untold."""

from __future__ import annotations

import pytest

from tests.safety import checks
from tests.safety.faults import (
    FAULT_KINDS,
    SLACK_SCENARIOS,
    FaultResult,
    engine_faults,
    restart_during_a_diagnosis,
    restart_with_a_pending_question,
    run_slack_scenario,
    spread_ops,
    store_down_when_queued,
    worker_dies_holding_a_request,
)


@pytest.fixture(scope="module")
def result() -> FaultResult:
    # One scenario per platform, the first and the last op it calls, every fault kind both ways.
    return engine_faults(checks.fault_scenarios(1), max_ops=2)


def test_every_fault_is_survived_with_a_diagnosis(result: FaultResult) -> None:
    assert result.failures == []
    assert result.run == 2 * 2 * len(FAULT_KINDS) * 2
    assert result.survived == result.run


def test_nothing_hangs_past_the_deadline(result: FaultResult) -> None:
    assert result.hung == []
    assert result.slowest_seconds < 8.0


def test_ops_are_spread_from_the_first_call_to_the_last() -> None:
    assert spread_ops(["a", "b", "c", "d", "e"], 2) == ["a", "e"]
    assert spread_ops(["a", "b", "c", "d", "e"], 3) == ["a", "c", "e"]
    assert spread_ops(["a"], 3) == ["a"]


@pytest.mark.parametrize("name", sorted(SLACK_SCENARIOS))
def test_slack_failures_still_reach_the_user(name: str) -> None:
    prepare, expect, after = SLACK_SCENARIOS[name]
    assert run_slack_scenario(name, prepare, expect, after_placeholder=after) == []


def test_a_restart_while_a_question_waits_loses_nothing_typed() -> None:
    assert restart_with_a_pending_question() == []


def test_a_restart_while_a_diagnosis_runs_loses_nothing_typed() -> None:
    assert restart_during_a_diagnosis() == []


def test_a_request_whose_worker_died_is_answered_once_by_the_next() -> None:
    assert worker_dies_holding_a_request() == []


def test_a_queue_that_refuses_a_request_has_the_asker_told_at_once() -> None:
    assert store_down_when_queued() == []

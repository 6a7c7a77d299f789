"""Guarantee 4: nothing about a job outside the policy, clicks and replies re-checked where they
come from, and no forged or stale Slack request runs anything."""

from __future__ import annotations

import pytest

from tests.safety.access import ATTACKS, signature_attacks


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_the_attack_is_refused(name: str) -> None:
    assert ATTACKS[name]() == []


def test_forged_stale_and_replayed_requests_get_401_and_run_nothing() -> None:
    results = dict(signature_attacks())
    assert len(results) >= 6
    assert {name: problems for name, problems in results.items() if problems} == {}

"""The attack library: one plain function per guarantee, each returning its counts.

    plant_secrets(profile) -> LeakResult         guarantee 2 (secrets planted / leaked per format)
    inject_untrusted(profile) -> InjectionResult guarantee 3 (injection strings tried / inert)
    access(profile) -> AccessResult              guarantee 4 (attacks tried / refused)
    fuzz(profile) -> FuzzResult                  guarantee 5 (cases run / crashes)
    faults(profile) -> FaultResult               guarantee 6 (fault scenarios run / survived)
    read_only(profile) -> ReadOnlyResult         guarantee 1 (requests checked / not read-only)

A `Profile` sets the budgets: `QUICK` (the default of `make safety`, also run by `make test`),
`FULL` (`--full`: every scenario, every language, a 100 MB log) and `SMALL` (the pytest files).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tests.safety import access as access_module
from tests.safety import faults as faults_module
from tests.safety import fuzzing, injection, leaks
from tests.safety import read_only as read_only_module
from tests.safety.access import AccessResult
from tests.safety.bundles import Scenario, plant_text, scenarios, spread
from tests.safety.faults import FaultResult
from tests.safety.fuzzing import MEGABYTE, FuzzResult
from tests.safety.injection import InjectionResult
from tests.safety.leaks import LeakResult
from tests.safety.read_only import ReadOnlyResult

__all__ = [
    "FULL",
    "QUICK",
    "SMALL",
    "AccessResult",
    "FaultResult",
    "FuzzResult",
    "InjectionResult",
    "LeakResult",
    "Profile",
    "ReadOnlyResult",
    "access",
    "fault_scenarios",
    "faults",
    "fuzz",
    "inject_untrusted",
    "injection_scenarios",
    "plant_secrets",
    "read_only",
]


@dataclass(frozen=True)
class Profile:
    name: str
    # Scenarios replayed with planted secrets (None: all of them).
    secret_scenarios: int | None
    captured_bundles: int
    bot_bundles: int
    exception_cases: int
    injection_scenarios: int | None
    injection_all_languages: bool
    fuzz_examples: int
    huge_log_bytes: int
    huge_answer_items: int
    fault_scenarios_per_platform: int
    fault_ops_per_scenario: int | None
    slack_faults: bool
    read_only_examples: int


QUICK = Profile(
    name="quick",
    secret_scenarios=None,
    captured_bundles=24,
    bot_bundles=6,
    exception_cases=24,
    injection_scenarios=6,
    injection_all_languages=False,
    fuzz_examples=50,
    huge_log_bytes=5 * MEGABYTE,
    huge_answer_items=2_000,
    fault_scenarios_per_platform=1,
    fault_ops_per_scenario=2,
    slack_faults=True,
    read_only_examples=15,
)
FULL = Profile(
    name="full",
    secret_scenarios=None,
    captured_bundles=10_000,
    bot_bundles=10_000,
    exception_cases=10_000,
    injection_scenarios=None,
    injection_all_languages=True,
    fuzz_examples=400,
    huge_log_bytes=100 * MEGABYTE,
    huge_answer_items=50_000,
    fault_scenarios_per_platform=4,
    fault_ops_per_scenario=None,
    slack_faults=True,
    read_only_examples=100,
)
SMALL = Profile(
    name="small",
    secret_scenarios=16,
    captured_bundles=6,
    bot_bundles=3,
    exception_cases=8,
    injection_scenarios=2,
    injection_all_languages=False,
    fuzz_examples=15,
    huge_log_bytes=2 * MEGABYTE,
    huge_answer_items=500,
    fault_scenarios_per_platform=1,
    fault_ops_per_scenario=2,
    slack_faults=False,
    read_only_examples=5,
)


def _chosen(count: int | None) -> list[Scenario]:
    everything = scenarios()
    return everything if count is None else spread(everything, count)


def plant_secrets(profile: Profile = QUICK) -> LeakResult:
    return leaks.plant_everywhere(
        _chosen(profile.secret_scenarios),
        captured=profile.captured_bundles,
        bot_bundles=profile.bot_bundles,
        exception_cases=profile.exception_cases,
    )


def injection_scenarios(count: int | None) -> list[Scenario]:
    """Scenarios with text a report could quote (a log, an event, a message), spread over both
    platforms."""
    quoting = [item for item in scenarios() if plant_text(item.bundle, "x")[1]]
    return quoting if count is None else spread(quoting, count)


def inject_untrusted(profile: Profile = QUICK) -> InjectionResult:
    return injection.inject_untrusted(
        injection_scenarios(profile.injection_scenarios), all_languages=profile.injection_all_languages
    )


def fuzz(profile: Profile = QUICK) -> FuzzResult:
    return fuzzing.fuzz(
        spread(scenarios(), 24),
        max_examples=profile.fuzz_examples,
        huge_log_bytes=profile.huge_log_bytes,
        huge_answer_items=profile.huge_answer_items,
    )


def fault_scenarios(per_platform: int) -> list[Scenario]:
    """The scenarios that call the most distinct ops, `per_platform` of each platform."""
    chosen: list[Scenario] = []
    for platform in ("runai", "modelarts"):
        ranked = sorted(
            (item for item in scenarios(platform) if not item.name.endswith("scan-pages")),
            key=lambda item: (-len({exchange.op for exchange in item.bundle.exchanges}), item.name),
        )
        chosen.extend(ranked[:per_platform])
    return chosen


def faults(profile: Profile = QUICK) -> FaultResult:
    result = faults_module.engine_faults(
        fault_scenarios(profile.fault_scenarios_per_platform), max_ops=profile.fault_ops_per_scenario
    )
    if profile.slack_faults:
        faults_module.slack_faults(result)
    return result


def read_only(profile: Profile = QUICK) -> ReadOnlyResult:
    return read_only_module.read_only(scenarios(), max_examples=profile.read_only_examples)


def access(profile: Profile = QUICK) -> AccessResult:
    return access_module.access_attacks()


def scenario_names(items: Sequence[Scenario]) -> list[str]:
    return [item.name for item in items]

"""`diagnose try SCENARIO`: the live CLI against the simulator, with everything set.

    diagnose try --list                           every scenario and the command it runs
    diagnose try SCENARIO [--scan] [OPTION …]     e.g. diagnose try runai-oom-killed --format json

Starts the simulator on a free loopback port with the built-in scenarios (or `--bundles DIR`),
points the live Run:ai, Kubernetes and ModelArts clients at it (the environment `diagnose sim`
prints), and runs the scenario's own command (`diagnose runai …` / `diagnose modelarts …` with its
identifiers, its own ModelArts project and `--as-of` the moment it was recorded), or with `--scan`
the scan of its region (every ModelArts scenario, in the simulator's one project) or its cluster. The options after the scenario go to that command (`--format`, `--lang`, `--query`,
`--chart`, `--capture` …). The exit status is the command's.
"""

from __future__ import annotations

import argparse
import difflib
import os
import shlex
import sys
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cli.main import ArgumentsError
from cli.messages import say

if TYPE_CHECKING:
    from simulator.environment import Scenario

# Variables of the person's own environment that would point the live clients elsewhere.
UNSET = (
    "HUAWEICLOUD_SDK_SECURITY_TOKEN",
    "HUAWEICLOUD_SDK_REGIONS_FILE",
    "HUAWEICLOUD_SDK_DOMAIN_ID",
    "HCLOUD_PROFILE",
    "RUNAI_KUBE_CONTEXTS",
    "RUNAI_KUBE_CONTEXTS_FILE",
    "RUNAI_TOKEN_GRANT",
    "DIAGNOSE_NOW",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "try",
        help="run the live CLI against the built-in simulator for one scenario, everything set",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
        epilog="The options after SCENARIO go to the scenario's command; its exit status is returned.",
    )
    parser.add_argument("--list", action="store_true", help="list the scenarios and their commands")
    parser.add_argument(
        "--bundles",
        default=None,
        metavar="DIR",
        help="folder of evidence bundles (default: the built-in scenarios)",
    )
    parser.add_argument("scenario", nargs="?", metavar="SCENARIO", help="a scenario name (see --list)")
    parser.add_argument(
        "options",
        nargs=argparse.REMAINDER,
        metavar="OPTION",
        help="--scan (the scan of the scenario's region or cluster instead), then options of the command",
    )
    parser.set_defaults(handler=handle)


@contextmanager
def environment_set(values: Mapping[str, str]) -> Iterator[None]:
    """`values` in the process environment (and UNSET out of it) while the command runs."""
    saved = dict(os.environ)
    for name in UNSET:
        os.environ.pop(name, None)
    os.environ.update(values)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _find(scenarios: list[Scenario], name: str) -> Scenario:
    for item in scenarios:
        if item.name == name:
            return item
    close = difflib.get_close_matches(name, [item.name for item in scenarios], n=1)
    hint = say("try.did_you_mean", name=close[0]) if close else ""
    raise ArgumentsError(say("try.unknown", name=repr(name), hint=hint))


def listing(scenarios: list[Scenario]) -> str:
    width = max((len(item.name) for item in scenarios), default=0)
    return "\n".join(f"{item.name:<{width}}  {item.command()}" for item in scenarios)


def handle(args: argparse.Namespace) -> int:
    from cli.main import main
    from cli.sim import load_scenarios
    from simulator.environment import (
        DEMO_ACCESS_KEY,
        DEMO_SECRET_KEY,
        modelarts_regions,
        scenarios_of,
        simulator_environment,
    )
    from simulator.server import SimServer

    pairs, _skipped = load_scenarios(args.bundles)
    scenarios = scenarios_of(pairs)
    if args.list:
        print(listing(scenarios))
        return 0
    if not args.scenario:
        raise ArgumentsError(say("try.name_one"))
    scenario = _find(scenarios, args.scenario)
    options = list(args.options)
    scan = "--scan" in options
    options = [item for item in options if item != "--scan"]
    argv = [*(scenario.scan_arguments() if scan else scenario.arguments()), *options]
    bundles = [bundle for _path, bundle in pairs]
    keys = (DEMO_ACCESS_KEY, DEMO_SECRET_KEY)
    with (
        tempfile.TemporaryDirectory(prefix="diagnose-try-") as folder,
        SimServer(bundles, modelarts_keys=keys, listings=True) as sim,
    ):
        values = simulator_environment(sim.base_url, Path(folder), regions=modelarts_regions(bundles))
        if not scan:
            values.update(scenario.own_environment())
        print(
            say("try.running", command=shlex.join(["diagnose", *argv]), url=sim.base_url),
            file=sys.stderr,
        )
        with environment_set(values):
            return main(argv)

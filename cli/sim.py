"""`diagnose sim`: serve a folder of bundles at the platforms' real paths (the simulator).

    diagnose sim [--bundles DIR] [--port N] [--latency S] [--latency-op OP=S] [--fault OP=STATUS…]
                 [--modelarts-keys AK:SK] [--runai-plane RELEASE]

It prints the environment that points the live CLI at it, as `export` lines (everything else it
prints on stdout is a `#` comment, so the output can be saved and sourced: `diagnose sim > sim.env &`
then `. ./sim.env`), and a few commands to try; each bundle it cannot serve is named on stderr
with the reason. `diagnose try SCENARIO` does all of it in one command.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cli.main import ArgumentsError, UsageError
from cli.messages import say

if TYPE_CHECKING:
    from diagnosis.bundle import Bundle
    from simulator.environment import Scenario
    from simulator.server import Fault, Skipped

# How many example commands per kind the banner shows (`diagnose try --list` has them all).
EXAMPLES_SHOWN = 2


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "sim",
        help="serve bundles at the real Run:ai, Kubernetes and ModelArts paths, and print the "
        "environment that points the live CLI at them",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    parser.add_argument(
        "--bundles",
        default=None,
        metavar="DIR",
        help="folder of evidence bundles, searched recursively (default: the built-in scenarios)",
    )
    parser.add_argument("--port", type=int, default=0, help="loopback port (default: a free one)")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds added to every call")
    parser.add_argument("--latency-op", action="append", default=[], metavar="OP=SECONDS")
    parser.add_argument("--fault", action="append", default=[], metavar="OP=STATUS[:RETRY_AFTER][xTIMES]")
    parser.add_argument(
        "--modelarts-keys",
        metavar="AK:SK",
        help="verify ModelArts signatures with these keys (default: the printed demo keys)",
    )
    parser.add_argument(
        "--runai-plane",
        type=_runai_plane,
        metavar="RELEASE",
        help="answer as this Run:ai control-plane release, 2.18, 2.20 or current (token grants, sort "
        "fields, parameters, fields)",
    )
    parser.set_defaults(handler=handle)


def _runai_plane(name: str) -> str:
    """A release the simulator knows (read only when the option is given)."""
    from simulator.runai_planes import PLANES

    if name not in PLANES:
        raise argparse.ArgumentTypeError(f"unknown release {name!r}: use {', '.join(sorted(PLANES))}")
    return name


def load_scenarios(folder: str | None) -> tuple[list[tuple[Path, Bundle]], list[Skipped]]:
    """The bundles of `folder` (None: the built-in scenarios), each file skipped named on stderr
    with its reason."""
    from diagnosis.evidence.bundles import BundleError
    from simulator.environment import BUILTIN_SCENARIOS
    from simulator.server import load_bundles_reporting

    folder = folder or str(BUILTIN_SCENARIOS)
    if not Path(folder).is_dir():
        raise UsageError(say("error.bundles_not_folder", folder=folder))
    try:
        pairs, skipped = load_bundles_reporting(folder)
    except BundleError as exc:
        raise UsageError(str(exc)) from None
    for item in skipped:
        print(say("sim.skipped", path=item.path, reason=item.reason), file=sys.stderr)
    if not pairs:
        raise UsageError(say("error.bundles_empty", folder=folder))
    return pairs, skipped


def _failed(scenario: Scenario) -> bool:
    """Whether the scenario's job failed (the examples worth showing first)."""
    for exchange in scenario.bundle.exchanges:
        if exchange.op in ("get_workload_status", "ShowTrainingJobDetails") and isinstance(
            exchange.body, dict
        ):
            status = exchange.body.get("status")
            phase = status.get("phase") if isinstance(status, dict) else exchange.body.get("phase")
            return phase in ("Failed", "Abnormal")
    return False


def _examples(scenarios: list[Scenario]) -> list[str]:
    """A few commands of each kind: failed jobs by id, one by name, and a scan of each platform."""
    lines: list[str] = []
    for platform, by_name in (("runai", "workload_name"), ("modelarts", "job_name")):
        mine = sorted(
            (item for item in scenarios if item.platform == platform), key=lambda item: not _failed(item)
        )
        named = [item for item in mine if item.bundle.request.get(by_name)]
        chosen = [item for item in mine if item not in named][:EXAMPLES_SHOWN] + named[:1]
        lines += [item.command() for item in chosen]
        if mine:
            lines.append(shlex.join(["diagnose", *mine[0].scan_arguments()]))
    return lines


def banner(url: str, environment: dict[str, str], scenarios: list[Scenario], *, served: int) -> str:
    """What `diagnose sim` prints once it serves: a sourceable block of `export` lines."""
    from simulator.environment import export_lines

    lines = [
        say("sim.banner.one" if served == 1 else "sim.banner.many", served=served, url=url),
        say("sim.banner.paste"),
        *export_lines(environment),
        say("sim.banner.then"),
        *(f"#   {line}" for line in _examples(scenarios)),
        say("sim.banner.try"),
    ]
    return "\n".join(lines)


def _keys(text: str | None) -> tuple[str, str]:
    from simulator.environment import DEMO_ACCESS_KEY, DEMO_SECRET_KEY

    if not text:
        return DEMO_ACCESS_KEY, DEMO_SECRET_KEY
    access_key, separator, secret_key = text.partition(":")
    if not separator or not access_key or not secret_key:
        raise ArgumentsError(say("sim.keys"))
    return access_key, secret_key


def handle(args: argparse.Namespace) -> int:
    from simulator.environment import modelarts_regions, scenarios_of, simulator_environment
    from simulator.runai_planes import PLANES
    from simulator.server import SimServer, parse_fault

    latency: dict[str, float] = {}
    for item in args.latency_op:
        op, _, seconds = item.partition("=")
        try:
            latency[op] = float(seconds)
        except ValueError:
            raise ArgumentsError(say("sim.latency_op", item=repr(item))) from None
    faults: dict[str, list[Fault]] = defaultdict(list)
    for item in args.fault:
        try:
            op, fault = parse_fault(item)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        faults[op].append(fault)
    keys = _keys(args.modelarts_keys)
    pairs, _skipped = load_scenarios(args.bundles)
    bundles = [bundle for _path, bundle in pairs]
    server = SimServer(
        bundles,
        latency=latency,
        default_latency=args.latency,
        faults=dict(faults),
        modelarts_keys=keys,
        port=args.port,
        runai_plane=PLANES[args.runai_plane] if args.runai_plane else None,
        listings=True,
    )
    with tempfile.TemporaryDirectory(prefix="diagnose-sim-") as folder, server:
        environment = simulator_environment(
            server.base_url, Path(folder), regions=modelarts_regions(bundles), modelarts_keys=keys
        )
        print(banner(server.base_url, environment, scenarios_of(pairs), served=len(bundles)), flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
    return 0

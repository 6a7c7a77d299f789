"""`diagnose sim`: serve a folder of bundles at the platforms' real paths (the simulator)."""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from cli.main import UsageError
from diagnosis.evidence.bundles import BundleError
from simulator.runai_planes import PLANES
from simulator.server import Fault, SimServer, load_bundle_dir, parse_fault


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "sim", help="serve bundles at the real Run:ai, Kubernetes and ModelArts paths"
    )
    parser.add_argument("--bundles", required=True, help="folder of evidence bundles (searched recursively)")
    parser.add_argument("--port", type=int, default=0, help="loopback port (default: a free one)")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds added to every call")
    parser.add_argument("--latency-op", action="append", default=[], metavar="OP=SECONDS")
    parser.add_argument("--fault", action="append", default=[], metavar="OP=STATUS[:RETRY_AFTER][xTIMES]")
    parser.add_argument(
        "--modelarts-keys", metavar="AK:SK", help="verify ModelArts signatures with these keys"
    )
    parser.add_argument(
        "--runai-plane",
        choices=sorted(PLANES),
        help="answer as this Run:ai control-plane release (token grants, sort fields, parameters, fields)",
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    if not Path(args.bundles).is_dir():
        raise UsageError(f"--bundles {args.bundles}: not a folder")
    latency: dict[str, float] = {}
    for item in args.latency_op:
        op, _, seconds = item.partition("=")
        try:
            latency[op] = float(seconds)
        except ValueError:
            raise UsageError(f"invalid --latency-op {item!r}: use OP=SECONDS") from None
    faults: dict[str, list[Fault]] = defaultdict(list)
    for item in args.fault:
        try:
            op, fault = parse_fault(item)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        faults[op].append(fault)
    keys: tuple[str, str] | None = None
    if args.modelarts_keys:
        access_key, _, secret_key = args.modelarts_keys.partition(":")
        keys = (access_key, secret_key)
    try:
        bundles = load_bundle_dir(args.bundles)
    except BundleError as exc:
        raise UsageError(str(exc)) from None
    server = SimServer(
        bundles,
        latency=latency,
        default_latency=args.latency,
        faults=dict(faults),
        modelarts_keys=keys,
        port=args.port,
        runai_plane=PLANES[args.runai_plane] if args.runai_plane else None,
    )
    with server:
        print(f"serving {len(bundles)} bundles at {server.base_url} (Ctrl-C to stop)", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
    return 0

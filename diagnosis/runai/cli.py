"""`diagnose runai`: diagnose one Run:ai workload live (read-only), as Markdown or JSON."""

from __future__ import annotations

import argparse
from typing import Any

import jmespath
from jmespath.exceptions import JMESPathError

from diagnosis import engine
from diagnosis.capture import build_bundle, write_bundle
from diagnosis.cli import UsageError, add_output_options, add_time_options, emit, resolve_now, run_async
from diagnosis.models import DiagnoseRequest, Diagnosis
from diagnosis.runai.messages import LANGUAGES
from diagnosis.runai.settings import ConfigError
from diagnosis.source import Recorder
from diagnosis.timeutil import parse_duration

EPILOG = """\
Identify the workload by id (Option A) or by exact name and project (Option B); the cluster id is
always required. Configuration: RUNAI_URL, RUNAI_CLIENT_ID, RUNAI_CLIENT_SECRET; optional Tier-2
Kubernetes evidence from KUBECONFIG (or ~/.kube/config, or the in-cluster service account).
"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "runai",
        help="diagnose a failed Run:ai workload (read-only)",
        description="Diagnose a failed Run:ai workload: classify it, quote the evidence, count recurrences.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--cluster-id", help="the cluster the workload runs on (required)")
    parser.add_argument("--workload-id", help="Option A: the workload id")
    parser.add_argument("--name", dest="workload_name", help="Option B: the exact workload name")
    parser.add_argument("--project", help="Option B: the workload's project")
    parser.add_argument(
        "--lookback", default="7d", help="history window for recurrence and metrics (default 7d)"
    )
    parser.add_argument(
        "--active",
        action="store_true",
        help="the symptom is active (CrashLoopBackOff, image pull, init, mount, failed pod) rather than a past failure",
    )
    parser.add_argument(
        "--capture", metavar="FILE", help="also write the masked evidence bundle of this run to FILE"
    )
    add_output_options(parser, langs=LANGUAGES)
    add_time_options(parser)
    parser.set_defaults(handler=handle)


def request_from_args(args: argparse.Namespace) -> DiagnoseRequest:
    if not args.cluster_id:
        raise UsageError("--cluster-id is required: the diagnosis never guesses the cluster")
    if not args.workload_id and not (args.workload_name and args.project):
        raise UsageError("give --workload-id, or --name together with --project")
    try:
        parse_duration(args.lookback)
    except ValueError as exc:
        raise UsageError(f"--lookback: {exc}") from None
    if args.query:
        # Checked before any call is made, and reported on one line.
        try:
            jmespath.compile(args.query)
        except JMESPathError as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise UsageError(f"invalid --query expression {args.query!r}: {reason}") from None
    return DiagnoseRequest(
        platform="runai",
        cluster_id=args.cluster_id,
        workload_id=args.workload_id,
        workload_name=args.workload_name,
        project=args.project,
        lookback=args.lookback,
        intent="active" if args.active else "failure",
    )


def handle(args: argparse.Namespace) -> int:
    request = request_from_args(args)
    # "now" for lookback windows and metric ranges; token expiry always uses the real clock.
    now = resolve_now(args.as_of)
    lang = engine.resolve_lang("runai", args.lang)

    async def run() -> tuple[Diagnosis, Recorder | None]:
        async with engine.live(request, capture=bool(args.capture)) as (source, recorder):
            diagnosis = await engine.diagnose_with(request, source, now=now, lang=lang)
        return diagnosis, recorder

    try:
        diagnosis, recorder = run_async(run)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    if args.capture and recorder is not None:
        try:
            write_bundle(args.capture, build_bundle(request, recorder, captured_at=now))
        except OSError as exc:
            raise UsageError(f"cannot write --capture {args.capture}: {exc.strerror or exc}") from None
    emit(diagnosis, args, lang=lang)
    return 0

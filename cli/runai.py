"""`diagnose runai`: diagnose one Run:ai workload live (read-only), as Markdown or JSON;
`diagnose runai scan`: every failed workload of a cluster or project within the lookback.

    diagnose runai --cluster-id C (--workload-id W | --name N --project P) [--lookback 7d] [--active]
                   [--format md|json] [--lang en|fr] [--query EXPR] [--as-of T] [--capture FILE] [--chart FILE]
    diagnose runai scan --cluster-id C [--project P] [--lookback 7d] [--format md|json] [--lang en|fr]
                        [--query EXPR] [--as-of T] [--concurrency N] [--rate R] [--chart FILE] [--progress]
                        [--bundle FILE | --capture FILE]
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, TextIO

from cli.chart import add_chart_option, add_scan_chart_option
from cli.main import ArgumentsError, UsageError, add_output_options, add_time_options
from cli.messages import said, say
from diagnosis.languages import LANGUAGES
from diagnosis.runai.defaults import DEFAULT_CONCURRENCY, DEFAULT_LOOKBACK, DEFAULT_RATE_PER_SECOND

if TYPE_CHECKING:
    from datetime import datetime

    from diagnosis.evidence.http.throttle import Throttle
    from diagnosis.evidence.source import Recorder
    from diagnosis.models import DiagnoseRequest, Diagnosis
    from diagnosis.runai.client import SourceMaker
    from diagnosis.runai.scan.result import ScanResult

EPILOG = """\
Identify the workload by id (Option A) or by exact name and project (Option B); the cluster id is
always required. Configuration: RUNAI_URL, RUNAI_CLIENT_ID, RUNAI_CLIENT_SECRET; optional Tier-2
Kubernetes evidence from KUBECONFIG (or ~/.kube/config, or the in-cluster service account).
Every diagnosis ends within DIAGNOSE_DEADLINE_SECONDS (default 40). Exit status: 0 when a report was
produced; 3 when Run:ai could not be reached or rejected the credentials (outcome unreachable or
auth_failed: nothing was diagnosed); 2 for a usage error or missing configuration.
"""
SCAN_EPILOG = """\
Each workload is diagnosed by id as `diagnose runai --workload-id` would; the progress bar is drawn
on stderr when it is a terminal (or with --progress), else one final line is printed. Configuration
as for `diagnose runai`: RUNAI_URL, RUNAI_CLIENT_ID, RUNAI_CLIENT_SECRET, optional KUBECONFIG.
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
    add_chart_option(parser)
    parser.set_defaults(handler=handle)

    actions = parser.add_subparsers(dest="runai_action", metavar="{scan}")
    scan = actions.add_parser(
        "scan",
        help="diagnose every failed workload of a cluster (or project) within the lookback",
        description="List the Failed workloads of a cluster or project whose phase changed within the "
        "lookback (every page), diagnose each one concurrently under one request-rate limit, and "
        "summarise them by category and by recurring cause (same image, node or error signature).",
        epilog=SCAN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    scan.add_argument("--cluster-id", help="the cluster to scan (required)")
    scan.add_argument("--project", help="only this project's workloads")
    scan.add_argument(
        "--lookback", default=DEFAULT_LOOKBACK, help="how far back a failure counts (default 7d)"
    )
    scan.add_argument(
        "--concurrency", type=int, default=DEFAULT_CONCURRENCY, help="workloads diagnosed at once (default 8)"
    )
    scan.add_argument(
        "--rate",
        type=float,
        default=DEFAULT_RATE_PER_SECOND,
        help="API requests per second for the whole scan; a 429 pauses every request and halves it (default 10)",
    )
    scan.add_argument(
        "--progress",
        action="store_true",
        help="draw the progress bar on stderr even when it is not a terminal",
    )
    scan.add_argument("--bundle", metavar="FILE", help="scan offline from an evidence bundle instead")
    scan.add_argument(
        "--capture",
        metavar="FILE",
        help="also write the masked evidence bundle of the whole scan to FILE (replayed by --bundle, "
        "and by the Slack bot's `--bundles` for `/diagnose scan`)",
    )
    add_output_options(scan, langs=LANGUAGES)
    add_time_options(scan)
    add_scan_chart_option(scan)
    scan.set_defaults(handler=handle_scan)


def request_from_args(args: argparse.Namespace) -> DiagnoseRequest:
    from diagnosis.models import DiagnoseRequest

    if not args.cluster_id:
        raise ArgumentsError(say("error.runai_cluster"))
    if not args.workload_id and not (args.workload_name and args.project):
        raise ArgumentsError(say("error.runai_identifier"))
    _check_lookback_and_query(args)
    return DiagnoseRequest(
        platform="runai",
        cluster_id=args.cluster_id,
        workload_id=args.workload_id,
        workload_name=args.workload_name,
        project=args.project,
        lookback=args.lookback,
        intent="active" if args.active else "failure",
    )


def _check_lookback_and_query(args: argparse.Namespace) -> None:
    """Both checked before any call is made, each reported on one line."""
    from diagnosis.timeutil import parse_duration

    try:
        parse_duration(args.lookback)
    except ValueError as exc:
        raise ArgumentsError(say("error.lookback", reason=exc)) from None
    _check_query(args.query)


def _check_query(query: str | None) -> None:
    """Checked before any call is made, and reported on one line."""
    if not query:
        return
    import jmespath
    from jmespath.exceptions import JMESPathError

    try:
        jmespath.compile(query)
    except JMESPathError as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ArgumentsError(say("error.query", query=repr(query), reason=reason)) from None


def handle(args: argparse.Namespace) -> int:
    from cli.chart import write_chart
    from cli.main import emit, exit_status, resolve_now, run_async
    from cli.support import print_note, save_capture
    from diagnosis import engine
    from diagnosis.runai.settings import ConfigError

    request = request_from_args(args)
    # "now" for lookback windows and metric ranges; token expiry always uses the real clock.
    now = resolve_now(args.as_of)
    lang = engine.resolve_lang("runai", args.lang)
    # The memory chart is drawn from the recorded answers: --chart records them as --capture does.
    record = bool(args.capture or args.chart)

    async def run() -> tuple[Diagnosis, Recorder | None]:
        async with engine.live(request, capture=record) as (source, recorder):
            diagnosis = await engine.diagnose_with(request, source, now=now, lang=lang)
        return diagnosis, recorder

    try:
        diagnosis, recorder = run_async(run)
    except ConfigError as exc:
        raise UsageError(said(exc)) from None
    if args.capture and recorder is not None:
        save_capture(args.capture, request, recorder, captured_at=now)
    emit(diagnosis, args, lang=lang)
    print_note(write_chart(args, diagnosis, recorder.exchanges if recorder is not None else [], lang=lang))
    return exit_status(diagnosis)


class ProgressBar:
    """The scan's progress on stderr: a bar redrawn in place on a terminal (or with --progress),
    else one final line."""

    WIDTH = 30

    def __init__(self, stream: TextIO, *, live: bool) -> None:
        self.stream = stream
        self.live = live
        self.drawn = False

    def __call__(self, done: int, total: int) -> None:
        if self.live:
            filled = self.WIDTH * done // total if total else self.WIDTH
            bar = "#" * filled + "-" * (self.WIDTH - filled)
            self.stream.write("\r" + say("scan.runai.progress", bar=bar, done=done, total=total) + "\033[K")
            self.stream.flush()
            self.drawn = True

    def listing(self) -> None:
        if self.live:
            self.stream.write(say("scan.runai.listing") + "\033[K")
            self.stream.flush()
            self.drawn = True

    def finish(self, result: ScanResult) -> None:
        """End the bar; off a terminal, the one line that says how the scan went."""
        if self.live and self.drawn:
            self.stream.write("\n")
        if result.failure is not None:
            line = say("scan.runai.not_listed")
        else:
            line = say("scan.runai.done", done=len(result.results), total=len(result.results))
        if result.throttled:
            line = say("scan.runai.throttled", line=line, count=result.throttled)
        if not self.live or result.throttled or result.failure is not None:
            self.stream.write(line + "\n")
        self.stream.flush()


def _scan_now(args: argparse.Namespace, bundle_captured_at: datetime | None) -> datetime:
    """--as-of (or DIAGNOSE_NOW); offline, the bundle's own moment; else the clock."""
    from cli.main import resolve_now

    if args.as_of or os.environ.get("DIAGNOSE_NOW") or bundle_captured_at is None:
        return resolve_now(args.as_of)
    return bundle_captured_at


def handle_scan(args: argparse.Namespace) -> int:
    from cli.chart import write_scan_chart
    from cli.main import run_async
    from cli.support import check_scan_limits, emit_scan, print_note, read_bundle, save_capture
    from diagnosis import engine
    from diagnosis.evidence.source import Recorder
    from diagnosis.models import DiagnoseRequest
    from diagnosis.runai import client
    from diagnosis.runai.scan.listing import list_filter
    from diagnosis.runai.scan.markdown import render_scan_markdown
    from diagnosis.runai.scan.run import live_scan_sources, scan_with
    from diagnosis.runai.settings import ConfigError

    if not args.cluster_id:
        raise ArgumentsError(say("error.runai_scan_cluster"))
    check_scan_limits(args)
    _check_lookback_and_query(args)
    try:
        list_filter(cluster_id=args.cluster_id, project=args.project, since=None)
    except ValueError as exc:
        raise ArgumentsError(str(exc)) from None
    if args.bundle and args.capture:
        raise ArgumentsError(say("error.capture_with_bundle"))
    lang = engine.resolve_lang("runai", args.lang)
    bundle = read_bundle(args.bundle, platform="runai") if args.bundle else None
    # Every answer of the scan (the listing, then each workload's calls) in one bundle naming no job.
    recorder = Recorder() if args.capture else None
    now = _scan_now(args, bundle.captured_at if bundle is not None else None)
    bar = ProgressBar(sys.stderr, live=bool(args.progress or sys.stderr.isatty()))

    @asynccontextmanager
    async def sources() -> AsyncIterator[tuple[SourceMaker, Throttle | None]]:
        if bundle is not None:
            async with client.replay_sources(bundle) as make_source:
                yield make_source, None
            return
        async with live_scan_sources(rate_per_second=args.rate, cluster_id=args.cluster_id) as (
            make_source,
            throttle,
        ):
            yield make_source, throttle

    async def run() -> ScanResult:
        async with sources() as (make_source, throttle):
            bar.listing()
            return await scan_with(
                make_source,
                cluster_id=args.cluster_id,
                project=args.project,
                lookback=args.lookback,
                now=now,
                concurrency=args.concurrency,
                progress=bar,
                lang=lang,
                throttle=throttle,
                recorder=recorder,
            )

    try:
        result: ScanResult = run_async(run)
    except ConfigError as exc:
        raise UsageError(said(exc)) from None
    bar.finish(result)
    if recorder is not None:
        scope = DiagnoseRequest(
            platform="runai", cluster_id=args.cluster_id, project=args.project, lookback=args.lookback
        )
        save_capture(args.capture, scope, recorder, captured_at=now)
    emit_scan(result, args, markdown=lambda: render_scan_markdown(result, lang=lang))
    print_note(write_scan_chart(args, result.to_json_dict(), lang=lang))
    return 0

"""`diagnose modelarts …`: one job, a scan of abnormal jobs, or the on-demand full-log link.

    diagnose modelarts (--job-id ID | --job-name NAME) [--region R] [--format md|json] [--lang …]
                       [--query EXPR] [--capture FILE] [--as-of TIME] [--profile NAME] [--chart FILE]
    diagnose modelarts scan [--region R] [--format md|json] [--lang …] [--query EXPR] [--filter EXPR]
                            [--concurrency N] [--rate PER_SECOND] [--bundle FILE | --capture FILE]
                            [--chart FILE]
    diagnose modelarts log-url --job-id ID --task TASK [--region R] [--kind download|preview]

One job needs its id or its name; the region-wide scan of abnormal jobs (the runbook's phase 1) is
`diagnose modelarts scan`.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, Any

from cli.chart import add_chart_option, add_scan_chart_option
from cli.main import EXIT_STATUS_HELP, ArgumentsError, UsageError, add_output_options, add_time_options
from cli.messages import say
from diagnosis.languages import LANGUAGES
from diagnosis.modelarts.defaults import DEFAULT_CONCURRENCY, DEFAULT_FILTER, DEFAULT_RATE_PER_SECOND

if TYPE_CHECKING:
    from diagnosis.modelarts.client import SourceMaker
    from diagnosis.modelarts.scan import ScanResult
    from diagnosis.models import Diagnosis, Exchange
    from diagnosis.scan import ScanProgress


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "modelarts",
        help="diagnose a ModelArts training job (or scan a region for abnormal ones)",
        description="Read-only diagnosis of Huawei Cloud ModelArts training jobs (AK/SK from the "
        "HUAWEICLOUD_SDK_* variables, ~/.huaweicloud/credentials or a KooCLI profile).",
        epilog="Every diagnosis ends within DIAGNOSE_DEADLINE_SECONDS (default 40). " + EXIT_STATUS_HELP,
    )
    target = parser.add_mutually_exclusive_group()
    target.add_argument("--job-id", help="the training job's full id")
    target.add_argument("--job-name", help="the training job's name (exact, else a case-insensitive part)")
    _add_common(parser)
    add_output_options(parser, langs=LANGUAGES)
    add_time_options(parser)
    parser.add_argument("--capture", metavar="FILE", help="also write the masked evidence bundle to FILE")
    add_chart_option(parser)
    parser.set_defaults(handler=handle_diagnose)

    actions = parser.add_subparsers(dest="modelarts_action", metavar="{scan,log-url}")
    scan = actions.add_parser("scan", help="diagnose every Failed/Timeout/Abnormal job of a region")
    _add_common(scan)
    add_output_options(scan, langs=LANGUAGES)
    add_time_options(scan)
    _add_scan_options(scan)
    scan.add_argument(
        "--capture",
        metavar="FILE",
        help="also write the masked evidence bundle of the whole scan to FILE (replayed by --bundle, "
        "and by the Slack bot's `--bundles` for `/diagnose scan`)",
    )
    add_scan_chart_option(scan)
    scan.set_defaults(handler=handle_scan)

    log_url = actions.add_parser(
        "log-url",
        help="print a task's 5-minute full-log link (needs modelarts:trainJob:logExport)",
        description="Fetch the pre-signed OBS link to a task's whole log (valid about 5 minutes). "
        "It is printed to stdout only: treat it as a credential.",
        epilog=LOG_URL_EXIT_STATUS,
    )
    log_url.add_argument("--job-id", required=True, help="the training job's full id")
    log_url.add_argument("--task", required=True, help="the task id, e.g. worker-0")
    log_url.add_argument("--kind", choices=("download", "preview"), default="download")
    _add_common(log_url)
    log_url.set_defaults(handler=handle_log_url)


def _add_common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--region", help="Huawei Cloud region (default: the KooCLI profile's, else cn-north-4)"
    )
    parser.add_argument("--profile", help="KooCLI profile to read region and project id from")


def _add_scan_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--filter",
        default=DEFAULT_FILTER,
        metavar="EXPR",
        help="JMESPath over the job list selecting the jobs to diagnose (default: the runbook's)",
    )
    parser.add_argument("--concurrency", type=int, default=DEFAULT_CONCURRENCY, help="jobs diagnosed at once")
    parser.add_argument(
        "--rate", type=float, default=DEFAULT_RATE_PER_SECOND, help="API requests per second, whole scan"
    )
    parser.add_argument("--bundle", metavar="FILE", help="scan offline from an evidence bundle instead")


def _region(args: argparse.Namespace) -> str:
    from diagnosis.modelarts.credentials import default_region
    from diagnosis.modelarts.settings import ConfigError

    try:
        return str(args.region or default_region(profile=args.profile))
    except ConfigError as exc:
        raise UsageError(str(exc)) from None


LOG_URL_EXIT_STATUS = (
    "Exit status: 0 when the link was printed; 3 when no link could be obtained (ModelArts could not "
    "be reached, refused the keys or the logExport permission, or answered without a link: the line "
    "on stderr says which); 2 for a usage error or missing configuration."
)


def handle_diagnose(args: argparse.Namespace) -> int:
    if not args.job_id and not args.job_name:
        raise ArgumentsError(say("error.modelarts_identifier"))
    from cli.chart import write_chart
    from cli.main import emit, exit_status, resolve_now, run_async
    from cli.support import print_note
    from diagnosis import engine
    from diagnosis.evidence.capture import build_bundle, write_bundle
    from diagnosis.modelarts.settings import ConfigError
    from diagnosis.models import DiagnoseRequest

    lang = engine.resolve_lang("modelarts", args.lang)
    now = resolve_now(args.as_of)
    request = DiagnoseRequest(
        platform="modelarts", job_id=args.job_id, job_name=args.job_name, region=_region(args)
    )

    # The memory chart is drawn from the recorded answers: --chart records them as --capture does.
    record = bool(args.capture or args.chart)
    exchanges: list[Exchange] = []

    async def run() -> Diagnosis:
        async with engine.live(request, capture=record, profile=args.profile) as (
            source,
            recorder,
        ):
            diagnosis = await engine.diagnose_with(request, source, now=now, lang=lang)
        if recorder is not None:
            exchanges.extend(recorder.exchanges)
        if args.capture and recorder is not None:
            # Concurrent answers arrive in any order: keep the bundle in call order, as a reader expects.
            first_call = {op: index for index, op in reversed(list(enumerate(source.calls)))}
            recorder.exchanges.sort(key=lambda exchange: first_call.get(exchange.op, len(first_call)))
            write_bundle(args.capture, build_bundle(request, recorder, captured_at=now))
        return diagnosis

    try:
        diagnosis = run_async(run)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(say("error.cannot_write", path=args.capture, reason=exc.strerror or exc)) from None
    emit(diagnosis, args, lang=lang)
    print_note(write_chart(args, diagnosis, exchanges, lang=lang))
    return exit_status(diagnosis)


def _progress_printer() -> Callable[[ScanProgress], None]:
    """One progress line on stderr: rewritten in place on a terminal, start and end otherwise."""
    from diagnosis.masking import mask

    live = sys.stderr.isatty()

    def show(progress: ScanProgress) -> None:
        if progress.total == 0:
            return
        if live:
            name = f" {mask(progress.job_name)}" if progress.job_name else ""
            end = "\n" if progress.done == progress.total else ""
            print(
                "\r"
                + say("scan.modelarts.progress", done=progress.done, total=progress.total)
                + f"{name}\033[K",
                end=end,
                file=sys.stderr,
                flush=True,
            )
        elif progress.done in (0, progress.total):
            print(
                say("scan.modelarts.progress", done=progress.done, total=progress.total),
                file=sys.stderr,
                flush=True,
            )

    return show


def handle_scan(args: argparse.Namespace) -> int:
    from cli.chart import write_scan_chart
    from cli.main import resolve_now, run_async
    from cli.support import check_scan_limits, emit_scan, print_note, read_bundle, save_capture
    from diagnosis import engine
    from diagnosis.evidence.http.throttle import Throttle
    from diagnosis.evidence.source import Recorder
    from diagnosis.modelarts import client
    from diagnosis.modelarts.scan import render_scan_markdown, run_scan
    from diagnosis.modelarts.settings import ConfigError
    from diagnosis.models import DiagnoseRequest

    lang = engine.resolve_lang("modelarts", args.lang)
    check_scan_limits(args)
    if args.bundle and args.capture:
        raise ArgumentsError(say("error.capture_with_bundle"))
    bundle = read_bundle(args.bundle, platform="modelarts") if args.bundle else None
    # Offline, "now" is the moment the scan was recorded unless --as-of (or DIAGNOSE_NOW) says.
    pinned = args.as_of or os.environ.get("DIAGNOSE_NOW")
    now = bundle.captured_at if bundle is not None and not pinned else resolve_now(args.as_of)
    # Every answer of the scan (the listing, then each job's calls) in one bundle naming no job.
    recorder = Recorder() if args.capture else None

    def sources() -> AbstractAsyncContextManager[SourceMaker]:
        if bundle is not None:
            return client.replay_sources(bundle)
        return client.live_sources(
            region=_region(args), throttle=Throttle(args.rate), profile=args.profile, recorder=recorder
        )

    @asynccontextmanager
    async def opened() -> AsyncIterator[tuple[SourceMaker, str | None]]:
        async with sources() as make_source:
            yield make_source, str(make_source.fixed_args.get("region") or "") or None

    async def run() -> ScanResult:
        async with opened() as (make_source, region):
            return await run_scan(
                make_source,
                region=region,
                now=now,
                lang=lang,
                concurrency=args.concurrency,
                job_filter=args.filter,
                progress=_progress_printer(),
            )

    try:
        result = run_async(run)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if recorder is not None:
        scope = DiagnoseRequest(platform="modelarts", region=result.region)
        save_capture(args.capture, scope, recorder, captured_at=now)
    emit_scan(result, args, markdown=lambda: render_scan_markdown(result, lang=lang))
    print_note(write_scan_chart(args, result.to_json_dict(), lang=lang))
    return 0


def handle_log_url(args: argparse.Namespace) -> int:
    from cli.main import EXIT_NOT_DIAGNOSED, run_async
    from diagnosis.masking import mask
    from diagnosis.modelarts.logurl import LogUrlError, fetch_log_url
    from diagnosis.modelarts.settings import ConfigError

    async def run() -> str:
        return await fetch_log_url(
            job_id=args.job_id, task_id=args.task, region=_region(args), kind=args.kind, profile=args.profile
        )

    try:
        link = run_async(run)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    except LogUrlError as exc:
        print(say("error.log_url", reason=mask(str(exc))), file=sys.stderr)
        return EXIT_NOT_DIAGNOSED
    # The one string exempt from masking (the link is what was asked for): stdout only, never logged.
    print(link)
    return 0


__all__ = ["register"]

"""What the `diagnose runai` and `diagnose modelarts` subcommands share beyond cli/main.py's
options: reading a bundle, checking a scan's limits, printing a scan, and notes on stderr."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from cli.main import ArgumentsError, UsageError
from cli.messages import say
from diagnosis.bundle import Bundle
from diagnosis.evidence.bundles import BundleError, load_bundle
from diagnosis.models import Platform
from diagnosis.render import QueryError, apply_query

if TYPE_CHECKING:
    from diagnosis.evidence.source import Recorder
    from diagnosis.models import DiagnoseRequest
    from diagnosis.scan import ScanResultBase

PLATFORM_NAMES: dict[Platform, str] = {"runai": "Run:ai", "modelarts": "ModelArts"}


def read_bundle(path: str, *, platform: Platform | None = None) -> Bundle:
    """The bundle at `path` (of `platform` when given); a usage error says why it cannot serve."""
    try:
        bundle = load_bundle(path)
    except BundleError as exc:
        raise UsageError(str(exc)) from None
    if platform is not None and bundle.platform != platform:
        raise UsageError(
            say(
                "error.wrong_platform", path=path, platform=bundle.platform, expected=PLATFORM_NAMES[platform]
            )
        )
    return bundle


def check_scan_limits(args: argparse.Namespace) -> None:
    """`--concurrency` and `--rate`, checked before any call is made."""
    if args.concurrency < 1 or args.rate <= 0:
        raise ArgumentsError(say("error.scan_limits"))


def emit_scan(result: ScanResultBase, args: argparse.Namespace, *, markdown: Callable[[], str]) -> None:
    """Print a scan: `--query` over its scan/v1 JSON, else the JSON or the Markdown."""
    if args.query:
        try:
            selected = apply_query(result.to_json_dict(), args.query)
        except QueryError as exc:
            raise ArgumentsError(str(exc)) from None
        print(json.dumps(selected, ensure_ascii=False, indent=2))
    elif args.format == "json":
        print(json.dumps(result.to_json_dict(), ensure_ascii=False, indent=2))
    else:
        print(markdown())


def print_note(note: str | None) -> None:
    """A one-line note (a chart written, or why not) on stderr, when there is one."""
    if note:
        print(note, file=sys.stderr)


def save_capture(path: str, request: DiagnoseRequest, recorder: Recorder, *, captured_at: datetime) -> None:
    """Write what `--capture` recorded as an evidence bundle; a file that cannot be written is a
    usage error naming it, never a traceback."""
    from diagnosis.evidence.capture import build_bundle, write_bundle

    try:
        write_bundle(path, build_bundle(request, recorder, captured_at=captured_at))
    except OSError as exc:
        raise UsageError(say("error.cannot_write_capture", path=path, reason=exc.strerror or exc)) from None

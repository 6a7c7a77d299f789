"""`diagnose replay BUNDLE`: the same diagnosis offline, no credentials, no network."""

from __future__ import annotations

import argparse
from typing import Any

from cli.chart import add_chart_option
from cli.main import add_output_options
from diagnosis.languages import LANGUAGES


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("replay", help="diagnose offline from an evidence bundle")
    parser.add_argument("bundle", help="an evidence-bundle/v1 JSON file")
    add_output_options(parser, langs=LANGUAGES)
    add_chart_option(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from cli.chart import write_chart
    from cli.main import emit, exit_status, run_async
    from cli.support import print_note, read_bundle
    from diagnosis import engine

    bundle = read_bundle(args.bundle)
    lang = engine.resolve_lang(bundle.platform, args.lang)
    diagnosis = run_async(lambda: engine.replay(bundle, lang=lang))
    emit(diagnosis, args, lang=lang)
    print_note(write_chart(args, diagnosis, bundle.exchanges, lang=lang))
    return exit_status(diagnosis)

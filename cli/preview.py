"""`diagnose preview BUNDLE --out DIR`: the Slack report of a bundle, reviewed without Slack.

Replays the bundle, builds the very message the bot posts (blocks.report.report_message with the
bot's buttons), and writes DIR/report.html (self-contained), DIR/report.png (headless Chromium)
and DIR/memory.png when memory samples were recorded (the chart the bot puts in the thread).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cli.main import ArgumentsError, UsageError
from cli.messages import say
from diagnosis.languages import LANGUAGES

if TYPE_CHECKING:
    from blocks.kit import Block, SlackMessage
    from diagnosis.bundle import Bundle
    from diagnosis.models import Diagnosis

# What a button's value would hold in Slack (a thread reference); never shown.
PREVIEW_VALUE = "preview"


@dataclass(frozen=True)
class PreviewFiles:
    html: Path
    png: Path | None
    memory_png: Path | None
    notes: tuple[str, ...] = ()


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "preview",
        help="render a bundle's Slack report as HTML and a PNG screenshot",
        description="Replay a bundle and render the Slack report the bot would post, as "
        "report.html and report.png (headless Chromium), plus memory.png when memory was sampled.",
    )
    parser.add_argument("bundle", help="an evidence-bundle/v1 JSON file")
    parser.add_argument("--out", required=True, metavar="DIR", help="directory for the files (created)")
    parser.add_argument("--lang", choices=LANGUAGES, default=None, help="language of the report")
    parser.add_argument("--width", type=int, default=1000, help="screenshot width in pixels (default 1000)")
    parser.set_defaults(handler=handle)


def bot_message(diagnosis: Diagnosis, *, lang: str) -> SlackMessage:
    """The report message with the buttons the bot adds (conversation.py: retry or re-run, log link)."""
    from blocks.prompts import log_link_button, rerun_button, retry_button
    from blocks.report import report_message

    buttons: list[Block] = []
    if diagnosis.outcome == "permission_denied":
        buttons.append(retry_button(PREVIEW_VALUE, lang=lang))
    else:
        buttons.append(rerun_button(PREVIEW_VALUE, lang=lang))
    if diagnosis.platform == "modelarts" and diagnosis.target.job_id:
        buttons.append(log_link_button(PREVIEW_VALUE, lang=lang))
    return report_message(diagnosis, lang=lang, buttons=buttons)


def write_preview(
    bundle: Bundle,
    diagnosis: Diagnosis,
    out_dir: Path,
    *,
    lang: str,
    width: int = 1000,
    take_screenshot: bool = True,
) -> PreviewFiles:
    """Write report.html, memory.png (when there is a series) and report.png into `out_dir`."""
    from blocks.preview.chromium import screenshot
    from blocks.preview.html import ThreadFile, render_html
    from diagnosis.render.charts.memory import render_memory_chart

    out_dir.mkdir(parents=True, exist_ok=True)
    notes: list[str] = []
    chart = render_memory_chart(diagnosis, bundle.exchanges, lang=lang)
    memory_png: Path | None = None
    thread_files: list[ThreadFile] = []
    if chart.png is not None:
        memory_png = out_dir / "memory.png"
        memory_png.write_bytes(chart.png)
        thread_files.append(ThreadFile(title="memory.png: memory use vs limit", png=chart.png))
    else:
        notes.append(f"chart: {chart.reason}, no memory.png written")
    name = diagnosis.target.name or diagnosis.target.workload_id or diagnosis.target.job_id or ""
    page = render_html(
        bot_message(diagnosis, lang=lang).payload(),
        title=f"Diagnosis report {name}".strip(),
        thread_files=thread_files,
    )
    html_path = out_dir / "report.html"
    html_path.write_text(page, encoding="utf-8")
    png_path: Path | None = None
    if take_screenshot:
        note = missing_fonts_note(lang)
        if note:
            notes.append(note)
        png_path = out_dir / "report.png"
        screenshot(html_path, png_path, width=width)
    return PreviewFiles(html=html_path, png=png_path, memory_png=memory_png, notes=tuple(notes))


def missing_fonts_note(lang: str) -> str | None:
    """One line for stderr (in the command's language) when the screenshot cannot show `lang`'s
    text, or when that could not be checked."""
    from blocks.preview.fonts import font_package, fonts_cover

    covered = fonts_cover(lang)
    if covered:
        return None
    language = say(f"language.{lang}")
    if covered is None:
        return say("fonts.unchecked", language=language)
    return say("fonts.missing", language=language, package=font_package(lang))


def handle(args: argparse.Namespace) -> int:
    from blocks.preview.chromium import PreviewError
    from cli.main import run_async
    from cli.support import read_bundle
    from diagnosis import engine

    bundle = read_bundle(args.bundle)
    if args.width < 200 or args.width > 4000:
        raise ArgumentsError(say("error.preview_width"))
    lang = engine.resolve_lang(bundle.platform, args.lang)
    diagnosis = run_async(lambda: engine.replay(bundle, lang=lang))
    out_dir = Path(args.out)
    try:
        files = write_preview(bundle, diagnosis, out_dir, lang=lang, width=args.width)
    except PreviewError as exc:
        raise UsageError(say("error.preview_written", reason=exc, path=out_dir / "report.html")) from None
    except OSError as exc:
        raise UsageError(
            say("error.cannot_write_into", folder=out_dir, reason=exc.strerror or type(exc).__name__)
        ) from None
    for note in files.notes:
        print(note, file=sys.stderr)
    for path in (files.html, files.png, files.memory_png):
        if path is not None:
            print(path)
    return 0

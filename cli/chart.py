"""`--chart FILE` for the commands that produce a diagnosis (memory use vs limit) or a scan (failures
by category). Each writer returns a one-line note for stderr and never raises."""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cli.messages import say

if TYPE_CHECKING:
    from diagnosis.models import Diagnosis, Exchange
    from diagnosis.render.charts.figure import ChartResult


def add_chart_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--chart",
        metavar="FILE",
        default=None,
        help="also write a PNG of memory use vs the limit when memory samples were recorded",
    )


def add_scan_chart_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--chart",
        metavar="FILE",
        default=None,
        help="also write a PNG of the failures by category and the causes that recur",
    )


def write_chart(
    args: argparse.Namespace, diagnosis: Diagnosis, exchanges: Sequence[Exchange], *, lang: str
) -> str | None:
    """Write the memory chart (in the report's language) to `--chart FILE`; a one-line note for
    stderr (None without `--chart`)."""
    path = getattr(args, "chart", None)
    if not path:
        return None
    from diagnosis.render.charts.memory import render_memory_chart  # matplotlib, only for a chart

    chart = render_memory_chart(diagnosis, exchanges, lang=lang)
    return _write(chart, Path(path), written="chart.written.memory")


def write_scan_chart(
    args: argparse.Namespace, scan_result_json: Mapping[str, Any], *, lang: str
) -> str | None:
    """Write the scan summary chart (in the report's language) to `--chart FILE`; a one-line note
    for stderr."""
    path = getattr(args, "chart", None)
    if not path:
        return None
    from diagnosis.render.charts.scan import render_scan_chart  # matplotlib, only for a chart

    return _write(render_scan_chart(scan_result_json, lang=lang), Path(path), written="chart.written.scan")


def _write(result: ChartResult, path: Path, *, written: str) -> str:
    if result.png is None:
        return say("chart.not_written", reason=result.reason)
    try:
        path.write_bytes(result.png)
    except OSError as exc:
        return say("chart.cannot_write", path=path, reason=exc.strerror or type(exc).__name__)
    return say(written, path=path)

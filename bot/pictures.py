"""Pictures in a thread: memory use vs limit under a report, failures by category under a scan.

The charts are drawn by `diagnosis.render.charts` from what the engine recorded only; with nothing to draw
(no samples, matplotlib not installed) nothing is posted: the report already says why.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from slack_sdk import WebClient

from blocks.labels import label
from bot.messaging import upload_file
from diagnosis.masking import mask
from diagnosis.models import Diagnosis, Exchange
from diagnosis.render.charts.figure import ChartResult
from diagnosis.render.charts.memory import render_memory_chart
from diagnosis.render.charts.scan import render_scan_chart

log = logging.getLogger("diagnose.bot")


def post_memory_chart(
    client: WebClient,
    diagnosis: Diagnosis,
    exchanges: Sequence[Exchange],
    *,
    channel: str,
    thread_ts: str | None,
    lang: str,
) -> bool:
    """The memory-vs-limit PNG into the report's thread; False when there is none to post."""
    chart = _drawn(lambda: render_memory_chart(diagnosis, exchanges, lang=lang), what="memory chart")
    if chart is None or chart.png is None:
        return False
    name = diagnosis.target.name or diagnosis.target.workload_id or diagnosis.target.job_id or "job"
    return upload_file(
        client,
        channel=channel,
        thread_ts=thread_ts,
        data=chart.png,
        filename=f"memory-{_file_safe(name)}.png",
        title=label("memory_chart_title", lang, name=name),
        alt_text=label("memory_chart_alt", lang, name=name),
    )


def post_scan_chart(
    client: WebClient, scan: Mapping[str, Any], *, channel: str, thread_ts: str | None, lang: str
) -> bool:
    """Failures by category (and causes shared by several jobs) into the scan's thread."""
    chart = _drawn(lambda: render_scan_chart(scan, lang=lang), what="scan chart")
    if chart is None or chart.png is None:
        return False
    return upload_file(
        client,
        channel=channel,
        thread_ts=thread_ts,
        data=chart.png,
        filename=f"{scan_file_stem(scan)}.png",
        title=label("scan_chart_title", lang, region=scan_place(scan)),
        alt_text=label("scan_chart_alt", lang, region=scan_place(scan)),
    )


def scan_place(scan: Mapping[str, Any]) -> str:
    """What a scan covered, in words: the ModelArts region, or the Run:ai cluster (and project)."""
    if scan.get("platform") == "runai":
        parts = [str(scan.get("cluster_id") or ""), str(scan.get("project") or "")]
        return " / ".join(part for part in parts if part)
    return str(scan.get("region") or "")


def scan_file_stem(scan: Mapping[str, Any]) -> str:
    """`scan-modelarts-cn-north-4`, `scan-runai-<cluster>[-<project>]`: names of the scan's files."""
    platform = _file_safe(str(scan.get("platform") or "scan"))
    if scan.get("platform") == "runai":
        parts = [str(scan.get("cluster_id") or "cluster"), str(scan.get("project") or "")]
        return f"scan-{platform}-" + "-".join(_file_safe(part) for part in parts if part)
    return f"scan-{platform}-{_file_safe(str(scan.get('region') or 'default'))}"


def _drawn(draw: Callable[[], ChartResult], *, what: str) -> ChartResult | None:
    """A chart, or None; a drawing bug never costs the report (it is already posted)."""
    try:
        chart: ChartResult = draw()
    except Exception as exc:
        log.warning("%s not drawn: %s", what, mask(f"{type(exc).__name__}: {exc}"))
        return None
    if not chart.made:
        log.info("no %s: %s", what, mask(chart.reason or "nothing to draw"))
    return chart


def _file_safe(name: str) -> str:
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in name)
    return safe[:80] or "chart"

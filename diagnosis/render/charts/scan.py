"""The scan chart: failed jobs by category, and the causes that recur across them (from scan/v1)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from diagnosis.masking import mask
from diagnosis.render.charts.figure import (
    BAR_COLOUR,
    BAR_HIGHLIGHT,
    CATALOGUE,
    DRAWING,
    NO_MATPLOTLIB,
    ChartResult,
    FigureData,
    NoMatplotlib,
    load_matplotlib,
    new_figure,
    png_bytes,
    rc_context,
)
from diagnosis.render.i18n import BASE_LANGUAGE, Translator

NO_SCAN_RESULTS = "the scan found no jobs"


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _dicts(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, list):
        for item in value:
            if isinstance(item, dict):
                yield item


@dataclass(frozen=True)
class RecurringCause:
    kind: str  # what the jobs share: "signature"
    value: str
    count: int
    jobs: tuple[str, ...] = ()


def scan_counts(scan: Mapping[str, Any]) -> dict[str, int]:
    """`by_category` of scan/v1 (failed jobs per category); rebuilt from `results` when absent."""
    by_category = scan.get("by_category")
    counts: dict[str, int] = {}
    if isinstance(by_category, dict) and by_category:
        for key, value in by_category.items():
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                counts[str(key)] = value
        return counts
    for result in _dicts(scan.get("results")):
        key = str(result.get("category") or result.get("outcome") or "UNKNOWN")
        counts[key] = counts.get(key, 0) + 1
    return counts


def recurring_causes(scan: Mapping[str, Any]) -> list[RecurringCause]:
    """Causes shared by two or more diagnosed jobs, most frequent first.

    The scan's own `recurring_causes` (same image, node or error signature; diagnosis/scan/recurring.py)
    when it has them; otherwise the results are grouped by `signature`.
    """
    listed: list[RecurringCause] = []
    for cause in _dicts(scan.get("recurring_causes")):
        names = cause.get("workloads")
        jobs = tuple(str(name) for name in names if name is not None) if isinstance(names, list) else ()
        count = cause.get("count")
        if cause.get("value") is None:
            continue
        listed.append(
            RecurringCause(
                kind=str(cause.get("kind") or "?"),
                value=str(cause.get("value")),
                count=count if isinstance(count, int) and not isinstance(count, bool) else len(jobs),
                jobs=jobs,
            )
        )
    if listed:
        return sorted(listed, key=lambda cause: -cause.count)
    jobs_by_signature: dict[str, list[str]] = {}
    for result in _dicts(scan.get("results")):
        signature = result.get("signature")
        if not signature or result.get("outcome", "diagnosed") != "diagnosed":
            continue
        target = _mapping(result.get("target"))
        name = str(target.get("name") or target.get("job_id") or target.get("workload_id") or "?")
        jobs_by_signature.setdefault(str(signature), []).append(name)
    causes = [
        RecurringCause(kind="signature", value=signature, count=len(jobs), jobs=tuple(jobs))
        for signature, jobs in jobs_by_signature.items()
        if len(jobs) >= 2
    ]
    return sorted(causes, key=lambda cause: (-cause.count, cause.value))


def render_scan_chart(
    scan_result_json: Mapping[str, Any],
    *,
    width_px: int = 1200,
    height_px: int = 700,
    lang: str = BASE_LANGUAGE,
) -> ChartResult:
    """Failures by category (bars) and, when any, a table of causes that recur across jobs; its
    words in `lang` (categories and causes as the scan gives them)."""
    t = Translator(CATALOGUE, lang)
    counts = scan_counts(scan_result_json)
    if not counts:
        return ChartResult(png=None, reason=NO_SCAN_RESULTS)
    try:
        mpl = load_matplotlib()
    except NoMatplotlib:
        return ChartResult(png=None, reason=NO_MATPLOTLIB)
    causes = recurring_causes(scan_result_json)[:8]
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    with DRAWING, rc_context(mpl):
        figure, canvas = new_figure(mpl, width_px, height_px)
        if causes:
            grid = figure.add_gridspec(2, 1, height_ratios=[3, max(1.0, 0.3 * (len(causes) + 2))])
            bars_axes = figure.add_subplot(grid[0])
            table_axes = figure.add_subplot(grid[1])
        else:
            bars_axes = figure.add_subplot()
            table_axes = None
        labels = [mask(key) for key, _ in ordered]
        heights = [count for _, count in ordered]
        colours = [BAR_HIGHLIGHT if key in ("OOM_KILLED",) else BAR_COLOUR for key, _ in ordered]
        bars = bars_axes.bar(labels, heights, color=colours)
        bars_axes.bar_label(bars, padding=2)
        bars_axes.set_ylabel(t("chart.jobs_axis"))
        bars_axes.set_ylim(0, max(heights) * 1.2)
        bars_axes.yaxis.get_major_locator().set_params(integer=True)
        bars_axes.tick_params(axis="x", labelrotation=20)
        bars_axes.set_title(_scan_title(scan_result_json, sum(heights), t))
        bars_axes.grid(True, axis="y", alpha=0.3)
        rows: list[list[str]] = []
        if table_axes is not None:
            rows = [
                [
                    _kind_words(cause.kind, t),
                    _short(mask(cause.value), 60),
                    str(cause.count),
                    _short(mask(", ".join(cause.jobs)), 60),
                ]
                for cause in causes
            ]
            table_axes.axis("off")
            table_axes.set_title(t("chart.recurring"), fontsize=12, loc="left")
            table = table_axes.table(
                cellText=rows,
                colLabels=[t(f"chart.column.{column}") for column in ("same", "cause", "jobs", "which")],
                loc="upper center",
                cellLoc="left",
                colLoc="left",
                colWidths=[0.1, 0.42, 0.06, 0.42],
            )
            table.auto_set_font_size(False)
            table.set_fontsize(10)
            table.scale(1, 1.4)
            for cell in table.get_celld().values():
                cell.PAD = 0.02
        data = FigureData(
            title=bars_axes.get_title(),
            y_label=bars_axes.get_ylabel(),
            bars={
                tick.get_text(): float(rect.get_height())
                for tick, rect in zip(bars_axes.get_xticklabels(), bars.patches, strict=True)
            },
            table=_table_text(table_axes) if table_axes is not None else [],
        )
        png = png_bytes(canvas)
    return ChartResult(png=png, figure_data=data, width_px=width_px, height_px=height_px)


def _scan_title(scan: Mapping[str, Any], failures: int, t: Translator) -> str:
    platform = {"modelarts": "ModelArts", "runai": "Run:ai"}.get(str(scan.get("platform")), "")
    place = scan.get("region") or scan.get("project") or scan.get("cluster_id")
    where = " ".join(str(part) for part in (platform, place) if part)
    scanned = scan.get("scanned")
    total = t("chart.scanned", count=scanned) if isinstance(scanned, int) else t("chart.jobs", count=failures)
    if where:
        return mask(t("chart.scan_title", where=where, total=total))
    return mask(t("chart.scan_title_anywhere", total=total))


def _kind_words(kind: str, t: Translator) -> str:
    """What the jobs share (`signature`, `image`, `node`) in the chart's language."""
    key = f"chart.kind.{kind}"
    return t(key) if key in CATALOGUE[t.lang] else kind


def _table_text(axes: Any) -> list[list[str]]:
    rows: dict[int, dict[int, str]] = {}
    for table in axes.tables:
        for (row, column), cell in table.get_celld().items():
            rows.setdefault(row, {})[column] = cell.get_text().get_text()
    return [[cells[column] for column in sorted(cells)] for _, cells in sorted(rows.items())]


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"

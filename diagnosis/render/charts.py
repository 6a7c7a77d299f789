"""Pictures built from what the engine recorded: memory use against the limit, and a scan summary.

Every plotted number comes from a recorded exchange, as the platform reads it (the memory series
and kill times its backend gives, diagnosis.evidence.series), from the diagnosis' own measurements
(limit, request) or from scan/v1; nothing is estimated or filled in. When there is nothing to
plot, the result carries no PNG and a one-line reason instead.

matplotlib is an optional extra (`pip install diagnose-bot[charts]`): it is imported only when a
chart is drawn, with the Agg backend and without pyplot (no global figure state, safe in threads).
"""

from __future__ import annotations

import io
import threading
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from diagnosis import engine
from diagnosis.evidence.series import NO_SAMPLES, MemorySeries
from diagnosis.masking import mask
from diagnosis.models import Diagnosis, Exchange

GIB = 1024**3

NO_MATPLOTLIB = "matplotlib is not installed"
NO_SCAN_RESULTS = "the scan found no jobs"

CJK_FONTS = ("Noto Sans CJK JP", "Noto Sans CJK SC", "Noto Sans CJK TC", "Noto Sans CJK KR")
USAGE_COLOUR = "#1d6fb8"
LIMIT_COLOUR = "#c0392b"
REQUEST_COLOUR = "#7f8c8d"
KILL_COLOUR = "#8e0000"
BAR_COLOUR = "#4a6fa5"
BAR_HIGHLIGHT = "#c0392b"


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _dicts(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, list):
        for item in value:
            if isinstance(item, dict):
                yield item


# ---------------------------------------------------------------------------------------------
# Results


@dataclass
class FigureData:
    """What the figure plots, read back from its artists (axis units: GiB, UTC datetimes, counts)."""

    title: str = ""
    x_label: str = ""
    y_label: str = ""
    # label → (x values, y values) of each plotted line
    lines: dict[str, tuple[list[datetime], list[float]]] = field(default_factory=dict)
    # label → y of each horizontal line (limit, request)
    levels: dict[str, float] = field(default_factory=dict)
    # label → x of each vertical marker (kills)
    markers: dict[str, list[datetime]] = field(default_factory=dict)
    # bar label → height
    bars: dict[str, float] = field(default_factory=dict)
    table: list[list[str]] = field(default_factory=list)

    def plotted_max(self) -> float:
        """The highest value plotted by any line or bar."""
        values = [y for _, ys in self.lines.values() for y in ys] + list(self.bars.values())
        return max(values) if values else 0.0

    def plotted_max_bytes(self) -> int:
        return round(self.plotted_max() * GIB)


@dataclass(frozen=True)
class ChartResult:
    png: bytes | None
    reason: str | None = None
    figure_data: FigureData | None = None
    width_px: int | None = None
    height_px: int | None = None

    @property
    def made(self) -> bool:
        return self.png is not None


class _NoMatplotlib(Exception):
    pass


def _matplotlib() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.dates
        import matplotlib.figure
        from matplotlib.backends import backend_agg  # noqa: F401
    except ImportError:
        raise _NoMatplotlib from None
    return matplotlib


def _font_families(mpl: Any) -> list[str]:
    """DejaVu Sans, then a CJK font when installed (job names may be Chinese or Japanese)."""
    available = {font.name for font in mpl.font_manager.fontManager.ttflist}
    return ["DejaVu Sans", *[name for name in CJK_FONTS if name in available]]


def _new_figure(mpl: Any, width_px: int, height_px: int) -> tuple[Any, Any]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    dpi = 100
    figure = Figure(figsize=(width_px / dpi, height_px / dpi), dpi=dpi, layout="constrained")
    canvas = FigureCanvasAgg(figure)
    return figure, canvas


def _png(canvas: Any) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        # A glyph missing from every installed font is drawn as a box; say nothing.
        warnings.simplefilter("ignore", UserWarning)
        canvas.print_png(buffer)
    return buffer.getvalue()


# rcParams are process-wide: one drawing at a time (the bot draws from a pool of threads).
_DRAWING = threading.Lock()


def _rc(mpl: Any) -> Any:
    return mpl.rc_context(
        {
            # A list of families lets matplotlib fall back glyph by glyph (CJK job names).
            "font.family": _font_families(mpl),
            "axes.titlesize": 14,
            "axes.labelsize": 11,
            "savefig.dpi": 100,
        }
    )


def _gib(value: int) -> float:
    return value / GIB


def _job_name(diagnosis: Diagnosis) -> str:
    target = diagnosis.target
    return mask(target.name or target.workload_id or target.job_id or "unnamed job")


# ---------------------------------------------------------------------------------------------
# Memory vs limit


def render_memory_chart(
    diagnosis: Diagnosis,
    exchanges: Sequence[Exchange],
    *,
    width_px: int = 1200,
    height_px: int = 600,
) -> ChartResult:
    """Memory use over time with the limit (solid), the request (dashed) and the OOM kill(s) marked:
    the series the diagnosis' platform reads from the recorded answers."""
    reading = engine.backend(diagnosis.platform).memory_series(exchanges)
    if reading.series is None:
        return ChartResult(png=None, reason=reading.reason or NO_SAMPLES)
    try:
        mpl = _matplotlib()
    except _NoMatplotlib:
        return ChartResult(png=None, reason=NO_MATPLOTLIB)
    series = reading.series
    measurements = diagnosis.measurements
    with _DRAWING, _rc(mpl):
        figure, canvas = _new_figure(mpl, width_px, height_px)
        axes = figure.add_subplot()
        _draw_memory(mpl, axes, series, measurements.memory_limit_bytes, measurements.memory_request_bytes)
        axes.set_title(f"Memory use vs limit: {_job_name(diagnosis)}")
        data = _memory_figure_data(mpl, axes)
        png = _png(canvas)
    return ChartResult(png=png, figure_data=data, width_px=width_px, height_px=height_px)


def _draw_memory(
    mpl: Any, axes: Any, series: MemorySeries, limit_bytes: int | None, request_bytes: int | None
) -> None:
    dates = mpl.dates
    for trace in series.traces:
        times = [sample.at for sample in trace.samples]
        values = [_gib(sample.used_bytes) for sample in trace.samples]
        axes.plot(
            times,
            values,
            marker="o",
            markersize=4,
            linewidth=2,
            color=USAGE_COLOUR if len(series.traces) == 1 else None,
            label=trace.name,
            gid="usage",
        )
    peak = max(series.samples, key=lambda sample: sample.used_bytes)
    axes.annotate(
        f"peak {_gib(peak.used_bytes):.2f} GiB",
        xy=(peak.at, _gib(peak.used_bytes)),
        xytext=(-10, -18),
        textcoords="offset points",
        ha="right",
        fontsize=10,
        color=USAGE_COLOUR,
    )
    if limit_bytes is not None:
        axes.axhline(
            _gib(limit_bytes),
            color=LIMIT_COLOUR,
            linewidth=2,
            label=f"limit {_gib(limit_bytes):.2f} GiB",
            gid="limit",
        )
    if request_bytes is not None:
        axes.axhline(
            _gib(request_bytes),
            color=REQUEST_COLOUR,
            linewidth=1.5,
            linestyle="--",
            zorder=3,
            label=f"request {_gib(request_bytes):.2f} GiB",
            gid="request",
        )
    for number, kill in enumerate(series.kill_times):
        axes.axvline(
            kill,
            color=KILL_COLOUR,
            linewidth=1.5,
            linestyle=":",
            label="OOM kill" if number == 0 else "_nolegend_",
            gid="kill",
        )
        axes.annotate(
            f"OOM kill {kill:%m-%d %H:%M}",
            xy=(kill, 0.0),
            xycoords=("data", "axes fraction"),
            xytext=(-4, 6),
            textcoords="offset points",
            rotation=90,
            ha="right",
            va="bottom",
            fontsize=9,
            color=KILL_COLOUR,
        )
    ceiling = max(
        [_gib(series.peak_bytes)] + [_gib(v) for v in (limit_bytes, request_bytes) if v is not None]
    )
    axes.set_ylim(0, ceiling * 1.15 if ceiling > 0 else 1)
    start = min([series.first_at, *series.kill_times])
    end = max([series.last_at, *series.kill_times])
    margin = max((end - start) * 0.03, timedelta(minutes=5))
    axes.set_xlim(start - margin, end + margin)
    locator = dates.AutoDateLocator(tz=UTC, minticks=4, maxticks=10)
    axes.xaxis.set_major_locator(locator)
    axes.xaxis.set_major_formatter(dates.ConciseDateFormatter(locator, tz=UTC))
    axes.set_xlabel("time (UTC)")
    axes.set_ylabel("memory (GiB)")
    axes.grid(True, alpha=0.3)
    axes.legend(loc="lower left", fontsize=9, framealpha=0.9)


def _memory_figure_data(mpl: Any, axes: Any) -> FigureData:
    """Read the plotted values back from the artists, so a test sees what the picture shows."""
    num2date = mpl.dates.num2date
    data = FigureData(
        title=axes.get_title(),
        x_label=axes.get_xlabel(),
        y_label=axes.get_ylabel(),
    )
    for line in axes.get_lines():
        kind = line.get_gid()
        xs = [_as_datetime(num2date, x) for x in line.get_xdata()]
        ys = [float(y) for y in line.get_ydata()]
        if kind == "usage":
            data.lines[line.get_label()] = (xs, ys)
        elif kind in ("limit", "request"):
            data.levels[kind] = ys[0]
        elif kind == "kill":
            data.markers.setdefault("OOM kill", []).append(xs[0])
    return data


def _as_datetime(num2date: Any, value: Any) -> datetime:
    if isinstance(value, datetime):
        return value.astimezone(UTC)
    converted: datetime = num2date(float(value), tz=UTC)
    return converted


# ---------------------------------------------------------------------------------------------
# Scan summary


@dataclass(frozen=True)
class RecurringCause:
    kind: str  # what the jobs share: "signature"
    value: str
    count: int
    jobs: tuple[str, ...] = ()


def scan_counts(scan: Mapping[str, Any]) -> dict[str, int]:
    """`by_category` of scan/v1 (rulings M13); rebuilt from `results` when absent."""
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
    scan_result_json: Mapping[str, Any], *, width_px: int = 1200, height_px: int = 700
) -> ChartResult:
    """Failures by category (bars) and, when any, a table of causes that recur across jobs."""
    counts = scan_counts(scan_result_json)
    if not counts:
        return ChartResult(png=None, reason=NO_SCAN_RESULTS)
    try:
        mpl = _matplotlib()
    except _NoMatplotlib:
        return ChartResult(png=None, reason=NO_MATPLOTLIB)
    causes = recurring_causes(scan_result_json)[:8]
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    with _DRAWING, _rc(mpl):
        figure, canvas = _new_figure(mpl, width_px, height_px)
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
        bars_axes.set_ylabel("jobs")
        bars_axes.set_ylim(0, max(heights) * 1.2)
        bars_axes.yaxis.get_major_locator().set_params(integer=True)
        bars_axes.tick_params(axis="x", labelrotation=20)
        bars_axes.set_title(_scan_title(scan_result_json, sum(heights)))
        bars_axes.grid(True, axis="y", alpha=0.3)
        rows: list[list[str]] = []
        if table_axes is not None:
            rows = [
                [
                    cause.kind,
                    _short(mask(cause.value), 60),
                    str(cause.count),
                    _short(mask(", ".join(cause.jobs)), 60),
                ]
                for cause in causes
            ]
            table_axes.axis("off")
            table_axes.set_title("Recurring causes", fontsize=12, loc="left")
            table = table_axes.table(
                cellText=rows,
                colLabels=["same", "cause", "jobs", "which"],
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
        png = _png(canvas)
    return ChartResult(png=png, figure_data=data, width_px=width_px, height_px=height_px)


def _scan_title(scan: Mapping[str, Any], failures: int) -> str:
    platform = {"modelarts": "ModelArts", "runai": "Run:ai"}.get(str(scan.get("platform")), "")
    place = scan.get("region") or scan.get("project") or scan.get("cluster_id")
    where = " ".join(str(part) for part in (platform, place) if part)
    scanned = scan.get("scanned")
    total = f"{scanned} jobs scanned" if isinstance(scanned, int) else f"{failures} jobs"
    return mask(f"Scan{' ' + where if where else ''}: results by category ({total})")


def _table_text(axes: Any) -> list[list[str]]:
    rows: dict[int, dict[int, str]] = {}
    for table in axes.tables:
        for (row, column), cell in table.get_celld().items():
            rows.setdefault(row, {})[column] = cell.get_text().get_text()
    return [[cells[column] for column in sorted(cells)] for _, cells in sorted(rows.items())]


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def png_size(png: bytes) -> tuple[int, int]:
    """(width, height) from a PNG's IHDR chunk."""
    if len(png) < 24 or png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
        raise ValueError("not a PNG")
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")

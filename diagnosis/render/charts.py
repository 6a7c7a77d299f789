"""Pictures built from what the engine recorded: memory use against the limit, and a scan summary.

Every plotted number comes from a recorded exchange (the samples, the kill times) or from the
diagnosis' own measurements (limit, request); nothing is estimated or filled in. When there is
nothing to plot, the result carries no PNG and a one-line reason instead.

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

from diagnosis.masking import mask
from diagnosis.models import Diagnosis, Exchange
from diagnosis.timeutil import parse_instant

GIB = 1024**3

# Run:ai: `GET /api/v1/workloads/{id}/metrics` answers `measurements[]`, each `{type, labels, values[]}`
# with `values[] = {value: "<string>", timestamp}` (runai-api.md §10).
RUNAI_METRICS_OP = "get_workload_metrics"
RUNAI_MEMORY_METRIC = "CPU_MEMORY_USAGE_BYTES"
RUNAI_EVENT_OPS = ("get_workload_events",)
RUNAI_HISTORY_OP = "get_workload_history"
RUNAI_PODS_OP = "get_workload_pods"
K8S_POD_OP = "k8s.read_pod"
# ModelArts: `ShowTrainingJobMetrics` answers `metrics[] = {metric, value[]}`, one average per
# minute; `memUsage` is a percentage (modelarts-api.md §3.8), so it cannot be drawn against a byte
# limit. A metric whose name says bytes is drawn; -1 means "no sample".
MODELARTS_METRICS_OP = "ShowTrainingJobMetrics"
MODELARTS_DETAILS_OP = "ShowTrainingJobDetails"
MODELARTS_PERCENT_MEMORY_METRICS = ("memUsage",)
OOM_REASON = "OOMKilled"
# Signals of one termination chained less than 120 s apart are one kill (rulings R11).
SAME_KILL_WINDOW = timedelta(seconds=120)

NO_MATPLOTLIB = "matplotlib is not installed"
NO_METRICS_RECORDED = "no memory metrics were recorded"
NO_SAMPLES = "no memory samples were recorded"
MODELARTS_PERCENT_ONLY = (
    "ModelArts reports memory use as a percentage (memUsage), not in bytes, so it cannot be drawn "
    "against the memory limit"
)
MODELARTS_NO_START = "the ModelArts byte series has no timestamps and the job's start time was not recorded"
NO_SCAN_RESULTS = "the scan found no jobs"

CJK_FONTS = ("Noto Sans CJK JP", "Noto Sans CJK SC", "Noto Sans CJK TC", "Noto Sans CJK KR")
USAGE_COLOUR = "#1d6fb8"
LIMIT_COLOUR = "#c0392b"
REQUEST_COLOUR = "#7f8c8d"
KILL_COLOUR = "#8e0000"
BAR_COLOUR = "#4a6fa5"
BAR_HIGHLIGHT = "#c0392b"


# ---------------------------------------------------------------------------------------------
# The series


@dataclass(frozen=True)
class MemorySample:
    at: datetime  # aware, UTC
    used_bytes: int


@dataclass(frozen=True)
class MemoryTrace:
    """One recorded series (a Run:ai measurement, a ModelArts metric), oldest sample first."""

    name: str
    samples: tuple[MemorySample, ...]


@dataclass(frozen=True)
class MemorySeries:
    traces: tuple[MemoryTrace, ...]
    source: str  # the op whose answer held the samples
    kill_times: tuple[datetime, ...] = ()

    @property
    def samples(self) -> tuple[MemorySample, ...]:
        return tuple(sample for trace in self.traces for sample in trace.samples)

    @property
    def peak_bytes(self) -> int:
        return max(sample.used_bytes for sample in self.samples)

    @property
    def first_at(self) -> datetime:
        return min(sample.at for sample in self.samples)

    @property
    def last_at(self) -> datetime:
        return max(sample.at for sample in self.samples)


@dataclass(frozen=True)
class SeriesReading:
    """The series, or why there is none."""

    series: MemorySeries | None
    reason: str | None = None


def memory_series(exchanges: Sequence[Exchange]) -> MemorySeries | None:
    """The recorded memory samples and OOM kill times; None when nothing can be drawn."""
    return read_memory_series(exchanges).series


def read_memory_series(exchanges: Sequence[Exchange]) -> SeriesReading:
    runai = [e for e in exchanges if e.op == RUNAI_METRICS_OP]
    modelarts = [e for e in exchanges if e.op == MODELARTS_METRICS_OP]
    if runai:
        reading = _runai_series(runai)
        if reading.series is not None:
            kills = _kill_times(exchanges, reading.series)
            return SeriesReading(_with_kills(reading.series, kills))
        return reading
    if modelarts:
        return _modelarts_series(modelarts, exchanges)
    return SeriesReading(None, NO_METRICS_RECORDED)


def _failed(exchanges: Sequence[Exchange]) -> str | None:
    if all(e.status >= 400 for e in exchanges):
        statuses = ", ".join(sorted({str(e.status) for e in exchanges}))
        return f"the memory metrics call failed (HTTP {statuses})"
    return None


def _runai_series(exchanges: Sequence[Exchange]) -> SeriesReading:
    failure = _failed(exchanges)
    if failure:
        return SeriesReading(None, failure)
    by_trace: dict[str, dict[datetime, int]] = {}
    for exchange in exchanges:
        if exchange.status >= 400 or not isinstance(exchange.body, dict):
            continue
        for measurement in _dicts(exchange.body.get("measurements")):
            if measurement.get("type") != RUNAI_MEMORY_METRIC:
                continue
            name = _trace_name(measurement.get("labels"))
            points = by_trace.setdefault(name, {})
            for value in _dicts(measurement.get("values")):
                at = parse_instant(value.get("timestamp"))
                used = _byte_count(value.get("value"))
                if at is not None and used is not None:
                    points[at.astimezone(UTC)] = used
    traces = tuple(
        MemoryTrace(name, tuple(MemorySample(at, used) for at, used in sorted(points.items())))
        for name, points in by_trace.items()
        if points
    )
    if not traces:
        return SeriesReading(None, NO_SAMPLES)
    return SeriesReading(MemorySeries(traces=traces, source=RUNAI_METRICS_OP))


def _trace_name(labels: Any) -> str:
    """`memory used`, or the measurement's labels (`pod=…`) when a workload answers several series."""
    if isinstance(labels, dict) and labels:
        return "memory used (" + ", ".join(f"{k}={v}" for k, v in sorted(labels.items())) + ")"
    return "memory used"


def _byte_count(value: Any) -> int | None:
    """Run:ai sends numbers as strings (`"16903045120"`, sometimes `"1.69e10"`); junk is skipped."""
    if isinstance(value, bool) or value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    if number != number or number < 0 or number in (float("inf"), float("-inf")):
        return None
    return round(number)


def _modelarts_series(exchanges: Sequence[Exchange], everything: Sequence[Exchange]) -> SeriesReading:
    failure = _failed(exchanges)
    if failure:
        return SeriesReading(None, failure)
    start = _modelarts_start(everything)
    traces: list[MemoryTrace] = []
    percent_only = False
    for exchange in exchanges:
        if exchange.status >= 400 or not isinstance(exchange.body, dict):
            continue
        task = str(exchange.args.get("task_id") or "")
        for metric in _dicts(exchange.body.get("metrics")):
            name = str(metric.get("metric") or "")
            if name in MODELARTS_PERCENT_MEMORY_METRICS:
                percent_only = True
                continue
            if not name.lower().endswith("bytes"):
                continue
            if start is None:
                return SeriesReading(None, MODELARTS_NO_START)
            samples = []
            for minute, value in enumerate(metric.get("value") or []):
                used = _byte_count(value)
                if used is not None:
                    samples.append(MemorySample(start + timedelta(minutes=minute), used))
            if samples:
                traces.append(MemoryTrace(f"{name} ({task})" if task else name, tuple(samples)))
    if traces:
        return SeriesReading(MemorySeries(traces=tuple(traces), source=MODELARTS_METRICS_OP))
    return SeriesReading(None, MODELARTS_PERCENT_ONLY if percent_only else NO_SAMPLES)


def _modelarts_start(exchanges: Sequence[Exchange]) -> datetime | None:
    """`status.start_time` of the job (epoch ms): the first per-minute average starts there."""
    for exchange in exchanges:
        if exchange.op == MODELARTS_DETAILS_OP and isinstance(exchange.body, dict):
            status = exchange.body.get("status")
            if isinstance(status, dict):
                start = parse_instant(status.get("start_time"))
                if start is not None:
                    return start.astimezone(UTC)
    return None


def _kill_times(exchanges: Sequence[Exchange], series: MemorySeries) -> tuple[datetime, ...]:
    """OOM kills recorded in events, history, pods (and Tier-2 pod statuses) near the samples.

    A kill is shown from the first sample on and up to one sample span (at least an hour) after the
    last one: an older kill belongs to a run the samples do not cover.
    """
    seen_ids: set[str] = set()
    found: list[datetime] = []
    for at, event_id in _oom_signals(exchanges):
        if event_id:
            if event_id in seen_ids:
                continue
            seen_ids.add(event_id)
        found.append(at.astimezone(UTC))
    span = max(series.last_at - series.first_at, timedelta(hours=1))
    shown = sorted(at for at in found if series.first_at <= at <= series.last_at + span)
    kills: list[datetime] = []
    for at in shown:
        if kills and at - kills[-1] < SAME_KILL_WINDOW:
            continue
        kills.append(at)
    return tuple(kills)


def _oom_signals(exchanges: Sequence[Exchange]) -> Iterator[tuple[datetime, str | None]]:
    for exchange in exchanges:
        if exchange.status >= 400 or not isinstance(exchange.body, dict):
            continue
        body = exchange.body
        if exchange.op in RUNAI_EVENT_OPS:
            for event in _dicts(body.get("events")):
                yield from _oom_event(event, None)
        elif exchange.op == RUNAI_HISTORY_OP:
            for record in _dicts(body.get("records")):
                spec = record.get("spec")
                meta = record.get("meta")
                record_event = spec.get("event") if isinstance(spec, dict) else None
                fallback = meta.get("creationTimestamp") if isinstance(meta, dict) else None
                if isinstance(record_event, dict):
                    yield from _oom_event(record_event, fallback)
        elif exchange.op == RUNAI_PODS_OP:
            for pod in _dicts(body.get("pods")):
                if pod.get("k8sPhase") == OOM_REASON:
                    at = parse_instant(pod.get("completedAt")) or parse_instant(pod.get("k8sPhaseUpdatedAt"))
                    if at is not None:
                        yield at, None
        elif exchange.op == K8S_POD_OP:
            yield from _k8s_pod_kills(body)


def _oom_event(event: Mapping[str, Any], fallback: Any) -> Iterator[tuple[datetime, str | None]]:
    if event.get("reason") != OOM_REASON:
        return
    at = parse_instant(event.get("createdAt")) or parse_instant(fallback)
    if at is not None:
        event_id = event.get("id")
        yield at, str(event_id) if event_id else None


def _k8s_pod_kills(pod: Mapping[str, Any]) -> Iterator[tuple[datetime, str | None]]:
    """`status.containerStatuses[].state|lastState.terminated` with reason OOMKilled → `finishedAt`."""
    status = pod.get("status")
    if not isinstance(status, dict):
        return
    for container in _dicts(status.get("containerStatuses")):
        for key in ("state", "lastState"):
            state = container.get(key)
            terminated = state.get("terminated") if isinstance(state, dict) else None
            if isinstance(terminated, dict) and terminated.get("reason") == OOM_REASON:
                at = parse_instant(terminated.get("finishedAt"))
                if at is not None:
                    yield at, None


def _with_kills(series: MemorySeries, kills: tuple[datetime, ...]) -> MemorySeries:
    return MemorySeries(traces=series.traces, source=series.source, kill_times=kills)


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
    """Memory use over time with the limit (solid), the request (dashed) and the OOM kill(s) marked."""
    reading = read_memory_series(exchanges)
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

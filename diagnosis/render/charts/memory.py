"""The memory chart: use over time against the limit (solid) and the request (dashed), OOM kills
marked; the series and kill times as the platform's backend reads them from the recorded answers."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from diagnosis import engine
from diagnosis.evidence.series import MEMORY_USED, NO_SAMPLES, MemorySeries
from diagnosis.models import Diagnosis, Exchange
from diagnosis.render.charts.figure import (
    CATALOGUE,
    DRAWING,
    KILL_COLOUR,
    LIMIT_COLOUR,
    NO_MATPLOTLIB,
    REQUEST_COLOUR,
    USAGE_COLOUR,
    ChartResult,
    FigureData,
    NoMatplotlib,
    in_gib,
    job_name,
    load_matplotlib,
    new_figure,
    png_bytes,
    rc_context,
)
from diagnosis.render.i18n import BASE_LANGUAGE, Translator


def render_memory_chart(
    diagnosis: Diagnosis,
    exchanges: Sequence[Exchange],
    *,
    width_px: int = 1200,
    height_px: int = 600,
    lang: str = BASE_LANGUAGE,
) -> ChartResult:
    """Memory use over time with the limit (solid), the request (dashed) and the OOM kill(s) marked:
    the series the diagnosis' platform reads from the recorded answers; its words in `lang`."""
    t = Translator(CATALOGUE, lang)
    reading = engine.backend(diagnosis.platform).memory_series(exchanges)
    if reading.series is None:
        return ChartResult(png=None, reason=reading.reason or NO_SAMPLES)
    try:
        mpl = load_matplotlib()
    except NoMatplotlib:
        return ChartResult(png=None, reason=NO_MATPLOTLIB)
    series = reading.series
    measurements = diagnosis.measurements
    with DRAWING, rc_context(mpl):
        figure, canvas = new_figure(mpl, width_px, height_px)
        axes = figure.add_subplot()
        _draw_memory(mpl, axes, series, measurements.memory_limit_bytes, measurements.memory_request_bytes, t)
        axes.set_title(t("chart.memory_title", job=job_name(diagnosis, t)))
        data = _memory_figure_data(mpl, axes)
        png = png_bytes(canvas)
    return ChartResult(png=png, figure_data=data, width_px=width_px, height_px=height_px)


def _draw_memory(
    mpl: Any,
    axes: Any,
    series: MemorySeries,
    limit_bytes: int | None,
    request_bytes: int | None,
    t: Translator,
) -> None:
    dates = mpl.dates
    for trace in series.traces:
        times = [sample.at for sample in trace.samples]
        values = [in_gib(sample.used_bytes) for sample in trace.samples]
        axes.plot(
            times,
            values,
            marker="o",
            markersize=4,
            linewidth=2,
            color=USAGE_COLOUR if len(series.traces) == 1 else None,
            label=_trace_label(trace.name, t),
            gid="usage",
        )
    peak = max(series.samples, key=lambda sample: sample.used_bytes)
    axes.annotate(
        t("chart.peak", gib=f"{in_gib(peak.used_bytes):.2f}"),
        xy=(peak.at, in_gib(peak.used_bytes)),
        xytext=(-10, -18),
        textcoords="offset points",
        ha="right",
        fontsize=10,
        color=USAGE_COLOUR,
    )
    if limit_bytes is not None:
        axes.axhline(
            in_gib(limit_bytes),
            color=LIMIT_COLOUR,
            linewidth=2,
            label=t("chart.limit", gib=f"{in_gib(limit_bytes):.2f}"),
            gid="limit",
        )
    if request_bytes is not None:
        axes.axhline(
            in_gib(request_bytes),
            color=REQUEST_COLOUR,
            linewidth=1.5,
            linestyle="--",
            zorder=3,
            label=t("chart.request", gib=f"{in_gib(request_bytes):.2f}"),
            gid="request",
        )
    for number, kill in enumerate(series.kill_times):
        axes.axvline(
            kill,
            color=KILL_COLOUR,
            linewidth=1.5,
            linestyle=":",
            label=t("chart.oom_kill") if number == 0 else "_nolegend_",
            gid="kill",
        )
        axes.annotate(
            t("chart.oom_kill_at", at=f"{kill:%m-%d %H:%M}"),
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
        [in_gib(series.peak_bytes)] + [in_gib(v) for v in (limit_bytes, request_bytes) if v is not None]
    )
    axes.set_ylim(0, ceiling * 1.15 if ceiling > 0 else 1)
    start = min([series.first_at, *series.kill_times])
    end = max([series.last_at, *series.kill_times])
    margin = max((end - start) * 0.03, timedelta(minutes=5))
    axes.set_xlim(start - margin, end + margin)
    locator = dates.AutoDateLocator(tz=UTC, minticks=4, maxticks=10)
    axes.xaxis.set_major_locator(locator)
    axes.xaxis.set_major_formatter(dates.ConciseDateFormatter(locator, tz=UTC))
    axes.set_xlabel(t("chart.time_axis"))
    axes.set_ylabel(t("chart.memory_axis"))
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
    legend = axes.get_legend()
    data.legend = [text.get_text() for text in legend.get_texts()] if legend is not None else []
    return data


def _trace_label(name: str, t: Translator) -> str:
    """A series the platform names keeps its name; the product's own `memory used (…)` is translated."""
    if name == MEMORY_USED:
        return t("chart.memory_used")
    if name.startswith(f"{MEMORY_USED} (") and name.endswith(")"):
        return t("chart.memory_used_of", labels=name[len(MEMORY_USED) + 2 : -1])
    return name


def _as_datetime(num2date: Any, value: Any) -> datetime:
    if isinstance(value, datetime):
        return value.astimezone(UTC)
    converted: datetime = num2date(float(value), tz=UTC)
    return converted

"""Memory-vs-limit and scan charts: the PNG is there, has the asked size, and plots what was measured."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from cli.chart import write_chart, write_scan_chart
from cli.main import main
from diagnosis import engine
from diagnosis.evidence.bundles import load_bundle
from diagnosis.models import Diagnosis, Exchange, Measurements, Target
from diagnosis.render.charts.figure import CATALOGUE as CHART_WORDS
from diagnosis.render.charts.figure import GIB, png_size, rc_context
from diagnosis.render.charts.memory import render_memory_chart
from diagnosis.render.charts.scan import render_scan_chart
from diagnosis.runai.series import memory_series
from tests.conftest import EXAMPLES

OOM_BUNDLE = EXAMPLES / "runai-optb-oom-recurring.bundle.json"
PREEMPTED_BUNDLE = EXAMPLES / "runai-preempted.bundle.json"
WORKLOAD = "9a0c1d2e-0000-4000-8000-000000000001"
PEAK = 7_301_234_688
LIMIT = 8 * GIB
REQUEST = 6 * GIB


def oom_diagnosis(*, name: str = "resnet-train", peak: int | None = PEAK) -> Diagnosis:
    return Diagnosis(
        platform="runai",
        target=Target(workload_id=WORKLOAD, name=name, phase="Failed"),
        outcome="diagnosed",
        category="OOM_KILLED",
        confidence="HIGH",
        root_cause="hit the memory limit",
        measurements=Measurements(
            memory_limit_bytes=LIMIT, memory_request_bytes=REQUEST, memory_peak_bytes=peak
        ),
    )


def metrics(values: list[dict[str, Any]], *, status: int = 200, labels: Any = None) -> Exchange:
    return Exchange(
        op="get_workload_metrics",
        args={"workloadId": WORKLOAD},
        status=status,
        body={"measurements": [{"type": "CPU_MEMORY_USAGE_BYTES", "labels": labels, "values": values}]},
    )


def oom_event(at: str, event_id: str) -> dict[str, Any]:
    return {
        "createdAt": at,
        "id": event_id,
        "type": "Warning",
        "reason": "OOMKilled",
        "message": "Container main terminated: OOMKilled",
    }


SAMPLES = [
    {"value": "5368709120", "timestamp": "2026-04-01T10:00:00Z"},
    # The OpenAPI example's form: a space instead of `T`, milliseconds, no zone (UTC).
    {"value": "6442450944", "timestamp": "2026-04-01 11:00:00.000"},
    {"value": str(PEAK), "timestamp": "2026-04-01T12:00:00Z"},
    {"value": "not-a-number", "timestamp": "2026-04-01T12:30:00Z"},
    {"value": "6979321856", "timestamp": None},
]


def hand_built_exchanges() -> list[Exchange]:
    return [
        Exchange(
            op="get_workload_events",
            args={"workloadId": WORKLOAD},
            status=200,
            body={"events": [oom_event("2026-04-01T12:20:00Z", "ev-1"), {"reason": "Started"}]},
        ),
        # The same kill seen again in history (same id) and in the pod list (20 s later): one kill.
        Exchange(
            op="get_workload_history",
            args={"workloadId": WORKLOAD, "offset": 0},
            status=200,
            body={
                "records": [
                    {
                        "meta": {"creationTimestamp": "2026-04-01T12:20:00Z", "type": "Event"},
                        "spec": {"event": oom_event("2026-04-01T12:20:00Z", "ev-1"), "phaseUpdate": None},
                    },
                    # An OOM kill weeks before the samples belongs to another run: not drawn.
                    {
                        "meta": {"creationTimestamp": "2026-03-01T08:00:00Z", "type": "Event"},
                        "spec": {"event": oom_event("2026-03-01T08:00:00Z", "ev-0"), "phaseUpdate": None},
                    },
                ]
            },
        ),
        Exchange(
            op="get_workload_pods",
            args={"workloadId": WORKLOAD},
            status=200,
            body={"pods": [{"name": "p-0", "k8sPhase": "OOMKilled", "completedAt": "2026-04-01T12:20:20Z"}]},
        ),
        metrics(SAMPLES),
    ]


# ---- memory chart from hand-built evidence ----------------------------------------------------


def test_memory_chart_is_a_png_of_the_asked_size() -> None:
    result = render_memory_chart(oom_diagnosis(), hand_built_exchanges())
    assert result.png is not None and result.reason is None
    assert png_size(result.png) == (1200, 600)
    smaller = render_memory_chart(oom_diagnosis(), hand_built_exchanges(), width_px=800, height_px=450)
    assert smaller.png is not None
    assert png_size(smaller.png) == (800, 450)


def test_plotted_maximum_is_the_measured_peak_and_lines_are_the_measurements() -> None:
    diagnosis = oom_diagnosis()
    result = render_memory_chart(diagnosis, hand_built_exchanges())
    data = result.figure_data
    assert data is not None
    assert data.plotted_max_bytes() == diagnosis.measurements.memory_peak_bytes == PEAK
    # Limit and request are horizontal lines at the diagnosis' own numbers, in GiB.
    assert data.levels == {"limit": 8.0, "request": 6.0}
    assert data.y_label == "memory (GiB)"
    assert data.x_label == "time (UTC)"
    ((times, values),) = data.lines.values()
    # The unreadable value and the sample without a timestamp are left out, nothing is filled in.
    assert [round(v * GIB) for v in values] == [5368709120, 6442450944, PEAK]
    assert times == [datetime(2026, 4, 1, hour, tzinfo=UTC) for hour in (10, 11, 12)]


def test_the_kill_is_marked_once_at_its_recorded_time() -> None:
    data = render_memory_chart(oom_diagnosis(), hand_built_exchanges()).figure_data
    assert data is not None
    assert data.markers == {"OOM kill": [datetime(2026, 4, 1, 12, 20, tzinfo=UTC)]}


def test_title_names_the_job_and_is_masked() -> None:
    data = render_memory_chart(oom_diagnosis(name="train-10.20.30.40"), hand_built_exchanges()).figure_data
    assert data is not None
    assert data.title.startswith("Memory use vs limit: train-ip-")
    assert "10.20.30.40" not in data.title


def test_without_a_limit_only_the_usage_is_drawn() -> None:
    diagnosis = oom_diagnosis()
    diagnosis.measurements = Measurements()
    data = render_memory_chart(diagnosis, hand_built_exchanges()).figure_data
    assert data is not None
    assert data.levels == {}
    assert data.plotted_max_bytes() == PEAK


def test_kill_from_the_pod_list_alone_is_marked() -> None:
    exchanges = [e for e in hand_built_exchanges() if e.op in ("get_workload_pods", "get_workload_metrics")]
    series = memory_series(exchanges).series
    assert series is not None
    assert series.kill_times == (datetime(2026, 4, 1, 12, 20, 20, tzinfo=UTC),)


def test_several_labelled_series_are_drawn_separately() -> None:
    exchange = Exchange(
        op="get_workload_metrics",
        status=207,  # partial success still carries the series it has
        body={
            "measurements": [
                {"type": "CPU_MEMORY_USAGE_BYTES", "labels": {"pod": "w-0"}, "values": SAMPLES[:2]},
                {"type": "CPU_MEMORY_USAGE_BYTES", "labels": {"pod": "w-1"}, "values": SAMPLES[2:3]},
                {
                    "type": "GPU_UTILIZATION",
                    "labels": None,
                    "values": [{"value": "99", "timestamp": "2026-04-01T10:00:00Z"}],
                },
            ]
        },
    )
    data = render_memory_chart(oom_diagnosis(), [exchange]).figure_data
    assert data is not None
    assert sorted(data.lines) == ["memory used (pod=w-0)", "memory used (pod=w-1)"]
    assert data.plotted_max_bytes() == PEAK


# ---- no chart, and why --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("exchanges", "reason"),
    [
        ([], "no memory metrics were recorded"),
        ([metrics([])], "no memory samples were recorded"),
        (
            [metrics([{"value": None, "timestamp": "2026-04-01T10:00:00Z"}])],
            "no memory samples were recorded",
        ),
        (
            [Exchange(op="get_workload_metrics", status=200, body={"measurements": None})],
            "no memory samples were recorded",
        ),
        (
            [Exchange(op="get_workload_metrics", status=503, body={"code": 503, "message": "unavailable"})],
            "the memory metrics call failed (HTTP 503)",
        ),
        (
            [Exchange(op="get_workload_metrics", status=200, text="<html>oops</html>")],
            "no memory samples were recorded",
        ),
    ],
)
def test_no_samples_no_chart_and_the_reason(exchanges: list[Exchange], reason: str) -> None:
    result = render_memory_chart(oom_diagnosis(), exchanges)
    assert result.png is None
    assert result.figure_data is None
    assert result.reason == reason


def modelarts_diagnosis() -> Diagnosis:
    return Diagnosis(
        platform="modelarts",
        target=Target(job_id="5f0c9a6e-81d2-4b7f-a3e4-6c2d19b8f07a", name="vit-b16", phase="Failed"),
        outcome="diagnosed",
        category="OOM_KILLED",
        measurements=Measurements(memory_limit_bytes=4 * GIB),
    )


def modelarts_metrics(*metric: dict[str, Any]) -> Exchange:
    return Exchange(
        op="ShowTrainingJobMetrics",
        args={"project_id": "p", "training_job_id": "j", "task_id": "worker-0"},
        status=200,
        body={"metrics": list(metric)},
    )


def test_modelarts_percentages_give_no_chart_and_say_why() -> None:
    exchanges = [modelarts_metrics({"metric": "memUsage", "value": [40.5, 88.0, 99.2]})]
    result = render_memory_chart(modelarts_diagnosis(), exchanges)
    assert result.png is None
    assert result.reason is not None
    assert "percentage" in result.reason and "memUsage" in result.reason


def test_modelarts_byte_series_is_drawn_from_the_job_start() -> None:
    details = Exchange(
        op="ShowTrainingJobDetails",
        status=200,
        body={"status": {"phase": "Failed", "start_time": 1775037600000}},  # 2026-04-01T10:00:00Z
    )
    exchanges = [
        details,
        modelarts_metrics(
            {"metric": "memUsage", "value": [50.0]},
            {"metric": "memUsageBytes", "value": [2 * GIB, -1, 3 * GIB + 5]},
        ),
    ]
    result = render_memory_chart(modelarts_diagnosis(), exchanges)
    assert result.png is not None
    data = result.figure_data
    assert data is not None
    ((times, values),) = data.lines.values()
    # -1 means "no sample" on ModelArts: skipped, the minutes keep their place.
    assert times == [datetime(2026, 4, 1, 10, 0, tzinfo=UTC), datetime(2026, 4, 1, 10, 2, tzinfo=UTC)]
    assert values == [2.0, (3 * GIB + 5) / GIB]
    assert data.plotted_max_bytes() == 3 * GIB + 5
    without_start = render_memory_chart(modelarts_diagnosis(), exchanges[1:])
    assert without_start.png is None
    assert without_start.reason is not None and "start time" in without_start.reason


def test_without_matplotlib_the_reason_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    result = render_memory_chart(oom_diagnosis(), hand_built_exchanges())
    assert result.png is None
    assert result.reason == "matplotlib is not installed"
    scan = render_scan_chart({"by_category": {"OOM_KILLED": 1}})
    assert scan.reason == "matplotlib is not installed"


# ---- the worked example, replayed through the engine ------------------------------------------


@pytest.fixture(scope="module")
def replayed_oom() -> tuple[Diagnosis, list[Exchange]]:
    import asyncio

    bundle = load_bundle(OOM_BUNDLE)
    diagnosis = asyncio.run(engine.replay(bundle, lang="en"))
    return diagnosis, bundle.exchanges


def test_shared_example_chart_peak_is_the_engine_measured_peak(
    replayed_oom: tuple[Diagnosis, list[Exchange]], diagnosis_schema: dict[str, Any]
) -> None:
    diagnosis, exchanges = replayed_oom
    jsonschema.validate(diagnosis.to_json_dict(), diagnosis_schema)
    assert diagnosis.measurements.memory_peak_bytes == 16_903_045_120
    result = render_memory_chart(diagnosis, exchanges)
    assert result.png is not None
    assert png_size(result.png) == (1200, 600)
    data = result.figure_data
    assert data is not None
    assert data.plotted_max_bytes() == diagnosis.measurements.memory_peak_bytes
    assert data.levels["limit"] == 16.0  # 16Gi
    assert data.title == "Memory use vs limit: segformer-finetune"
    # Both OOM kills of the recurrence fall in the sampled window.
    assert data.markers["OOM kill"] == [
        datetime(2026, 3, 17, 22, 47, 58, tzinfo=UTC),
        datetime(2026, 3, 18, 6, 15, 31, tzinfo=UTC),
    ]


def test_replay_cli_writes_the_chart(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "memory.png"
    code = main(["replay", str(OOM_BUNDLE), "--format", "json", "--chart", str(target)])
    captured = capsys.readouterr()
    assert code == 0
    assert json.loads(captured.out)["category"] == "OOM_KILLED"
    assert captured.err.strip() == f"chart: memory use vs limit written to {target}"
    assert png_size(target.read_bytes()) == (1200, 600)


def test_replay_cli_without_samples_writes_no_chart_and_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "memory.png"
    code = main(["replay", str(PREEMPTED_BUNDLE), "--query", "outcome", "--chart", str(target)])
    captured = capsys.readouterr()
    assert code == 0
    assert json.loads(captured.out) == "routed"
    assert captured.err.strip() == "chart: no memory metrics were recorded, no chart written"
    assert not target.exists()


def test_write_chart_reports_an_unwritable_file(tmp_path: Path) -> None:
    import argparse

    args = argparse.Namespace(chart=str(tmp_path / "missing-dir" / "memory.png"))
    note = write_chart(args, oom_diagnosis(), hand_built_exchanges(), lang="en")
    assert note is not None and note.startswith(f"chart: cannot write {args.chart}")
    assert (
        write_chart(argparse.Namespace(chart=None), oom_diagnosis(), hand_built_exchanges(), lang="en")
        is None
    )


# ---- scan summary -------------------------------------------------------------------------------


def scan_result(**extra: Any) -> dict[str, Any]:
    def result(
        name: str, category: str | None, signature: str | None, outcome: str = "diagnosed"
    ) -> dict[str, Any]:
        return {"outcome": outcome, "category": category, "signature": signature, "target": {"name": name}}

    data: dict[str, Any] = {
        "schema": "scan/v1",
        "platform": "modelarts",
        "region": "cn-north-4",
        "scanned": 9,
        "by_category": {"CRASH_APP_ERROR": 3, "OOM_KILLED": 2, "permission_denied": 1},
        "results": [
            result("train-a", "CRASH_APP_ERROR", "ModuleNotFoundError: No module named 'timm'"),
            result("train-b", "CRASH_APP_ERROR", "ModuleNotFoundError: No module named 'timm'"),
            result("train-c", "CRASH_APP_ERROR", "ModuleNotFoundError: No module named 'timm'"),
            result("训练-d", "OOM_KILLED", "CUDA out of memory"),
            result("train-e", "OOM_KILLED", "CUDA out of memory"),
            result("train-f", None, "ModelArts.0010", outcome="permission_denied"),
        ],
    }
    data.update(extra)
    return data


def test_scan_chart_bars_are_the_counts_by_category() -> None:
    result = render_scan_chart(scan_result())
    assert result.png is not None
    assert png_size(result.png) == (1200, 700)
    data = result.figure_data
    assert data is not None
    assert data.bars == {"CRASH_APP_ERROR": 3.0, "OOM_KILLED": 2.0, "permission_denied": 1.0}
    assert data.plotted_max() == 3.0
    assert "ModelArts cn-north-4" in data.title and "9 jobs scanned" in data.title


def test_scan_chart_table_lists_signatures_shared_by_diagnosed_jobs() -> None:
    data = render_scan_chart(scan_result()).figure_data
    assert data is not None
    assert data.table == [
        ["same", "cause", "jobs", "which"],
        ["signature", "ModuleNotFoundError: No module named 'timm'", "3", "train-a, train-b, train-c"],
        ["signature", "CUDA out of memory", "2", "训练-d, train-e"],
    ]


def test_scan_without_recurring_causes_has_bars_only() -> None:
    data = render_scan_chart(scan_result(results=scan_result()["results"][2:4])).figure_data
    assert data is not None
    assert data.table == []
    assert data.bars["CRASH_APP_ERROR"] == 3.0


def test_scan_counts_come_from_results_when_by_category_is_absent() -> None:
    scan = scan_result()
    del scan["by_category"]
    data = render_scan_chart(scan).figure_data
    assert data is not None
    assert data.bars == {"CRASH_APP_ERROR": 3.0, "OOM_KILLED": 2.0, "permission_denied": 1.0}


def test_empty_scan_gives_no_chart(tmp_path: Path) -> None:
    import argparse

    empty = {"schema": "scan/v1", "platform": "modelarts", "scanned": 4, "by_category": {}, "results": []}
    result = render_scan_chart(empty)
    assert result.png is None and result.reason == "the scan found no jobs"
    target = tmp_path / "scan.png"
    note = write_scan_chart(argparse.Namespace(chart=str(target)), empty, lang="en")
    assert note == "chart: the scan found no jobs, no chart written"
    assert not target.exists()
    assert write_scan_chart(argparse.Namespace(chart=str(target)), scan_result(), lang="en") == (
        f"chart: scan summary written to {target}"
    )
    assert png_size(target.read_bytes()) == (1200, 700)


def test_png_size_refuses_what_is_not_a_png() -> None:
    with pytest.raises(ValueError, match="not a PNG"):
        png_size(b"GIF89a" + bytes(30))


def test_charts_drawn_from_several_threads_at_once_are_each_right() -> None:
    from concurrent.futures import ThreadPoolExecutor

    peaks = [PEAK + step * GIB // 4 for step in range(4)]

    def draw(peak: int) -> int:
        values = [*SAMPLES[:2], {"value": str(peak), "timestamp": "2026-04-01T12:00:00Z"}]
        data = render_memory_chart(oom_diagnosis(peak=peak), [metrics(values)]).figure_data
        assert data is not None
        return data.plotted_max_bytes()

    with ThreadPoolExecutor(max_workers=4) as pool:
        assert list(pool.map(draw, peaks)) == peaks


# --- the charts speak the report's language ----------------------------------------------------


def _glyphs_missing(texts: list[str]) -> list[str]:
    """Characters no font of the chart's font list can draw (they would show as boxes)."""
    import matplotlib
    from matplotlib import font_manager, ft2font

    with rc_context(matplotlib):
        paths = [
            font_manager.findfont(font_manager.FontProperties(family=family), fallback_to_default=False)
            for family in matplotlib.rcParams["font.family"]
        ]
    fonts = [ft2font.FT2Font(path) for path in dict.fromkeys(paths)]
    return sorted(
        {
            char
            for text in texts
            for char in text
            if not char.isspace() and not any(f.get_char_index(ord(char)) for f in fonts)
        }
    )


@pytest.mark.parametrize("lang", ["fr", "zh", "ja"])
def test_the_memory_chart_is_labelled_in_the_report_language(lang: str) -> None:
    data = render_memory_chart(oom_diagnosis(), hand_built_exchanges(), lang=lang).figure_data
    english = render_memory_chart(oom_diagnosis(), hand_built_exchanges()).figure_data
    assert data is not None and english is not None
    words = CHART_WORDS[lang]
    assert data.title == words["chart.memory_title"].format(job="resnet-train")
    assert (data.x_label, data.y_label) == (words["chart.time_axis"], words["chart.memory_axis"])
    assert data.legend == [
        words["chart.memory_used"],
        words["chart.limit"].format(gib="8.00"),
        words["chart.request"].format(gib="6.00"),
        words["chart.oom_kill"],
    ]
    assert english.legend == ["memory used", "limit 8.00 GiB", "request 6.00 GiB", "OOM kill"]
    # The same numbers are drawn whatever the language.
    assert (data.levels, data.markers) == (english.levels, english.markers)
    assert data.plotted_max_bytes() == english.plotted_max_bytes() == PEAK
    assert _glyphs_missing([data.title, data.x_label, data.y_label, *data.legend]) == []


@pytest.mark.parametrize("lang", ["fr", "zh", "ja"])
def test_the_scan_chart_is_labelled_in_the_report_language(lang: str) -> None:
    data = render_scan_chart(scan_result(), lang=lang).figure_data
    assert data is not None
    words = CHART_WORDS[lang]
    assert data.title == words["chart.scan_title"].format(
        where="ModelArts cn-north-4", total=words["chart.scanned"].format(count=9)
    )
    assert data.y_label == words["chart.jobs_axis"]
    # Categories and causes are the scan's own words; what the columns and kinds say is translated.
    assert data.bars == {"CRASH_APP_ERROR": 3.0, "OOM_KILLED": 2.0, "permission_denied": 1.0}
    head, *rows = data.table
    assert head == [words[f"chart.column.{column}"] for column in ("same", "cause", "jobs", "which")]
    assert [row[0] for row in rows] == [words["chart.kind.signature"]] * 2
    assert rows[0][1] == "ModuleNotFoundError: No module named 'timm'"
    assert _glyphs_missing([data.title, data.y_label, *head, *(row[0] for row in rows)]) == []

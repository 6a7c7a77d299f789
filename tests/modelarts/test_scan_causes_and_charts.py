"""ModelArts scan: `recurring_causes` (signatures and engine images) in scan/v1 and the Markdown;
`--chart` on `diagnose modelarts` and `diagnose modelarts scan`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli.main import main
from diagnosis.modelarts.parse.job import parse_job
from diagnosis.modelarts.scan import image_of
from diagnosis.render.charts.figure import png_size
from simulator.server import SimServer
from tests.modelarts.conftest import BUNDLES, load, project_of, raw
from tests.modelarts.test_e2e_sim import AK, SK, environment, point_at

__all__ = ["environment"]  # the fixture, imported for these tests

SCAN = str(BUNDLES / "scan-pages.bundle.json")
AS_OF = "2026-06-10T02:00:00Z"
ENGINE_IMAGE = "PyTorch:pytorch_2.1.0-cuda_12.1-py_3.10-ubuntu_22.04-x86_64"


def test_scan_json_lists_the_images_and_signatures_jobs_share(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["modelarts", "scan", "--bundle", SCAN, "--as-of", AS_OF, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    causes = {(cause["kind"], cause["value"][:40]): cause for cause in data["recurring_causes"]}
    image = causes[("image", ENGINE_IMAGE[:40])]
    assert image["count"] == 3 and sorted(image["workloads"]) == ["scan-module", "scan-oom-a", "scan-oom-b"]
    signature = next(cause for cause in data["recurring_causes"] if cause["kind"] == "signature")
    assert signature["value"].startswith("torch.OutOfMemoryError") and signature["count"] == 2
    # The job whose details were refused is not diagnosed, so it shares no cause.
    assert all("scan-denied" not in cause["workloads"] for cause in data["recurring_causes"])
    assert [cause["count"] for cause in data["recurring_causes"]] == [3, 2]


@pytest.mark.parametrize(
    ("lang", "heading", "row"),
    [
        ("en", "### Recurring errors and images", f"| image | `{ENGINE_IMAGE}` | 3 |"),
        ("zh", "### 重复出现的报错与镜像", f"| 镜像 | `{ENGINE_IMAGE}` | 3 |"),
        ("ja", "### 繰り返し発生しているエラーとイメージ", f"| イメージ | `{ENGINE_IMAGE}` | 3 |"),
    ],
)
def test_scan_markdown_shows_the_recurring_causes(
    lang: str, heading: str, row: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["modelarts", "scan", "--bundle", SCAN, "--as-of", AS_OF, "--lang", lang]) == 0
    text = capsys.readouterr().out
    assert heading in text and row in text


def test_image_is_the_custom_image_else_the_preset_engine() -> None:
    job = parse_job(
        {
            "metadata": {"id": "j1", "name": "custom"},
            "status": {"phase": "Failed"},
            "algorithm": {
                "engine": {"image_url": "swr.cn-north-4.myhuaweicloud.com/team/train:3", "engine_name": "x"}
            },
        }
    )
    assert job is not None and image_of(job) == "swr.cn-north-4.myhuaweicloud.com/team/train:3"
    preset = parse_job(
        {
            "metadata": {"id": "j2"},
            "status": {"phase": "Failed"},
            "algorithm": {"engine": {"engine_name": "MindSpore", "engine_version": "2.2"}},
        }
    )
    assert preset is not None and image_of(preset) == "MindSpore:2.2"
    bare = parse_job({"metadata": {"id": "j3"}, "status": {"phase": "Failed"}, "algorithm": {"engine": None}})
    assert bare is not None and image_of(bare) is None


def test_scan_chart_is_written(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    chart = tmp_path / "scan.png"
    assert main(["modelarts", "scan", "--bundle", SCAN, "--as-of", AS_OF, "--chart", str(chart)]) == 0
    err = capsys.readouterr().err
    assert f"chart: scan summary written to {chart}" in err
    width, height = png_size(chart.read_bytes())
    assert width > 0 and height > 0


def test_diagnose_chart_without_memory_samples_says_why_in_one_line(
    environment: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bundle = load("exit-137-killed")
    environment.setenv("HUAWEICLOUD_SDK_PROJECT_ID", project_of(bundle))
    chart = tmp_path / "memory.png"
    with SimServer([bundle], modelarts_keys=(AK, SK)) as sim:
        point_at(environment, sim)
        code = main(
            [
                "modelarts",
                "--job-id",
                bundle.request["job_id"],
                "--as-of",
                AS_OF,
                "--chart",
                str(chart),
                "--format",
                "json",
            ]
        )
    captured = capsys.readouterr()
    assert code == 0 and json.loads(captured.out)["category"] == "OOM_KILLED"
    assert captured.err.strip() == "chart: no memory metrics were recorded, no chart written"
    assert not chart.exists()
    # The scenario holds no metrics answer: the reason is the truth, not a failure to draw.
    assert all(exchange["op"] != "ShowTrainingJobMetrics" for exchange in raw("exit-137-killed")["exchanges"])

"""The phase-4 rule table, the op table and the lenient parsers."""

from __future__ import annotations

import json

import httpx
import pytest

from diagnosis.knowledge.exitcodes import exit_reading, killing_signal
from diagnosis.modelarts import rules
from diagnosis.modelarts.parse.events import parse_events
from diagnosis.modelarts.parse.job import parse_job
from diagnosis.modelarts.parse.preview import parse_preview
from diagnosis.modelarts.parse.stages import parse_stages
from diagnosis.modelarts.parse.times import read_time
from diagnosis.modelarts.routes import ROUTES, search_args, search_body

# One real-looking line per rule: the rule must name it, and the fast keyword pass must find it.
EXAMPLES: dict[str, str] = {
    "device_oom": "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
    "gpu_hardware": "NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.",
    "ascend_precheck": 'level=error msg="detect failed, error: dsmi-checker detect failed"',
    "node_lost": "node 192.168.0.12 is NotReady, the task was evicted",
    "host_oom": "Memory cgroup out of memory: Killed process 4121 (python)",
    "obs_code_missing": "modelarts-downloader.py: Get object key failed: 'Contents'",
    "obs_not_found": "MoxFileNotExistsException: file or directory or bucket not found: obs://b/p",
    "obs_forbidden": "obs download error, stat:403 reason:Forbidden",
    "mount_failed": "MountVolume.SetUp failed: failed to mount SFS Turbo 10.0.0.5:/share",
    "image_pull": "Failed to pull image swr.cn-north-4.myhuaweicloud.com/team/img:1.0: manifest unknown",
    "quota_exceeded": "ModelArts.0116: quota exceeded for resource type gpu",
    "resources_insufficient": "0/8 nodes are available: 8 Insufficient nvidia.com/gpu.",
    "node_constraints": "0/8 nodes are available: 8 node(s) didn't match Pod's node affinity/selector.",
    "scheduling_failed": "FailedScheduling: pod could not be placed",
    "collective_timeout": "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1) ran for 600000 ms",
    "nccl_error": "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled system error",
    "hccl_error": "HCCL function error: HcclAllReduce, error code is 7",
    "port_in_use": "RuntimeError: The server socket has failed to listen on [::]:29500 (errno: 98 - Address already in use).",
    "rendezvous": "torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError",
    "time_limit": "The training job exceeded the maximum running time and was terminated",
    "child_failed": "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
    "cuda_capability": "NVIDIA A800 with CUDA capability sm_80 is not compatible with the current PyTorch installation.",
    "cuda_error": "RuntimeError: CUDA error: an illegal memory access was encountered",
    "module_not_found": "ModuleNotFoundError: No module named 'apex'",
    "file_not_found": "FileNotFoundError: [Errno 2] No such file or directory: '/cache/data/train.txt'",
    "disk_full": "OSError: [Errno 28] No space left on device",
    "no_internet": "urllib.error.URLError: <urlopen error [Errno 110] Connection timed out>",
    "segfault": "Fatal Python error: Segmentation fault",
    "npu_error": "[ERROR] 2026-06-10 (PID:1, Device:0, RankID:0) ERR99999 UNKNOWN application exception",
    "value_error": "ValueError: num_samples should be a positive integer value, but got num_samples=0",
    "index_error": "IndexError: index 10 is out of bounds for dimension 0 with size 10",
    "key_error": "KeyError: 'state_dict'",
    "type_error": "TypeError: 'NoneType' object is not subscriptable",
    "attribute_error": "AttributeError: module 'numpy' has no attribute 'float'",
    "assertion_error": "AssertionError: Torch not compiled with CUDA enabled",
    "runtime_error": "RuntimeError: Expected all tensors to be on the same device",
}


def test_every_rule_has_an_example() -> None:
    assert {rule.name for rule in rules.RULES} == set(EXAMPLES)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_rule_names_its_example(name: str) -> None:
    matched = rules.match_line(EXAMPLES[name])
    assert matched is not None and matched[0].name == name
    if rules.RULES_BY_NAME[name].keywords:
        hits = rules.rule_hits("noise line\n" + EXAMPLES[name] + "\nmore noise\n")
        assert [(hit.line_number, hit.rule.name) for hit in hits] == [(2, name)]


def test_progress_lines_are_never_failures() -> None:
    assert rules.match_line("NCCL INFO comm 0x55 rank 0 nranks 8 - Init COMPLETE") is None
    assert rules.match_line("2026-06-10 INFO epoch 3 loss=0.2 resources ok") is None


def test_values_quoted_by_meanings() -> None:
    assert rules.match_line("ModuleNotFoundError: No module named 'timm.models'")[1] == {"module": "timm"}  # type: ignore[index]
    assert rules.match_exception("my.pkg.SchemaError: bad column")[0].name == "exception"  # type: ignore[index]
    assert rules.match_exception("just some text") is None


def test_an_exit_code_alone_reads_from_the_one_catalogue() -> None:
    assert exit_reading(139).category == "CRASH_APP_ERROR"
    assert exit_reading(1).category == "CRASH_APP_ERROR"
    assert exit_reading(137).category == "UNKNOWN"
    assert exit_reading(3).meaning_id == "exit.other"
    assert killing_signal(143) == "SIGTERM" and killing_signal(1) is None


def test_keywords_are_derived_from_each_pattern() -> None:
    device_oom = rules.RULES_BY_NAME["device_oom"]
    assert (
        any(word in "el0004:" for word in device_oom.keywords) and "cuda out of memory" in device_oom.keywords
    )
    # A prefilter never hides a line its pattern matches.
    for name, line in EXAMPLES.items():
        rule = rules.RULES_BY_NAME[name]
        assert not rule.keywords or any(word in line.lower() for word in rule.keywords), name


def test_one_rule_line_is_found_in_a_5mb_log() -> None:
    """The only failure line in 5 MB of ordinary training output is found, and nothing else (the
    reading speed is bench/masking.py's figure, not a timed test)."""
    noise = "".join(
        f"2026-06-10T01:{i % 60:02d}:00Z INFO step {i} loss=0.{i % 997} resource ok jobs\n"
        for i in range(70_000)
    )
    text = noise + EXAMPLES["disk_full"] + "\n" + noise
    hits = rules.rule_hits(text)
    assert [hit.rule.name for hit in hits] == ["disk_full"]


def test_search_body_pages_and_filters() -> None:
    body = json.loads(search_body({"name": "resnet", "offset": 2, "limit": 500}))
    assert body["offset"] == 2 and body["limit"] == 50
    assert body["filters"] == [{"key": "name", "operator": "like", "value": ["resnet"]}]
    assert search_args(search_body({"name": "resnet", "offset": 2})) == {"name": "resnet", "offset": 2}
    assert search_args(search_body({})) == {}


def test_routes_resolve_the_real_paths() -> None:
    request = httpx.Request("GET", "https://h/v2/p1/training-jobs/j1/tasks/worker-0/logs/preview")
    route, args = ROUTES.resolve_request(request)  # type: ignore[misc]
    assert route.op == "ShowTrainingJobLogsPreview"
    assert args == {"project_id": "p1", "training_job_id": "j1", "task_id": "worker-0"}
    details = ROUTES.resolve("GET", "/v2/p1/training-jobs/j1", "", b"")
    assert details is not None and details[0].op == "ShowTrainingJobDetails"
    search = ROUTES.resolve("POST", "/v2/p1/training-job-searches", "", search_body({"name": "x"}))
    assert search is not None and search[1] == {"project_id": "p1", "name": "x"}


def test_job_parser_reads_both_vocabularies_and_tolerates_junk() -> None:
    job = parse_job(
        {
            "metadata": {"id": "j", "name": "n", "create_time": 1778208077000},
            "status": {
                "phase": "Abnormal",
                "tasks": ["worker-0", None, 3],
                "task_statuses": [{"task_id": "worker-1", "exit_code": "137", "message": None}, "junk"],
                "failureAnalysisResult": {
                    "analysis_results": [{"description": "disk full"}, {"description": ""}]
                },
            },
        }
    )
    assert job is not None and job.is_fault
    assert job.task_ids == ["worker-0", "3", "worker-1"]
    assert job.task_statuses[0].exit_code == 137 and job.task_statuses[0].task_field == "task_id"
    assert [item.description for item in job.analyses] == ["disk full"]
    assert parse_job(None) is None and parse_job({"kind": "job"}) is None
    lost = parse_job({"status": {"phase": "Running", "secondary_phase": "Lost"}})
    assert lost is not None and lost.is_fault


def test_event_stage_and_preview_parsers() -> None:
    page = parse_events(
        {
            "total": 2,
            "events": [{"level": "Error", "type": "Task", "info": "x", "occur_time": "t"}, {"time": "u"}],
        }
    )
    assert page is not None and [event.message_field for event in page.events] == ["info"]
    assert parse_events("nope") is None
    stages = parse_stages(
        {
            "running_records": [
                {"record_order": 2, "stages": [{"name": "running", "start_time": "2026-06-10T01:00:00Z"}]},
                {"record_order": 1, "stages": [{"name": "old", "start_time": "2026-06-09T01:00:00Z"}]},
            ]
        }
    )
    assert stages is not None and stages.open_stage() is not None and stages.open_stage().name == "running"  # type: ignore[union-attr]
    runbook = parse_stages(
        {
            "stages": [
                {"stage_name": "a", "status": "COMPLETED"},
                {"stage_name": "b", "status": "RUNNING", "duration": "1h30m"},
            ]
        }
    )
    open_stage = runbook.open_stage() if runbook else None
    assert (
        open_stage is not None
        and open_stage.duration is not None
        and open_stage.duration.total_seconds() == 5400
    )
    preview = parse_preview({"context": "old field", "current_size": 5, "full_size": 9})
    assert preview is not None and preview.truncated and preview.content_field == "context"
    assert parse_preview({"log": "x", "next_marker": "m"}).truncated  # type: ignore[union-attr]
    naive = read_time("2026-06-10 10:00:00")
    assert naive is not None and naive.ambiguous and len(naive.readings) == 2
    assert read_time("2026-06-10T10:00:00+08:00").ambiguous is False  # type: ignore[union-attr]

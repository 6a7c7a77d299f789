"""Log scanning: signatures from the references, tracebacks, ordering, streaming, timestamps, grep."""

from __future__ import annotations

import io
import json
import random
import re
import subprocess
import tracemalloc
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from diagnosis.logs.scan import (
    MAX_FINDINGS,
    MAX_LINE_CHARS,
    SCAN_PATTERNS,
    Finding,
    LogFindings,
    LogScanner,
    parse_timestamp,
    parse_traceback,
    scan_lines,
    scan_stream,
    scan_text,
)
from tests.conftest import EXAMPLES

# --------------------------------------------------------------------------------------------
# Signature classes: literal lines from shared/reference (k8s-signals.md §11, modelarts-api.md §9)
# (line, kind, is_consequence)
# --------------------------------------------------------------------------------------------

REFERENCE_LINES: list[tuple[str, str, bool]] = [
    # CUDA OOM (three torch generations)
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 29.76 GiB", "cuda_oom", False),
    (
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.70 GiB. GPU 0 has a total "
        "capacty of 6.00 GiB of which 0 bytes is free.",
        "cuda_oom",
        False,
    ),
    (
        "RuntimeError: CUDA out of memory. Tried to allocate 12.50 MiB (GPU 0; 10.92 GiB total capacity; "
        "1.02 GiB already allocated)",
        "cuda_oom",
        False,
    ),
    # NCCL collective timeouts: consequences (G14)
    (
        "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, "
        "NumelIn=466119168, NumelOut=466119168, Timeout(ms)=600000) ran for 600060 milliseconds before timing out.",
        "nccl_timeout",
        True,
    ),
    (
        "WorkNCCL(SeqNum=469508, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1802212 milliseconds before "
        "timing out.",
        "nccl_timeout",
        True,
    ),
    (
        "Exception (either an error or timeout) detected by watchdog at work: 1580, last enqueued NCCL work: "
        "1582, last completed NCCL work: 1579.",
        "nccl_timeout",
        True,
    ),
    # NCCL errors
    (
        "RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:911, unhandled system "
        "error, NCCL version 2.7.8",
        "nccl_error",
        False,
    ),
    ("ncclSystemError: System call (socket, malloc, munmap, etc) failed.", "nccl_error", False),
    (
        "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:"
        "1333, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.1",
        "nccl_error",
        False,
    ),
    (
        "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
        "nccl_error",
        True,
    ),
    # rendezvous
    (
        "torch.distributed.DistNetworkError: The client socket has timed out after 600000ms while trying to "
        "connect to (172.17.0.9, 46229).",
        "rendezvous",
        False,
    ),
    ("RuntimeError: Address already in use", "rendezvous", False),
    # torchrun launcher reports: consequences
    (
        "[2024-07-10 09:00:00,000] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -9) "
        "local_rank: 0 (pid: 1322) of binary: /root/miniconda3/bin/python",
        "child_failed",
        True,
    ),
    ("torch.distributed.elastic.multiprocessing.errors.ChildFailedError:", "child_failed", True),
    ("  exitcode  : -9 (pid: 14750)", "child_failed", True),
    ("  traceback : Signal 9 (SIGKILL) received by PID 14750", "child_failed", True),
    ("Sending process 899505 closing signal SIGTERM", "child_failed", True),
    # shared memory / DataLoader
    (
        "RuntimeError: DataLoader worker (pid 46794) is killed by signal: Bus error. It is possible that "
        "dataloader's workers are out of shared memory. Please try to raise your shared memory limit.",
        "bus_error",
        False,
    ),
    (
        "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).",
        "bus_error",
        False,
    ),
    ("RuntimeError: DataLoader worker (pid(s) 3216) exited unexpectedly", "killed", False),
    ("RuntimeError: DataLoader worker (pid 77) is killed by signal: Killed.", "killed", False),
    # CUDA errors
    ("RuntimeError: CUDA error: an illegal memory access was encountered", "cuda_error", False),
    ("RuntimeError: CUDA error: device-side assert triggered", "cuda_error", False),
    ("RuntimeError: No CUDA GPUs are available", "cuda_error", False),
    # hardware (G16)
    ("nvml: GPU is lost", "hardware", False),
    ("NVRM: Xid (PCI:0000:44:00): 79, GPU has fallen off the bus", "hardware", False),
    ("RuntimeError: CUDA error: uncorrectable ECC error encountered", "hardware", False),
    ("[ERROR] NPU heartbeat lost, device_id=3", "hardware", False),
    ('level=error msg="detect failed, error: dsmi-checker detect failed"', "hardware", False),
    # native crashes
    ("Segmentation fault (core dumped)", "segfault", False),
    ("Fatal Python error: Segmentation fault", "segfault", False),
    # kernel / shell kills
    ("/bin/bash: line 1:    42 Killed    python train.py", "killed", False),
    ("Killed", "killed", False),
    (
        "Out of memory: Killed process 1234 (python) total-vm:123456kB, anon-rss:654321kB, file-rss:0kB",
        "oom_killed",
        False,
    ),
    ("Memory cgroup out of memory: Killed process 4242 (python)", "oom_killed", False),
    # disk
    ("OSError: [Errno 28] No space left on device", "disk_full", False),
    # ModelArts (modelarts-api.md §9.1, §9.3)
    ("[Modelarts Service Log]Training end with return code: 137", "killed", False),
    ("[ModelArts Service Log]Training end with return code: 139", "segfault", False),
    ("[ModelArts Service Log]Training end with return code: 1", "error", False),
    ("modelarts-downloader.py: Get object key failed: 'Contents'", "data_access", False),
    ("MoxFileNotExistsException: file or directory or bucket not found", "data_access", False),
    ("obs: stat:403 reason:Forbidden", "data_access", False),
    # Ascend / CANN and torch_npu codes (modelarts-api.md §9.4, §9.5)
    ("EL0004: [PID: 1234] 2026-05-12-05:00:12.123.456 Failed to allocate memory.", "cuda_oom", False),
    ("EI0011: HCCL device memory is not enough", "cuda_oom", False),
    ("EI9999: Inner Error!", "nccl_error", False),
    ("EZ9999: Inner Error!", "cuda_error", False),
    ("E19999: Inner Error!", "cuda_error", False),
    (
        "[ERROR] 2026-05-12-05:00:12 (PID:1234, Device:0, RankID:0) ERR99999 UNKNOWN application exception",
        "cuda_error",
        False,
    ),
    (
        "[ERROR] 2026-05-12-05:00:12 (PID:1234, Device:0, RankID:1) ERR02005 DIST internal error",
        "nccl_error",
        False,
    ),
    ("RuntimeError: HCCL function error: HcclAllReduce, error code is 7", "nccl_error", False),
    # generic errors: lowest priority
    ("ERROR:root:label_map.pbtxt cannot be found", "error", False),
    ("train.py: error: unrecognized arguments: --lr-warmup", "error", False),
]

# Lines that match the candidate patterns but are never failures (G14) or not failures at all.
NOT_FAILURES = [
    "node-1:35381:7767 [1] NCCL INFO Channel 57/02 : 0 1 2 3 4 5 6 7",
    "node-1:1:1 [0] NCCL INFO NCCL_ASYNC_ERROR_HANDLING set by environment to 1",
    "node-1:1:1 [0] NCCL INFO comm 0x55d1 rank 0 nranks 8 cudaDev 0 busId 1b000 - Init COMPLETE",
    "export TORCH_NCCL_ASYNC_ERROR_HANDLING=1",
    "[ModelArts Service Log]Training end with return code: 0",
    "pod condition reason: OOMKilled is the k8s reason name",
]


def _only(findings: LogFindings) -> Finding:
    assert len(findings.findings) == 1, [f.line for f in findings.findings]
    return findings.findings[0]


@pytest.mark.parametrize(
    ("line", "kind", "consequence"), REFERENCE_LINES, ids=[r[0][:50] for r in REFERENCE_LINES]
)
def test_reference_line_is_classified(line: str, kind: str, consequence: bool) -> None:
    result = scan_text(f"step 1 loss 0.5\n{line}\nstep 2 loss 0.4\n")
    finding = _only(result)
    assert finding.kind == kind
    assert finding.is_consequence is consequence
    assert finding.line == line.strip()
    assert finding.line_number == 2
    assert result.lines_scanned == 3


@pytest.mark.parametrize("line", NOT_FAILURES)
def test_progress_and_setup_lines_are_never_failures(line: str) -> None:
    assert scan_text(line + "\n").findings == []


def test_codes_and_exit_codes_are_extracted() -> None:
    log = "\n".join(
        [
            "NVRM: Xid (PCI:0000:44:00): 79, GPU has fallen off the bus",
            "EL0004: Failed to allocate memory.",
            "[ERROR] 2026-05-12-05:00:12 (PID:1, Device:0, RankID:0) ERR99999 UNKNOWN application exception",
            "[Modelarts Service Log]Training end with return code: 137",
            "E0512 05:10:01.000000 1234 api.py:826] failed (exitcode: -9) local_rank: 0 (pid: 1322)",
            "  traceback : Signal 9 (SIGKILL) received by PID 14750",
        ]
    )
    by_rule = {finding.rule: finding for finding in scan_text(log).findings}
    assert by_rule["gpu_xid"].code is not None and by_rule["gpu_xid"].code.endswith("79")
    assert by_rule["ascend_memory_code"].code == "EL0004"
    assert by_rule["torch_npu_error"].code == "ERR99999"
    assert by_rule["modelarts_return_code_killed"].exit_code == 137
    assert by_rule["torchrun_exitcode"].exit_code == -9
    assert by_rule["torchrun_signal"].code == "SIGKILL"


# --------------------------------------------------------------------------------------------
# Tracebacks
# --------------------------------------------------------------------------------------------

SIMPLE_TRACEBACK = """\
Epoch 1 | step 10 | loss 0.51
Traceback (most recent call last):
  File "/home/ma-user/train.py", line 42, in <module>
    main()
  File "/home/ma-user/train.py", line 30, in main
    batch = next(loader)
            ^^^^^^^^^^^^
KeyError: 'labels'
"""


def test_traceback_final_line_is_the_key_line() -> None:
    finding = _only(scan_text(SIMPLE_TRACEBACK))
    assert finding.kind == "traceback"
    assert finding.line == "KeyError: 'labels'"
    assert finding.exception_name == "KeyError"
    assert finding.line_number == 8
    assert finding.traceback is not None
    assert [frame.function for frame in finding.traceback.frames] == ["<module>", "main"]
    assert finding.traceback.frames[-1].code == "batch = next(loader)"
    assert finding.traceback.message == "'labels'"
    # a few key lines, never the whole log
    assert finding.context[-1] == "KeyError: 'labels'"
    assert "    batch = next(loader)" in finding.context
    assert len(finding.context) <= 6


def test_dotted_exception_name_and_specific_kind() -> None:
    log = """\
Traceback (most recent call last):
  File "train.py", line 9, in <module>
    loss.backward()
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.
"""
    finding = _only(scan_text(log))
    assert finding.kind == "cuda_oom"
    assert finding.exception_name == "torch.OutOfMemoryError"
    assert finding.line.startswith("torch.OutOfMemoryError: CUDA out of memory")


CHAINED = """\
Traceback (most recent call last):
  File "data.py", line 5, in load
    return open(path).read()
FileNotFoundError: [Errno 2] No such file or directory: '/cache/data/train.json'

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "train.py", line 12, in <module>
    dataset = load(path)
  File "data.py", line 7, in load
    raise RuntimeError("dataset missing") from None
RuntimeError: dataset missing

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "launch.py", line 3, in <module>
    run()
ValueError: training aborted: dataset missing
"""


def test_chained_traceback_reports_the_last_final_line() -> None:
    finding = _only(scan_text(CHAINED))
    assert finding.line == "ValueError: training aborted: dataset missing"
    assert finding.exception_name == "ValueError"
    assert finding.traceback is not None
    assert finding.traceback.chained == [
        "FileNotFoundError: [Errno 2] No such file or directory: '/cache/data/train.json'",
        "RuntimeError: dataset missing",
    ]
    assert finding.traceback.frames[-1].file == "launch.py"


def test_truncated_traceback_is_reported_with_what_exists() -> None:
    log = """\
Traceback (most recent call last):
  File "/workspace/train.py", line 187, in <module>
    main()
  File "/workspace/model.py", line 55, in forward
    x = self.block(x)"""
    finding = _only(scan_text(log))
    assert finding.kind == "traceback"
    assert finding.rule == "python_traceback_truncated"
    assert finding.exception_name is None
    assert finding.line == "x = self.block(x)"
    assert finding.traceback is not None and finding.traceback.truncated
    assert finding.traceback.frames[-1].file == "/workspace/model.py"


def test_multi_line_message_and_consumed_continuation() -> None:
    log = """\
Traceback (most recent call last):
  File "train.py", line 3, in <module>
    y = x.cuda() + 1
RuntimeError: CUDA error: an illegal memory access was encountered
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1.

2026-05-12 05:00:13,000 - ERROR - shutting down
"""
    result = scan_text(log)
    kinds = [(f.kind, f.line_number) for f in result.findings]
    assert kinds == [("cuda_error", 4), ("error", 8)]
    assert "For debugging consider passing CUDA_LAUNCH_BLOCKING=1." in result.findings[0].context


def test_torchrun_child_failed_traceback_is_a_consequence_with_exit_code() -> None:
    log = """\
Traceback (most recent call last):
  File "/usr/local/bin/torchrun", line 8, in <module>
    sys.exit(main())
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
train.py FAILED
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2024-07-10_09:00:00
  rank      : 0 (local_rank: 0)
  exitcode  : -9 (pid: 14750)
  error_file: <N/A>
  traceback : Signal 9 (SIGKILL) received by PID 14750
============================================================
"""
    finding = _only(scan_text(log))
    assert finding.kind == "child_failed"
    assert finding.is_consequence
    assert finding.exit_code == -9


def test_prefixed_worker_tracebacks() -> None:
    log = """\
[rank1]: Traceback (most recent call last):
[rank1]:   File "/workspace/train.py", line 120, in main
[rank1]:     loss.backward()
[rank0]: step 99 loss 0.1
[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.
2026-05-12T05:00:12.123456789Z Traceback (most recent call last):
2026-05-12T05:00:12.123456790Z   File "x.py", line 1, in <module>
2026-05-12T05:00:12.123456791Z     import apex
2026-05-12T05:00:12.123456792Z ModuleNotFoundError: No module named 'apex'
"""
    result = scan_text(log)
    assert [(f.kind, f.line, f.line_number) for f in result.findings] == [
        ("cuda_oom", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.", 5),
        ("traceback", "ModuleNotFoundError: No module named 'apex'", 9),
    ]
    apex = result.findings[1]
    assert apex.timestamp is not None and apex.timestamp.value.microsecond == 123456
    assert apex.context[-2:] == ["    import apex", "ModuleNotFoundError: No module named 'apex'"]


def test_interleaved_worker_tracebacks_are_all_followed() -> None:
    log = """\
[rank1]: Traceback (most recent call last):
[rank3]: Traceback (most recent call last):
[rank1]:   File "/workspace/train.py", line 120, in main
[rank3]:   File "/workspace/train.py", line 120, in main
[rank1]:     loss.backward()
[rank3]:     loss.backward()
[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.
[rank3]: RuntimeError: CUDA error: an illegal memory access was encountered
step 100
[rank5]: Traceback (most recent call last):
[rank5]:   File "/workspace/data.py", line 7, in load
[rank5]:     return json.load(f)
[rank5]: ValueError: bad json
"""
    result = scan_text(log)
    assert [(f.kind, f.line_number) for f in result.findings] == [
        ("cuda_oom", 7),
        ("cuda_error", 8),
        ("traceback", 13),
    ]
    assert result.findings[2].exception_name == "ValueError"


def test_parse_traceback_on_the_example_task_message() -> None:
    bundle = json.loads((EXAMPLES / "modelarts-early-exit-traceback.bundle.json").read_text(encoding="utf-8"))
    diagnosis = json.loads(
        (EXAMPLES / "modelarts-early-exit-traceback.diagnosis.json").read_text(encoding="utf-8")
    )
    message = bundle["exchanges"][0]["body"]["status"]["task_statuses"][0]["message"]
    parsed = parse_traceback(message)
    assert parsed is not None
    assert parsed.final_line == diagnosis["signature"]
    assert parsed.exception_name == "ModuleNotFoundError"
    finding = scan_text(message).primary()
    assert finding is not None
    cited = [e["text"] for e in diagnosis["evidence"] if "ModuleNotFoundError" in e["text"]]
    assert "\n".join(finding.context[-2:]) == cited[0]


def test_parse_traceback_without_traceback() -> None:
    assert parse_traceback("internal error") is None
    assert parse_traceback("") is None


# --------------------------------------------------------------------------------------------
# Ordering (G14): real failure before consequences, direct before generic, earliest first
# --------------------------------------------------------------------------------------------

MULTI_WORKER = """\
=== worker-1 ===
2026-05-12T05:09:58Z ERROR: dataloader slow, retrying
[rank1]:[E512 05:10:00.123456 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600060 milliseconds before timing out.
[rank1]:[E512 05:10:00.200000 ProcessGroupNCCL.cpp:1600] [Rank 1] NCCL watchdog thread terminated with exception: [Rank 1] Watchdog caught collective operation timeout
terminate called after throwing an instance of 'c10::DistBackendError'
Fatal Python error: Aborted
=== worker-0 ===
[rank0]: Traceback (most recent call last):
[rank0]:   File "/workspace/train.py", line 120, in main
[rank0]:     loss.backward()
[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.
E0512 05:10:01.000000 1234 api.py:826] failed (exitcode: 1) local_rank: 0 (pid: 1322) of binary: /usr/bin/python
"""


def test_real_failure_ranks_before_nccl_timeouts_and_launcher_errors() -> None:
    result = scan_text(MULTI_WORKER)
    primary = result.primary()
    assert primary is not None
    assert primary.kind == "cuda_oom"
    assert not primary.is_consequence
    consequences = [f for f in result.findings if f.is_consequence]
    assert {f.kind for f in consequences} >= {"nccl_timeout", "child_failed"}
    # the abort right after the watchdog is a consequence too, not a root cause
    aborted = next(f for f in result.findings if f.line == "Fatal Python error: Aborted")
    assert aborted.is_consequence
    # generic error lines come after direct signals but before consequences
    kinds = [f.kind for f in result.findings]
    assert kinds.index("error") > kinds.index("cuda_oom")
    assert all(f.is_consequence for f in result.findings[kinds.index("error") + 1 :] if f.kind != "error")
    assert result.root_causes()[0] is primary


def test_earliest_direct_failure_first() -> None:
    log = "OSError: [Errno 28] No space left on device\nSegmentation fault (core dumped)\n"
    assert [f.kind for f in scan_text(log).findings] == ["disk_full", "segfault"]


def test_identical_lines_from_many_ranks_fold_into_one() -> None:
    lines = [
        f"[rank{rank}]: torch.OutOfMemoryError: CUDA out of memory. GPU {rank} has 79.15 GiB"
        for rank in range(8)
    ]
    result = scan_lines(lines)
    finding = _only(result)
    assert finding.occurrences == 8
    assert finding.line_number == 1
    assert result.kind_counts["cuda_oom"] == 8


def test_lines_that_differ_only_in_digits_can_still_differ_in_kind() -> None:
    log = "\n".join(
        [
            "[ModelArts Service Log]Training end with return code: 1",
            "[ModelArts Service Log]Training end with return code: 137",
            "EL0003: invalid argument",
            "EL0004: invalid argument",
            "ERR01005 OPS internal error",
            "ERR02005 DIST internal error",
        ]
    )
    assert [(f.kind, f.line_number) for f in scan_text(log).findings] == [
        ("killed", 2),
        ("cuda_error", 3),
        ("cuda_oom", 4),
        ("cuda_error", 5),
        ("nccl_error", 6),
        ("error", 1),
    ]


def test_findings_are_capped_and_the_real_failure_survives() -> None:
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]
    noise = [f"ERROR: cache {a} {b} unavailable" for a in words for b in words]  # 100 distinct lines
    lines = [*noise, "RuntimeError: CUDA error: an illegal memory access was encountered"]
    result = scan_lines(lines)
    assert len(result.findings) == MAX_FINDINGS
    assert result.findings_dropped == 101 - MAX_FINDINGS
    assert result.findings[0].kind == "cuda_error"
    assert result.kind_counts["error"] == 100


# --------------------------------------------------------------------------------------------
# Streaming: chunk boundaries, equivalence, bytes, long lines, memory
# --------------------------------------------------------------------------------------------


def _summary(result: LogFindings) -> list[tuple[object, ...]]:
    return [
        (
            f.kind,
            f.rule,
            f.line,
            f.line_number,
            f.is_consequence,
            f.exception_name,
            tuple(f.context),
            f.occurrences,
            f.exit_code,
            f.timestamp.text if f.timestamp else None,
        )
        for f in result.findings
    ]


MIXED_LOG = (
    "2026-05-12T05:00:00Z start\n"
    + SIMPLE_TRACEBACK
    + CHAINED
    + MULTI_WORKER
    + "EL0004: Failed to allocate memory.\r\n"
    + " 45%|####      | 450/1000 [01:23<01:40]\r 46%|####      | 460/1000\rOSError: [Errno 28] No space left on device\n"
    + "2026-05-12T06:00:00+08:00 last line\n"
)


@pytest.mark.parametrize("chunk_size", [1, 7, 16, 61, 256, 4096])
def test_results_do_not_depend_on_chunk_size(chunk_size: int) -> None:
    reference = scan_text(MIXED_LOG)
    chunked = scan_stream(io.BytesIO(MIXED_LOG.encode()), chunk_size=chunk_size)
    assert _summary(chunked) == _summary(reference)
    assert chunked.lines_scanned == reference.lines_scanned == MIXED_LOG.count("\n")
    assert chunked.candidate_lines == reference.candidate_lines
    assert chunked.latest_timestamp == reference.latest_timestamp


def test_traceback_split_across_two_chunks() -> None:
    data = SIMPLE_TRACEBACK.encode()
    split = data.index(b"  File", data.index(b"line 42"))  # between two frames
    scanner = LogScanner()
    scanner.feed(data[:split])
    scanner.feed(data[split:])
    finding = _only(scanner.finish())
    assert finding.line == "KeyError: 'labels'"
    assert finding.traceback is not None and len(finding.traceback.frames) == 2


def test_stream_text_and_lines_agree() -> None:
    from_text = scan_text(MIXED_LOG)
    from_stream = scan_stream(io.BytesIO(MIXED_LOG.encode()))
    from_lines = scan_lines(MIXED_LOG.rstrip("\n").split("\n"))
    from_lines_with_ends = scan_lines(piece for piece in re.split(r"(?<=\n)", MIXED_LOG) if piece)
    for other in (from_stream, from_lines, from_lines_with_ends):
        assert _summary(other) == _summary(from_text)
        assert other.lines_scanned == from_text.lines_scanned
        assert other.candidate_lines == from_text.candidate_lines


@pytest.mark.parametrize("engine", ["re", "re2", "hyperscan"])
@pytest.mark.parametrize("chunk_size", [7, 4096])
def test_every_engine_gives_the_same_results(engine: str, chunk_size: int) -> None:
    reference = scan_text(MIXED_LOG, engine="re", chunk_size=1 << 20)
    result = scan_text(MIXED_LOG, engine=engine, chunk_size=chunk_size)
    assert _summary(result) == _summary(reference)
    assert result.candidate_lines == reference.candidate_lines
    assert result.lines_scanned == reference.lines_scanned


def test_a_block_with_too_many_matches_falls_back_to_search(monkeypatch: pytest.MonkeyPatch) -> None:
    import diagnosis.logs.scan.engines as logscan

    monkeypatch.setattr(logscan, "_MAX_BLOCK_POSITIONS", 3)
    reference = scan_text(MIXED_LOG, engine="re")
    result = scan_text(MIXED_LOG, engine="hyperscan")
    assert _summary(result) == _summary(reference)
    assert result.candidate_lines == reference.candidate_lines > 3


def test_unknown_engine_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown scan engine"):
        LogScanner(engine="grep")


def test_non_utf8_bytes_and_crlf() -> None:
    data = b"caf\xe9 \xff\xfe step 1\r\nRuntimeError: CUDA error: bad \xff byte\r\nlast\r\n"
    result = scan_stream(io.BytesIO(data), chunk_size=5)
    finding = _only(result)
    assert finding.kind == "cuda_error"
    assert finding.line == "RuntimeError: CUDA error: bad \ufffd byte"
    assert result.lines_scanned == 3


def test_carriage_return_progress_keeps_the_failing_segment() -> None:
    log = " 45%|####  | 450/1000\r 46%|####  | 460/1000\rOSError: [Errno 28] No space left on device\n"
    finding = _only(scan_text(log))
    assert finding.line == "OSError: [Errno 28] No space left on device"


def test_very_long_lines_are_capped() -> None:
    long_line = "x" * 300_000 + " RuntimeError: CUDA error: illegal memory access " + "y" * 300_000
    finding = _only(scan_text(f"a\n{long_line}\nb\n"))
    assert finding.line_number == 2
    assert len(finding.line) <= MAX_LINE_CHARS + 2
    assert "CUDA error: illegal memory access" in finding.line


def test_line_longer_than_a_chunk_is_scanned_in_parts() -> None:
    # 9 MB without a newline: more than two default chunks, never held whole
    huge = b"z" * 5_000_000 + b" No space left on device " + b"z" * 4_000_000
    stream = io.BytesIO(b"first\n" + huge + b"\nKilled\n")
    result = scan_stream(stream, chunk_size=1 << 20)
    assert [f.kind for f in result.findings] == ["disk_full", "killed"]
    assert [f.line_number for f in result.findings] == [2, 3]
    assert result.lines_scanned == 3
    assert result.candidate_lines == 2


class _GeneratedLog:
    """A large log produced on the fly (never in memory as a whole)."""

    def __init__(self, total_bytes: int) -> None:
        block = (
            b"2026-05-12T05:00:00Z [rank3]: Epoch 3 | step 1200/5000 | loss 0.3421 | lr 1.0e-04\n"
            b"node-1:1:1 [0] NCCL INFO Channel 00/02 : 0 1 2 3 4 5 6 7\n"
            b"[2026-05-12 05:00:12,123] INFO train.py:120 - Saving checkpoint to /cache/ckpt/step_1200\n"
        )
        self.block = block * (1 << 14)
        self.remaining = total_bytes
        self.failure_sent = False

    def read(self, size: int) -> bytes:
        if self.remaining <= 0:
            if not self.failure_sent:
                self.failure_sent = True
                return b"torch.OutOfMemoryError: CUDA out of memory.\n"
            return b""
        data = self.block[: min(size, len(self.block), self.remaining)]
        self.remaining -= len(data)
        return data


def test_memory_stays_bounded_on_a_large_stream() -> None:
    tracemalloc.start()
    try:
        result = scan_stream(_GeneratedLog(64 << 20), chunk_size=1 << 20)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.bytes_scanned > 64 << 20
    assert peak < 16 << 20, f"peak {peak / 1e6:.1f} MB"
    finding = result.primary()
    assert finding is not None and finding.kind == "cuda_oom"
    assert finding.line_number == result.lines_scanned


# --------------------------------------------------------------------------------------------
# Timestamps
# --------------------------------------------------------------------------------------------

TIMESTAMPS: list[tuple[str, datetime, bool]] = [
    ("2026-05-12T05:00:12Z train", datetime(2026, 5, 12, 5, 0, 12, tzinfo=UTC), True),
    (
        "2026-05-12T05:00:12.123456789Z [rank0]: x",
        datetime(2026, 5, 12, 5, 0, 12, 123456, tzinfo=UTC),
        True,
    ),
    ("2026-05-12 05:00:12,123 - INFO - x", datetime(2026, 5, 12, 5, 0, 12, 123000), False),
    (
        "2026-05-12T13:00:12+08:00 x",
        datetime(2026, 5, 12, 13, 0, 12, tzinfo=timezone(timedelta(hours=8))),
        True,
    ),
    ("[2026-05-12 05:00:12] INFO x", datetime(2026, 5, 12, 5, 0, 12), False),
    (
        "[2026-05-12 05:00:12,500] torch.distributed.run: [WARNING]",
        datetime(2026, 5, 12, 5, 0, 12, 500000),
        False,
    ),
    (
        "[ERROR] 2026-05-12-05:00:12.123.456 (PID:1234, Device:0) ERR99999",
        datetime(2026, 5, 12, 5, 0, 12, 123000),
        False,
    ),
]


@pytest.mark.parametrize(("line", "value", "has_offset"), TIMESTAMPS, ids=[t[0][:30] for t in TIMESTAMPS])
def test_timestamp_forms(line: str, value: datetime, has_offset: bool) -> None:
    reading = parse_timestamp(line)
    assert reading is not None
    assert reading.value == value
    assert reading.has_offset is has_offset
    assert (reading.value.tzinfo is not None) is has_offset
    assert reading.text in line


def test_glog_and_torch_times_need_a_year_from_the_same_log() -> None:
    assert parse_timestamp("I0512 05:00:12.123456  1234 file.cc:10] x") is None
    glog = parse_timestamp("I0512 05:00:12.123456  1234 file.cc:10] x", year_hint=2026)
    assert glog is not None and glog.value == datetime(2026, 5, 12, 5, 0, 12, 123456)
    torch_line = parse_timestamp("[rank0]:[W512 05:00:12.123456 ProcessGroupNCCL.cpp:1] x", year_hint=2026)
    assert torch_line is not None and torch_line.value == datetime(2026, 5, 12, 5, 0, 12, 123456)
    assert torch_line.has_offset is False


def test_lines_without_a_timestamp() -> None:
    assert parse_timestamp("Epoch 3 loss 0.5") is None
    assert parse_timestamp("saved to /cache/2026-05-12 checkpoint") is None
    assert parse_timestamp('  File "train.py", line 3, in <module>') is None


def test_latest_timestamp_is_the_newest_line_of_the_log() -> None:
    log = "\n".join(
        [
            "2026-05-12T05:00:12Z start",
            "step 1",
            "2026-05-12T07:30:00Z step 2",
            "no time here",
            "Traceback (most recent call last):",
            '  File "x.py", line 1, in <module>',
            "ValueError: boom",
        ]
    )
    result = scan_text(log)
    assert result.latest_timestamp is not None
    assert result.latest_timestamp.value == datetime(2026, 5, 12, 7, 30, tzinfo=UTC)
    assert result.latest_timestamp.has_offset
    assert scan_text("no timestamps\nat all\n").latest_timestamp is None


def test_glog_finding_gets_the_year_of_the_log() -> None:
    log = "2026-05-12T05:00:00Z start\nE0512 05:10:01.000000 1 api.py:826] failed (exitcode: -9) local_rank: 0\n"
    finding = _only(scan_text(log))
    assert finding.timestamp is not None
    assert finding.timestamp.value == datetime(2026, 5, 12, 5, 10, 1)
    assert finding.timestamp.has_offset is False


# --------------------------------------------------------------------------------------------
# SCAN_PATTERNS and grep -E
# --------------------------------------------------------------------------------------------


def test_scan_patterns_stay_inside_the_portable_subset() -> None:
    for pattern in SCAN_PATTERNS:
        assert not re.search(r"\\[dDsSwWbB]|\(\?|\\]|\^|\$", pattern), pattern
        re.compile(pattern)  # valid Python too


def _grep_corpus(tmp_path: Path) -> Path:
    rng = random.Random(11)
    lines = [line for line, _, _ in REFERENCE_LINES] + NOT_FAILURES
    lines += MIXED_LOG.splitlines()
    noise = [
        "Epoch 1 | step 10 | loss 0.51 | lr 1.0e-04",
        "node-1:1:1 [0] NCCL INFO Channel 00/02 : 0 1 2 3",
        "[2026-05-12 05:00:12,123] INFO Saving checkpoint",
        "error_rate=0.01 errors=0",
        "ERRORS are fine in variable names like MY_ERROR_COUNT",
    ]
    body = [rng.choice(noise) if rng.random() < 0.6 else rng.choice(lines) for _ in range(3000)]
    path = tmp_path / "corpus.log"
    data = "\n".join(body).encode() + b"\nbad bytes \xff\xfe CUDA error: x\r\nOutOfMemoryError\r\n"
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("engine", ["hyperscan", "re2", "re"])
def test_grep_counts_the_same_candidate_lines(tmp_path: Path, engine: str) -> None:
    path = _grep_corpus(tmp_path)
    args = ["grep", "-E", "-c"]
    for pattern in SCAN_PATTERNS:
        args += ["-e", pattern]
    completed = subprocess.run(
        [*args, str(path)], capture_output=True, text=True, check=False, env={"LC_ALL": "C"}, timeout=60
    )
    assert completed.returncode in (0, 1), completed.stderr
    assert completed.stderr == ""
    with path.open("rb") as stream:
        result = scan_stream(stream, chunk_size=4096, engine=engine)
    assert result.candidate_lines == int(completed.stdout.strip())
    assert result.candidate_lines > 1000


def test_every_finding_kind_says_what_it_names() -> None:
    from typing import get_args

    from diagnosis.logs.rules import FINDING_KINDS, FindingKind

    assert set(FINDING_KINDS) == set(get_args(FindingKind))


def test_a_short_text_is_scanned_alike_without_building_the_hyperscan_database(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import diagnosis.logs.scan.engines as logscan

    reference = scan_text(MIXED_LOG, engine="re")
    monkeypatch.setattr(logscan, "_ENGINES", {})
    short = LogScanner(expected_bytes=len(MIXED_LOG))
    assert short.engine_name in {"re2", "re"}  # a preview does not pay for the database
    assert _summary(scan_text(MIXED_LOG)) == _summary(reference)
    assert LogScanner(expected_bytes=logscan.SHORT_TEXT_BYTES).engine_name == LogScanner().engine_name
    logscan.warm_up()  # a long-lived process built it: every text uses it from then on
    assert LogScanner(expected_bytes=10).engine_name == logscan._engine("auto").name
    assert _summary(scan_text(MIXED_LOG)) == _summary(reference)

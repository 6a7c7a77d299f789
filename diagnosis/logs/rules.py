"""Training-log failure signatures as data: one row per pattern (used by diagnosis.logs.scan).

Each row names a failure class (`kind`) and gives:

* `scan`: candidate patterns, plain POSIX ERE that `grep -E` reads exactly as Python `re` and RE2 do
  (literals, `\\(`-style escapes, bracket classes, `{n}`, `*`, `?`, `|`; no `\\d`, `\\s`, `\\b`,
  anchors or non-capturing groups). Their union is `SCAN_PATTERNS`: the one combined regex the
  streaming scanner runs over raw log bytes; only lines it matches are ever decoded.
* `confirm`: an optional stricter Python regex for the decoded line (defaults to the scan patterns).
  The first row, in table order, whose `confirm` matches classifies the line, so specific rows
  come before the broad ones they overlap (kernel OOM before the shell `Killed` line, NCCL
  watchdog timeouts before NCCL errors, everything before the generic `ERROR` row).

The literal lines come from public issue threads (PyTorch, NCCL, NVIDIA driver and Ascend CANN
reports) and from the ModelArts log messages. Collective-communication timeouts and launcher
wrappers usually follow another worker's failure: they are consequences. Lines that only report
progress or set-up are never failures. Device-memory and device errors raised in the user's
process are application errors; an NVIDIA Xid
(https://docs.nvidia.com/deploy/xid-errors/index.html), an uncorrectable ECC error or a lost GPU
or NPU heartbeat is the node's hardware.

`FINDING_KINDS` says once, for every platform, what a finding of each kind names: its category,
whether it names the failure directly, and its role (a cause, a consequence, or a kill that
another finding must explain).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

from diagnosis.knowledge.rows import Role
from diagnosis.models import Category

FindingKind = Literal[
    "traceback",
    "cuda_oom",
    "cuda_error",
    "nccl_error",
    "nccl_timeout",
    "rendezvous",
    "oom_killed",
    "segfault",
    "bus_error",
    "hardware",
    "killed",
    "disk_full",
    "child_failed",
    "data_access",
    "error",
]


@dataclass(frozen=True)
class KindReading:
    category: Category | None
    direct: bool = True
    role: Role = "cause"
    # A failure outside the training process (the node's hardware, the kernel's OOM killer): only
    # the platform attests it. Printed in the container's own output it is a claim, which an
    # exception of the code itself in the same output contradicts (`own_fault`): then the claim is
    # set aside. Uncontradicted (an Xid line, then a CUDA error it caused), it still names the cause.
    outside_process: bool = False
    # A Python exception that no device, node or platform row names: the code's own failure.
    own_fault: bool = False
    # A collective-communication failure: on a worker, it usually follows another worker's own
    # failure (the peer died, so the collective broke or timed out), and is then its consequence.
    collective: bool = False


FINDING_KINDS: dict[FindingKind, KindReading] = {
    "traceback": KindReading("CRASH_APP_ERROR", own_fault=True),
    "cuda_oom": KindReading("CRASH_APP_ERROR"),
    "cuda_error": KindReading("CRASH_APP_ERROR"),
    "nccl_error": KindReading("COMMUNICATION_FAILURE", collective=True),
    "nccl_timeout": KindReading("COMMUNICATION_FAILURE", role="consequence", collective=True),
    "rendezvous": KindReading("COMMUNICATION_FAILURE", collective=True),
    "oom_killed": KindReading("OOM_KILLED", outside_process=True),
    "segfault": KindReading("CRASH_APP_ERROR"),
    "bus_error": KindReading("CRASH_APP_ERROR"),
    "hardware": KindReading("NODE_FAILURE", outside_process=True),
    # A killed process (`Killed`, return code 137) names no cause until something explains the kill.
    "killed": KindReading(None, direct=False, role="kill"),
    "disk_full": KindReading("CRASH_APP_ERROR"),
    "child_failed": KindReading("CRASH_APP_ERROR", role="consequence"),
    "data_access": KindReading("DATA_ACCESS_FAILED"),
    # A generic `ERROR …` line names a failure less surely than a traceback.
    "error": KindReading("CRASH_APP_ERROR", direct=False),
}


_NO_READING = KindReading(None, direct=False)
_READINGS_BY_NAME: dict[str, KindReading] = {str(kind): reading for kind, reading in FINDING_KINDS.items()}


def reading_of(kind: str | None) -> KindReading:
    """What a finding kind names (a kind no row gives names nothing)."""
    return _READINGS_BY_NAME.get(kind or "", _NO_READING)


def kinds_naming(categories: frozenset[Category], *, direct: bool) -> tuple[FindingKind, ...]:
    """The finding kinds that name one of `categories` as a cause (directly or not)."""
    return tuple(
        kind
        for kind, reading in FINDING_KINDS.items()
        if reading.role == "cause" and reading.category in categories and reading.direct is direct
    )


# Tiers order findings of equal standing: direct signals (0) before generic error lines (1).
DIRECT = 0
GENERIC = 1


@dataclass(frozen=True)
class LineRule:
    name: str
    kind: FindingKind
    scan: tuple[str, ...]
    confirm: str | None = None
    is_consequence: bool = False
    tier: int = DIRECT
    # Group 1 of this regex (on the decoded line) is the error code shown to the user (EL0004, Xid 79…).
    code: str | None = None
    # Group 1 of this regex is an exit code (`exitcode: -9`, `return code: 137`).
    exit_code: str | None = None
    # The line is a consequence when a consequence of one of these kinds came shortly before it
    # (e.g. `Fatal Python error: Aborted` right after an NCCL watchdog abort).
    consequence_after: frozenset[str] = field(default_factory=frozenset)
    # Whether digits decide this row (`return code: 137`, `EL0004`): lines that differ only in
    # their digits may then be classified differently (the scanner's shape cache must not apply).
    digit_sensitive: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        digits = any(char in "0123456789" for char in self.confirm_pattern + "".join(self.scan))
        object.__setattr__(self, "digit_sensitive", digits)

    @property
    def confirm_pattern(self) -> str:
        """The regular expression that confirms a candidate line (its source, not compiled)."""
        return self.confirm if self.confirm is not None else "|".join(self.scan)

    # The row's patterns are compiled the first time a line is checked against it.
    @cached_property
    def compiled(self) -> re.Pattern[str]:
        return re.compile(self.confirm_pattern)

    @cached_property
    def compiled_code(self) -> re.Pattern[str] | None:
        return re.compile(self.code) if self.code else None

    @cached_property
    def compiled_exit(self) -> re.Pattern[str] | None:
        return re.compile(self.exit_code) if self.exit_code else None


# The header that opens a Python traceback; the scanner then follows the frames line by line.
TRACEBACK_HEADER = "Traceback \\(most recent call last\\)"

# Ascend/CANN codes: `E` + module letter or digit + 4 digits
# (https://www.hiascend.com/document, "Error Codes" of the CANN application development guide).
_ASCEND_CODE = r"(?<![A-Za-z0-9])(E[0-9A-Z][0-9A-Z][0-9]{3})(?![0-9A-Za-z])"
# torch_npu codes: `ERR` + 2-digit module + 3-digit type (https://gitee.com/ascend/pytorch).
_TORCH_NPU_CODE = r"(?<![A-Za-z0-9])(ERR[0-9]{5})(?![0-9])"
_EXITCODE = r"exitcode\s*:\s*(-?[0-9]+)"
_RETURN_CODE = r"return code:\s*(-?[0-9]+)"
_SIGNAL_PID = r"Signal ([0-9]+) \(SIG[A-Z]+\) received by PID"
_ABORTS = frozenset({"nccl_timeout", "child_failed"})

# Lines that only report progress or set-up are never failures: NCCL's INFO lines, a communicator
# set up, and the network-plugin loader's notice that it falls back to NCCL's own transport
# (`NCCL WARN NET/Plugin : … No plugin found (libnccl-net.so), using internal implementation`).
NEVER_FAILURE: tuple[str, ...] = ("NCCL INFO", "Init COMPLETE", "NET/Plugin")

LINE_RULES: tuple[LineRule, ...] = (
    # --- hardware: NODE_FAILURE material -------------------------------------------------
    LineRule("gpu_xid", "hardware", ("NVRM: Xid", "Xid \\(PCI:"), code=r"(Xid \(PCI:[^)]*\):?\s*[0-9]+|Xid)"),
    LineRule("gpu_fallen_off_bus", "hardware", ("fallen off the bus",)),
    LineRule("gpu_lost", "hardware", ("GPU is lost",)),
    LineRule("uncorrectable_ecc", "hardware", ("ncorrectable ECC",)),
    LineRule(
        "npu_heartbeat_lost",
        "hardware",
        ("eartbeat lost",),
        confirm=r"(?i)(npu|device|chip|davinci).*heartbeat lost|heartbeat lost.*(npu|device|chip)",
    ),
    LineRule("ascend_precheck_failed", "hardware", ("dsmi-checker detect failed",)),
    # --- kernel OOM killer: host memory (OOM_KILLED material) ------------------------------------
    LineRule("kernel_oom_kill", "oom_killed", ("Out of memory: Kill", "invoked oom-killer", "oom-kill:")),
    LineRule("cgroup_oom", "oom_killed", ("Memory cgroup out of memory",)),
    # --- accelerator memory exhausted in the user's process (CRASH_APP_ERROR) -------------
    LineRule("cuda_out_of_memory", "cuda_oom", ("CUDA out of memory", "OutOfMemoryError")),
    LineRule(
        "cuda_error_out_of_memory", "cuda_oom", ("CUDA error: out of memory", "CUBLAS_STATUS_ALLOC_FAILED")
    ),
    LineRule("npu_out_of_memory", "cuda_oom", ("NPU out of memory",)),
    # MindSpore on Ascend: `Device(id:0) memory isn't enough and alloc failed, kernel name: …`.
    LineRule("mindspore_device_memory", "cuda_oom", ("memory isn't enough and alloc failed",)),
    LineRule(
        "ascend_memory_code",
        "cuda_oom",
        ("EL0004", "EL9999", "EI0011"),
        confirm=r"(?<![A-Za-z0-9])(EL0004|EL9999|EI0011)(?![0-9])",
        code=r"(EL0004|EL9999|EI0011)",
    ),
    # The Ascend runtime could not allocate device memory: a failed `aclrtMalloc`, its error code
    # 207001 (ACL_ERROR_RT_MEMORY_ALLOCATION, CANN's rt_error_codes.h), or CANN's own account of it
    # (`Failed to allocate resource[DeviceMemory] … Reason: Memory resources are exhausted.`).
    LineRule(
        "ascend_device_malloc",
        "cuda_oom",
        ("aclrtMalloc", "error code is 207001", "ACL_ERROR_RT_MEMORY_ALLOCATION"),
        confirm=r"aclrtMalloc\w*\(.*(fail|error code)|error code is 207001|ACL_ERROR_RT_MEMORY_ALLOCATION",
    ),
    LineRule(
        "ascend_device_memory_exhausted",
        "cuda_oom",
        ("resource\\[DeviceMemory]", "Memory resources are exhausted"),
    ),
    # --- collective-communication timeouts: consequences of another worker's failure -----
    LineRule(
        "nccl_watchdog_timeout",
        "nccl_timeout",
        (
            "Watchdog caught collective operation timeout",
            "milliseconds before timing out",
            "watchdog thread terminated with exception",
            "detected by watchdog at work",
            "Some NCCL operations have failed or timed out",
        ),
        confirm=(
            r"Watchdog caught collective operation timeout|ran for [0-9]+ milliseconds before timing out"
            r"|watchdog thread terminated with exception|detected by watchdog at work"
            r"|Some NCCL operations have failed or timed out"
        ),
        is_consequence=True,
    ),
    # HCCL's own timeout codes (CANN error codes of module I): EI0002, a notify wait timed out;
    # EI0006, getting a socket from a peer timed out (`Remote Rank did not send the data in time`).
    LineRule(
        "hccl_timeout_code",
        "nccl_timeout",
        ("EI0002", "EI0006"),
        confirm=r"(?<![A-Za-z0-9])(EI0002|EI0006)(?![0-9])",
        code=r"(EI0002|EI0006)",
        is_consequence=True,
    ),
    # --- launcher wrappers (torchrun/elastic) reporting a child's death --------------------
    LineRule("torchrun_child_failed", "child_failed", ("ChildFailedError",), is_consequence=True),
    LineRule(
        "torchrun_exitcode",
        "child_failed",
        ("exitcode *: *-?[0-9]",),
        confirm=_EXITCODE,
        is_consequence=True,
        exit_code=_EXITCODE,
    ),
    LineRule(
        "torchrun_signal",
        "child_failed",
        ("received by PID",),
        confirm=_SIGNAL_PID,
        is_consequence=True,
        code=r"\((SIG[A-Z]+)\)",
    ),
    LineRule("launcher_closing_signal", "child_failed", ("closing signal SIG",), is_consequence=True),
    # --- rendezvous / master unreachable ---------------------------------------------------------
    LineRule(
        "rendezvous",
        "rendezvous",
        (
            "DistNetworkError",
            "DistStoreError",
            "client socket has timed out",
            "RendezvousTimeoutError",
            "RendezvousConnectionError",
            "RendezvousClosedError",
            "server socket has failed to listen",
            "Address already in use",
        ),
    ),
    # --- collective-communication errors (NCCL, Ascend HCCL) -------------------------------------
    LineRule(
        "nccl_remote_error",
        "nccl_error",
        ("ncclRemoteError", "remote process exit"),
        is_consequence=True,
    ),
    LineRule(
        "nccl_error",
        "nccl_error",
        (
            "NCCL error",
            "ncclSystemError",
            "ncclInternalError",
            "ncclUnhandledCudaError",
            "ncclInvalidUsage",
            "ncclInvalidArgument",
            "DistBackendError",
        ),
        # `terminate called after throwing an instance of 'c10::DistBackendError'` right after a
        # watchdog timeout is the same abort cascade, not a new failure.
        consequence_after=_ABORTS,
    ),
    LineRule("hccl_error", "nccl_error", ("HCCL function error", "HCCL error")),
    # Any other HCCL code (module I of the CANN error codes: EI0001 … EI9999).
    LineRule(
        "ascend_hccl_code",
        "nccl_error",
        ("EI[0-9][0-9][0-9][0-9]",),
        confirm=r"(?<![A-Za-z0-9])(EI[0-9]{4})(?![0-9])",
        code=r"(?<![A-Za-z0-9])(EI[0-9]{4})(?![0-9])",
    ),
    LineRule(
        "torch_npu_dist_error",
        "nccl_error",
        ("ERR02[0-9][0-9][0-9]",),
        confirm=r"(?<![A-Za-z0-9])ERR02[0-9]{3}(?![0-9])",
        code=_TORCH_NPU_CODE,
    ),
    # --- accelerator runtime errors raised in the user's process (CRASH_APP_ERROR) ---------
    LineRule(
        "cuda_error",
        "cuda_error",
        (
            "CUDA error",
            "illegal memory access",
            "device-side assert triggered",
            "CUDNN_STATUS_",
            "CUBLAS_STATUS_",
            "cuDNN error",
            "no kernel image is available",
        ),
    ),
    LineRule(
        "cuda_unavailable",
        "cuda_error",
        (
            "No CUDA GPUs are available",
            "CUDA driver version is insufficient",
            "is not compatible with the current PyTorch installation",
        ),
    ),
    LineRule(
        "torch_npu_error",
        "cuda_error",
        ("ERR[0-9][0-9][0-9][0-9][0-9]",),
        confirm=_TORCH_NPU_CODE,
        code=_TORCH_NPU_CODE,
    ),
    LineRule(
        "ascend_error_code",
        "cuda_error",
        ("E[0-9A-Z][0-9A-Z][0-9][0-9][0-9]:", "EL0003", "EZ9999", "E19999"),
        confirm=_ASCEND_CODE,
        code=_ASCEND_CODE,
    ),
    # --- native crashes ---------------------------------------------------------------------------
    LineRule("segmentation_fault", "segfault", ("Segmentation fault", "SIGSEGV")),
    LineRule(
        "abort",
        "segfault",
        ("Aborted", "SIGABRT"),
        confirm=r"Aborted \(core dumped\)|(?:^|[\s:])Aborted\s*$|SIGABRT",
        consequence_after=_ABORTS,
    ),
    LineRule("fatal_python_error", "segfault", ("Fatal Python error",), consequence_after=_ABORTS),
    LineRule("core_dumped", "segfault", ("core dumped",), consequence_after=_ABORTS),
    # --- shared memory / bus error ----------------------------------------------------------------
    LineRule(
        "bus_error",
        "bus_error",
        ("Bus error", "bus error", "out of shared memory", "insufficient shared memory", "SIGBUS"),
        confirm=r"[Bb]us error|out of shared memory|insufficient shared memory|SIGBUS",
    ),
    # --- disk -------------------------------------------------------------------------------------
    LineRule("disk_full", "disk_full", ("No space left on device", "Errno 28]", "Disk quota exceeded")),
    # --- ModelArts OBS access (DATA_ACCESS_FAILED material) ---------------
    LineRule(
        "obs_access",
        "data_access",
        (
            "MoxFileNotExistsException",
            "stat:403 reason:Forbidden",
            "Get object key failed",
            "file or directory or bucket not found",
        ),
    ),
    # --- killed processes -------------------------------------------------------------------------
    LineRule(
        "dataloader_worker_killed",
        "killed",
        ("killed by signal", "exited unexpectedly"),
        confirm=r"killed by signal|DataLoader worker.*exited unexpectedly|exited unexpectedly",
    ),
    # `[ModelArts Service Log]Training end with return code: 137`: the platform's own summary line.
    LineRule(
        "modelarts_return_code_killed",
        "killed",
        ("Training end with return code",),
        confirm=r"return code:\s*(137|247|-9)\b",
        exit_code=_RETURN_CODE,
    ),
    LineRule(
        "modelarts_return_code_segfault",
        "segfault",
        ("Training end with return code",),
        confirm=r"return code:\s*(139|134|-11|-6)\b",
        exit_code=_RETURN_CODE,
    ),
    LineRule(
        "modelarts_return_code_bus",
        "bus_error",
        ("Training end with return code",),
        confirm=r"return code:\s*(135|-7)\b",
        exit_code=_RETURN_CODE,
    ),
    LineRule(
        "modelarts_return_code",
        "error",
        ("Training end with return code",),
        confirm=r"return code:\s*-?[1-9][0-9]*",
        exit_code=_RETURN_CODE,
        tier=GENERIC,  # a summary of the exit: the lines before it say why
    ),
    # Shell reports: a bare `Killed` line, or bash's job line `line 1:    42 Killed    python train.py`.
    LineRule(
        "shell_killed",
        "killed",
        ("Killed",),
        confirm=r"(?:^|[\s:])Killed(?:\s|$)",
    ),
    # --- generic error lines: lowest priority -----------------------------------------------------
    LineRule(
        "generic_error",
        "error",
        ("ERROR", "Error:", "error:", "Exception:", "FATAL"),
        confirm=r"\bERROR\b|Error:|error:|Exception:|\bFATAL\b",
        tier=GENERIC,
    ),
)


def _unique(patterns: list[str]) -> list[str]:
    seen: set[str] = set()
    result: list[str] = []
    for pattern in patterns:
        if pattern not in seen:
            seen.add(pattern)
            result.append(pattern)
    return result


# The combined candidate patterns: what the scanner (and a `grep -E` benchmark) looks for.
SCAN_PATTERNS: list[str] = _unique([TRACEBACK_HEADER, *(p for rule in LINE_RULES for p in rule.scan)])

# For each scan pattern, the rows (indexes into LINE_RULES, in table order) it can lead to: a line
# is only checked against the rows whose own candidate patterns it matched.
RULES_FOR_PATTERN: tuple[tuple[int, ...], ...] = tuple(
    tuple(index for index, rule in enumerate(LINE_RULES) if pattern in rule.scan) for pattern in SCAN_PATTERNS
)


def exception_kind(final_line: str) -> FindingKind:
    """What a traceback's last line names, as the scanner reads it: the kind of the first direct
    row that matches it (a CUDA error, an NCCL error…), else `traceback` (the code's own exception)."""
    if not any(never in final_line for never in NEVER_FAILURE):
        for rule in LINE_RULES:
            if rule.tier == DIRECT and rule.compiled.search(final_line):
                return rule.kind
    return "traceback"


# A Python exception's last line, `package.Name: message` (`KeyError: 'labels'`).
_EXCEPTION_LINE = re.compile(r"^(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception)(?::|$)")


def own_fault(kind: str | None, line: str) -> bool:
    """Whether a finding is an exception of the code itself: a traceback no device or node row
    names, or a generic error line shaped as a Python exception's last line (its traceback's
    header cut off or garbled)."""
    if reading_of(kind).own_fault:
        return True
    return kind == "error" and _EXCEPTION_LINE.match(line.strip()) is not None

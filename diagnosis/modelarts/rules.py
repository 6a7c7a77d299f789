"""Phase 4 of the ModelArts runbook as data: one named rule per failure pattern.

A rule maps a pattern found in a task message, a platform analysis, an error event or a log line
to a category (contracts section 2) and a meaning (messages.py `meaning.<rule name>`), with the
fixes to offer (`fix.<key>`, one 方案 each). Adding a pattern is adding one row here and one test
bundle. Order matters only inside one line: the first rule whose pattern matches a line names it,
so specific rows come before general ones (`CUDA out of memory` before `RuntimeError`).

Device-memory exhaustion and CUDA/NPU errors raised in the user's process are `CRASH_APP_ERROR`;
hardware faults are `NODE_FAILURE` (rulings G16). Collective-communication timeouts and launcher
wrappers (`ChildFailedError`) usually follow another worker's failure: they are consequences
(rulings G14) and only name the cause when nothing else does.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from diagnosis.models import CATEGORY_PRECEDENCE, Category


@dataclass(frozen=True)
class Fix:
    """One 方案: the message key of its numbered steps and whether they change anything (G11)."""

    key: str
    changes_resources: bool = True


ValueReader = Callable[[re.Match[str], str], dict[str, str]]


def _no_values(_match: re.Match[str], _line: str) -> dict[str, str]:
    return {}


@dataclass(frozen=True)
class Rule:
    name: str
    category: Category
    pattern: re.Pattern[str]
    fixes: tuple[Fix, ...]
    # A direct signal is HIGH evidence on its own; an indirect one only supports a MEDIUM cause.
    direct: bool = True
    consequence: bool = False
    values: ValueReader = field(default=_no_values)
    # Lower-case literals of which every match contains one: a fast way to find candidate lines
    # in a 5 MB log. A rule without keywords is only applied to lines found another way.
    keywords: tuple[str, ...] = ()

    @property
    def meaning_key(self) -> str:
        return f"meaning.{self.name}"


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


def _module(match: re.Match[str], line: str) -> dict[str, str]:
    found = re.search(r"No module named '?([\w.\-]+)'?", line)
    if found:
        return {"module": found.group(1).split(".")[0]}
    found = re.search(r"cannot import name '?([\w.]+)'? from '?([\w.]+)'?", line)
    return {"module": found.group(2).split(".")[0]} if found else {"module": "?"}


def _quoted_path(match: re.Match[str], line: str) -> dict[str, str]:
    found = re.search(r"['\"]([^'\"]+)['\"]", line)
    return {"path": found.group(1)} if found else {"path": "?"}


def _exception(match: re.Match[str], line: str) -> dict[str, str]:
    found = EXCEPTION_LINE.match(line.strip())
    return {"exception": found.group("name") if found else line.strip()[:80]}


def _code(match: re.Match[str], line: str) -> dict[str, str]:
    return {"code": match.group("code")}


# `Name: message` or `pkg.Name: message` or a bare `Name` (the last line of a traceback).
EXCEPTION_LINE = re.compile(
    r"^(?P<name>(?:[A-Za-z_][\w]*\.)*[A-Za-z_]\w*(?:Error|Exception|Interrupt|Exit|Warning|Failure|Fault)\w*)(?::\s*(?P<message>.*))?$"
)

REBUILD_IMAGE = Fix("rebuild_image")
OFFLINE_INSTALL = Fix("offline_install")
FIX_CODE = Fix("fix_code")
RERUN_ELSEWHERE = Fix("rerun_elsewhere")
TICKET = Fix("open_ticket", changes_resources=False)

RULES: tuple[Rule, ...] = (
    # --- accelerator memory (user process, G16) ---
    Rule(
        "device_oom",
        "CRASH_APP_ERROR",
        _rx(
            r"CUDA out of memory|OutOfMemoryError|CUDA error: out of memory|NPU out of memory"
            r"|\bEL0004\b|\bEL9999\b|\bEI0011\b|out of (device|NPU|GPU|HBM) memory"
        ),
        (Fix("reduce_batch"), Fix("bigger_flavor")),
        keywords=(
            "out of memory",
            "outofmemory",
            "el0004",
            "el9999",
            "ei0011",
            "out of device",
            "out of npu",
            "out of gpu",
            "out of hbm",
        ),
    ),
    # --- hardware (G16) ---
    Rule(
        "gpu_hardware",
        "NODE_FAILURE",
        _rx(
            r"\bXid\b|uncorrectable ECC|ECC error|fallen off the bus|GPU is lost|device (is )?lost"
            r"|heartbeat lost|chip[ _]fault|node[ _]fault|hardware (fault|failure|error)"
        ),
        (RERUN_ELSEWHERE, TICKET),
        keywords=(
            "xid",
            "ecc",
            "fallen off",
            "lost",
            "chip_fault",
            "chip fault",
            "node_fault",
            "node fault",
            "hardware",
        ),
    ),
    Rule(
        "ascend_precheck",
        "NODE_FAILURE",
        _rx(r"dsmi-checker detect failed|detect failed, error: dsmi"),
        (RERUN_ELSEWHERE, TICKET),
        keywords=("dsmi",),
    ),
    Rule(
        "node_lost",
        "NODE_FAILURE",
        _rx(
            r"\bnode\b.{0,60}?\b(lost|not ?ready)\b|NodeNotReady|node .*became unavailable|节点故障|节点异常"
        ),
        (RERUN_ELSEWHERE, TICKET),
        keywords=("lost", "notready", "not ready", "unavailable", "节点"),
    ),
    # --- host memory ---
    Rule(
        "host_oom",
        "OOM_KILLED",
        _rx(
            r"OOMKilled|Out of memory: Kill|oom[-_ ]kill|Memory cgroup out of memory|host memory (is )?exhausted"
        ),
        (Fix("reduce_host_memory"), Fix("bigger_memory_flavor")),
        keywords=("oom", "out of memory", "memory cgroup", "exhausted"),
    ),
    # --- OBS / SFS access ---
    Rule(
        "obs_code_missing",
        "DATA_ACCESS_FAILED",
        _rx(
            r"Get object key failed: 'Contents'|training directory does not exist|code directory does not exist"
        ),
        (Fix("check_code_dir"),),
        keywords=("get object key failed", "directory does not exist"),
    ),
    Rule(
        "obs_not_found",
        "DATA_ACCESS_FAILED",
        _rx(
            r"MoxFileNotExistsException|file or directory or bucket not found|NoSuchKey|NoSuchBucket|obs path .*(not exist|not found)"
        ),
        (Fix("check_obs_paths"),),
        keywords=("moxfilenotexists", "bucket not found", "nosuchkey", "nosuchbucket", "obs path"),
    ),
    Rule(
        "obs_forbidden",
        "DATA_ACCESS_FAILED",
        _rx(
            r"stat:403 reason:Forbidden|OBS path no permission|no permission .*\bOBS\b|\bOBS\b.*\b(AccessDenied|Forbidden)\b"
        ),
        (Fix("grant_obs"),),
        keywords=("forbidden", "no permission", "accessdenied", "stat:403"),
    ),
    Rule(
        "mount_failed",
        "DATA_ACCESS_FAILED",
        _rx(r"FailedMount|mount(ing)? (volume |storage )?failed|failed to mount|SFS .*failed"),
        (Fix("check_mount"),),
        keywords=("mount", "sfs"),
    ),
    # --- image ---
    Rule(
        "image_pull",
        "IMAGE_PULL_FAILED",
        _rx(
            r"image pull failed|failed to pull image|pull image .*fail|ErrImagePull|ImagePullBackOff|manifest unknown|镜像拉取失败"
        ),
        (Fix("check_image"),),
        keywords=("pull", "manifest unknown", "镜像拉取"),
    ),
    # --- resources ---
    Rule(
        "quota_exceeded",
        "RESOURCE_INSUFFICIENT",
        _rx(r"ModelArts\.0116|quota (is )?(exceeded|insufficient)|exceeds? (the )?quota|配额不足"),
        (Fix("raise_quota"),),
        keywords=("modelarts.0116", "quota", "配额"),
    ),
    Rule(
        "resources_insufficient",
        "RESOURCE_INSUFFICIENT",
        _rx(
            r"insufficient (resources?|nvidia\.com/gpu|huawei\.com/ascend|cpu|memory|npu|gpu)"
            r"|Insufficient [\w./-]+|not enough (resources?|gpu|npu|cpu|memory)|resources? (are |is )?(insufficient|not enough|shortage|exhausted)"
            r"|\d+/\d+ nodes are available|资源不足"
        ),
        (Fix("smaller_or_other_pool"), Fix("wait_for_resources", changes_resources=False)),
        keywords=("insufficient", "not enough", "nodes are available", "resource", "资源不足"),
    ),
    Rule(
        "scheduling_failed",
        "RESOURCE_INSUFFICIENT",
        _rx(r"FailedScheduling|failed to schedule|scheduling failed|schedule failed|unschedulable|调度失败"),
        (Fix("smaller_or_other_pool"), Fix("wait_for_resources", changes_resources=False)),
        direct=False,
        keywords=("schedul", "调度失败"),
    ),
    # --- collective communication ---
    Rule(
        "collective_timeout",
        "COMMUNICATION_FAILURE",
        _rx(
            r"Watchdog caught collective operation timeout|collective operation timeout"
            r"|NCCL.*time(d)? ?out|HCCL.*time(d)? ?out|ProcessGroupNCCL.*Timeout|NCCL communicator was aborted"
        ),
        (Fix("find_first_failure", changes_resources=False), Fix("nccl_debug")),
        consequence=True,
        keywords=("watchdog", "collective", "timeout", "timed out", "time out", "communicator was aborted"),
    ),
    Rule(
        "nccl_error",
        "COMMUNICATION_FAILURE",
        _rx(
            r"NCCL error|ncclSystemError|ncclInternalError|ncclUnhandledCudaError|ncclRemoteError|unhandled system error|NCCL WARN"
        ),
        (Fix("nccl_debug"), Fix("find_first_failure", changes_resources=False)),
        keywords=("nccl", "unhandled system error"),
    ),
    Rule(
        "hccl_error",
        "COMMUNICATION_FAILURE",
        _rx(r"\bHCCL\b.*(error|fail)|\bEI9999\b|hccl.*(error|fail)"),
        (Fix("hccl_check"), Fix("find_first_failure", changes_resources=False)),
        keywords=("hccl", "ei9999"),
    ),
    Rule(
        "port_in_use",
        "COMMUNICATION_FAILURE",
        _rx(r"Address already in use"),
        (Fix("change_port"),),
        keywords=("address already in use",),
    ),
    Rule(
        "rendezvous",
        "COMMUNICATION_FAILURE",
        _rx(r"RendezvousTimeoutError|RendezvousClosedError|rendezvous .*(timed out|failed)"),
        (Fix("find_first_failure", changes_resources=False), Fix("nccl_debug")),
        consequence=True,
        keywords=("rendezvous",),
    ),
    # --- time limit ---
    Rule(
        "time_limit",
        "JOB_TIMEOUT",
        _rx(
            r"exceed(ed|s)? (the )?(max(imum)? )?(running|run|execution|training) (time|duration)"
            r"|(running|run|execution) time (limit )?(exceeded|reached)|max_running_time|time limit (exceeded|reached)"
            r"|(training )?job .*timed? ?out|运行时长超过|运行超时"
        ),
        (Fix("raise_time_limit"), Fix("checkpoint_resume")),
        keywords=(
            "exceed",
            "time limit",
            "max_running_time",
            "timed out",
            "time out",
            "timeout",
            "运行时长",
            "运行超时",
            "running time",
            "run time",
            "execution time",
        ),
    ),
    # --- the user's process ---
    Rule(
        "child_failed",
        "CRASH_APP_ERROR",
        _rx(r"ChildFailedError|elastic.*child process.*fail"),
        (Fix("find_first_failure", changes_resources=False),),
        consequence=True,
        keywords=("childfailederror", "child process"),
    ),
    Rule(
        "cuda_capability",
        "CRASH_APP_ERROR",
        _rx(r"CUDA capability sm_\d+ is not compatible|no kernel image is available"),
        (Fix("newer_image"),),
        keywords=("cuda capability", "no kernel image"),
    ),
    Rule(
        "cuda_error",
        "CRASH_APP_ERROR",
        _rx(r"CUDA error|cudaError|CUBLAS_STATUS_\w+|CUDNN_STATUS_\w+|device-side assert"),
        (Fix("cuda_debug"),),
        keywords=("cuda error", "cudaerror", "cublas_status", "cudnn_status", "device-side assert"),
    ),
    Rule(
        "module_not_found",
        "CRASH_APP_ERROR",
        _rx(r"ModuleNotFoundError|No module named|ImportError"),
        (REBUILD_IMAGE, OFFLINE_INSTALL),
        values=_module,
        keywords=("modulenotfounderror", "no module named", "importerror"),
    ),
    Rule(
        "file_not_found",
        "CRASH_APP_ERROR",
        _rx(r"FileNotFoundError|No such file or directory"),
        (Fix("fix_path"),),
        values=_quoted_path,
        keywords=("filenotfounderror", "no such file"),
    ),
    Rule(
        "disk_full",
        "CRASH_APP_ERROR",
        _rx(r"No space left on device|Errno 28\b"),
        (Fix("free_disk"), Fix("bigger_disk_flavor")),
        keywords=("no space left", "errno 28"),
    ),
    Rule(
        "no_internet",
        "CRASH_APP_ERROR",
        _rx(
            r"urlopen error \[Errno 110\]|\[Errno 110\] Connection timed out|Temporary failure in name resolution"
            r"|Name or service not known|Max retries exceeded with url|Network is unreachable"
        ),
        (Fix("stage_in_obs"),),
        keywords=(
            "errno 110",
            "name resolution",
            "name or service",
            "max retries exceeded",
            "network is unreachable",
        ),
    ),
    Rule(
        "segfault",
        "CRASH_APP_ERROR",
        _rx(r"Segmentation fault|SIGSEGV|core dumped"),
        (Fix("pin_dependencies"),),
        keywords=("segmentation fault", "sigsegv", "core dumped"),
    ),
    Rule(
        "npu_error",
        "CRASH_APP_ERROR",
        re.compile(r"\b(?P<code>ERR\d{5}|E[A-Z]\d{4}|E\d{5})\b"),
        (Fix("cann_check"),),
        values=_code,
    ),
    # --- a Python exception named by a traceback's last line ---
    Rule("value_error", "CRASH_APP_ERROR", re.compile(r"^(\w+\.)*ValueError\b"), (FIX_CODE,)),
    Rule("index_error", "CRASH_APP_ERROR", re.compile(r"^(\w+\.)*IndexError\b"), (FIX_CODE,)),
    Rule("key_error", "CRASH_APP_ERROR", re.compile(r"^(\w+\.)*KeyError\b"), (FIX_CODE,)),
    Rule("type_error", "CRASH_APP_ERROR", re.compile(r"^(\w+\.)*TypeError\b"), (FIX_CODE,)),
    Rule("attribute_error", "CRASH_APP_ERROR", re.compile(r"^(\w+\.)*AttributeError\b"), (FIX_CODE,)),
    Rule("assertion_error", "CRASH_APP_ERROR", re.compile(r"^(\w+\.)*AssertionError\b"), (FIX_CODE,)),
    Rule("runtime_error", "CRASH_APP_ERROR", re.compile(r"^(\w+\.)*RuntimeError\b"), (FIX_CODE,)),
)

# Any other exception named by a traceback's last line.
GENERIC_EXCEPTION = Rule("exception", "CRASH_APP_ERROR", EXCEPTION_LINE, (FIX_CODE,), values=_exception)

# The last lines of a task that was killed (`Killed`, return code 137): a hint of host OOM for M6.
OOM_HINT = _rx(r"^\s*Killed\s*$|\bkilled\b.*\bmemory\b|\bmemory\b.*\bkilled\b|signal 9 \(SIGKILL\)")

# Platform fault-tolerance scenarios (status.running_records[].recover_records[].fault_scenario).
FAULT_SCENARIO_RULES: dict[str, str] = {"chip_fault": "gpu_hardware", "node_fault": "node_lost"}

RULES_BY_NAME: dict[str, Rule] = {rule.name: rule for rule in (*RULES, GENERIC_EXCEPTION)}

# Lines that only report progress or set-up are never failures (rulings G14).
PROGRESS_LINE = re.compile(r"NCCL INFO|Init COMPLETE|HCCL INFO|\[INFO\]", re.IGNORECASE)


KEYWORDS: tuple[str, ...] = tuple(sorted({word for rule in RULES for word in rule.keywords}))
MAX_KEYWORD_LINES = 20_000
MAX_RULE_HITS = 200


@dataclass(frozen=True)
class LineHit:
    line_number: int  # 1-based
    line: str
    rule: Rule
    values: dict[str, str]


def rule_hits(text: str) -> list[LineHit]:
    """The lines of a (possibly 5 MB) text that a rule names, in order, at most 200.

    A keyword pass over the lower-cased text finds the few lines worth matching; regular
    expressions only run on those.
    """
    lowered = text.lower()
    starts: set[int] = set()
    for word in KEYWORDS:
        position = lowered.find(word)
        while position != -1 and len(starts) < MAX_KEYWORD_LINES:
            starts.add(lowered.rfind("\n", 0, position) + 1)
            position = lowered.find(word, position + len(word))
    hits: list[LineHit] = []
    counted_to, line_number = 0, 1
    for start in sorted(starts):
        line_number += text.count("\n", counted_to, start)
        counted_to = start
        end = text.find("\n", start)
        line = text[start : end if end != -1 else len(text)]
        matched = match_line(line)
        if matched is not None:
            hits.append(LineHit(line_number, line, *matched))
            if len(hits) >= MAX_RULE_HITS:
                break
    return hits


def category_rank(category: Category) -> int:
    return CATEGORY_PRECEDENCE.index(category)


def match_line(line: str) -> tuple[Rule, dict[str, str]] | None:
    """The rule naming one line, with the values its meaning quotes; None for a line no rule knows."""
    text = line.strip()
    if not text or PROGRESS_LINE.search(text):
        return None
    lowered = text.lower()
    for rule in RULES:
        if rule.keywords and not any(word in lowered for word in rule.keywords):
            continue
        found = rule.pattern.search(text)
        if found:
            return rule, rule.values(found, text)
    return None


def match_exception(final_line: str) -> tuple[Rule, dict[str, str]] | None:
    """A traceback's last line: a specific rule when one fits, else the generic exception rule."""
    specific = match_line(final_line)
    if specific is not None:
        return specific
    found = EXCEPTION_LINE.match(final_line.strip())
    if found is None:
        return None
    return GENERIC_EXCEPTION, GENERIC_EXCEPTION.values(found, final_line)


@dataclass(frozen=True)
class ExitCodeRule:
    """Rulings M6: what a non-zero exit code says when no message, event or log line names a cause."""

    codes: frozenset[int]
    category: Category
    meaning_key: str
    fixes: tuple[Fix, ...]


EXIT_CODE_RULES: tuple[ExitCodeRule, ...] = (
    ExitCodeRule(frozenset({139}), "CRASH_APP_ERROR", "exit.139", (Fix("pin_dependencies"),)),
    ExitCodeRule(frozenset({134}), "CRASH_APP_ERROR", "exit.134", (FIX_CODE,)),
    ExitCodeRule(frozenset({1, 2}), "CRASH_APP_ERROR", "exit.user_error", (FIX_CODE,)),
    # 137 is OOM_KILLED only with OOM evidence (the workflow checks OOM_HINT), else UNKNOWN.
    ExitCodeRule(frozenset({137, 247}), "UNKNOWN", "exit.137", ()),
)


def exit_code_rule(code: int) -> ExitCodeRule | None:
    for rule in EXIT_CODE_RULES:
        if code in rule.codes:
            return rule
    return None


def signal_name(code: int) -> str | None:
    """`SIGKILL` for 137: exit codes above 128 are a signal number plus 128."""
    names = {
        1: "SIGHUP",
        2: "SIGINT",
        4: "SIGILL",
        6: "SIGABRT",
        7: "SIGBUS",
        8: "SIGFPE",
        9: "SIGKILL",
        11: "SIGSEGV",
        13: "SIGPIPE",
        15: "SIGTERM",
    }
    if 128 < code < 160:
        return names.get(code - 128, f"signal {code - 128}")
    return None

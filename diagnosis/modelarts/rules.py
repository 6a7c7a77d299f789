"""The ModelArts failure patterns as data: one row per pattern (the runbook's phase 4).

A row maps a pattern found in a task message, the platform's own analysis, an error event or a
log line to a category and to the ids of its messages (`meaning.<row name>`, and one `fix.<id>`
per 方案 it offers, in diagnosis.modelarts.messages). Its keyword prefilter is derived from its
pattern (diagnosis.knowledge.literals), never copied. Adding a pattern is adding one row here
and one test bundle that carries its expected verdict. The first row whose pattern matches a line
names it, so specific rows come before general ones (`CUDA out of memory` before `RuntimeError`).

Device-memory exhaustion and CUDA/NPU errors raised in the user's process are application errors
(`CRASH_APP_ERROR`); a GPU that fell off the bus, an uncorrectable ECC error or a lost NPU
heartbeat is the node's hardware (`NODE_FAILURE`). Collective-communication timeouts and launcher
wrappers (`ChildFailedError`) usually follow another worker's failure: they are consequences and
only name the cause when nothing else does.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, cached_property

from diagnosis.knowledge.literals import required_literals
from diagnosis.knowledge.patterns import LazyPattern
from diagnosis.knowledge.rows import Row
from diagnosis.logs.rules import LINE_RULES, NEVER_FAILURE, FindingKind
from diagnosis.models import CATEGORY_PRECEDENCE, Category


@dataclass(frozen=True)
class Fix:
    """One 方案: the id of its numbered steps (`fix.<id>`) and whether they change anything (a
    person runs such a step after confirming; the product never does)."""

    key: str
    changes_resources: bool = True


ValueReader = Callable[[re.Match[str], str], dict[str, str]]

# Where the rows are read: every free text the workflow fetches.
TEXT_FIELDS = (
    "ShowTrainingJobDetails status.task_statuses[].message",
    "ShowTrainingJobDetails status.running_records[] (analysis, fault records)",
    "ListTrainingJobEvents events[].message",
    "ShowTrainingJobLogsPreview content",
)


def _no_values(_match: re.Match[str], _line: str) -> dict[str, str]:
    return {}


@dataclass(frozen=True, kw_only=True)
class Rule(Row):
    pattern: LazyPattern  # compiled the first time a text reaches this row
    values: ValueReader = field(default=_no_values)
    # Whether the row is looked for in a whole log by its keywords (rule_hits). The rows that name
    # a traceback's last line, or an Ascend code by its shape, have no useful literal: they are only
    # applied to lines found another way.
    prefilter: bool = True
    # The log scanner's finding kinds this row words when no row names the line itself (a
    # `DistNetworkError` line the scanner flags as a rendezvous failure, …).
    words: tuple[FindingKind, ...] = ()
    reads: tuple[str, ...] = TEXT_FIELDS

    def __post_init__(self) -> None:
        if not self.meaning:
            object.__setattr__(self, "meaning", f"meaning.{self.name}")

    # Derived from the pattern the first time a text is checked against the row.
    @cached_property
    def keywords(self) -> tuple[str, ...]:
        return required_literals(self.pattern.source) if self.prefilter else ()

    @property
    def meaning_key(self) -> str:
        return self.meaning


def _rx(pattern: str) -> LazyPattern:
    return LazyPattern(pattern, re.IGNORECASE)


def _exact(pattern: str) -> LazyPattern:
    """A case-sensitive pattern (a Python exception's name, an error code's shape)."""
    return LazyPattern(pattern)


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
EXCEPTION_LINE = _exact(
    r"^(?P<name>(?:[A-Za-z_][\w]*\.)*[A-Za-z_]\w*(?:Error|Exception|Interrupt|Exit|Warning|Failure|Fault)\w*)(?::\s*(?P<message>.*))?$"
)

# The fixes, by id: whether a fix changes a job, a resource, a quota or a permission.
FIXES: dict[str, Fix] = {
    fix.key: fix
    for fix in (
        Fix("reduce_batch"),
        Fix("bigger_flavor"),
        Fix("rerun_elsewhere"),
        Fix("open_ticket", changes_resources=False),
        Fix("reduce_host_memory"),
        Fix("bigger_memory_flavor"),
        Fix("check_code_dir"),
        Fix("check_obs_paths"),
        Fix("grant_obs"),
        Fix("check_mount"),
        Fix("check_image"),
        Fix("raise_quota"),
        Fix("smaller_or_other_pool"),
        Fix("wait_for_resources", changes_resources=False),
        Fix("check_node_constraints"),
        Fix("find_first_failure", changes_resources=False),
        Fix("nccl_debug"),
        Fix("hccl_check"),
        Fix("change_port"),
        Fix("raise_time_limit"),
        Fix("checkpoint_resume"),
        Fix("newer_image"),
        Fix("cuda_debug"),
        Fix("rebuild_image"),
        Fix("offline_install"),
        Fix("fix_path"),
        Fix("free_disk"),
        Fix("bigger_disk_flavor"),
        Fix("stage_in_obs"),
        Fix("pin_dependencies"),
        Fix("cann_check"),
        Fix("fix_code"),
        Fix("stall_check", changes_resources=False),
        Fix("stall_restart"),
    )
}


def fixes_for(fix_ids: tuple[str, ...]) -> tuple[Fix, ...]:
    return tuple(FIXES[fix_id] for fix_id in fix_ids)


_HARDWARE_FIXES = ("rerun_elsewhere", "open_ticket")
_SCHEDULING_FIXES = ("smaller_or_other_pool", "wait_for_resources")

# Every device-memory line the training-log table knows (CUDA, torch_npu, MindSpore, the Ascend
# runtime and its codes) is the `device_oom` row here too: one list of those lines, in logs.rules.
_LOG_DEVICE_MEMORY = "|".join(f"(?:{rule.confirm_pattern})" for rule in LINE_RULES if rule.kind == "cuda_oom")


RULES: tuple[Rule, ...] = (
    # --- accelerator memory, exhausted in the user's process ---
    Rule(
        name="device_oom",
        category="CRASH_APP_ERROR",
        pattern=_rx(rf"out of (device|NPU|GPU|HBM) memory|{_LOG_DEVICE_MEMORY}"),
        fixes=("reduce_batch", "bigger_flavor"),
        words=("cuda_oom",),
    ),
    # --- the node's hardware ---
    Rule(
        name="gpu_hardware",
        outside_process=True,
        category="NODE_FAILURE",
        pattern=_rx(
            r"(?-i:\bXid\b)|uncorrectable ECC|ECC error|fallen off the bus|GPU is lost|device (is )?lost"
            r"|heartbeat lost|chip[ _]fault|node[ _]fault|hardware (fault|failure|error)"
        ),
        fixes=_HARDWARE_FIXES,
        words=("hardware",),
    ),
    Rule(
        name="ascend_precheck",
        outside_process=True,
        category="NODE_FAILURE",
        pattern=_rx(r"dsmi-checker detect failed|detect failed, error: dsmi"),
        fixes=_HARDWARE_FIXES,
    ),
    Rule(
        name="node_lost",
        outside_process=True,
        category="NODE_FAILURE",
        pattern=_rx(
            r"\bnode\b.{0,60}?\b(lost|not ?ready)\b|NodeNotReady|node .*became unavailable|节点故障|节点异常"
        ),
        fixes=_HARDWARE_FIXES,
    ),
    # --- host memory ---
    Rule(
        name="host_oom",
        outside_process=True,
        category="OOM_KILLED",
        pattern=_rx(
            r"OOMKilled|Out of memory: Kill|oom[-_ ]kill|Memory cgroup out of memory|host memory (is )?exhausted"
        ),
        fixes=("reduce_host_memory", "bigger_memory_flavor"),
        words=("oom_killed",),
    ),
    # --- OBS / SFS access ---
    Rule(
        name="obs_code_missing",
        category="DATA_ACCESS_FAILED",
        pattern=_rx(
            r"Get object key failed: 'Contents'|training directory does not exist|code directory does not exist"
        ),
        fixes=("check_code_dir",),
    ),
    Rule(
        name="obs_not_found",
        category="DATA_ACCESS_FAILED",
        pattern=_rx(
            r"MoxFileNotExistsException|file or directory or bucket not found|NoSuchKey|NoSuchBucket|obs path .*(not exist|not found)"
        ),
        fixes=("check_obs_paths",),
    ),
    Rule(
        name="obs_forbidden",
        category="DATA_ACCESS_FAILED",
        pattern=_rx(
            r"stat:403 reason:Forbidden|OBS path no permission|no permission .*\bOBS\b|\bOBS\b.*\b(AccessDenied|Forbidden)\b"
        ),
        fixes=("grant_obs",),
    ),
    Rule(
        name="mount_failed",
        category="DATA_ACCESS_FAILED",
        pattern=_rx(r"FailedMount|mount(ing)? (volume |storage )?failed|failed to mount|SFS .*failed"),
        fixes=("check_mount",),
    ),
    # --- image ---
    Rule(
        name="image_pull",
        category="IMAGE_PULL_FAILED",
        pattern=_rx(
            r"image pull failed|failed to pull image|pull image .*fail|ErrImagePull|ImagePullBackOff|manifest unknown|镜像拉取失败"
        ),
        fixes=("check_image",),
    ),
    # --- resources ---
    Rule(
        name="quota_exceeded",
        outside_process=True,
        category="RESOURCE_INSUFFICIENT",
        pattern=_rx(r"ModelArts\.0116|quota (is )?(exceeded|insufficient)|exceeds? (the )?quota|配额不足"),
        fixes=("raise_quota",),
    ),
    Rule(
        name="resources_insufficient",
        outside_process=True,
        category="RESOURCE_INSUFFICIENT",
        pattern=_rx(
            r"insufficient (resources?|nvidia\.com/gpu|huawei\.com/ascend|cpu|memory|npu|gpu)"
            r"|Insufficient [\w./-]+|not enough (resources?|gpu|npu|cpu|memory)|resources? (are |is )?(insufficient|not enough|shortage|exhausted)"
            r"|资源不足"
        ),
        fixes=_SCHEDULING_FIXES,
    ),
    # The scheduler found nodes, but none the job may run on: node affinity or selector, a taint
    # it does not tolerate, nodes cordoned (kube-scheduler's `0/8 nodes are available: 8 node(s)
    # didn't match Pod's node affinity/selector`). Scheduling wording, no shortage stated: MEDIUM.
    Rule(
        name="node_constraints",
        outside_process=True,
        category="RESOURCE_INSUFFICIENT",
        pattern=_rx(
            r"node\(s\) (didn't|did not) (match|satisfy|have free ports)|node\(s\) (had|have) (untolerated )?taints?"
            r"|node\(s\) were unschedulable|node\(s\) had volume node affinity conflict"
            r"|(didn't|did not) match Pod's node affinity|untolerated taint|that the pod didn't tolerate"
        ),
        fixes=("check_node_constraints", "smaller_or_other_pool"),
        direct=False,
    ),
    Rule(
        name="scheduling_failed",
        outside_process=True,
        category="RESOURCE_INSUFFICIENT",
        pattern=_rx(
            r"FailedScheduling|failed to schedule|scheduling failed|schedule failed|unschedulable|调度失败"
        ),
        fixes=_SCHEDULING_FIXES,
        direct=False,
    ),
    # --- collective communication ---
    Rule(
        name="collective_timeout",
        category="COMMUNICATION_FAILURE",
        pattern=_rx(
            r"Watchdog caught collective operation timeout|collective operation timeout"
            r"|NCCL.*time(d)? ?out|HCCL.*time(d)? ?out|ProcessGroupNCCL.*Timeout|NCCL communicator was aborted"
            # HCCL's timeout codes: EI0002 (a notify wait), EI0006 (getting a socket from a peer).
            r"|\bEI000[26]\b"
        ),
        fixes=("find_first_failure", "nccl_debug"),
        words=("nccl_timeout",),
        role="consequence",
    ),
    Rule(
        name="nccl_error",
        category="COMMUNICATION_FAILURE",
        pattern=_rx(
            r"NCCL error|ncclSystemError|ncclInternalError|ncclUnhandledCudaError|ncclRemoteError|unhandled system error|NCCL WARN"
        ),
        fixes=("nccl_debug", "find_first_failure"),
        words=("nccl_error",),
    ),
    Rule(
        name="hccl_error",
        category="COMMUNICATION_FAILURE",
        pattern=_rx(r"\bHCCL\b.*(error|fail)|\bEI0\d{3}\b|\bEI9999\b|hccl.*(error|fail)"),
        fixes=("hccl_check", "find_first_failure"),
    ),
    Rule(
        name="port_in_use",
        category="COMMUNICATION_FAILURE",
        pattern=_rx(r"Address already in use"),
        fixes=("change_port",),
    ),
    Rule(
        name="rendezvous",
        category="COMMUNICATION_FAILURE",
        pattern=_rx(r"RendezvousTimeoutError|RendezvousClosedError|rendezvous .*(timed out|failed)"),
        fixes=("find_first_failure", "nccl_debug"),
        words=("rendezvous",),
        role="consequence",
    ),
    # --- time limit ---
    Rule(
        name="time_limit",
        outside_process=True,
        category="JOB_TIMEOUT",
        pattern=_rx(
            r"exceed(ed|s)? (the )?(max(imum)? )?(running|run|execution|training) (time|duration)"
            r"|(running|run|execution) time (limit )?(exceeded|reached)|max_running_time|time limit (exceeded|reached)"
            r"|(training )?job .*timed? ?out|运行时长超过|运行超时"
            # The platform's stop event ("The training job has been stopped. (Maximum running
            # duration: 3 hours)") and end reasons spelt as identifiers (`JobTimeout`, `job_timeout`).
            r"|max(imum)? running duration|最大运行时长|running[ _]duration[ _](exceeded|limit)"
            r"|\bjob[ _-]?time[ _-]?out\b|\btrain(ing)?[ _-]?time[ _-]?out\b"
        ),
        fixes=("raise_time_limit", "checkpoint_resume"),
    ),
    # --- the user's process ---
    Rule(
        name="child_failed",
        category="CRASH_APP_ERROR",
        pattern=_rx(r"ChildFailedError|elastic.*child process.*fail"),
        fixes=("find_first_failure",),
        words=("child_failed",),
        role="consequence",
    ),
    Rule(
        name="cuda_capability",
        category="CRASH_APP_ERROR",
        pattern=_rx(r"CUDA capability sm_\d+ is not compatible|no kernel image is available"),
        fixes=("newer_image",),
    ),
    Rule(
        name="cuda_error",
        category="CRASH_APP_ERROR",
        pattern=_rx(r"CUDA error|cudaError|CUBLAS_STATUS_\w+|CUDNN_STATUS_\w+|device-side assert"),
        fixes=("cuda_debug",),
        words=("cuda_error",),
    ),
    Rule(
        name="module_not_found",
        category="CRASH_APP_ERROR",
        pattern=_rx(r"ModuleNotFoundError|No module named|ImportError"),
        fixes=("rebuild_image", "offline_install"),
        values=_module,
    ),
    Rule(
        name="file_not_found",
        category="CRASH_APP_ERROR",
        pattern=_rx(r"FileNotFoundError|No such file or directory"),
        fixes=("fix_path",),
        values=_quoted_path,
    ),
    Rule(
        name="disk_full",
        category="CRASH_APP_ERROR",
        pattern=_rx(r"No space left on device|Errno 28\b"),
        fixes=("free_disk", "bigger_disk_flavor"),
        words=("disk_full",),
    ),
    Rule(
        name="no_internet",
        category="CRASH_APP_ERROR",
        pattern=_rx(
            r"urlopen error \[Errno 110\]|\[Errno 110\] Connection timed out|Temporary failure in name resolution"
            r"|Name or service not known|Max retries exceeded with url|Network is unreachable"
        ),
        fixes=("stage_in_obs",),
    ),
    Rule(
        name="segfault",
        category="CRASH_APP_ERROR",
        pattern=_rx(r"Segmentation fault|SIGSEGV|core dumped"),
        fixes=("pin_dependencies",),
        words=("segfault", "bus_error"),
    ),
    # Ascend CANN (`E` + module + 4 digits) and torch_npu (`ERR` + 5 digits) codes by their shape.
    Rule(
        name="npu_error",
        category="CRASH_APP_ERROR",
        pattern=_exact(r"\b(?P<code>ERR\d{5}|E[A-Z]\d{4}|E\d{5})\b"),
        fixes=("cann_check",),
        values=_code,
        prefilter=False,
    ),
    # --- a Python exception named by a traceback's last line ---
    *(
        Rule(
            name=name,
            category="CRASH_APP_ERROR",
            pattern=_exact(rf"^(\w+\.)*{exception}\b"),
            fixes=("fix_code",),
            prefilter=False,
        )
        for name, exception in (
            ("value_error", "ValueError"),
            ("index_error", "IndexError"),
            ("key_error", "KeyError"),
            ("type_error", "TypeError"),
            ("attribute_error", "AttributeError"),
            ("assertion_error", "AssertionError"),
            ("runtime_error", "RuntimeError"),
        )
    ),
)

# Any other exception named by a traceback's last line.
GENERIC_EXCEPTION = Rule(
    name="exception",
    category="CRASH_APP_ERROR",
    pattern=EXCEPTION_LINE,
    fixes=("fix_code",),
    values=_exception,
    prefilter=False,
)

# The runbook's `Timeout` phase (the v2 API has no such phase): it points at the time limit, but
# only an event or a run's end reason states it, so alone it is the most likely cause, not certain.
TIMEOUT_PHASE_RULE = Rule(
    name="timeout_phase",
    category="JOB_TIMEOUT",
    pattern=_exact(r"$^"),
    prefilter=False,
    direct=False,
    meaning="meaning.time_limit",
    fixes=("raise_time_limit", "checkpoint_resume"),
)

# A platform analysis whose description no row recognises: HIGH (the platform says so), UNKNOWN.
ANALYSIS_RULE = Rule(name="platform_analysis", category="UNKNOWN", pattern=_exact(r"$^"), prefilter=False)

# The last lines of a task that was killed (`Killed`, return code 137): a hint of host memory
# exhaustion, which turns an unexplained exit 137/247 into a memory kill.
OOM_HINT = _rx(r"^\s*Killed\s*$|\bkilled\b.*\bmemory\b|\bmemory\b.*\bkilled\b|signal 9 \(SIGKILL\)")

# Platform fault-tolerance scenarios (status.running_records[].recover_records[].fault_scenario).
FAULT_SCENARIO_RULES: dict[str, str] = {"chip_fault": "gpu_hardware", "node_fault": "node_lost"}

RULES_BY_NAME: dict[str, Rule] = {rule.name: rule for rule in (*RULES, GENERIC_EXCEPTION)}

# The row that words each log finding kind (when no row names the line itself).
KIND_RULES: dict[str, Rule] = {kind: rule for rule in RULES for kind in rule.words}

# Lines that only report progress or set-up are never failures (the training-log table's, and
# HCCL's and the platform's INFO lines).
PROGRESS_LINE = _rx("|".join([*(re.escape(text) for text in NEVER_FAILURE), r"HCCL INFO", r"\[INFO\]"]))


@cache
def keywords() -> tuple[str, ...]:
    """Every prefiltered row's keywords (derived on the first search of a whole text)."""
    return tuple(sorted({word for rule in RULES for word in rule.keywords}))


MAX_KEYWORD_LINES = 20_000
MAX_RULE_HITS = 200


@dataclass(frozen=True)
class LineHit:
    line_number: int  # 1-based
    line: str
    rule: Rule
    values: dict[str, str]


def _candidate_starts(lowered: str) -> list[int]:
    """Where the lines that contain a keyword start (at most MAX_KEYWORD_LINES of them)."""
    starts: set[int] = set()
    for word in keywords():
        position = lowered.find(word)
        while position != -1 and len(starts) < MAX_KEYWORD_LINES:
            starts.add(lowered.rfind("\n", 0, position) + 1)
            position = lowered.find(word, position + len(word))
    return sorted(starts)


def rule_hits(text: str) -> list[LineHit]:
    """The lines of a (possibly 5 MB) text that a rule names, in order, at most 200.

    A keyword pass over the lower-cased text finds the few lines worth matching; regular
    expressions only run on those.
    """
    hits: list[LineHit] = []
    counted_to, line_number = 0, 1
    for start in _candidate_starts(text.lower()):
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


def indirect(rule: Rule) -> Rule:
    """The same row, only pointing at the failure (a low-risk platform finding names it so)."""
    return dataclasses.replace(rule, direct=False)


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


_ROW_RANK: dict[str, int] = {rule.name: index for index, rule in enumerate((*RULES, GENERIC_EXCEPTION))}


def rank(rule: Rule) -> int:
    """A row's place in the table (specific rows first); rows outside it come last."""
    return _ROW_RANK.get(rule.name, len(_ROW_RANK))

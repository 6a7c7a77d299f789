"""Signal -> category: one small named rule per failure pattern, in one table (the runbook's taxonomy).

Each rule reads one observation (an event, a condition, a container state, a log finding…) and
says what it is: a failure `cause` of a category (direct or indirect), a `preemption` or
`scheduling` signal that routes elsewhere, a `consequence` of another failure (a back-off limit
reached, a gang eviction, the kubelet's own stop: cited, never the cause), a `kill` (exit 137/143
not yet explained), or a symptom (`crash_loop`, `pod_error`) that confirms a failing pod but names
no cause. The first matching rule wins for an observation, so specific patterns sit above general
ones. Adding a pattern is adding one row here and one test bundle that carries its verdict.

Untrusted text is only ever matched against these fixed patterns: an instruction written in a log
or an event cannot change a verdict, it can only be quoted.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from typing import Any, Literal

from diagnosis.knowledge.exitcodes import KILLED_FROM_OUTSIDE
from diagnosis.knowledge.rows import Row
from diagnosis.logs.rules import kinds_naming
from diagnosis.models import CATEGORY_PRECEDENCE, RUNAI_CATEGORIES, Category
from diagnosis.runai.signals import Observation, quote

Predicate = Callable[[Observation], bool]

# Kill signals (exit 137/143 without OOMKilled): the process was killed from outside.
KILL_EXIT_CODES = KILLED_FROM_OUTSIDE

# Where the observations come from (the citation a row's evidence carries).
PLATFORM_TEXT = (
    "get_workload_status phaseMessage, conditions[], pendingSchedulingMessages[]",
    "get_workload_events / get_workload_history / k8s.list_events: reason, message",
    "k8s.read_pod status.reason, status.message, containerStatuses[].state",
)
LOG_LINES = ("k8s.read_pod_log (previous container's log)",)
CONTAINER_STATE = ("k8s.read_pod status.containerStatuses[] / initContainerStatuses[]",)
NODE_CONDITIONS = ("k8s.read_node status.conditions[]",)


@dataclass(frozen=True, kw_only=True)
class Rule(Row):
    matches: Predicate
    # Image-pull sub-case, policy kind…: picks the recommendation.
    subcase: str | None = None
    # Whether this cause explains an exit 137/143: a kill from outside stays unexplained (UNKNOWN)
    # until something (an OOM kill, a node failure, a policy, a stop) explains it.
    explains_kill: bool = False
    reads: tuple[str, ...] = PLATFORM_TEXT
    signature: Callable[[Observation], str | None] = field(
        default=lambda obs: quote(obs.message or obs.reason, limit=300)
    )


@dataclass(frozen=True)
class Signal:
    rule: Rule
    observation: Observation

    @property
    def category(self) -> Category | None:
        return self.rule.category

    @property
    def direct(self) -> bool:
        return self.rule.direct

    def signature(self) -> str | None:
        return self.rule.signature(self.observation)


# --- predicates -----------------------------------------------------------------------------------


def _rx(pattern: str) -> Predicate:
    """Text patterns read platform-written text; log lines are classified only by the log scanner's kind.
    Each is compiled the first time an observation reaches it."""
    compiled = cache(lambda: re.compile(pattern, re.IGNORECASE))
    return lambda obs: obs.kind != "log" and bool(compiled().search(obs.haystack))


def _reason(*names: str) -> Predicate:
    wanted = {name.lower() for name in names}
    return lambda obs: obs.kind != "log" and obs.reason.strip().lower() in wanted


def _kind(*kinds: str) -> Predicate:
    return lambda obs: obs.kind in kinds


def _any(*predicates: Predicate) -> Predicate:
    return lambda obs: any(predicate(obs) for predicate in predicates)


def _all(*predicates: Predicate) -> Predicate:
    return lambda obs: all(predicate(obs) for predicate in predicates)


def _not(predicate: Predicate) -> Predicate:
    return lambda obs: not predicate(obs)


def _log(*kinds: str) -> Predicate:
    return lambda obs: obs.kind == "log" and not obs.consequence and (obs.log_kind or "") in kinds


def _condition(condition_type: str, *reasons: str) -> Predicate:
    wanted = {reason.lower() for reason in reasons}
    return lambda obs: (
        obs.kind == "condition"
        and (obs.condition_type or "") == condition_type
        and (obs.status or "true").lower() == "true"
        and obs.reason.lower() in wanted
    )


def _exit_code(codes: Callable[[int], bool]) -> Predicate:
    return lambda obs: obs.exit_code is not None and codes(obs.exit_code)


# Log finding kinds by what they name on Run:ai, whose taxonomy folds communication and data-access
# failures of the training process into CRASH_APP_ERROR.
_CRASH_CATEGORIES = frozenset(
    {"CRASH_APP_ERROR", *(category for category in CATEGORY_PRECEDENCE if category not in RUNAI_CATEGORIES)}
)
_LOG_CRASH = kinds_naming(_CRASH_CATEGORIES, direct=True)
_LOG_ERROR = kinds_naming(_CRASH_CATEGORIES, direct=False)
_LOG_OOM = kinds_naming(frozenset({"OOM_KILLED"}), direct=True)
_LOG_HARDWARE = kinds_naming(frozenset({"NODE_FAILURE"}), direct=True)

_EXIT_FAILURE = _exit_code(lambda code: code != 0 and code not in KILL_EXIT_CODES)
_EXIT_KILL = _exit_code(lambda code: code in KILL_EXIT_CODES)
_PULL_PREFIX = re.compile(
    r"^.*?failed to pull image \"[^\"]*\":\s*(?:rpc error: code = \w+ desc = )?", re.IGNORECASE | re.DOTALL
)


def _image_pull_error(obs: Observation) -> str | None:
    """The registry's own words: the runtime error after `Failed to pull image "<img>": `."""
    message = obs.message.strip()
    stripped = _PULL_PREFIX.sub("", message, count=1)
    if stripped and stripped != message:
        return quote(stripped, limit=300)
    return quote(message or obs.reason, limit=300)


def _exit_signature(obs: Observation) -> str | None:
    return f"exit code {obs.exit_code}" if obs.exit_code is not None else quote(obs.message or obs.reason)


# Image-pull context: the kubelet reasons, or the pull wording (not the Normal Pulling/Pulled news).
_IMAGE_PULL = _all(
    _not(_reason("pulling", "pulled")),
    _any(
        _reason(
            "ErrImagePull",
            "ImagePullBackOff",
            "InvalidImageName",
            "ErrImageNeverPull",
            "ImageInspectError",
            "InspectFailed",
            "RegistryUnavailable",
            "SignatureValidationFailed",
        ),
        _rx(
            r"failed to pull image|back-off pulling image|ErrImagePull|ImagePullBackOff|pull and unpack"
            r"|InvalidImageName|ErrImageNeverPull|couldn't parse image name|pull access denied"
            r"|failed to resolve reference"
        ),
    ),
)


def _pull(pattern: str) -> Predicate:
    return _all(_IMAGE_PULL, _rx(pattern))


_MAIN_CONTAINER = _all(_kind("container"), lambda obs: not obs.init_container)
_INIT_CONTAINER = _all(_kind("container"), lambda obs: obs.init_container)
_OOM_TEXT = _any(
    _reason("OOMKilled", "OOMKilling"),
    _rx(r"\bOOMKilled\b|\bOOM[ -]?kill|Memory cgroup out of memory|Out of memory: Kill"),
)


def _image_pull(name: str, subcase: str, matches: Predicate) -> Rule:
    """An IMAGE_PULL_FAILED cause: its sub-case picks the recommendation, its signature is the
    registry's own words."""
    return Rule(
        name=name,
        role="cause",
        matches=matches,
        category="IMAGE_PULL_FAILED",
        subcase=subcase,
        signature=_image_pull_error,
    )


def _node_failure(name: str, matches: Predicate, **options: Any) -> Rule:
    """A NODE_FAILURE cause: the node or its hardware failed under the workload, which explains an
    exit 137/143."""
    return Rule(
        name=name, role="cause", matches=matches, category="NODE_FAILURE", explains_kill=True, **options
    )


# --- the table ------------------------------------------------------------------------------------

RULES: tuple[Rule, ...] = (
    # Preemption: the scheduler evicted the pods to give their resources to other work (reclaim,
    # bin packing, consolidation); it routes to the preemption diagnosis, no category.
    Rule(
        name="scheduler_preemption",
        role="preemption",
        matches=_any(
            _all(
                _reason("Evict", "Preempted", "Preempting", "PreemptionByScheduler"),
                _rx(r"preempted by|was preempted|reclaim|bin packing|consolidation"),
            ),
            _condition("DisruptionTarget", "PreemptionByScheduler"),
            _all(_kind("event", "phase_update", "phase_message"), _rx(r"\bpreempted by\b|\bwas preempted\b")),
        ),
    ),
    # Consequences of another failure (the Job controller's back-off limit, the kubelet stopping a
    # container, a gang eviction): cited as such, never the cause.
    Rule(
        name="backoff_limit_exceeded",
        role="consequence",
        matches=_any(_reason("BackoffLimitExceeded"), _rx(r"reached the specified backoff limit")),
    ),
    Rule(
        name="stop_killing",
        role="consequence",
        matches=_all(_reason("Killing"), _rx(r"^\s*Killing\s+Stopping container")),
    ),
    Rule(
        name="gang_eviction",
        role="consequence",
        matches=_rx(r"doesn't meet the minimum required number of pods"),
    ),
    Rule(
        name="log_consequence", role="consequence", matches=lambda obs: obs.kind == "log" and obs.consequence
    ),
    # A container's own line claiming a failure outside it (an Xid, a kernel OOM kill) while its own
    # exception says otherwise: untrusted text, quoted at most, never the cause. The platform's
    # word (a container state OOMKilled, a node condition, a node event) still is.
    Rule(name="contradicted_claim", role="claim", matches=lambda obs: obs.kind == "log" and obs.contradicted),
    # OOM_KILLED: the kernel killed the process at the memory limit.
    Rule(
        name="oom_killed",
        role="cause",
        matches=_any(_OOM_TEXT, _all(_kind("log"), _log(*_LOG_OOM))),
        category="OOM_KILLED",
        explains_kill=True,
        signature=lambda obs: "OOMKilled",
    ),
    Rule(
        name="node_system_oom",
        role="cause",
        matches=_any(_reason("SystemOOM"), _rx(r"System OOM encountered")),
        category="OOM_KILLED",
        direct=False,
        explains_kill=True,
    ),
    # IMAGE_PULL_FAILED, by what the registry said (never assume credentials from BackOff alone).
    _image_pull(
        "image_pull_rate_limited",
        "rate_limit",
        _pull(r"toomanyrequests|429 Too Many Requests|pull rate limit"),
    ),
    _image_pull(
        "image_pull_registry_dns",
        "dns",
        _pull(r"no such host|server misbehaving|name resolution|lookup \S+ on \S+"),
    ),
    _image_pull(
        "image_pull_registry_network",
        "network",
        _pull(
            r"i/o timeout|TLS handshake timeout|Timeout exceeded|context deadline exceeded|connection refused"
            r"|network is unreachable|x509:|certificate|server gave HTTP response to HTTPS client"
        ),
    ),
    _image_pull(
        "image_pull_repository_missing_or_private",
        "repository_or_auth",
        _pull(r"pull access denied|may require authorization|may require 'docker login'"),
    ),
    _image_pull(
        "image_pull_unauthorized",
        "auth",
        _pull(
            r"401 Unauthorized|403 Forbidden|\bunauthorized\b|authentication required|no basic auth credentials"
            r"|denied: requested access|failed to authorize|permission \"?[\w.]+\"? denied"
        ),
    ),
    _image_pull(
        "image_pull_manifest_missing",
        "manifest",
        _pull(r"manifest unknown|not found|manifest for \S+ not found|does not exist"),
    ),
    _image_pull(
        "image_pull_invalid_reference",
        "invalid_reference",
        _pull(r"InvalidImageName|couldn't parse image name|invalid reference format"),
    ),
    _image_pull("image_pull_node_disk", "node_disk", _pull(r"no space left on device")),
    _image_pull("image_pull_backoff", "unspecified", _IMAGE_PULL),
    # INIT_FAILED: an init container exited non-zero (or keeps crashing).
    Rule(
        name="init_container_exit",
        role="cause",
        matches=_all(
            _INIT_CONTAINER, _any(_exit_code(lambda code: code != 0), _reason("CrashLoopBackOff", "Error"))
        ),
        category="INIT_FAILED",
        signature=lambda obs: quote(obs.message, limit=300),
    ),
    Rule(
        name="init_container_failed_message",
        role="cause",
        matches=_rx(
            r"init container\b.{0,80}\b(fail|error|exit)|Init:(Error|CrashLoopBackOff)|RunInitContainerError"
            r"|InitContainer\w*(Fail|Error)"
        ),
        category="INIT_FAILED",
    ),
    # DATASOURCE_MOUNT_FAILED: volumes, PVCs, and the secrets/configmaps the container mounts or
    # reads its environment from (https://kubernetes.io/docs/concepts/configuration/secret/).
    Rule(
        name="missing_secret_or_configmap",
        role="cause",
        matches=_rx(
            r"\b(secret|configmap)s? \"[^\"]+\" not found|couldn.t find key \S+ in (Secret|ConfigMap)"
        ),
        category="DATASOURCE_MOUNT_FAILED",
        subcase="secret_or_configmap",
    ),
    Rule(
        name="pvc_missing_or_unbound",
        role="cause",
        matches=_rx(
            r"persistentvolumeclaim \"[^\"]+\" not found|unbound immediate PersistentVolumeClaims"
            r"|didn't find available persistent volumes"
        ),
        category="DATASOURCE_MOUNT_FAILED",
        subcase="pvc",
    ),
    Rule(
        name="mount_failed",
        role="cause",
        matches=_any(
            _reason("FailedMount", "FailedAttachVolume", "FailedMapVolume"),
            _rx(
                r"MountVolume\.\w+ failed|Unable to attach or mount volumes|Multi-Attach error|AttachVolume\.Attach failed|mount failed"
            ),
        ),
        category="DATASOURCE_MOUNT_FAILED",
        subcase="volume",
    ),
    # NODE_FAILURE: the node or its hardware failed under the workload (an NVIDIA Xid, a GPU off the
    # bus: https://docs.nvidia.com/deploy/xid-errors/index.html). The driver writes `Xid` so; a node
    # named `gpu-node-xid-01` is no Xid.
    _node_failure(
        "gpu_hardware_fault",
        _any(
            _log(*_LOG_HARDWARE),
            _all(
                _not(_kind("log")),
                _rx(
                    r"(?-i:\bXid\b)|fallen off the bus|GPU is lost|uncorrectable ECC|double[- ]bit ECC|NVRM:"
                ),
            ),
        ),
    ),
    _node_failure(
        "node_not_ready",
        _any(
            _reason("NodeNotReady", "NodeStatusUnknown", "KubeletNotReady"),
            _rx(r"Node is not ready|Kubelet stopped posting node status"),
            lambda obs: obs.kind == "node_condition" and obs.condition_type == "Ready",
        ),
        signature=lambda obs: quote(
            f"{obs.condition_type}={obs.status} {obs.reason}: {obs.message}"
            if obs.kind == "node_condition"
            else (obs.message or obs.reason),
            limit=300,
        ),
    ),
    _node_failure(
        "node_pressure_eviction",
        _any(_reason("Evicted"), _rx(r"The node was low on resource|The node had condition")),
    ),
    _node_failure(
        "node_shutdown",
        _any(_reason("NodeShutdown", "Rebooted"), _rx(r"imminent node shutdown")),
    ),
    _node_failure(
        "node_taint_eviction",
        _any(
            _reason("TaintManagerEviction"),
            _condition("DisruptionTarget", "DeletionByTaintManager"),
            _rx(r"Marking for deletion Pod"),
        ),
    ),
    _node_failure(
        "kubelet_admission_or_critical_preemption",
        _any(
            _reason("UnexpectedAdmissionError"),
            _condition("DisruptionTarget", "TerminationByKubelet"),
            _rx(r"Preempted in order to admit critical pod|Allocate failed due to"),
        ),
    ),
    _node_failure(
        "node_pressure_condition",
        _kind("node_condition"),
        direct=False,
        signature=lambda obs: quote(
            f"{obs.condition_type}={obs.status} {obs.reason}: {obs.message}", limit=300
        ),
    ),
    # SCHEDULING_POLICY_TERMINATED: a policy (idle timeout, max duration) or a person stopped it.
    Rule(
        name="policy_idle_timeout",
        role="cause",
        matches=_rx(
            r"\bidle\b.{0,60}(timeout|time limit|limit reached|exceeded|too long)|(timeout|time limit).{0,30}\bidle\b"
        ),
        category="SCHEDULING_POLICY_TERMINATED",
        subcase="idle_timeout",
        explains_kill=True,
    ),
    Rule(
        name="policy_max_duration",
        role="cause",
        # DeadlineExceeded is the Job controller's reason (activeDeadlineSeconds passed).
        # MaxDurationExceeded and MaxRuntimeExceeded are the reason names a stop by a maximum
        # duration policy has been seen to carry on workload events; no Run:ai, KAI scheduler,
        # Kueue or Kubernetes source names them, so `diagnose explain` gives them no meaning. The
        # text patterns below (`maximum duration`, `runtime limit`…) read the message either way.
        matches=_any(
            _reason("DeadlineExceeded", "MaxDurationExceeded", "MaxRuntimeExceeded"),
            _rx(
                r"max(imum)?[ _-]?(duration|runtime|run[ -]time)|(duration|runtime) limit"
                r"|active (on the node )?longer than (the )?specified deadline"
            ),
        ),
        category="SCHEDULING_POLICY_TERMINATED",
        subcase="max_duration",
        explains_kill=True,
    ),
    Rule(
        name="policy_termination",
        role="cause",
        matches=_rx(
            r"(scheduling |workload |runtime )?polic(y|ies)\b.{0,40}(terminat|stop|kill)|terminated by (the )?polic"
        ),
        category="SCHEDULING_POLICY_TERMINATED",
        subcase="policy",
        explains_kill=True,
    ),
    # The spec says a stop was asked for (desiredPhase: Stopped on a Stopped workload).
    Rule(
        name="requested_stop",
        role="cause",
        matches=_kind("desired_phase"),
        category="SCHEDULING_POLICY_TERMINATED",
        subcase="requested_stop",
        explains_kill=True,
    ),
    Rule(
        name="manual_stop",
        role="cause",
        matches=_rx(
            r"stopped by (the )?(user|admin|administrator|[\w.+-]+@[\w.-]+)|manual(ly)? stop|stop (was )?requested"
            r"|user requested (a )?stop|requested to stop|suspended by"
        ),
        category="SCHEDULING_POLICY_TERMINATED",
        subcase="manual_stop",
        explains_kill=True,
    ),
    # CRASH_APP_ERROR: the training code failed by itself (device-memory and NCCL errors included).
    Rule(
        name="log_failure_line",
        role="cause",
        matches=_log(
            "traceback",
            "cuda_oom",
            "cuda_error",
            "nccl_error",
            "nccl_timeout",
            "rendezvous",
            "segfault",
            "bus_error",
            "disk_full",
            "child_failed",
            "data_access",
        ),
        category="CRASH_APP_ERROR",
        signature=lambda obs: quote(obs.message, limit=300),
    ),
    # A generic `ERROR …` line names a failure less surely than a traceback: indirect (MEDIUM).
    Rule(
        name="log_error_line",
        role="cause",
        matches=_log(*_LOG_ERROR),
        category="CRASH_APP_ERROR",
        direct=False,
        signature=lambda obs: quote(obs.message, limit=300),
    ),
    Rule(
        name="container_start_error",
        role="cause",
        matches=_rx(
            r"executable file not found|exec format error|\bStartError\b|RunContainerError|OCI runtime (create|exec) failed"
        ),
        category="CRASH_APP_ERROR",
        subcase="start",
    ),
    Rule(
        name="container_config_error",
        role="cause",
        matches=_any(
            _reason("CreateContainerConfigError", "CreateContainerError"),
            _rx(r"runAsNonRoot and image will run as root"),
        ),
        category="CRASH_APP_ERROR",
        subcase="config",
    ),
    Rule(
        name="liveness_probe_restart",
        role="cause",
        matches=_rx(r"failed liveness probe|Liveness probe failed"),
        category="CRASH_APP_ERROR",
        direct=False,
        explains_kill=True,
    ),
    Rule(
        name="main_container_exit",
        role="cause",
        matches=_all(_MAIN_CONTAINER, _EXIT_FAILURE),
        category="CRASH_APP_ERROR",
        direct=False,
        signature=_exit_signature,
    ),
    Rule(
        name="exit_code_in_message",
        role="cause",
        matches=_all(
            _kind("event", "phase_message", "condition", "phase_update", "pod_status"), _EXIT_FAILURE
        ),
        category="CRASH_APP_ERROR",
        direct=False,
        signature=_exit_signature,
    ),
    # Killed from outside (137/143) without OOMKilled: unresolved until something explains it.
    Rule(
        name="killed_without_oom",
        role="kill",
        matches=_any(_EXIT_KILL, _all(_kind("log"), lambda obs: obs.log_kind == "killed")),
        signature=_exit_signature,
    ),
    # Symptoms: confirm a failing pod, name no cause.
    Rule(
        name="crash_loop_backoff",
        role="crash_loop",
        matches=_any(
            _reason("CrashLoopBackOff"), _rx(r"CrashLoopBackOff|back-off \S* ?restarting failed container")
        ),
    ),
    Rule(
        name="pod_phase_error",
        role="pod_error",
        matches=_all(_kind("pod_phase"), _reason("Error", "Failed", "CrashLoopBackOff")),
    ),
    # Scheduling only: the pod waits for resources or quota (routes to the Pending diagnosis).
    Rule(
        name="unschedulable",
        role="scheduling",
        matches=_any(
            _kind("scheduling"),
            _reason(
                "Unschedulable",
                "FailedScheduling",
                "NotReady",
                "NonPreemptibleOverQuota",
                "OverLimit",
                # The KAI scheduler's PodGroup event `Job is stale. <n> pods are active, minMember
                # is <m>`: a gang below its minimum, whose remaining pods it evicts after a grace
                # period (https://github.com/NVIDIA/KAI-Scheduler, pkg/scheduler/actions/
                # stalegangeviction).
                "StaleJob",
            ),
            _rx(
                r"Unable to schedule|nodes are available|didn't have enough (resources|of)|Insufficient \S+"
                r"|over quota|quota (has reached|is)|not enough resources|no nodes with enough"
                r"|waiting for \d+ pods"
            ),
        ),
    ),
)


def classify(observation: Observation) -> Signal | None:
    """The first rule that matches an observation, as a Signal; None when no rule does."""
    for rule in RULES:
        if rule.matches(observation):
            return Signal(rule, observation)
    return None


def classify_all(observations: Iterable[Observation]) -> list[Signal]:
    return [
        signal for signal in (classify(observation) for observation in observations) if signal is not None
    ]


# --- deciding -------------------------------------------------------------------------------------

# Where a signal comes from, most specific first: the signature is taken from the most specific.
_KIND_ORDER = (
    "log",
    "container",
    "pod_status",
    "event",
    "phase_message",
    "condition",
    "pod_phase",
    "phase_update",
    "node_condition",
    "scheduling",
    "spec",
)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_RULE_RANK = {rule.name: index for index, rule in enumerate(RULES)}


def _specific_first(signal: Signal) -> tuple[int, int, bool, datetime]:
    """Most specific source kind, then the most specific rule (a registry error before a bare
    ErrImagePull), then the earliest failure (the first worker to fail is the root cause; no time
    counts as earliest)."""
    kind = signal.observation.kind
    kind_rank = _KIND_ORDER.index(kind) if kind in _KIND_ORDER else len(_KIND_ORDER)
    # A terminated state with its exit code says more than the waiting state that follows it.
    no_exit_code = signal.observation.exit_code is None
    return (kind_rank, _RULE_RANK[signal.rule.name], no_exit_code, signal.observation.at or _EPOCH)


# The categories whose cause is a container's own exit: naming it takes the container, its exit code
# and its key log line. When Tier 1 gives only a status word for one (`Init:Error`,
# `CreateContainerError`…), the failing pod is read to name them.
NAMED_BY_THE_CONTAINER: frozenset[Category] = frozenset({"INIT_FAILED", "CRASH_APP_ERROR"})


@dataclass
class Verdict:
    category: Category
    direct: bool
    winner: Signal | None
    supporting: list[Signal]
    consequences: list[Signal]
    unexplained_kill: Signal | None = None
    stopped_default: bool = False

    @property
    def confidence(self) -> Literal["HIGH", "MEDIUM", "LOW"]:
        if self.category == "UNKNOWN":
            return "LOW"
        return "HIGH" if self.direct else "MEDIUM"

    @property
    def signature(self) -> str | None:
        if self.winner is not None:
            return self.winner.signature()
        if self.unexplained_kill is not None:
            return self.unexplained_kill.signature()
        return None

    @property
    def has_log_line(self) -> bool:
        return any(signal.observation.kind == "log" for signal in self.supporting)

    @property
    def rests_on_a_status_word(self) -> bool:
        """The category of a container's failure stands on status words alone (a pod phase such as
        `Init:Error`, a reason with no message): no signal names the container with its exit code
        or an error line."""
        return (
            self.category in NAMED_BY_THE_CONTAINER
            and bool(self.supporting)
            and all(signal.observation.status_word for signal in self.supporting)
        )


def _by_role(signals: list[Signal], *roles: str) -> list[Signal]:
    return [signal for signal in signals if signal.rule.role in roles]


def _unexplained(kills: list[Signal], consequences: list[Signal]) -> Verdict:
    return Verdict("UNKNOWN", False, None, [], consequences, unexplained_kill=kills[0])


def _from_causes(causes: list[Signal], kills: list[Signal], consequences: list[Signal]) -> Verdict:
    """The strongest direct cause wins in category order; indirect ones only when none is direct."""
    direct = [signal for signal in causes if signal.direct]
    pool = direct or causes
    category = next(name for name in CATEGORY_PRECEDENCE if any(signal.category == name for signal in pool))
    supporting = sorted((signal for signal in pool if signal.category == category), key=_specific_first)
    explained = bool(direct) or any(signal.rule.explains_kill for signal in causes)
    if kills and not explained:
        return _unexplained(kills, consequences)
    return Verdict(category, supporting[0].direct, supporting[0], supporting, consequences)


def _without_cause(signals: list[Signal], consequences: list[Signal], *, stopped: bool) -> Verdict:
    log_consequences = [signal for signal in consequences if signal.observation.kind == "log"]
    if log_consequences:
        # Only a consequence line was found (an NCCL watchdog timeout…): the training process
        # failed, but the first failure is not in the evidence read.
        first = sorted(log_consequences, key=_specific_first)[0]
        return Verdict("CRASH_APP_ERROR", False, first, [first], consequences)
    # On a Stopped workload the stop itself kills the pods (exit 137/143, pod phase Failed/Error):
    # only a crash loop is a symptom of a crash there.
    crash_loop = _by_role(signals, "crash_loop")
    backoff = any(signal.rule.name == "backoff_limit_exceeded" for signal in consequences)
    if stopped and not crash_loop and not backoff:
        return Verdict("SCHEDULING_POLICY_TERMINATED", False, None, [], consequences, stopped_default=True)
    return Verdict("UNKNOWN", False, None, [], consequences)


def decide(signals: list[Signal], *, stopped: bool) -> Verdict:
    """Consequences are set aside, then the strongest direct signal wins in category order.

    `stopped`: the workload's phase is Stopped. Exits 137/143 there follow the stop itself (unless
    OOMKilled is stated, which is then a cause of its own), and a Stopped workload with no other
    explanation was stopped by a person or a policy (MEDIUM).
    """
    causes = _by_role(signals, "cause")
    consequences = _by_role(signals, "consequence")
    kills = [] if stopped else _by_role(signals, "kill")
    if causes:
        return _from_causes(causes, kills, consequences)
    if kills:
        return _unexplained(kills, consequences)
    return _without_cause(signals, consequences, stopped=stopped)

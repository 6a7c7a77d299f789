"""Facts the explanations and exit-code meanings are checked against.

Each table was written from the upstream source named in the comment above it (not from the
product's catalogue), so a typo in a reason string, a wrong HTTP status or a wrong signal number
in the catalogue fails a test.
"""

from __future__ import annotations

# Linux signal numbers, the "Standard signals" table of signal(7) (x86, ARM and most other
# architectures): https://man7.org/linux/man-pages/man7/signal.7.html
LINUX_SIGNALS: dict[int, str] = {
    1: "SIGHUP",
    2: "SIGINT",
    3: "SIGQUIT",
    4: "SIGILL",
    5: "SIGTRAP",
    6: "SIGABRT",
    7: "SIGBUS",
    8: "SIGFPE",
    9: "SIGKILL",
    10: "SIGUSR1",
    11: "SIGSEGV",
    12: "SIGUSR2",
    13: "SIGPIPE",
    14: "SIGALRM",
    15: "SIGTERM",
    16: "SIGSTKFLT",
    17: "SIGCHLD",
    18: "SIGCONT",
    19: "SIGSTOP",
    20: "SIGTSTP",
    21: "SIGTTIN",
    22: "SIGTTOU",
    23: "SIGURG",
    24: "SIGXCPU",
    25: "SIGXFSZ",
    26: "SIGVTALRM",
    27: "SIGPROF",
    28: "SIGWINCH",
    29: "SIGIO",
    30: "SIGPWR",
    31: "SIGSYS",
}

# Bash manual, "Exit Status": 126 a command found but not executable, 127 not found, 128+N a
# command ended by fatal signal N: https://www.gnu.org/software/bash/manual/html_node/Exit-Status.html
SHELL_EXIT_STATUS: dict[int, str] = {126: "not executable", 127: "not found"}
FATAL_SIGNAL_BASE = 128

# ModelArts troubleshooting, "Training Job Process Exits Unexpectedly": 137 or 247 is most often
# a memory overflow, 139 a package conflict:
# https://support.huaweicloud.com/intl/en-us/trouble-modelarts/modelarts_13_0074.html
MODELARTS_EXIT_CODES: dict[int, str] = {137: "memory", 247: "memory", 139: "package"}

# Kubernetes reason strings, spelled as the component that sets them writes them.
# - kubelet image manager (pkg/kubelet/images/types.go in kubernetes/kubernetes) and
#   https://kubernetes.io/docs/concepts/containers/images/#imagepullbackoff
# - kubelet sync results and runtime manager (pkg/kubelet/container/sync_result.go,
#   pkg/kubelet/kuberuntime/kuberuntime_container.go)
# - container runtime terminated reasons (containerd internal/cri/server/helpers.go; legacy
#   dockershim for ContainerCannotRun)
# - kubelet events (pkg/kubelet/events/event.go), eviction (pkg/kubelet/eviction/helpers.go),
#   OOM watcher (pkg/kubelet/oom), graceful node shutdown (pkg/kubelet/nodeshutdown), admission
#   (pkg/kubelet/lifecycle/predicate.go)
# - Job controller conditions: https://kubernetes.io/docs/concepts/workloads/controllers/job/
# - Pod conditions and disruption reasons:
#   https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#pod-conditions and
#   https://kubernetes.io/docs/concepts/workloads/pods/disruptions/#pod-disruption-conditions
# - node-problem-detector kernel monitor (OOMKilling)
# - kubelet events Killing, InspectFailed, FailedMapVolume, Rebooted
#   (https://github.com/kubernetes/kubernetes/blob/master/pkg/kubelet/events/event.go), the
#   kubelet's node Ready reason KubeletNotReady (pkg/kubelet/nodestatus/setters.go), the node
#   lifecycle controller's NodeStatusUnknown (pkg/controller/nodelifecycle), the pod condition
#   type DisruptionTarget (https://github.com/kubernetes/api/blob/master/core/v1/types.go), and
#   the CRI image pull errors RegistryUnavailable and SignatureValidationFailed
#   (https://github.com/kubernetes/cri-api/blob/master/pkg/errors/errors.go)
KUBERNETES_REASONS: frozenset[str] = frozenset(
    {
        # container waiting reasons
        "ErrImagePull",
        "ImagePullBackOff",
        "InvalidImageName",
        "ImageInspectError",
        "ErrImageNeverPull",
        "CrashLoopBackOff",
        "CreateContainerConfigError",
        "CreateContainerError",
        "RunContainerError",
        # container terminated reasons
        "Completed",
        "Error",
        "OOMKilled",
        "StartError",
        "Unknown",
        "ContainerStatusUnknown",
        "ContainerCannotRun",
        # pod status reasons and disruption-condition reasons
        "Evicted",
        "Preempting",
        "Terminated",
        "Shutdown",
        "NodeShutdown",
        "UnexpectedAdmissionError",
        "TerminationByKubelet",
        "DeletionByTaintManager",
        "PreemptionByScheduler",
        "Unschedulable",
        # events
        "FailedMount",
        "FailedAttachVolume",
        "FailedCreatePodSandBox",
        "FailedScheduling",
        "NodeNotReady",
        "Unhealthy",
        "SystemOOM",
        "OOMKilling",
        "TaintManagerEviction",
        "BackoffLimitExceeded",
        "DeadlineExceeded",
        "Killing",
        "InspectFailed",
        "FailedMapVolume",
        "Rebooted",
        # node Ready condition reasons
        "KubeletNotReady",
        "NodeStatusUnknown",
        # pod condition type
        "DisruptionTarget",
        # CRI image pull errors
        "RegistryUnavailable",
        "SignatureValidationFailed",
    }
)

# NVIDIA KAI Scheduler, the open-source Run:ai scheduler (https://github.com/NVIDIA/KAI-Scheduler):
# pod-group unschedulable reasons of its capacity policy, the preemption event reasons, and the
# PodGroup event StaleJob (pkg/scheduler/cache/status_updater/default_status_updater.go).
RUNAI_REASONS: frozenset[str] = frozenset(
    {"NonPreemptibleOverQuota", "OverLimit", "Evict", "Preempted", "PreemptionByScheduler", "StaleJob"}
)

# Huawei Cloud API request signing guide, "Error Codes" (HTTP status of each API-gateway code;
# some service pages spell the prefix APIG.):
# https://support.huaweicloud.com/intl/en-us/devg-apisign/api-sign-errorcode.html
# APIGW.0308's 429 is the status the SDK retries on throttling.
API_GATEWAY_STATUS: dict[str, frozenset[str]] = {
    "APIGW.0101": frozenset({"404"}),
    "APIGW.0103": frozenset({"404"}),
    "APIGW.0201": frozenset({"400", "413", "414", "494", "502", "504"}),
    "APIGW.0301": frozenset({"401"}),
    "APIGW.0302": frozenset({"403"}),
    "APIGW.0303": frozenset({"401"}),
    "APIGW.0305": frozenset({"401"}),
    "APIGW.0306": frozenset({"403"}),
    "APIGW.0307": frozenset({"401"}),
    "APIGW.0308": frozenset({"429"}),
}

# Huawei Cloud ModelArts API reference, "Error Codes" (a word of each documented meaning):
# https://support.huaweicloud.com/intl/en-us/api-modelarts/modelarts_03_0095.html, the online
# service token codes (ModelArts.020x) from the troubleshooting page
# https://support.huaweicloud.com/intl/en-us/trouble-modelarts/modelarts_13_0052.html, and 2775
# as the Huawei Cloud Terraform provider reads it (training job not found).
MODELARTS_CODES: dict[str, str] = {
    "ModelArts.0010": "internal",
    "ModelArts.0012": "timeout",
    "ModelArts.0013": "connection",
    "ModelArts.0101": "configuration",
    "ModelArts.0102": "does not exist",
    "ModelArts.0103": "duplicate",
    "ModelArts.0104": "workspace",
    "ModelArts.0105": "not allowed",
    "ModelArts.0106": "limit",
    "ModelArts.0116": "quota",
    "ModelArts.0201": "token",
    "ModelArts.0203": "token",
    "ModelArts.0204": "token",
    "ModelArts.2775": "not exist",
    "ModelArts.4204": "subscribed",
}

# Ascend CANN error codes: `E` + a module letter or digit + 4 digits; 9999 codes are inner
# errors: https://www.hiascend.com/document/detail/en/canncommercial/800/maintenref/troubleshooting/troubleshooting_0226.html
ASCEND_CODE_PATTERN = r"^E[0-9A-Z][0-9]{4}$"

# AscendCL return codes (aclError): six digits, the first the class (1 environment or code logic,
# 2 resources such as memory, 3 services, 5 internal errors):
# https://www.hiascend.com/document/detail/en/canncommercial/800/apiref/appdevgapi/aclcppdevg_03_1345.html
ACL_RETURN_CODE_PATTERN = r"^[1235][0-9]{5}$"

# torch_npu error codes: `ERR` + 2-digit module + 3-digit type; modules 00 PTA, 01 OPS, 02 DIST,
# 04 PROF; types 001 invalid parameter, 002 invalid type, 005 internal error, 010 system call
# failed, 999 application exception:
# https://www.hiascend.com/document/detail/zh/Pytorch/600/comref/troubleshooting/trbst_0003.html
TORCH_NPU_MODULES: dict[str, str] = {"00": "PTA", "01": "OPS", "02": "DIST", "04": "PROF"}
TORCH_NPU_TYPES: dict[str, str] = {
    "001": "invalid parameter",
    "002": "invalid type",
    "005": "internal error",
    "010": "system call failed",
    "999": "application exception",
}

# The upstream host each family's `source` must point at.
SOURCE_HOSTS: dict[str, tuple[str, ...]] = {
    # The docs, and the Kubernetes source that writes a reason the docs do not list.
    "kubernetes": ("https://kubernetes.io/docs/", "https://github.com/kubernetes/"),
    "runai": ("https://github.com/NVIDIA/KAI-Scheduler",),
    "api_gateway": ("https://support.huaweicloud.com/",),
    "modelarts": ("https://support.huaweicloud.com/",),
    "ascend": ("https://www.hiascend.com/",),
    "torch_npu": ("https://www.hiascend.com/",),
    "exit_code": ("https://www.gnu.org/", "https://man7.org/", "https://support.huaweicloud.com/"),
}

"""The built-in catalogue behind `diagnose explain`: one row per code, as data.

Every row says what the code means, its likely cause, what to do (read-only checks first; a step
that changes a job, its configuration, a resource, a quota or a permission is flagged
`changes_resources` and phrased as something a person runs after confirming, rulings G11), and
the reference it comes from. The texts are in the `explain` message catalogue, in every language.
Exit codes are not listed here: their meanings and steps are in diagnosis.knowledge.exitcodes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Literal

from diagnosis.locale import LOCALE_DIR
from diagnosis.render.i18n import Catalogue

# The texts: the gettext domain `explain` (diagnosis/locale/<lang>/LC_MESSAGES/explain.po). Ids:
# `code.<code>.meaning`, `code.<code>.cause`, `code.<code>.step.<n>` for a row's own steps,
# `step.<name>` for steps rows share, `family.<family>` for the families' names.
CATALOGUE = Catalogue("explain", LOCALE_DIR)


class Message(Mapping[str, str]):
    """One message of the `explain` catalogue in every language: `message[lang]` is its text."""

    __slots__ = ("msgid",)

    def __init__(self, msgid: str) -> None:
        self.msgid = msgid

    def __getitem__(self, lang: str) -> str:
        return CATALOGUE[lang][self.msgid]

    def __iter__(self) -> Iterator[str]:
        return (lang for lang in CATALOGUE if self.msgid in CATALOGUE[lang])

    def __len__(self) -> int:
        return sum(1 for _lang in self)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Message) and other.msgid == self.msgid

    def __hash__(self) -> int:
        return hash(self.msgid)

    def __repr__(self) -> str:
        return f"Message({self.msgid!r})"


def t(msgid: str) -> Message:
    return Message(msgid)


Family = Literal["exit_code", "kubernetes", "runai", "api_gateway", "modelarts", "ascend", "torch_npu"]

FAMILY_LABELS: dict[str, Message] = {
    "exit_code": t("family.exit_code"),
    "kubernetes": t("family.kubernetes"),
    "runai": t("family.runai"),
    "api_gateway": t("family.api_gateway"),
    "modelarts": t("family.modelarts"),
    "ascend": t("family.ascend"),
    "torch_npu": t("family.torch_npu"),
}

# Where each family's meanings come from: the upstream documentation a reader can open.
K8S_WAITING = (
    "Kubernetes, container states (waiting reasons set by the kubelet): "
    "https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#container-states"
)
K8S_TERMINATED = (
    "Kubernetes, container states (terminated reasons set by the container runtime): "
    "https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#container-states"
)
K8S_POD = (
    "Kubernetes, node-pressure eviction and pod disruption conditions: "
    "https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/ and "
    "https://kubernetes.io/docs/concepts/workloads/pods/disruptions/#pod-disruption-conditions"
)
K8S_ADMISSION = (
    "Kubernetes, resource management (the kubelet admits a pod only when the node has the resources): "
    "https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/"
)
K8S_EVENTS = (
    "Kubernetes, kubelet and Job controller events: "
    "https://kubernetes.io/docs/concepts/workloads/controllers/job/ and "
    "https://kubernetes.io/docs/reference/kubernetes-api/cluster-resources/event-v1/"
)
K8S_PULL = (
    "Kubernetes, images (ImagePullBackOff): "
    "https://kubernetes.io/docs/concepts/containers/images/#imagepullbackoff"
)
K8S_VOLUME = (
    "Kubernetes, volumes (kubelet event FailedMount, attach/detach controller event FailedAttachVolume): "
    "https://kubernetes.io/docs/concepts/storage/volumes/"
)
K8S_SCHED = (
    "Kubernetes, pod conditions (PodScheduled=False, reason Unschedulable) and scheduler events: "
    "https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#pod-conditions"
)
RUNAI_SCHED = (
    "NVIDIA KAI Scheduler, the open-source Run:ai scheduler (pod-group conditions and events): "
    "https://github.com/NVIDIA/KAI-Scheduler"
)
# Reasons the pages above do not list, cited from the Kubernetes source that writes them.
K8S_DISRUPTION_TARGET = (
    "Kubernetes, pod condition DisruptionTarget (k8s.io/api core/v1 PodConditionType; its reason names "
    "the disruption): https://github.com/kubernetes/api/blob/master/core/v1/types.go and "
    "https://kubernetes.io/docs/concepts/workloads/pods/disruptions/#pod-disruption-conditions"
)
K8S_KUBELET_EVENTS = "https://github.com/kubernetes/kubernetes/blob/master/pkg/kubelet/events/event.go"
K8S_MAP_VOLUME = (
    "Kubernetes, kubelet event FailedMapVolume (a raw block volume could not be mapped): "
    f"{K8S_KUBELET_EVENTS} and "
    "https://kubernetes.io/docs/concepts/storage/persistent-volumes/#raw-block-volume-support"
)
K8S_INSPECT = (
    "Kubernetes, kubelet image event InspectFailed (FailedToInspectImage): "
    f"{K8S_KUBELET_EVENTS} and https://kubernetes.io/docs/concepts/containers/images/"
)
K8S_KILLING = (
    "Kubernetes, kubelet container event Killing (KillingContainer) and pod termination: "
    f"{K8S_KUBELET_EVENTS} and "
    "https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#pod-termination"
)
K8S_KUBELET_NOT_READY = (
    "Kubernetes, node condition Ready=False with reason KubeletNotReady, set by the kubelet "
    "(ReadyCondition): https://github.com/kubernetes/kubernetes/blob/master/pkg/kubelet/nodestatus/setters.go "
    "and https://kubernetes.io/docs/reference/node/node-status/#condition"
)
K8S_NODE_STATUS_UNKNOWN = (
    "Kubernetes, node condition Ready=Unknown with reason NodeStatusUnknown, set by the node lifecycle "
    "controller: https://github.com/kubernetes/kubernetes/blob/master/pkg/controller/nodelifecycle/"
    "node_lifecycle_controller.go and https://kubernetes.io/docs/concepts/architecture/nodes/#node-controller"
)
K8S_REBOOTED = (
    "Kubernetes, kubelet node event Rebooted (NodeRebooted, recorded when the node's boot ID changes): "
    f"{K8S_KUBELET_EVENTS} and "
    "https://github.com/kubernetes/kubernetes/blob/master/pkg/kubelet/nodestatus/setters.go"
)
K8S_REGISTRY_UNAVAILABLE = (
    "Kubernetes, image pull error RegistryUnavailable (an HTTP error on the PullImage call): "
    "https://github.com/kubernetes/kubernetes/blob/master/pkg/kubelet/images/types.go and "
    "https://github.com/kubernetes/cri-api/blob/master/pkg/errors/errors.go"
)
K8S_SIGNATURE = (
    "Kubernetes CRI, image pull error SignatureValidationFailed (the runtime could not validate the "
    "image signature on the PullImage call): "
    "https://github.com/kubernetes/cri-api/blob/master/pkg/errors/errors.go and "
    "https://github.com/kubernetes/kubernetes/pull/117717"
)
KAI_STALE_JOB = (
    "NVIDIA KAI Scheduler, PodGroup event StaleJob (`Job is stale. <n> pods are active, minMember is "
    "<m>`) and stale gang eviction: https://github.com/NVIDIA/KAI-Scheduler/blob/main/pkg/scheduler/"
    "cache/status_updater/default_status_updater.go and https://github.com/NVIDIA/KAI-Scheduler/blob/"
    "main/pkg/scheduler/actions/stalegangeviction/stalegangeviction.go"
)
APIGW = (
    "Huawei Cloud API request signing guide, error codes: "
    "https://support.huaweicloud.com/intl/en-us/devg-apisign/api-sign-errorcode.html"
)
MODELARTS = (
    "Huawei Cloud ModelArts API reference, error codes: "
    "https://support.huaweicloud.com/intl/en-us/api-modelarts/modelarts_03_0095.html"
)
ASCEND = (
    "Ascend CANN troubleshooting, error codes: "
    "https://www.hiascend.com/document/detail/en/canncommercial/800/maintenref/troubleshooting/troubleshooting_0226.html"
)
# AscendCL's return codes: 2XXXXX are resource shortages (memory, streams) the program can avoid.
ACL_RETURN_CODES = (
    "AscendCL return codes (aclError): "
    "https://www.hiascend.com/document/detail/en/canncommercial/800/apiref/appdevgapi/aclcppdevg_03_1345.html"
)
TORCH_NPU = (
    "Ascend Extension for PyTorch (torch_npu) troubleshooting, error codes: "
    "https://www.hiascend.com/document/detail/zh/Pytorch/600/comref/troubleshooting/trbst_0003.html"
)

Text = Mapping[str, str]


@dataclass(frozen=True)
class Step:
    text: Text
    changes_resources: bool = False


@dataclass(frozen=True)
class Entry:
    code: str
    family: Family
    meaning: Text
    cause: Text
    steps: tuple[Step, ...]
    source: str
    aliases: tuple[str, ...] = ()
    http_status: str | None = None


def check(msgid: str) -> Step:
    """A read-only check."""
    return Step(Message(msgid))


def change(msgid: str) -> Step:
    """A change a person makes after confirming (never run by the product)."""
    return Step(Message(msgid), changes_resources=True)


_EVENTS = check("step.events")
_PREVIOUS_LOGS = check("step.previous_logs")
_NODE = check("step.node")
_RESUBMIT_HEALTHY = change("step.resubmit_healthy")
_FIX_IMAGE = change("step.fix_image")
_PULL_ERROR = check("step.pull_error")
_IMAGE_EXISTS = check("step.image_exists")

ENTRIES: tuple[Entry, ...] = (
    # ----------------------------------------------------------------------------------------
    # Kubernetes: container waiting reasons
    # ----------------------------------------------------------------------------------------
    Entry(
        "ImagePullBackOff",
        "kubernetes",
        t("code.ImagePullBackOff.meaning"),
        t("code.ImagePullBackOff.cause"),
        (_EVENTS, _PULL_ERROR, _IMAGE_EXISTS, _FIX_IMAGE),
        K8S_PULL,
    ),
    Entry(
        "ErrImagePull",
        "kubernetes",
        t("code.ErrImagePull.meaning"),
        t("code.ErrImagePull.cause"),
        (_EVENTS, _PULL_ERROR, _IMAGE_EXISTS, _FIX_IMAGE),
        K8S_PULL,
    ),
    Entry(
        "InvalidImageName",
        "kubernetes",
        t("code.InvalidImageName.meaning"),
        t("code.InvalidImageName.cause"),
        (
            check("code.InvalidImageName.step.1"),
            change("code.InvalidImageName.step.2"),
        ),
        K8S_WAITING,
    ),
    Entry(
        "ErrImageNeverPull",
        "kubernetes",
        t("code.ErrImageNeverPull.meaning"),
        t("code.ErrImageNeverPull.cause"),
        (
            _EVENTS,
            change("code.ErrImageNeverPull.step.2"),
        ),
        K8S_WAITING,
    ),
    Entry(
        "ImageInspectError",
        "kubernetes",
        t("code.ImageInspectError.meaning"),
        t("code.ImageInspectError.cause"),
        (
            _EVENTS,
            change("code.ImageInspectError.step.2"),
        ),
        K8S_WAITING,
    ),
    Entry(
        "CrashLoopBackOff",
        "kubernetes",
        t("code.CrashLoopBackOff.meaning"),
        t("code.CrashLoopBackOff.cause"),
        (
            check("code.CrashLoopBackOff.step.1"),
            _PREVIOUS_LOGS,
            change("code.CrashLoopBackOff.step.3"),
        ),
        K8S_WAITING,
    ),
    Entry(
        "CreateContainerConfigError",
        "kubernetes",
        t("code.CreateContainerConfigError.meaning"),
        t("code.CreateContainerConfigError.cause"),
        (
            check("code.CreateContainerConfigError.step.1"),
            check("code.CreateContainerConfigError.step.2"),
            change("code.CreateContainerConfigError.step.3"),
        ),
        K8S_WAITING,
    ),
    Entry(
        "CreateContainerError",
        "kubernetes",
        t("code.CreateContainerError.meaning"),
        t("code.CreateContainerError.cause"),
        (
            _EVENTS,
            change("code.CreateContainerError.step.2"),
        ),
        K8S_WAITING,
    ),
    Entry(
        "RunContainerError",
        "kubernetes",
        t("code.RunContainerError.meaning"),
        t("code.RunContainerError.cause"),
        (
            _EVENTS,
            check("code.RunContainerError.step.2"),
            change("code.RunContainerError.step.3"),
        ),
        K8S_WAITING,
    ),
    Entry(
        "InspectFailed",
        "kubernetes",
        t("code.InspectFailed.meaning"),
        t("code.InspectFailed.cause"),
        (
            _EVENTS,
            check("code.InspectFailed.step.2"),
            change("code.InspectFailed.step.3"),
        ),
        K8S_INSPECT,
    ),
    Entry(
        "RegistryUnavailable",
        "kubernetes",
        t("code.RegistryUnavailable.meaning"),
        t("code.RegistryUnavailable.cause"),
        (
            _PULL_ERROR,
            check("code.RegistryUnavailable.step.2"),
            change("code.RegistryUnavailable.step.3"),
        ),
        K8S_REGISTRY_UNAVAILABLE,
    ),
    Entry(
        "SignatureValidationFailed",
        "kubernetes",
        t("code.SignatureValidationFailed.meaning"),
        t("code.SignatureValidationFailed.cause"),
        (
            _EVENTS,
            check("code.SignatureValidationFailed.step.2"),
            change("code.SignatureValidationFailed.step.3"),
        ),
        K8S_SIGNATURE,
    ),
    Entry(
        "StartError",
        "kubernetes",
        t("code.StartError.meaning"),
        t("code.StartError.cause"),
        (
            _EVENTS,
            check("code.StartError.step.2"),
            change("code.StartError.step.3"),
        ),
        K8S_TERMINATED,
    ),
    # ----------------------------------------------------------------------------------------
    # Kubernetes: container terminated reasons
    # ----------------------------------------------------------------------------------------
    Entry(
        "OOMKilled",
        "kubernetes",
        t("code.OOMKilled.meaning"),
        t("code.OOMKilled.cause"),
        (
            check("code.OOMKilled.step.1"),
            check("code.OOMKilled.step.2"),
            change("code.OOMKilled.step.3"),
        ),
        K8S_TERMINATED,
    ),
    Entry(
        "Error",
        "kubernetes",
        t("code.Error.meaning"),
        t("code.Error.cause"),
        (
            check("code.Error.step.1"),
            _PREVIOUS_LOGS,
        ),
        K8S_TERMINATED,
    ),
    Entry(
        "Completed",
        "kubernetes",
        t("code.Completed.meaning"),
        t("code.Completed.cause"),
        (check("code.Completed.step.1"),),
        K8S_TERMINATED,
    ),
    Entry(
        "Unknown",
        "kubernetes",
        t("code.Unknown.meaning"),
        t("code.Unknown.cause"),
        (_NODE, _RESUBMIT_HEALTHY),
        K8S_TERMINATED,
    ),
    Entry(
        "ContainerStatusUnknown",
        "kubernetes",
        t("code.ContainerStatusUnknown.meaning"),
        t("code.ContainerStatusUnknown.cause"),
        (_EVENTS, _NODE, _RESUBMIT_HEALTHY),
        K8S_TERMINATED,
    ),
    Entry(
        "ContainerCannotRun",
        "kubernetes",
        t("code.ContainerCannotRun.meaning"),
        t("code.ContainerCannotRun.cause"),
        (
            _EVENTS,
            change("code.ContainerCannotRun.step.2"),
        ),
        K8S_TERMINATED,
    ),
    # ----------------------------------------------------------------------------------------
    # Kubernetes: pod-level reasons and events
    # ----------------------------------------------------------------------------------------
    Entry(
        "Evicted",
        "kubernetes",
        t("code.Evicted.meaning"),
        t("code.Evicted.cause"),
        (
            check("code.Evicted.step.1"),
            _NODE,
            change("code.Evicted.step.3"),
        ),
        K8S_POD,
    ),
    Entry(
        "Preempting",
        "kubernetes",
        t("code.Preempting.meaning"),
        t("code.Preempting.cause"),
        (
            _EVENTS,
            change("code.Preempting.step.2"),
        ),
        K8S_POD,
    ),
    Entry(
        "Evict",
        "runai",
        t("code.Evict.meaning"),
        t("code.Evict.cause"),
        (
            check("code.Evict.step.1"),
            change("code.Evict.step.2"),
        ),
        RUNAI_SCHED,
        aliases=("Preempted", "PreemptionByScheduler"),
    ),
    Entry(
        "BackoffLimitExceeded",
        "kubernetes",
        t("code.BackoffLimitExceeded.meaning"),
        t("code.BackoffLimitExceeded.cause"),
        (
            check("code.BackoffLimitExceeded.step.1"),
            _PREVIOUS_LOGS,
        ),
        K8S_EVENTS,
    ),
    Entry(
        "DeadlineExceeded",
        "kubernetes",
        t("code.DeadlineExceeded.meaning"),
        t("code.DeadlineExceeded.cause"),
        (
            check("code.DeadlineExceeded.step.1"),
            change("code.DeadlineExceeded.step.2"),
        ),
        K8S_EVENTS,
    ),
    Entry(
        "NodeNotReady",
        "kubernetes",
        t("code.NodeNotReady.meaning"),
        t("code.NodeNotReady.cause"),
        (_NODE, _RESUBMIT_HEALTHY),
        K8S_EVENTS,
    ),
    Entry(
        "FailedMount",
        "kubernetes",
        t("code.FailedMount.meaning"),
        t("code.FailedMount.cause"),
        (
            check("code.FailedMount.step.1"),
            check("code.FailedMount.step.2"),
            change("code.FailedMount.step.3"),
        ),
        K8S_VOLUME,
    ),
    Entry(
        "FailedAttachVolume",
        "kubernetes",
        t("code.FailedAttachVolume.meaning"),
        t("code.FailedAttachVolume.cause"),
        (
            _EVENTS,
            change("code.FailedAttachVolume.step.2"),
        ),
        K8S_VOLUME,
    ),
    Entry(
        "FailedCreatePodSandBox",
        "kubernetes",
        t("code.FailedCreatePodSandBox.meaning"),
        t("code.FailedCreatePodSandBox.cause"),
        (_EVENTS, _NODE, _RESUBMIT_HEALTHY),
        K8S_EVENTS,
    ),
    Entry(
        "FailedScheduling",
        "kubernetes",
        t("code.FailedScheduling.meaning"),
        t("code.FailedScheduling.cause"),
        (
            check("code.FailedScheduling.step.1"),
            change("code.FailedScheduling.step.2"),
        ),
        K8S_SCHED,
    ),
    Entry(
        "Unschedulable",
        "kubernetes",
        t("code.Unschedulable.meaning"),
        t("code.Unschedulable.cause"),
        (
            check("code.Unschedulable.step.1"),
            change("code.Unschedulable.step.2"),
        ),
        K8S_SCHED,
    ),
    Entry(
        "UnexpectedAdmissionError",
        "kubernetes",
        t("code.UnexpectedAdmissionError.meaning"),
        t("code.UnexpectedAdmissionError.cause"),
        (_EVENTS, _NODE, _RESUBMIT_HEALTHY),
        K8S_POD,
    ),
    Entry(
        "SystemOOM",
        "kubernetes",
        t("code.SystemOOM.meaning"),
        t("code.SystemOOM.cause"),
        (
            _NODE,
            check("code.SystemOOM.step.2"),
            change("code.SystemOOM.step.3"),
        ),
        K8S_EVENTS,
        aliases=("OOMKilling",),
    ),
    Entry(
        "Terminated",
        "kubernetes",
        t("code.Terminated.meaning"),
        t("code.Terminated.cause"),
        (_NODE, _RESUBMIT_HEALTHY),
        K8S_POD,
        aliases=("NodeShutdown", "Shutdown"),
    ),
    Entry(
        "TerminationByKubelet",
        "kubernetes",
        t("code.TerminationByKubelet.meaning"),
        t("code.TerminationByKubelet.cause"),
        (_EVENTS, _NODE),
        K8S_POD,
    ),
    Entry(
        "DeletionByTaintManager",
        "kubernetes",
        t("code.DeletionByTaintManager.meaning"),
        t("code.DeletionByTaintManager.cause"),
        (_NODE, _RESUBMIT_HEALTHY),
        K8S_POD,
        aliases=("TaintManagerEviction",),
    ),
    Entry(
        "Unhealthy",
        "kubernetes",
        t("code.Unhealthy.meaning"),
        t("code.Unhealthy.cause"),
        (
            _EVENTS,
            change("code.Unhealthy.step.2"),
        ),
        K8S_EVENTS,
    ),
    Entry(
        "DisruptionTarget",
        "kubernetes",
        t("code.DisruptionTarget.meaning"),
        t("code.DisruptionTarget.cause"),
        (
            check("code.DisruptionTarget.step.1"),
            _EVENTS,
            change("code.DisruptionTarget.step.3"),
        ),
        K8S_DISRUPTION_TARGET,
    ),
    Entry(
        "Killing",
        "kubernetes",
        t("code.Killing.meaning"),
        t("code.Killing.cause"),
        (
            check("code.Killing.step.1"),
            _PREVIOUS_LOGS,
        ),
        K8S_KILLING,
    ),
    Entry(
        "FailedMapVolume",
        "kubernetes",
        t("code.FailedMapVolume.meaning"),
        t("code.FailedMapVolume.cause"),
        (
            _EVENTS,
            check("code.FailedMapVolume.step.2"),
            change("code.FailedMapVolume.step.3"),
        ),
        K8S_MAP_VOLUME,
    ),
    # ----------------------------------------------------------------------------------------
    # Kubernetes: node conditions and node events
    # ----------------------------------------------------------------------------------------
    Entry(
        "KubeletNotReady",
        "kubernetes",
        t("code.KubeletNotReady.meaning"),
        t("code.KubeletNotReady.cause"),
        (
            check("code.KubeletNotReady.step.1"),
            _RESUBMIT_HEALTHY,
        ),
        K8S_KUBELET_NOT_READY,
    ),
    Entry(
        "NodeStatusUnknown",
        "kubernetes",
        t("code.NodeStatusUnknown.meaning"),
        t("code.NodeStatusUnknown.cause"),
        (_NODE, _RESUBMIT_HEALTHY),
        K8S_NODE_STATUS_UNKNOWN,
    ),
    Entry(
        "Rebooted",
        "kubernetes",
        t("code.Rebooted.meaning"),
        t("code.Rebooted.cause"),
        (
            _NODE,
            check("code.Rebooted.step.2"),
            _RESUBMIT_HEALTHY,
        ),
        K8S_REBOOTED,
    ),
    # ----------------------------------------------------------------------------------------
    # Run:ai (KAI scheduler) reasons
    # ----------------------------------------------------------------------------------------
    Entry(
        "NonPreemptibleOverQuota",
        "runai",
        t("code.NonPreemptibleOverQuota.meaning"),
        t("code.NonPreemptibleOverQuota.cause"),
        (
            check("code.NonPreemptibleOverQuota.step.1"),
            change("code.NonPreemptibleOverQuota.step.2"),
        ),
        RUNAI_SCHED,
    ),
    Entry(
        "OverLimit",
        "runai",
        t("code.OverLimit.meaning"),
        t("code.OverLimit.cause"),
        (
            check("code.OverLimit.step.1"),
            change("code.OverLimit.step.2"),
        ),
        RUNAI_SCHED,
    ),
    Entry(
        "StaleJob",
        "runai",
        t("code.StaleJob.meaning"),
        t("code.StaleJob.cause"),
        (
            check("code.StaleJob.step.1"),
            _PREVIOUS_LOGS,
            change("code.StaleJob.step.3"),
        ),
        KAI_STALE_JOB,
    ),
    # ----------------------------------------------------------------------------------------
    # Huawei Cloud API gateway
    # ----------------------------------------------------------------------------------------
    Entry(
        "APIGW.0101",
        "api_gateway",
        t("code.APIGW.0101.meaning"),
        t("code.APIGW.0101.cause"),
        (check("code.APIGW.0101.step.1"),),
        APIGW,
        aliases=("APIG.0101",),
        http_status="404",
    ),
    Entry(
        "APIGW.0103",
        "api_gateway",
        t("code.APIGW.0103.meaning"),
        t("code.APIGW.0103.cause"),
        (check("code.APIGW.0103.step.1"),),
        APIGW,
        aliases=("APIG.0103",),
        http_status="404",
    ),
    Entry(
        "APIGW.0201",
        "api_gateway",
        t("code.APIGW.0201.meaning"),
        t("code.APIGW.0201.cause"),
        (check("code.APIGW.0201.step.1"),),
        APIGW,
        aliases=("APIG.0201",),
        http_status="400/413/414/494/502/504",
    ),
    Entry(
        "APIGW.0301",
        "api_gateway",
        t("code.APIGW.0301.meaning"),
        t("code.APIGW.0301.cause"),
        (
            check("code.APIGW.0301.step.1"),
            check("code.APIGW.0301.step.2"),
            change("code.APIGW.0301.step.3"),
        ),
        APIGW,
        aliases=("APIG.0301",),
        http_status="401",
    ),
    Entry(
        "APIGW.0302",
        "api_gateway",
        t("code.APIGW.0302.meaning"),
        t("code.APIGW.0302.cause"),
        (change("code.APIGW.0302.step.1"),),
        APIGW,
        aliases=("APIG.0302",),
        http_status="403",
    ),
    Entry(
        "APIGW.0303",
        "api_gateway",
        t("code.APIGW.0303.meaning"),
        t("code.APIGW.0303.cause"),
        (check("code.APIGW.0303.step.1"),),
        APIGW,
        aliases=("APIG.0303",),
        http_status="401",
    ),
    Entry(
        "APIGW.0305",
        "api_gateway",
        t("code.APIGW.0305.meaning"),
        t("code.APIGW.0305.cause"),
        (check("code.APIGW.0305.step.1"),),
        APIGW,
        aliases=("APIG.0305",),
        http_status="401",
    ),
    Entry(
        "APIGW.0306",
        "api_gateway",
        t("code.APIGW.0306.meaning"),
        t("code.APIGW.0306.cause"),
        (
            check("code.APIGW.0306.step.1"),
            change("code.APIGW.0306.step.2"),
        ),
        APIGW,
        aliases=("APIG.0306",),
        http_status="403",
    ),
    Entry(
        "APIGW.0307",
        "api_gateway",
        t("code.APIGW.0307.meaning"),
        t("code.APIGW.0307.cause"),
        (change("code.APIGW.0307.step.1"),),
        APIGW,
        aliases=("APIG.0307",),
        http_status="401",
    ),
    Entry(
        "APIGW.0308",
        "api_gateway",
        t("code.APIGW.0308.meaning"),
        t("code.APIGW.0308.cause"),
        (check("code.APIGW.0308.step.1"),),
        APIGW,
        aliases=("APIG.0308",),
        http_status="429",
    ),
    # ----------------------------------------------------------------------------------------
    # ModelArts API codes
    # ----------------------------------------------------------------------------------------
    Entry(
        "ModelArts.0010",
        "modelarts",
        t("code.ModelArts.0010.meaning"),
        t("code.ModelArts.0010.cause"),
        (check("code.ModelArts.0010.step.1"),),
        MODELARTS,
    ),
    Entry(
        "ModelArts.0012",
        "modelarts",
        t("code.ModelArts.0012.meaning"),
        t("code.ModelArts.0012.cause"),
        (check("code.ModelArts.0012.step.1"),),
        MODELARTS,
    ),
    Entry(
        "ModelArts.0013",
        "modelarts",
        t("code.ModelArts.0013.meaning"),
        t("code.ModelArts.0013.cause"),
        (check("code.ModelArts.0013.step.1"),),
        MODELARTS,
    ),
    Entry(
        "ModelArts.0101",
        "modelarts",
        t("code.ModelArts.0101.meaning"),
        t("code.ModelArts.0101.cause"),
        (check("code.ModelArts.0101.step.1"),),
        MODELARTS,
    ),
    Entry(
        "ModelArts.0102",
        "modelarts",
        t("code.ModelArts.0102.meaning"),
        t("code.ModelArts.0102.cause"),
        (check("code.ModelArts.0102.step.1"),),
        MODELARTS,
    ),
    Entry(
        "ModelArts.0103",
        "modelarts",
        t("code.ModelArts.0103.meaning"),
        t("code.ModelArts.0103.cause"),
        (check("code.ModelArts.0103.step.1"),),
        MODELARTS,
    ),
    Entry(
        "ModelArts.0104",
        "modelarts",
        t("code.ModelArts.0104.meaning"),
        t("code.ModelArts.0104.cause"),
        (check("code.ModelArts.0104.step.1"),),
        MODELARTS,
    ),
    Entry(
        "ModelArts.0105",
        "modelarts",
        t("code.ModelArts.0105.meaning"),
        t("code.ModelArts.0105.cause"),
        (check("code.ModelArts.0105.step.1"),),
        MODELARTS,
    ),
    Entry(
        "ModelArts.0106",
        "modelarts",
        t("code.ModelArts.0106.meaning"),
        t("code.ModelArts.0106.cause"),
        (change("code.ModelArts.0106.step.1"),),
        MODELARTS,
    ),
    Entry(
        "ModelArts.0116",
        "modelarts",
        t("code.ModelArts.0116.meaning"),
        t("code.ModelArts.0116.cause"),
        (change("code.ModelArts.0116.step.1"),),
        MODELARTS,
    ),
    Entry(
        "ModelArts.2775",
        "modelarts",
        t("code.ModelArts.2775.meaning"),
        t("code.ModelArts.2775.cause"),
        (check("code.ModelArts.2775.step.1"),),
        MODELARTS,
    ),
    Entry(
        "ModelArts.0201",
        "modelarts",
        t("code.ModelArts.0201.meaning"),
        t("code.ModelArts.0201.cause"),
        (check("code.ModelArts.0201.step.1"),),
        MODELARTS,
        http_status="401/403",
    ),
    Entry(
        "ModelArts.0203",
        "modelarts",
        t("code.ModelArts.0203.meaning"),
        t("code.ModelArts.0203.cause"),
        (check("code.ModelArts.0203.step.1"),),
        MODELARTS,
        http_status="401/403",
    ),
    Entry(
        "ModelArts.0204",
        "modelarts",
        t("code.ModelArts.0204.meaning"),
        t("code.ModelArts.0204.cause"),
        (check("code.ModelArts.0204.step.1"),),
        MODELARTS,
        http_status="401/403",
    ),
    Entry(
        "ModelArts.4204",
        "modelarts",
        t("code.ModelArts.4204.meaning"),
        t("code.ModelArts.4204.cause"),
        (change("code.ModelArts.4204.step.1"),),
        MODELARTS,
    ),
    # ----------------------------------------------------------------------------------------
    # Ascend / CANN codes
    # ----------------------------------------------------------------------------------------
    Entry(
        "EL0004",
        "ascend",
        t("code.EL0004.meaning"),
        t("code.EL0004.cause"),
        (
            check("code.EL0004.step.1"),
            change("code.EL0004.step.2"),
        ),
        ASCEND,
    ),
    Entry(
        "207001",
        "ascend",
        t("code.207001.meaning"),
        t("code.207001.cause"),
        (
            check("code.207001.step.1"),
            change("code.207001.step.2"),
        ),
        ACL_RETURN_CODES,
        aliases=("ACL_ERROR_RT_MEMORY_ALLOCATION",),
    ),
    Entry(
        "EI0002",
        "ascend",
        t("code.EI0002.meaning"),
        t("code.EI0002.cause"),
        (
            check("code.EI0002.step.1"),
            change("code.EI0002.step.2"),
        ),
        ASCEND,
    ),
    Entry(
        "EI0006",
        "ascend",
        t("code.EI0006.meaning"),
        t("code.EI0006.cause"),
        (
            check("code.EI0006.step.1"),
            change("code.EI0006.step.2"),
        ),
        ASCEND,
    ),
    Entry(
        "EL0003",
        "ascend",
        t("code.EL0003.meaning"),
        t("code.EL0003.cause"),
        (check("code.EL0003.step.1"),),
        ASCEND,
    ),
    Entry(
        "EL9999",
        "ascend",
        t("code.EL9999.meaning"),
        t("code.EL9999.cause"),
        (
            check("code.EL9999.step.1"),
            change("code.EL9999.step.2"),
        ),
        ASCEND,
    ),
    Entry(
        "EI0011",
        "ascend",
        t("code.EI0011.meaning"),
        t("code.EI0011.cause"),
        (
            check("code.EI0011.step.1"),
            change("code.EI0011.step.2"),
        ),
        ASCEND,
    ),
    Entry(
        "EI9999",
        "ascend",
        t("code.EI9999.meaning"),
        t("code.EI9999.cause"),
        (check("code.EI9999.step.1"),),
        ASCEND,
    ),
    Entry(
        "EZ9999",
        "ascend",
        t("code.EZ9999.meaning"),
        t("code.EZ9999.cause"),
        (check("code.EZ9999.step.1"),),
        ASCEND,
    ),
    Entry(
        "E19999",
        "ascend",
        t("code.E19999.meaning"),
        t("code.E19999.cause"),
        (check("code.E19999.step.1"),),
        ASCEND,
    ),
    # ----------------------------------------------------------------------------------------
    # torch_npu codes
    # ----------------------------------------------------------------------------------------
    Entry(
        "ERR99999",
        "torch_npu",
        t("code.ERR99999.meaning"),
        t("code.ERR99999.cause"),
        (
            check("code.ERR99999.step.1"),
            change("code.ERR99999.step.2"),
        ),
        TORCH_NPU,
    ),
)

# Codes people ask about that were searched for and have no documented meaning.
UNDOCUMENTED: dict[str, Message] = {
    "1.015": t("undocumented.1.015"),
}

# ----------------------------------------------------------------------------------------------
# Structured codes decoded by their parts
# ----------------------------------------------------------------------------------------------

# torch_npu `ERR` + module (2 digits) + type (3 digits).
TORCH_NPU_MODULES: dict[str, Message] = {
    "00": t("torch_npu.module.00"),
    "01": t("torch_npu.module.01"),
    "02": t("torch_npu.module.02"),
    "04": t("torch_npu.module.04"),
}
TORCH_NPU_TYPES: dict[str, Message] = {
    "001": t("torch_npu.type.001"),
    "002": t("torch_npu.type.002"),
    "005": t("torch_npu.type.005"),
    "010": t("torch_npu.type.010"),
    "999": t("torch_npu.type.999"),
}
TORCH_NPU_STEPS: tuple[Step, ...] = (
    check("step.torch_npu.1"),
    change("step.torch_npu.2"),
)

ASCEND_INNER_STEPS: tuple[Step, ...] = (check("step.ascend_inner.1"),)
ASCEND_OPERATOR_STEPS: tuple[Step, ...] = (
    check("step.ascend_operator.1"),
    change("step.ascend_operator.2"),
)
# Public operator input/attribute/dtype errors and unsupported operators (§9.4).
ASCEND_OPERATOR_CODES = frozenset(
    {
        "EZ0001",
        "EZ0002",
        "EZ0003",
        "EZ0004",
        "EZ0005",
        "EZ0006",
        "EZ0007",
        "EZ0501",
        "EZ3002",
        "EZ3003",
        "EZ9010",
    }
)

"""The built-in catalogue behind `diagnose explain`: one row per code, as data.

Every row says what the code means, its likely cause, what to do (read-only checks first; a step
that changes a job, its configuration, a resource, a quota or a permission is flagged
`changes_resources` and phrased as something a person runs after confirming, rulings G11), and
the reference it comes from. Texts are English and Chinese; other languages fall back to English.
Exit codes are not listed here: their meanings and steps are in diagnosis.knowledge.exitcodes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

Family = Literal["exit_code", "kubernetes", "runai", "api_gateway", "modelarts", "ascend", "torch_npu"]

FAMILY_LABELS: dict[str, dict[str, str]] = {
    "exit_code": {"en": "process exit code", "zh": "进程退出码"},
    "kubernetes": {"en": "Kubernetes reason", "zh": "Kubernetes 原因"},
    "runai": {"en": "Run:ai phase reason", "zh": "Run:ai 阶段原因"},
    "api_gateway": {"en": "Huawei Cloud API gateway error code", "zh": "华为云 API 网关错误码"},
    "modelarts": {"en": "ModelArts API error code", "zh": "ModelArts API 错误码"},
    "ascend": {"en": "Ascend CANN error code", "zh": "昇腾 CANN 错误码"},
    "torch_npu": {"en": "torch_npu error code", "zh": "torch_npu 错误码"},
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


def t(en: str, zh: str) -> dict[str, str]:
    return {"en": en, "zh": zh}


def check(en: str, zh: str) -> Step:
    """A read-only check."""
    return Step(t(en, zh))


def change(en: str, zh: str) -> Step:
    """A change a person makes after confirming (never run by the product)."""
    return Step(t(en, zh), changes_resources=True)


_EVENTS = check(
    "Read the pod's events (`kubectl get events -n <namespace> --field-selector involvedObject.name=<pod>`) "
    "and `kubectl describe pod <pod> -n <namespace>`.",
    "查看 Pod 事件（`kubectl get events -n <namespace> --field-selector involvedObject.name=<pod>`）及 "
    "`kubectl describe pod <pod> -n <namespace>`。",
)
_PREVIOUS_LOGS = check(
    "Read the previous container's log (`kubectl logs <pod> -n <namespace> --previous`) for the failing line.",
    "查看上一个容器的日志（`kubectl logs <pod> -n <namespace> --previous`），找到出错的那一行。",
)
_NODE = check(
    "Read the node's conditions and events (`kubectl describe node <node>`).",
    "查看节点的状况与事件（`kubectl describe node <node>`）。",
)
_RESUBMIT_HEALTHY = change(
    "After confirming the node fault, a person resubmits the workload (or lets an OnFailure restart policy "
    "retry it) so that it lands on a healthy node.",
    "确认是节点故障后，由用户重新提交作业（或由 OnFailure 重启策略重试），使其调度到健康节点。",
)
_FIX_IMAGE = change(
    "After confirming, a person corrects the image reference or the registry credentials (imagePullSecret) "
    "and resubmits the workload.",
    "确认后，由用户修正镜像地址或镜像仓库凭据（imagePullSecret），再重新提交作业。",
)
_PULL_ERROR = check(
    "Read the exact registry error after `Failed to pull image` in the events: `manifest unknown`/`not found` "
    "means a wrong image or tag, `unauthorized`/`denied` an authentication problem, `no such host`/`i/o "
    "timeout` DNS or network, `toomanyrequests` a rate limit.",
    "在事件中 `Failed to pull image` 之后读取镜像仓库的原始错误：`manifest unknown`/`not found` 表示镜像或标签错误，"
    "`unauthorized`/`denied` 表示认证问题，`no such host`/`i/o timeout` 表示 DNS 或网络问题，`toomanyrequests` 表示限流。",
)
_IMAGE_EXISTS = check(
    "Check that the image (registry, repository and tag) in the workload spec exists and is spelled exactly; "
    "for an authorization error check that the pod has an imagePullSecret for that registry (names only, "
    "never print its content).",
    "确认作业配置中的镜像（仓库地址、仓库名、标签）确实存在且拼写一致；若为认证错误，确认 Pod 配置了该仓库的 imagePullSecret（只看名称，切勿输出其内容）。",
)

ENTRIES: tuple[Entry, ...] = (
    # ----------------------------------------------------------------------------------------
    # Kubernetes: container waiting reasons
    # ----------------------------------------------------------------------------------------
    Entry(
        "ImagePullBackOff",
        "kubernetes",
        t(
            "The kubelet is waiting before it retries a failed image pull (back-off after ErrImagePull).",
            "kubelet 在镜像拉取失败后进入退避等待，稍后重试（ErrImagePull 之后的状态）。",
        ),
        t(
            "The image or tag does not exist, the registry needs credentials the pod lacks, the node cannot "
            "resolve or reach the registry, or the registry rate-limits pulls. ImagePullBackOff alone does not "
            "say which: the last pull error does.",
            "镜像或标签不存在、仓库需要 Pod 没有的凭据、节点无法解析或访问仓库，或仓库限流。仅凭 ImagePullBackOff 无法判断是哪一种，需看最后一次拉取错误。",
        ),
        (_EVENTS, _PULL_ERROR, _IMAGE_EXISTS, _FIX_IMAGE),
        K8S_PULL,
    ),
    Entry(
        "ErrImagePull",
        "kubernetes",
        t("The last attempt to pull the container image failed.", "最近一次拉取容器镜像失败。"),
        t(
            "A wrong image or tag, missing registry credentials, DNS or network trouble, a registry rate limit, "
            "or a full disk on the node; the runtime error text in the event names it.",
            "镜像或标签错误、缺少仓库凭据、DNS 或网络问题、仓库限流，或节点磁盘已满；事件中的运行时错误文本会指明原因。",
        ),
        (_EVENTS, _PULL_ERROR, _IMAGE_EXISTS, _FIX_IMAGE),
        K8S_PULL,
    ),
    Entry(
        "InvalidImageName",
        "kubernetes",
        t("The image reference cannot be parsed.", "镜像地址无法解析。"),
        t(
            "A malformed image reference (`couldn't parse image name`, `invalid reference format`): stray "
            "spaces, upper-case letters in the repository, a bad tag or digest.",
            "镜像地址格式错误（`couldn't parse image name`、`invalid reference format`）：多余空格、仓库名含大写字母、标签或摘要格式错误等。",
        ),
        (
            check(
                "Read the container's waiting message and the image string in the workload spec.",
                "查看容器的等待消息以及作业配置中的镜像字符串。",
            ),
            change(
                "After confirming, a person corrects the image reference and resubmits.",
                "确认后，由用户修正镜像地址并重新提交。",
            ),
        ),
        K8S_WAITING,
    ),
    Entry(
        "ErrImageNeverPull",
        "kubernetes",
        t(
            "The pull policy is Never and the image is not on the node.",
            "镜像拉取策略为 Never，而节点上没有该镜像。",
        ),
        t(
            "`imagePullPolicy: Never` with an image that was never loaded onto this node.",
            "设置了 `imagePullPolicy: Never`，但该镜像从未加载到此节点。",
        ),
        (
            _EVENTS,
            change(
                "After confirming, a person changes the pull policy or preloads the image on the nodes.",
                "确认后，由用户修改拉取策略或在节点上预先加载镜像。",
            ),
        ),
        K8S_WAITING,
    ),
    Entry(
        "ImageInspectError",
        "kubernetes",
        t("The container runtime could not inspect the image.", "容器运行时无法检查（inspect）该镜像。"),
        t(
            "A runtime-side problem with the image, e.g. a CRI-O short name that resolves to no registry.",
            "运行时侧的镜像问题，例如 CRI-O 短名称无法解析到任何仓库。",
        ),
        (
            _EVENTS,
            change(
                "After confirming, a person uses a fully qualified image name (registry/repository:tag).",
                "确认后，由用户改用完整的镜像名称（仓库地址/仓库名:标签）。",
            ),
        ),
        K8S_WAITING,
    ),
    Entry(
        "CrashLoopBackOff",
        "kubernetes",
        t(
            "The container keeps exiting and the kubelet delays each restart.",
            "容器反复退出，kubelet 对每次重启进行退避延迟。",
        ),
        t(
            "Whatever made the container exit: the real cause is in `lastState.terminated` (reason, exit code) "
            "and in the previous container's log.",
            "导致容器退出的原因：真正的原因在 `lastState.terminated`（原因、退出码）和上一个容器的日志中。",
        ),
        (
            check(
                "Read `lastState.terminated.reason` and `exitCode` in `kubectl describe pod <pod> -n <namespace>`; "
                "`diagnose explain <exit code>` says what the code means.",
                "在 `kubectl describe pod <pod> -n <namespace>` 中查看 `lastState.terminated.reason` 与 `exitCode`；"
                "可用 `diagnose explain <退出码>` 查看其含义。",
            ),
            _PREVIOUS_LOGS,
            change(
                "After confirming the cause, a person fixes the code or configuration it points at and resubmits.",
                "确认原因后，由用户修复其指向的代码或配置并重新提交。",
            ),
        ),
        K8S_WAITING,
    ),
    Entry(
        "CreateContainerConfigError",
        "kubernetes",
        t(
            "The kubelet could not build the container's configuration.",
            "kubelet 无法生成容器的配置。",
        ),
        t(
            "A referenced Secret or ConfigMap (or one of its keys) does not exist, or the security context "
            "conflicts with the image (`container has runAsNonRoot and image will run as root`).",
            "引用的 Secret 或 ConfigMap（或其中的某个 key）不存在，或安全上下文与镜像冲突（`container has runAsNonRoot and image will run as root`）。",
        ),
        (
            check(
                "Read the waiting message: it names the missing Secret, ConfigMap or key.",
                "查看等待消息：其中会写明缺少的 Secret、ConfigMap 或 key。",
            ),
            check(
                "Check that the named object exists in the namespace (`kubectl get secret <name> -n <namespace>`; "
                "names only, never print a Secret's content).",
                "确认该对象存在于命名空间中（`kubectl get secret <name> -n <namespace>`；只看名称，切勿输出 Secret 内容）。",
            ),
            change(
                "After confirming, a person (or an administrator) creates the missing object or key, or fixes the "
                "reference, and resubmits.",
                "确认后，由用户（或管理员）创建缺失的对象或 key，或修正引用，再重新提交。",
            ),
        ),
        K8S_WAITING,
    ),
    Entry(
        "CreateContainerError",
        "kubernetes",
        t("The container runtime refused to create the container.", "容器运行时拒绝创建容器。"),
        t(
            "A runtime error such as a container name still reserved, or an exec/mount error reported by the runtime.",
            "运行时错误，例如容器名称仍被占用，或运行时报告的 exec/挂载错误。",
        ),
        (
            _EVENTS,
            change(
                "After confirming, a person fixes what the runtime message names and resubmits.",
                "确认后，由用户修复运行时消息中指出的问题并重新提交。",
            ),
        ),
        K8S_WAITING,
    ),
    Entry(
        "RunContainerError",
        "kubernetes",
        t("The container's process could not be started.", "容器进程无法启动。"),
        t(
            'The command or entrypoint cannot run, e.g. `exec: "<cmd>": executable file not found in $PATH`; '
            "the last termination then shows StartError with exit code 128.",
            '命令或入口点无法运行，例如 `exec: "<cmd>": executable file not found in $PATH`；此时上次终止状态为 StartError、退出码 128。',
        ),
        (
            _EVENTS,
            check(
                "Check that the command in the workload spec exists in the image and is on its PATH.",
                "确认作业配置中的命令存在于镜像中且位于 PATH 内。",
            ),
            change(
                "After confirming, a person corrects the command or the image and resubmits.",
                "确认后，由用户修正命令或镜像并重新提交。",
            ),
        ),
        K8S_WAITING,
    ),
    Entry(
        "StartError",
        "kubernetes",
        t(
            "The container terminated because its process could not be started (exit code 128).",
            "容器因进程无法启动而终止（退出码 128）。",
        ),
        t(
            "A bad command or entrypoint, a binary missing from the image, or a mount/device hook failure.",
            "命令或入口点错误、镜像中缺少可执行文件，或挂载/设备钩子失败。",
        ),
        (
            _EVENTS,
            check(
                "Check that the command in the workload spec exists in the image.",
                "确认作业配置中的命令存在于镜像中。",
            ),
            change(
                "After confirming, a person corrects the command, image or mount and resubmits.",
                "确认后，由用户修正命令、镜像或挂载并重新提交。",
            ),
        ),
        K8S_TERMINATED,
    ),
    # ----------------------------------------------------------------------------------------
    # Kubernetes: container terminated reasons
    # ----------------------------------------------------------------------------------------
    Entry(
        "OOMKilled",
        "kubernetes",
        t(
            "The container was killed by the kernel for exceeding its memory limit (usually exit code 137).",
            "容器因超出内存上限被内核终止（通常退出码为 137）。",
        ),
        t(
            "The process's host memory (not GPU memory) grew past the container's memory limit: batch size, "
            "DataLoader workers and prefetching, caching a dataset in memory, or a leak.",
            "进程的主机内存（不是 GPU 显存）超过了容器的内存上限：batch size、DataLoader worker 与预取、把数据集缓存在内存中，或内存泄漏。",
        ),
        (
            check(
                "Compare the memory peak from the workload's metrics with the memory limit (the limit, not the "
                "request, is the OOM ceiling).",
                "将作业指标中的内存峰值与内存上限比较（OOM 的阈值是 limit，而不是 request）。",
            ),
            check(
                "Check whether other failures of the same kind happened in the lookback window (recurring pressure).",
                "检查回溯窗口内是否多次出现同类失败（持续的内存压力）。",
            ),
            change(
                "After confirming, a person raises the memory limit with headroom, or reduces the batch size or "
                "the number of DataLoader workers, and resubmits.",
                "确认后，由用户提高内存上限并留出余量，或减小 batch size、DataLoader worker 数量，再重新提交。",
            ),
        ),
        K8S_TERMINATED,
    ),
    Entry(
        "Error",
        "kubernetes",
        t(
            "The container exited with a non-zero code that was not an OOM kill.",
            "容器以非零退出码退出，且不是 OOM 终止。",
        ),
        t(
            "Anything the program did: the exit code and the log say what (137/143 here mean a kill or stop by "
            "someone else, not an OOM).",
            "取决于程序本身：退出码和日志会说明原因（此处的 137/143 表示被其他方终止或停止，而非 OOM）。",
        ),
        (
            check(
                "Read the exit code (`diagnose explain <code>`) and the previous container's log.",
                "查看退出码（`diagnose explain <退出码>`）以及上一个容器的日志。",
            ),
            _PREVIOUS_LOGS,
        ),
        K8S_TERMINATED,
    ),
    Entry(
        "Completed",
        "kubernetes",
        t("The container exited with code 0.", "容器以退出码 0 正常结束。"),
        t("Normal completion.", "正常完成。"),
        (
            check(
                "Nothing to fix; check the job's outputs if a result is missing.",
                "无需修复；如结果缺失，请检查作业输出。",
            ),
        ),
        K8S_TERMINATED,
    ),
    Entry(
        "Unknown",
        "kubernetes",
        t(
            "The container's state was lost (exit code 255), e.g. after a container runtime restart.",
            "容器状态丢失（退出码 255），例如容器运行时重启之后。",
        ),
        t("A node or runtime problem rather than the program.", "节点或运行时问题，而非程序本身。"),
        (_NODE, _RESUBMIT_HEALTHY),
        K8S_TERMINATED,
    ),
    Entry(
        "ContainerStatusUnknown",
        "kubernetes",
        t(
            "The container could not be located when the pod was deleted (reported with exit code 137).",
            "删除 Pod 时找不到该容器（以退出码 137 报告）。",
        ),
        t(
            "The pod was deleted or its node became unavailable while the container was running; the program "
            "itself is not implicated.",
            "容器运行期间 Pod 被删除或其节点不可用；与程序本身无关。",
        ),
        (_EVENTS, _NODE, _RESUBMIT_HEALTHY),
        K8S_TERMINATED,
    ),
    Entry(
        "ContainerCannotRun",
        "kubernetes",
        t(
            "Docker (legacy dockershim, before Kubernetes 1.24) could not start the container.",
            "Docker（旧版 dockershim，Kubernetes 1.24 之前）无法启动容器。",
        ),
        t(
            "A start failure: bad command, missing binary or mount error.",
            "启动失败：命令错误、缺少可执行文件或挂载错误。",
        ),
        (
            _EVENTS,
            change(
                "After confirming, a person corrects the command or image and resubmits.",
                "确认后，由用户修正命令或镜像并重新提交。",
            ),
        ),
        K8S_TERMINATED,
    ),
    # ----------------------------------------------------------------------------------------
    # Kubernetes: pod-level reasons and events
    # ----------------------------------------------------------------------------------------
    Entry(
        "Evicted",
        "kubernetes",
        t(
            "The kubelet evicted the pod because the node ran low on a resource (memory, ephemeral storage, "
            "disk, PIDs).",
            "节点某项资源（内存、临时存储、磁盘、PID）不足，kubelet 驱逐了该 Pod。",
        ),
        t(
            "Node pressure, often made worse by this pod using more than it requested (the message names the "
            "container and its usage). A node-pressure eviction is a node failure, not a preemption.",
            "节点资源压力，常因本 Pod 的用量超过其 request 而加剧（消息中会写明容器及其用量）。节点压力驱逐属于节点故障，而不是抢占。",
        ),
        (
            check(
                "Read the pod's `status.message` (`The node was low on resource: …`).",
                "查看 Pod 的 `status.message`（`The node was low on resource: …`）。",
            ),
            _NODE,
            change(
                "After confirming, a person sets memory/ephemeral-storage requests and limits that match the "
                "usage, or resubmits on a healthy node.",
                "确认后，由用户按实际用量设置内存/临时存储的 request 与 limit，或在健康节点上重新提交。",
            ),
        ),
        K8S_POD,
    ),
    Entry(
        "Preempting",
        "kubernetes",
        t(
            "The kubelet preempted the pod to admit a critical pod (`Preempted in order to admit critical pod`).",
            "kubelet 为接纳关键 Pod 而抢占了该 Pod（`Preempted in order to admit critical pod`）。",
        ),
        t("A critical system pod needed the node's resources.", "关键系统 Pod 需要该节点的资源。"),
        (
            _EVENTS,
            change(
                "After confirming, a person resubmits the workload; nothing in the workload itself failed.",
                "确认后，由用户重新提交作业；作业本身并未出错。",
            ),
        ),
        K8S_POD,
    ),
    Entry(
        "Evict",
        "runai",
        t(
            "The Run:ai (KAI) scheduler evicted the pod: preempted by a higher-priority workload, reclaimed for "
            "another project's fair share, moved by consolidation, or its gang fell below the minimum.",
            "Run:ai（KAI）调度器驱逐了该 Pod：被更高优先级的作业抢占、为其他项目的公平份额而回收、因整合（bin packing）被迁移，或其 gang 低于最小数量。",
        ),
        t(
            "A scheduling decision, not a failure of the job: preemptible (e.g. training) workloads can be "
            "evicted when they run over quota.",
            "这是调度决策，而不是作业失败：可抢占的作业（例如训练作业）在超出配额运行时可能被驱逐。",
        ),
        (
            check(
                "Read the event message (`… was preempted by …`) and the workload's priority and preemptibility.",
                "查看事件消息（`… was preempted by …`）以及作业的优先级与是否可抢占。",
            ),
            change(
                "After confirming, a person resubmits within the project's quota or asks an administrator about "
                "priority or quota.",
                "确认后，由用户在项目配额内重新提交，或与管理员沟通优先级或配额。",
            ),
        ),
        RUNAI_SCHED,
        aliases=("Preempted", "PreemptionByScheduler"),
    ),
    Entry(
        "BackoffLimitExceeded",
        "kubernetes",
        t(
            "The Job controller gave up: its pods failed more times than `backoffLimit` allows.",
            "Job 控制器放弃重试：其 Pod 失败次数超过了 `backoffLimit`。",
        ),
        t(
            "Not a cause by itself: it is the sum of the pods' failures, which must be classified one by one.",
            "它本身不是原因：它是各个 Pod 失败的总和，需要逐个分析这些失败。",
        ),
        (
            check(
                "Find the Job's failed pods and read each one's `lastState.terminated` and previous log.",
                "找到该 Job 失败的 Pod，逐个查看其 `lastState.terminated` 与上一个容器的日志。",
            ),
            _PREVIOUS_LOGS,
        ),
        K8S_EVENTS,
    ),
    Entry(
        "DeadlineExceeded",
        "kubernetes",
        t(
            "The Job or pod ran longer than its deadline (`activeDeadlineSeconds`) and was stopped.",
            "Job 或 Pod 运行时间超过其期限（`activeDeadlineSeconds`）而被停止。",
        ),
        t(
            "The job is slower or longer than the configured deadline, or it hung.",
            "作业比配置的期限更慢或更长，或者作业卡住了。",
        ),
        (
            check(
                "Compare the deadline in the spec with how long the job ran, and look for progress in the log.",
                "比较配置中的期限与作业实际运行时长，并在日志中查看是否仍有进展。",
            ),
            change(
                "After confirming, a person raises the deadline or shortens the job and resubmits.",
                "确认后，由用户延长期限或缩短作业并重新提交。",
            ),
        ),
        K8S_EVENTS,
    ),
    Entry(
        "NodeNotReady",
        "kubernetes",
        t(
            "The node stopped reporting Ready; its pods may be marked for deletion.",
            "节点不再报告 Ready；其上的 Pod 可能被标记删除。",
        ),
        t(
            "A node fault: kubelet down, network partition, hardware or kernel trouble.",
            "节点故障：kubelet 停止、网络分区、硬件或内核问题。",
        ),
        (_NODE, _RESUBMIT_HEALTHY),
        K8S_EVENTS,
    ),
    Entry(
        "FailedMount",
        "kubernetes",
        t("The kubelet could not mount one of the pod's volumes.", "kubelet 无法挂载 Pod 的某个卷。"),
        t(
            "A Secret or ConfigMap volume that does not exist, an NFS server that refuses or times out, a "
            "missing or unbound PVC, or a CSI driver error; a generic `timed out waiting for the condition` "
            "follows the specific error.",
            "Secret 或 ConfigMap 卷不存在、NFS 服务器拒绝连接或超时、PVC 不存在或未绑定，或 CSI 驱动错误；通用的 `timed out waiting for the condition` 会跟在具体错误之后。",
        ),
        (
            check(
                'Read the first FailedMount event (`MountVolume.SetUp failed for volume "<vol>" : …`).',
                '查看第一条 FailedMount 事件（`MountVolume.SetUp failed for volume "<vol>" : …`）。',
            ),
            check(
                "Check that the named PVC, Secret, ConfigMap or NFS export exists and is reachable from the node.",
                "确认其中提到的 PVC、Secret、ConfigMap 或 NFS 导出存在，且节点可以访问。",
            ),
            change(
                "After confirming, a person fixes the data source (or its permissions) and resubmits.",
                "确认后，由用户修复数据源（或其权限）并重新提交。",
            ),
        ),
        K8S_VOLUME,
    ),
    Entry(
        "FailedAttachVolume",
        "kubernetes",
        t("A volume could not be attached to the node.", "卷无法挂接到节点。"),
        t(
            "A storage-side error, or `Multi-Attach error`: the volume is still used by another pod.",
            "存储侧错误，或 `Multi-Attach error`：该卷仍被其他 Pod 使用。",
        ),
        (
            _EVENTS,
            change(
                "After confirming, a person frees the volume or fixes the storage and resubmits.",
                "确认后，由用户释放该卷或修复存储，再重新提交。",
            ),
        ),
        K8S_VOLUME,
    ),
    Entry(
        "FailedCreatePodSandBox",
        "kubernetes",
        t("The node could not create the pod's sandbox.", "节点无法创建 Pod 的沙箱。"),
        t(
            "A CNI (network) or container runtime problem on the node.",
            "节点上的 CNI（网络）或容器运行时问题。",
        ),
        (_EVENTS, _NODE, _RESUBMIT_HEALTHY),
        K8S_EVENTS,
    ),
    Entry(
        "FailedScheduling",
        "kubernetes",
        t(
            "The default scheduler could not place the pod on any node.",
            "默认调度器无法将该 Pod 调度到任何节点。",
        ),
        t(
            "Not enough of a resource (`Insufficient nvidia.com/gpu`, memory, cpu), taints the pod does not "
            "tolerate, node affinity or selectors, or an unbound PVC; the message lists the reasons per node.",
            "资源不足（`Insufficient nvidia.com/gpu`、内存、CPU）、Pod 不容忍的污点、节点亲和性或选择器，或 PVC 未绑定；消息会按节点列出原因。",
        ),
        (
            check(
                "Read the event message: `0/N nodes are available: …` names each reason.",
                "查看事件消息：`0/N nodes are available: …` 会列出每个原因。",
            ),
            change(
                "After confirming, a person adjusts the requests, node selector or tolerations, or waits for "
                "capacity; this is a scheduling wait, not a crash.",
                "确认后，由用户调整资源请求、节点选择器或容忍度，或等待资源空闲；这是调度等待，而非崩溃。",
            ),
        ),
        K8S_SCHED,
    ),
    Entry(
        "Unschedulable",
        "kubernetes",
        t(
            "The Run:ai (KAI) scheduler could not place the pod or its pod group.",
            "Run:ai（KAI）调度器无法调度该 Pod 或其 Pod 组。",
        ),
        t(
            "Not enough GPUs, GPU memory, CPU or memory in the node pool, or the project's quota or limit is "
            "reached (`NonPreemptibleOverQuota`, `OverLimit`).",
            "节点池中 GPU、GPU 显存、CPU 或内存不足，或已达到项目配额/上限（`NonPreemptibleOverQuota`、`OverLimit`）。",
        ),
        (
            check(
                "Read the event message (`no nodes with enough resources were found: …`) and the workload's "
                "`phaseMessage` and `pendingSchedulingMessages`.",
                "查看事件消息（`no nodes with enough resources were found: …`）以及作业的 `phaseMessage` 与 `pendingSchedulingMessages`。",
            ),
            change(
                "After confirming, a person reduces the request, picks another node pool, or asks an "
                "administrator about quota.",
                "确认后，由用户减少资源请求、改用其他节点池，或与管理员沟通配额。",
            ),
        ),
        K8S_SCHED,
    ),
    Entry(
        "UnexpectedAdmissionError",
        "kubernetes",
        t(
            "The kubelet's device manager could not allocate the devices the pod asked for.",
            "kubelet 的设备管理器无法分配 Pod 请求的设备。",
        ),
        t(
            "A device plugin problem on the node, e.g. `nvml: GPU is lost` or devices reported but unavailable: "
            "a node fault.",
            "节点上的设备插件问题，例如 `nvml: GPU is lost`，或设备已上报但不可用：属于节点故障。",
        ),
        (_EVENTS, _NODE, _RESUBMIT_HEALTHY),
        K8S_POD,
    ),
    Entry(
        "SystemOOM",
        "kubernetes",
        t(
            "The node's kernel ran out of memory and killed a process (`System OOM encountered, victim process: …`).",
            "节点内核内存耗尽并终止了某个进程（`System OOM encountered, victim process: …`）。",
        ),
        t(
            "Node-level memory pressure; the victim may be this job's process even when its container was not "
            "the cgroup that hit its limit.",
            "节点级内存压力；即使本作业的容器未触及自身 cgroup 上限，被终止的也可能是本作业的进程。",
        ),
        (
            _NODE,
            check(
                "Compare the victim process and time with the job's exit (137 with reason Error).",
                "将被终止的进程与时间同作业的退出（退出码 137、原因 Error）进行对照。",
            ),
            change(
                "After confirming, a person sets memory requests close to real usage or resubmits on a node with "
                "headroom.",
                "确认后，由用户将内存 request 设置为接近实际用量，或在有余量的节点上重新提交。",
            ),
        ),
        K8S_EVENTS,
        aliases=("OOMKilling",),
    ),
    Entry(
        "Terminated",
        "kubernetes",
        t(
            "The kubelet terminated the pod for a graceful node shutdown (`Shutdown` in Kubernetes 1.21).",
            "kubelet 因节点正常关机而终止了该 Pod（Kubernetes 1.21 中为 `Shutdown`）。",
        ),
        t("The node was shut down or rebooted.", "节点被关机或重启。"),
        (_NODE, _RESUBMIT_HEALTHY),
        K8S_POD,
        aliases=("NodeShutdown", "Shutdown"),
    ),
    Entry(
        "TerminationByKubelet",
        "kubernetes",
        t(
            "The kubelet is removing the pod (node-pressure eviction, critical-pod preemption or node shutdown).",
            "kubelet 正在移除该 Pod（节点压力驱逐、关键 Pod 抢占或节点关机）。",
        ),
        t("A node-side decision, not a failure of the program.", "节点侧的决定，而不是程序失败。"),
        (_EVENTS, _NODE),
        K8S_POD,
    ),
    Entry(
        "DeletionByTaintManager",
        "kubernetes",
        t(
            "The taint-eviction controller deleted the pod because its node got a NoExecute taint (e.g. "
            "NotReady or unreachable).",
            "由于节点被打上 NoExecute 污点（例如 NotReady 或不可达），污点驱逐控制器删除了该 Pod。",
        ),
        t("A node fault.", "节点故障。"),
        (_NODE, _RESUBMIT_HEALTHY),
        K8S_POD,
        aliases=("TaintManagerEviction",),
    ),
    Entry(
        "Unhealthy",
        "kubernetes",
        t("A liveness, readiness or startup probe failed.", "存活、就绪或启动探针失败。"),
        t(
            "The probe's endpoint or command failed or timed out; a failed liveness probe restarts the "
            "container (often exit 137 or 143).",
            "探针的端点或命令失败或超时；存活探针失败会重启容器（通常退出码为 137 或 143）。",
        ),
        (
            _EVENTS,
            change(
                "After confirming, a person fixes the probe (path, port, timeouts) or the service it checks.",
                "确认后，由用户修正探针（路径、端口、超时）或其检查的服务。",
            ),
        ),
        K8S_EVENTS,
    ),
    # ----------------------------------------------------------------------------------------
    # Run:ai phase reasons
    # ----------------------------------------------------------------------------------------
    Entry(
        "NonPreemptibleOverQuota",
        "runai",
        t(
            "A non-preemptible workload asked for more than its project's remaining quota.",
            "不可抢占的作业请求的资源超过了项目剩余配额。",
        ),
        t(
            "Non-preemptible workloads must fit inside the quota (`Non-preemptible workload is over quota. …`).",
            "不可抢占的作业必须在配额内运行（`Non-preemptible workload is over quota. …`）。",
        ),
        (
            check(
                "Read `pendingSchedulingMessages` / `phaseMessage` for the requested and allocated amounts.",
                "在 `pendingSchedulingMessages` / `phaseMessage` 中查看请求量与已分配量。",
            ),
            change(
                "After confirming, a person submits it as preemptible, reduces the request, or asks an "
                "administrator for more quota.",
                "确认后，由用户改为可抢占提交、减少资源请求，或向管理员申请更多配额。",
            ),
        ),
        RUNAI_SCHED,
    ),
    Entry(
        "OverLimit",
        "runai",
        t(
            "The project or department has reached its resource limit.",
            "项目或部门已达到资源上限。",
        ),
        t(
            "The queue's allowable limit is reached (`… quota has reached the allowable limit of GPUs …`).",
            "队列已达到允许的上限（`… quota has reached the allowable limit of GPUs …`）。",
        ),
        (
            check(
                "Read `pendingSchedulingMessages` / `phaseMessage` for the limit and current allocation.",
                "在 `pendingSchedulingMessages` / `phaseMessage` 中查看上限与当前分配量。",
            ),
            change(
                "After confirming, a person waits for other workloads to finish, reduces the request, or asks "
                "an administrator to raise the limit.",
                "确认后，由用户等待其他作业结束、减少资源请求，或请管理员提高上限。",
            ),
        ),
        RUNAI_SCHED,
    ),
    # ----------------------------------------------------------------------------------------
    # Huawei Cloud API gateway
    # ----------------------------------------------------------------------------------------
    Entry(
        "APIGW.0101",
        "api_gateway",
        t(
            "The API does not exist or is not published (HTTP 404), or the method, path or host is wrong.",
            "API 不存在或未发布（HTTP 404），或请求方法、路径、主机名错误。",
        ),
        t("A wrong endpoint: region, host or path.", "端点错误：区域、主机名或路径。"),
        (
            check(
                "Check the region's endpoint (`modelarts.<region>.myhuaweicloud.com`) and the request path.",
                "检查该区域的端点（`modelarts.<region>.myhuaweicloud.com`）以及请求路径。",
            ),
        ),
        APIGW,
        aliases=("APIG.0101",),
        http_status="404",
    ),
    Entry(
        "APIGW.0103",
        "api_gateway",
        t("The gateway found no backend for the API (HTTP 404).", "网关找不到该 API 的后端（HTTP 404）。"),
        t("A service-side routing problem or a wrong endpoint.", "服务侧路由问题或端点错误。"),
        (
            check(
                "Retry later; if it persists, open a ticket with the request id.",
                "稍后重试；若持续出现，请携带 request id 提交工单。",
            ),
        ),
        APIGW,
        aliases=("APIG.0103",),
        http_status="404",
    ),
    Entry(
        "APIGW.0201",
        "api_gateway",
        t(
            "The request was malformed or too large (HTTP 400/413/414/494), or the backend was unavailable "
            "or timed out (HTTP 502/504).",
            "请求格式错误或过大（HTTP 400/413/414/494），或后端不可用/超时（HTTP 502/504）。",
        ),
        t(
            "A bad request (body over 12 MB, URI or headers too large) or a service-side outage.",
            "请求错误（请求体超过 12 MB、URI 或请求头过大）或服务侧故障。",
        ),
        (
            check(
                "Read the HTTP status: 4xx means fix the request, 502/504 means retry later.",
                "查看 HTTP 状态码：4xx 需修正请求，502/504 请稍后重试。",
            ),
        ),
        APIGW,
        aliases=("APIG.0201",),
        http_status="400/413/414/494/502/504",
    ),
    Entry(
        "APIGW.0301",
        "api_gateway",
        t("IAM authentication failed (HTTP 401).", "IAM 认证失败（HTTP 401）。"),
        t(
            "A bad AK/SK signature (wrong SK, clock skew over 15 minutes), an AK locked for 5 minutes after "
            "more than 5 consecutive failures, or a token that cannot be decrypted.",
            "AK/SK 签名错误（SK 错误、时钟偏差超过 15 分钟），连续失败超过 5 次导致 AK 被锁定 5 分钟，或 token 无法解密。",
        ),
        (
            check(
                "Check the machine's clock, and that the AK/SK pair belongs together (never print the SK).",
                "检查本机时钟，并确认 AK/SK 是配对的（切勿输出 SK）。",
            ),
            check(
                "Do not retry in a loop: repeated failures lock the AK for 5 minutes.",
                "不要循环重试：连续失败会使 AK 被锁定 5 分钟。",
            ),
            change(
                "After confirming, a person replaces the credentials in the tool's configuration.",
                "确认后，由用户更新工具配置中的凭据。",
            ),
        ),
        APIGW,
        aliases=("APIG.0301",),
        http_status="401",
    ),
    Entry(
        "APIGW.0302",
        "api_gateway",
        t(
            "The IAM user is not allowed to call this API (black/white list, HTTP 403).",
            "该 IAM 用户不允许调用此 API（黑/白名单，HTTP 403）。",
        ),
        t("An access-control list on the API.", "API 上的访问控制列表限制。"),
        (
            change(
                "After confirming, an administrator adjusts the API's access list for this user.",
                "确认后，由管理员为该用户调整 API 的访问列表。",
            ),
        ),
        APIGW,
        aliases=("APIG.0302",),
        http_status="403",
    ),
    Entry(
        "APIGW.0303",
        "api_gateway",
        t("App authentication failed (HTTP 401).", "App 认证失败（HTTP 401）。"),
        t(
            "Wrong app credentials for an app-authenticated API.",
            "App 认证方式的 API 使用了错误的 App 凭据。",
        ),
        (
            check(
                "Check which authentication the API expects and the app key in use.",
                "确认 API 要求的认证方式以及所用的 App key。",
            ),
        ),
        APIGW,
        aliases=("APIG.0303",),
        http_status="401",
    ),
    Entry(
        "APIGW.0305",
        "api_gateway",
        t("Incorrect authentication information (HTTP 401).", "认证信息不正确（HTTP 401）。"),
        t("Missing or malformed authentication headers.", "认证请求头缺失或格式错误。"),
        (
            check(
                "Check that the request is signed (AK/SK) or carries a valid token.",
                "确认请求已签名（AK/SK）或携带有效 token。",
            ),
        ),
        APIGW,
        aliases=("APIG.0305",),
        http_status="401",
    ),
    Entry(
        "APIGW.0306",
        "api_gateway",
        t("API access denied (HTTP 403).", "API 访问被拒绝（HTTP 403）。"),
        t(
            "The IAM user lacks the permission for this call (for ModelArts diagnosis: `modelarts:trainJob:get` "
            "and `modelarts:trainJob:list`).",
            "该 IAM 用户缺少此调用所需的权限（ModelArts 诊断需要 `modelarts:trainJob:get` 与 `modelarts:trainJob:list`）。",
        ),
        (
            check(
                "List the IAM actions the failed calls need (`diagnose modelarts` prints them on a 403).",
                "列出失败调用所需的 IAM 操作（`diagnose modelarts` 在 403 时会输出）。",
            ),
            change(
                "After confirming, an IAM administrator grants a custom read-only policy with those actions to "
                "the user whose AK/SK the tool uses.",
                "确认后，由 IAM 管理员将包含这些操作的只读自定义策略授权给本工具所用 AK/SK 对应的用户。",
            ),
        ),
        APIGW,
        aliases=("APIG.0306",),
        http_status="403",
    ),
    Entry(
        "APIGW.0307",
        "api_gateway",
        t("The token must be updated (HTTP 401).", "token 需要更新（HTTP 401）。"),
        t("An expired IAM token.", "IAM token 已过期。"),
        (
            change(
                "After confirming, a person obtains a new token (or uses AK/SK signing).",
                "确认后，由用户获取新的 token（或改用 AK/SK 签名）。",
            ),
        ),
        APIGW,
        aliases=("APIG.0307",),
        http_status="401",
    ),
    Entry(
        "APIGW.0308",
        "api_gateway",
        t("The throttling threshold was reached (HTTP 429).", "已达到限流阈值（HTTP 429）。"),
        t(
            "Too many requests per minute or second for this user (`policy user over ratelimit`).",
            "该用户每分钟或每秒的请求过多（`policy user over ratelimit`）。",
        ),
        (
            check(
                "Wait a few seconds (2-5 s) and retry; lower the request rate of scans.",
                "等待几秒（2-5 秒）后重试；降低扫描的请求速率。",
            ),
        ),
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
        t("ModelArts internal error.", "ModelArts 内部错误。"),
        t("A service-side failure.", "服务侧故障。"),
        (
            check(
                "Retry later; if it persists, open a ticket with the request id.",
                "稍后重试；若持续出现，请携带 request id 提交工单。",
            ),
        ),
        MODELARTS,
    ),
    Entry(
        "ModelArts.0012",
        "modelarts",
        t("ModelArts internal timeout.", "ModelArts 内部超时。"),
        t("A service-side timeout.", "服务侧超时。"),
        (
            check(
                "Retry later; if it persists, open a ticket with the request id.",
                "稍后重试；若持续出现，请携带 request id 提交工单。",
            ),
        ),
        MODELARTS,
    ),
    Entry(
        "ModelArts.0013",
        "modelarts",
        t("ModelArts internal connection failure.", "ModelArts 内部连接失败。"),
        t("A service-side connection problem.", "服务侧连接问题。"),
        (
            check(
                "Retry later; if it persists, open a ticket with the request id.",
                "稍后重试；若持续出现，请携带 request id 提交工单。",
            ),
        ),
        MODELARTS,
    ),
    Entry(
        "ModelArts.0101",
        "modelarts",
        t("Invalid configuration in the request.", "请求中的配置无效。"),
        t("A parameter value the API rejects.", "API 拒绝的参数值。"),
        (check("Read `error_msg` for the field it names.", "查看 `error_msg` 中指出的字段。"),),
        MODELARTS,
    ),
    Entry(
        "ModelArts.0102",
        "modelarts",
        t("The resource does not exist.", "资源不存在。"),
        t("A wrong id, or a resource in another region or project.", "id 错误，或资源位于其他区域或项目。"),
        (
            check(
                "Check the id and the region (each region has its own project_id).",
                "检查 id 和区域（每个区域有各自的 project_id）。",
            ),
        ),
        MODELARTS,
    ),
    Entry(
        "ModelArts.0103",
        "modelarts",
        t("Duplicate name.", "名称重复。"),
        t("A resource with that name already exists.", "同名资源已存在。"),
        (check("Look up the existing resource with that name.", "查找已存在的同名资源。"),),
        MODELARTS,
    ),
    Entry(
        "ModelArts.0104",
        "modelarts",
        t("Invalid workspace id.", "工作空间 id 无效。"),
        t("The workspace id does not exist or is not accessible.", "工作空间 id 不存在或无权访问。"),
        (check("Check the workspace id the job belongs to.", "检查作业所属的工作空间 id。"),),
        MODELARTS,
    ),
    Entry(
        "ModelArts.0105",
        "modelarts",
        t("Operation not allowed.", "不允许该操作。"),
        t("The resource's state does not allow the operation.", "资源当前状态不允许该操作。"),
        (check("Read the resource's current phase.", "查看资源当前的状态。"),),
        MODELARTS,
    ),
    Entry(
        "ModelArts.0106",
        "modelarts",
        t("Resource count limit reached.", "已达到资源数量上限。"),
        t("Too many resources of this kind in the account.", "账号中此类资源数量过多。"),
        (
            change(
                "After confirming, a person deletes unused resources or asks for a higher limit.",
                "确认后，由用户删除不再使用的资源或申请提高上限。",
            ),
        ),
        MODELARTS,
    ),
    Entry(
        "ModelArts.0116",
        "modelarts",
        t("Quota exceeded.", "超出配额。"),
        t("The account's quota for this resource is used up.", "账号中该资源的配额已用完。"),
        (
            change(
                "After confirming, a person frees resources or requests a quota increase.",
                "确认后，由用户释放资源或申请提高配额。",
            ),
        ),
        MODELARTS,
    ),
    Entry(
        "ModelArts.2775",
        "modelarts",
        t("The training job does not exist.", "训练作业不存在。"),
        t(
            "A wrong job id, or the job is in another region or project.",
            "作业 id 错误，或作业位于其他区域或项目。",
        ),
        (check("Check the job id and the region.", "检查作业 id 和区域。"),),
        MODELARTS,
    ),
    Entry(
        "ModelArts.0201",
        "modelarts",
        t(
            "The token is missing (documented for online-service calls, not training runs).",
            "缺少 token（文档中针对在线服务调用，而非训练作业）。",
        ),
        t("A call made without an IAM token.", "调用时未携带 IAM token。"),
        (
            check(
                "Check that the request carries a token or is AK/SK-signed.",
                "确认请求携带 token 或已进行 AK/SK 签名。",
            ),
        ),
        MODELARTS,
        http_status="401/403",
    ),
    Entry(
        "ModelArts.0203",
        "modelarts",
        t(
            "The token is invalid: it belongs to another user (documented for online-service calls).",
            "token 无效：属于其他用户（文档中针对在线服务调用）。",
        ),
        t("A token issued for a different user or project.", "token 签发给了其他用户或项目。"),
        (check("Check which user and project the token was issued for.", "确认该 token 签发的用户和项目。"),),
        MODELARTS,
        http_status="401/403",
    ),
    Entry(
        "ModelArts.0204",
        "modelarts",
        t(
            "The token cannot be parsed (documented for calling online services with an IAM token; not a "
            "training-run failure code).",
            "token 无法解析（文档中针对使用 IAM token 调用在线服务；不是训练作业的失败码）。",
        ),
        t("A truncated or malformed token.", "token 被截断或格式错误。"),
        (
            check(
                "Obtain a fresh token and check that it is passed unmodified.",
                "获取新的 token，并确认传递时未被修改。",
            ),
        ),
        MODELARTS,
        http_status="401/403",
    ),
    Entry(
        "ModelArts.4204",
        "modelarts",
        t("The API is not subscribed (AI services).", "未订阅该 API（AI 服务）。"),
        t("The AI service has not been subscribed to in this account.", "该账号尚未订阅此 AI 服务。"),
        (
            change(
                "After confirming, a person subscribes to the service in the console.",
                "确认后，由用户在控制台订阅该服务。",
            ),
        ),
        MODELARTS,
    ),
    # ----------------------------------------------------------------------------------------
    # Ascend / CANN codes
    # ----------------------------------------------------------------------------------------
    Entry(
        "EL0004",
        "ascend",
        t(
            "Ascend driver: memory allocation failed, not enough memory.",
            "昇腾驱动：内存分配失败，内存不足。",
        ),
        t(
            "The training process needs more NPU device memory than is free: batch size, model size, or "
            "another process on the same device.",
            "训练进程需要的 NPU 设备内存超过了可用量：batch size、模型规模，或同一设备上的其他进程。",
        ),
        (
            check(
                "Read the lines after the code in the log and the plog for the size that failed.",
                "查看日志中该错误码之后的内容以及 plog，找到分配失败的大小。",
            ),
            change(
                "After confirming, a person reduces the batch size or memory use (e.g. recomputation) and resubmits.",
                "确认后，由用户减小 batch size 或内存占用（例如重计算）并重新提交。",
            ),
        ),
        ASCEND,
    ),
    Entry(
        "EL0003",
        "ascend",
        t("Ascend driver: invalid argument (third-party source).", "昇腾驱动：参数无效（第三方来源）。"),
        t("An invalid argument passed down to the driver.", "传给驱动的参数无效。"),
        (check("Read the full message and the plog around the code.", "查看错误码附近的完整消息与 plog。"),),
        ASCEND,
    ),
    Entry(
        "EL9999",
        "ascend",
        t(
            "Ascend driver: memory allocation error reported in the host log (out of memory).",
            "昇腾驱动：主机日志中报告的内存分配错误（内存不足）。",
        ),
        t("Memory exhaustion during allocation.", "分配时内存耗尽。"),
        (
            check("Read the host log (plog) around the code.", "查看错误码附近的主机日志（plog）。"),
            change(
                "After confirming, a person reduces memory use and resubmits.",
                "确认后，由用户降低内存占用并重新提交。",
            ),
        ),
        ASCEND,
    ),
    Entry(
        "EI0011",
        "ascend",
        t("HCCL: not enough NPU device memory.", "HCCL：NPU 设备内存不足。"),
        t(
            "Collective communication buffers could not be allocated because device memory is used up.",
            "设备内存已耗尽，无法分配集合通信缓冲区。",
        ),
        (
            check(
                "Read the plog around the code for the size requested.",
                "查看错误码附近的 plog，找到请求的内存大小。",
            ),
            change(
                "After confirming, a person reduces memory use (batch size, HCCL buffer size) and resubmits.",
                "确认后，由用户降低内存占用（batch size、HCCL 缓冲区大小）并重新提交。",
            ),
        ),
        ASCEND,
    ),
    Entry(
        "EI9999",
        "ascend",
        t(
            "HCCL inner error, e.g. a P2P connection timeout between devices (third-party source).",
            "HCCL 内部错误，例如设备间 P2P 连接超时（第三方来源）。",
        ),
        t(
            "Collective communication failed: a peer process exited, a network problem, or a hang on another "
            "rank; the earliest failing rank holds the root cause.",
            "集合通信失败：对端进程退出、网络问题，或其他 rank 卡住；最早失败的 rank 才包含根因。",
        ),
        (
            check(
                "Compare the logs of all tasks by time and find the earliest failure; read the plog.",
                "按时间比较所有任务的日志，找到最早的失败；查看 plog。",
            ),
        ),
        ASCEND,
    ),
    Entry(
        "EZ9999",
        "ascend",
        t("Ascend inner error (catch-all).", "昇腾内部错误（兜底错误码）。"),
        t("The code itself does not say; the plog does.", "错误码本身不说明原因，需查看 plog。"),
        (
            check(
                "Read the lines after the code and the plog (device-side logs).",
                "查看错误码之后的内容以及 plog（设备侧日志）。",
            ),
        ),
        ASCEND,
    ),
    Entry(
        "E19999",
        "ascend",
        t("Ascend inner error (catch-all).", "昇腾内部错误（兜底错误码）。"),
        t("The code itself does not say; the plog does.", "错误码本身不说明原因，需查看 plog。"),
        (
            check(
                "Read the lines after the code and the plog (device-side logs).",
                "查看错误码之后的内容以及 plog（设备侧日志）。",
            ),
        ),
        ASCEND,
    ),
    # ----------------------------------------------------------------------------------------
    # torch_npu codes
    # ----------------------------------------------------------------------------------------
    Entry(
        "ERR99999",
        "torch_npu",
        t(
            "torch_npu application exception (e.g. a communication operator received a CPU tensor).",
            "torch_npu 应用异常（例如通信算子收到了 CPU 张量）。",
        ),
        t(
            "An error in how the program uses the NPU API; the text after the code names it.",
            "程序使用 NPU API 的方式有误；错误码后的文本会说明原因。",
        ),
        (
            check(
                "Read the text after the code and the Python traceback above it.",
                "查看错误码之后的文本以及其上方的 Python traceback。",
            ),
            change(
                "After confirming, a person fixes the code it points at (e.g. move the tensor to the NPU).",
                "确认后，由用户修复其指向的代码（例如将张量移到 NPU 上）。",
            ),
        ),
        TORCH_NPU,
    ),
)

# Codes people ask about that were searched for and have no documented meaning.
UNDOCUMENTED: dict[str, dict[str, str]] = {
    "1.015": t(
        "No meaning for it was found in the ModelArts SDK, the official API and troubleshooting "
        "documentation, or public code.",
        "在 ModelArts SDK、官方 API 与故障排查文档及公开代码中均未找到其含义。",
    ),
}

# ----------------------------------------------------------------------------------------------
# Structured codes decoded by their parts
# ----------------------------------------------------------------------------------------------

# torch_npu `ERR` + module (2 digits) + type (3 digits).
TORCH_NPU_MODULES: dict[str, dict[str, str]] = {
    "00": t("PTA (framework adapter)", "PTA（框架适配层）"),
    "01": t("OPS (operators)", "OPS（算子）"),
    "02": t("DIST (distributed communication)", "DIST（分布式通信）"),
    "04": t("PROF (profiler)", "PROF（性能分析）"),
}
TORCH_NPU_TYPES: dict[str, dict[str, str]] = {
    "001": t("invalid parameter", "参数无效"),
    "002": t("invalid type", "类型无效"),
    "005": t("internal error", "内部错误"),
    "010": t("system call failed", "系统调用失败"),
    "999": t("application exception", "应用异常"),
}
TORCH_NPU_STEPS: tuple[Step, ...] = (
    check(
        "Read the log line: `[ERROR] <time> (PID:…, Device:…, RankID:…) ERRmmttt <module> <text>`; the text and "
        "the Python traceback above it name the failing call.",
        "查看日志行：`[ERROR] <时间> (PID:…, Device:…, RankID:…) ERRmmttt <模块> <文本>`；其文本与上方的 Python traceback 会指出出错的调用。",
    ),
    change(
        "After confirming, a person fixes the call or configuration the text names and resubmits.",
        "确认后，由用户修复文本指出的调用或配置并重新提交。",
    ),
)

ASCEND_INNER_STEPS: tuple[Step, ...] = (
    check(
        "Read the lines after the code and the plog (device-side logs).",
        "查看错误码之后的内容以及 plog（设备侧日志）。",
    ),
)
ASCEND_OPERATOR_STEPS: tuple[Step, ...] = (
    check(
        "Read the operator name and inputs in the message; check that the operator is supported for these "
        "shapes and dtypes by this CANN version.",
        "查看消息中的算子名称和输入；确认当前 CANN 版本支持该算子在这些形状与数据类型下运行。",
    ),
    change(
        "After confirming, a person changes the model code or the CANN/torch_npu version and resubmits.",
        "确认后，由用户修改模型代码或 CANN/torch_npu 版本并重新提交。",
    ),
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

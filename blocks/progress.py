"""Which step is running, in words: one row per engine op (unknown ops are named as they are)."""

from __future__ import annotations

from blocks.escape import escape_mrkdwn
from blocks.kit import SlackMessage, context, fallback_text, section
from blocks.labels import Mention, label, label_mrkdwn

STEP_LABELS: dict[str, dict[str, str]] = {
    # Run:ai control plane
    "list_workloads": {"en": "finding the workload by name", "zh": "按名称查找工作负载"},
    "get_workload_status": {"en": "reading the workload status", "zh": "读取工作负载状态"},
    "get_workload_events": {"en": "reading the workload events", "zh": "读取工作负载事件"},
    "get_workload_spec": {"en": "reading the submitted spec", "zh": "读取提交的规格"},
    "get_workload_pods": {"en": "reading the pods", "zh": "读取 Pod"},
    "get_workload_history": {"en": "reading the workload history", "zh": "读取历史记录"},
    "get_workload_metrics": {"en": "reading memory metrics", "zh": "读取内存指标"},
    # Kubernetes (Tier 2)
    "k8s.read_pod": {"en": "reading the pod from Kubernetes", "zh": "从 Kubernetes 读取 Pod"},
    "k8s.read_pod_log": {"en": "reading container logs", "zh": "读取容器日志"},
    "k8s.list_events": {"en": "reading Kubernetes events", "zh": "读取 Kubernetes 事件"},
    "k8s.read_node": {"en": "reading the node", "zh": "读取节点"},
    # ModelArts
    "ListTrainingJobs": {"en": "searching training jobs", "zh": "搜索训练作业"},
    "ShowTrainingJobDetails": {"en": "reading the job details", "zh": "读取作业详情"},
    "ListTrainingJobEvents": {"en": "reading the job events", "zh": "读取作业事件"},
    "ListTrainingJobStages": {"en": "reading the job stages", "zh": "读取作业阶段"},
    "ListTrainingJobTasks": {"en": "reading the job tasks", "zh": "读取作业任务"},
    "ShowTrainingJobLogsPreview": {"en": "reading the task logs", "zh": "读取任务日志"},
    "ShowTrainingJobMetrics": {"en": "reading the job metrics", "zh": "读取作业指标"},
}


def step_label(op: str, *, lang: str) -> str:
    labels = STEP_LABELS.get(op)
    if labels is None:
        return f"calling {op}" if lang == "en" else op
    return labels.get(lang) or labels["en"]


def progress_message(
    *, what: str, user: str, lang: str, step: str | None = None, queued: bool = False
) -> SlackMessage:
    """The placeholder posted at once and updated as the workflow advances.

    `what` is plain text describing the request; `step` is an op name.
    """
    title = label_mrkdwn("progress", lang, what=what, user=Mention(user))
    if queued:
        detail = label("progress_queued", lang)
    elif step is None:
        detail = label("progress_starting", lang)
    else:
        detail = label("progress_step", lang, step=step_label(step, lang=lang))
    return SlackMessage(
        text=fallback_text(label("progress", lang, what=what, user=user)),
        blocks=[section(f":hourglass_flowing_sand: {title}"), context(escape_mrkdwn(detail))],
    )

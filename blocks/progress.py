"""Which step is running, in words: one row per engine op (unknown ops are named as they are)."""

from __future__ import annotations

from blocks.escape import escape_mrkdwn
from blocks.kit import SlackMessage, context, fallback_text, section
from blocks.labels import Mention, label, label_mrkdwn

STEP_LABELS: dict[str, dict[str, str]] = {
    # Run:ai control plane
    "list_workloads": {
        "en": "finding the workload by name",
        "zh": "按名称查找工作负载",
        "fr": "recherche du workload par son nom",
        "ja": "名前でワークロードを検索中",
    },
    "get_workload_status": {
        "en": "reading the workload status",
        "zh": "读取工作负载状态",
        "fr": "lecture de l’état du workload",
        "ja": "ワークロードの状態を取得中",
    },
    "get_workload_events": {
        "en": "reading the workload events",
        "zh": "读取工作负载事件",
        "fr": "lecture des événements du workload",
        "ja": "ワークロードのイベントを取得中",
    },
    "get_workload_spec": {
        "en": "reading the submitted spec",
        "zh": "读取提交的规格",
        "fr": "lecture de la spécification soumise",
        "ja": "投入時の仕様を取得中",
    },
    "get_workload_pods": {
        "en": "reading the pods",
        "zh": "读取 Pod",
        "fr": "lecture des pods",
        "ja": "Pod を取得中",
    },
    "get_workload_history": {
        "en": "reading the workload history",
        "zh": "读取历史记录",
        "fr": "lecture de l’historique",
        "ja": "履歴を取得中",
    },
    "get_workload_metrics": {
        "en": "reading memory metrics",
        "zh": "读取内存指标",
        "fr": "lecture des métriques mémoire",
        "ja": "メモリのメトリクスを取得中",
    },
    # Kubernetes (Tier 2)
    "k8s.read_pod": {
        "en": "reading the pod from Kubernetes",
        "zh": "从 Kubernetes 读取 Pod",
        "fr": "lecture du pod dans Kubernetes",
        "ja": "Kubernetes から Pod を取得中",
    },
    "k8s.read_pod_log": {
        "en": "reading container logs",
        "zh": "读取容器日志",
        "fr": "lecture des journaux du conteneur",
        "ja": "コンテナのログを取得中",
    },
    "k8s.list_events": {
        "en": "reading Kubernetes events",
        "zh": "读取 Kubernetes 事件",
        "fr": "lecture des événements Kubernetes",
        "ja": "Kubernetes のイベントを取得中",
    },
    "k8s.read_node": {
        "en": "reading the node",
        "zh": "读取节点",
        "fr": "lecture du nœud",
        "ja": "ノードを取得中",
    },
    # ModelArts
    "ListTrainingJobs": {
        "en": "searching training jobs",
        "zh": "搜索训练作业",
        "fr": "recherche des jobs d’entraînement",
        "ja": "トレーニングジョブを検索中",
    },
    "ShowTrainingJobDetails": {
        "en": "reading the job details",
        "zh": "读取作业详情",
        "fr": "lecture du détail du job",
        "ja": "ジョブの詳細を取得中",
    },
    "ListTrainingJobEvents": {
        "en": "reading the job events",
        "zh": "读取作业事件",
        "fr": "lecture des événements du job",
        "ja": "ジョブのイベントを取得中",
    },
    "ListTrainingJobStages": {
        "en": "reading the job stages",
        "zh": "读取作业阶段",
        "fr": "lecture des étapes du job",
        "ja": "ジョブのステージを取得中",
    },
    "ListTrainingJobTasks": {
        "en": "reading the job tasks",
        "zh": "读取作业任务",
        "fr": "lecture des tâches du job",
        "ja": "ジョブのタスクを取得中",
    },
    "ShowTrainingJobLogsPreview": {
        "en": "reading the task logs",
        "zh": "读取任务日志",
        "fr": "lecture des journaux des tâches",
        "ja": "タスクのログを取得中",
    },
    "ShowTrainingJobMetrics": {
        "en": "reading the job metrics",
        "zh": "读取作业指标",
        "fr": "lecture des métriques du job",
        "ja": "ジョブのメトリクスを取得中",
    },
}

# "calling <op>" for an op without a row, per language.
UNKNOWN_STEP: dict[str, str] = {
    "en": "calling {op}",
    "fr": "appel de {op}",
    "zh": "调用 {op}",
    "ja": "{op} を呼び出し中",
}


def step_label(op: str, *, lang: str) -> str:
    labels = STEP_LABELS.get(op)
    if labels is None:
        return (UNKNOWN_STEP.get(lang) or UNKNOWN_STEP["en"]).format(op=op)
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


def scan_progress_message(
    *,
    what: str,
    user: str,
    lang: str,
    done: int | None = None,
    total: int | None = None,
    platform: str = "modelarts",
) -> SlackMessage:
    """The scan's placeholder: listing at first (`total` None), then jobs diagnosed out of the
    abnormal jobs listed (Run:ai: failed workloads diagnosed out of those listed)."""
    runai = platform == "runai"
    title = label_mrkdwn("scan_started", lang, what=what, user=Mention(user))
    if total is None:
        detail = label("scan_listing_runai" if runai else "scan_listing", lang)
    else:
        detail = label("scan_progress_runai" if runai else "scan_progress", lang, done=done or 0, total=total)
    return SlackMessage(
        text=fallback_text(label("scan_started", lang, what=what, user=user) + " " + detail),
        blocks=[section(f":mag: {title}"), context(escape_mrkdwn(detail))],
    )

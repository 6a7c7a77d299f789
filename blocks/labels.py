"""Fixed labels of the Slack messages, per language (the free text comes translated from the engine)."""

from __future__ import annotations

from typing import Any

LABELS: dict[str, dict[str, str]] = {
    "en": {
        "job": "Job",
        "workload": "Workload",
        "project": "Project",
        "region": "Region",
        "cluster": "Cluster",
        "confidence": "Confidence",
        "fault_level": "Fault level",
        "phase": "Phase",
        "signature": "Signature",
        "root_cause": "Root cause",
        "evidence": "Evidence",
        "recurrence": "Recurrence",
        "recurrence_text": "{count} failure(s) of this category in {window}",
        "recurring": "recurring",
        "not_recurring": "not recurring",
        "recommendations": "Recommendations",
        "needs_confirmation": "changes the job or its resources: a person confirms and applies it; the bot never does",
        "limitations": "Limitations",
        "next_steps": "Next steps",
        "permissions": "Permissions needed",
        "permissions_hint": "Ask an administrator to grant these read-only permissions, then press Retry.",
        "calls": "Calls",
        "no_calls": "no API call",
        "requested_by": "requested by {user}",
        "cut": "Cut to fit Slack's limits: the full report is attached in this thread.",
        "more_items": "… {count} more in the full report",
        "retry": "Retry",
        "rerun": "Re-run",
        "log_link": "Full-log link (only you)",
        "outcome.diagnosed": "{category}",
        "outcome.routed": "Routed: {route} (no failure category)",
        "outcome.not_a_failure": "Not a failure: {phase}",
        "outcome.needs_input": "Needs input",
        "outcome.wrong_cluster": "Wrong cluster",
        "outcome.out_of_scope": "Out of scope: {phase}",
        "outcome.observe": "Observe: {phase}",
        "outcome.not_found": "Not found",
        "outcome.permission_denied": "Permission denied",
        "unknown_phase": "phase unknown",
        "followups_hint": "Reply in this thread: `evidence`, `history`, `logs`, `json`, `why`, `rerun`, `explain <exit code>`, or ask about another job.",
        "progress": "Diagnosing {what} for {user}…",
        "progress_step": "Step: {step}",
        "progress_queued": "Waiting for a free worker…",
        "progress_starting": "Starting…",
        "waiting_input": "Waiting for an answer in the thread: {prompt}",
        "answered": "{prompt} → *{answer}* (answered by {user})",
        "cancelled": "Cancelled by {user}.",
        "other_value": "Type another value…",
        "cancel": "Cancel",
        "choose": "Choose…",
        "answer": "Answer…",
        "modal_title": "Diagnose",
        "modal_submit": "Continue",
        "modal_close": "Cancel",
        "modal_invalid": "Use letters, digits and - _ . : / only (no spaces), at most 200 characters.",
        "log_link_title": "Full-log link",
        "log_link_task": "Task (e.g. worker-0)",
        "log_link_ready": "Full log of task {task} of job {job}. The link is a credential valid about 5 minutes and is shown to you only: do not share it.",
        "log_link_open": "Open the log",
        "log_link_failed": "Could not get the full-log link: {reason}",
        "log_link_unavailable": "The full-log link is only available for ModelArts jobs diagnosed live.",
        "denied": "You or this channel may not run this diagnosis. Ask an admin to update the bot's access policy (DIAGNOSE_POLICY).",
        "rate_limited": "You have started many diagnoses in a short time; try again in a few minutes.",
        "busy": "The bot is busy with other diagnoses; try again in a minute.",
        "failed": "The diagnosis could not be completed ({reason}). Nothing was changed. Reference: {ref}",
        "post_failed": "I could not post the report in this channel ({error}). Invite me with `/invite @diagnose-bot`, then run the command again.",
        "no_thread_record": "I no longer have the diagnosis of this thread; say `rerun` after a new `/diagnose`.",
        "no_items": "Nothing recorded for this in the diagnosis.",
        "history_none": "No history was read for this diagnosis (recurrence is only computed for Run:ai failures).",
        "logs_none": "No log line was read for this diagnosis.",
        "json_comment": "diagnosis/v1 JSON of this thread's report",
        "report_comment": "Full report",
        "scan_header": "Scan: {platform} {region}",
        "scan_summary": "{scanned} job(s) listed, {diagnosed} diagnosed",
        "explain_none": "No explanation available for `{code}`.",
        "help_title": "How to use /diagnose",
        "unknown_followup": "I did not understand that. {hint}",
        "demo_note": "Demo mode: answers come from recorded bundles, not from a live cloud.",
        "no_bundle": "No demo bundle matches {what}. Available demo requests:",
        "ask.platform": "Which platform runs this job?",
        "ask.cluster_id": "Which Run:ai cluster is it on? (cluster id)",
        "ask.workload_name": "Which Run:ai workload? (its name)",
        "ask.project": "Which Run:ai project is the workload in?",
        "ask.job": "Which ModelArts training job? (job id or name)",
        "already_answered": "This question was already answered, cancelled or has expired.",
        "scan_started": "Scanning {what} for {user}…",
        "queued": "Queued behind other diagnoses…",
        "demo_commands": "Try one of these:",
    },
    "zh": {
        "job": "作业",
        "workload": "工作负载",
        "project": "项目",
        "region": "区域",
        "cluster": "集群",
        "confidence": "置信度",
        "fault_level": "故障级别",
        "phase": "状态",
        "signature": "特征",
        "root_cause": "根因",
        "evidence": "证据",
        "recurrence": "复发",
        "recurrence_text": "{window} 内同类失败 {count} 次",
        "recurring": "反复出现",
        "not_recurring": "未反复出现",
        "recommendations": "建议",
        "needs_confirmation": "涉及作业或资源变更：需由用户确认后手动执行，机器人不会执行",
        "limitations": "局限",
        "next_steps": "下一步",
        "permissions": "所需权限",
        "permissions_hint": "请管理员授予以下只读权限，然后点击“重试”。",
        "calls": "调用",
        "no_calls": "未调用接口",
        "requested_by": "发起人 {user}",
        "cut": "内容超出 Slack 限制已截断：完整报告已附在本线程中。",
        "more_items": "… 另有 {count} 项见完整报告",
        "retry": "重试",
        "rerun": "重新诊断",
        "log_link": "完整日志链接（仅自己可见）",
        "outcome.not_a_failure": "非故障：{phase}",
        "outcome.needs_input": "需要补充信息",
        "outcome.out_of_scope": "不在诊断范围：{phase}",
        "outcome.observe": "继续观察：{phase}",
        "outcome.not_found": "未找到",
        "outcome.permission_denied": "权限不足",
        "progress": "正在为 {user} 诊断 {what}…",
        "progress_step": "当前步骤：{step}",
        "progress_queued": "等待空闲的处理线程…",
        "progress_starting": "开始…",
        "followups_hint": "可在本线程回复：`evidence`、`history`、`logs`、`json`、`why`、`rerun`、`explain <退出码>`，或询问其他作业。",
        "log_link_ready": "作业 {job} 任务 {task} 的完整日志。该链接是约 5 分钟有效的凭据，仅您可见，请勿转发。",
        "denied": "您或本频道无权执行此诊断。请管理员更新机器人的访问策略（DIAGNOSE_POLICY）。",
        "failed": "诊断未能完成（{reason}）。未做任何变更。参考编号：{ref}",
        "ask.job": "请提供 ModelArts 训练作业（作业 ID 或名称）",
    },
}


def label(key: str, lang: str, /, **values: Any) -> str:
    """The label in `lang`, English when that language lacks it."""
    template = LABELS.get(lang, {}).get(key) or LABELS["en"][key]
    return template.format(**values) if values else template


class Mention(str):
    """A Slack user id to show as a mention (`<@U…>`) inside an escaped label."""

    __slots__ = ()


def label_mrkdwn(key: str, lang: str, /, **values: Any) -> str:
    """The label as escaped mrkdwn: the template and every value escaped, `Mention`s rendered."""
    from blocks.escape import escape_mrkdwn

    template = escape_mrkdwn(LABELS.get(lang, {}).get(key) or LABELS["en"][key])
    rendered = {
        name: f"<@{value}>" if isinstance(value, Mention) else escape_mrkdwn(str(value))
        for name, value in values.items()
    }
    return template.format(**rendered) if rendered else template

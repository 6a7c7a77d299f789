"""Rulings M5/M6: a non-zero exit code with nothing naming a cause is MEDIUM at best.

The exit-code table (rules.EXIT_CODE_RULES) gives the category; 137/247 is OOM_KILLED only when
a log read hints at memory (signals.oom_hint), else the table's reading stands.
"""

from __future__ import annotations

from diagnosis.modelarts import rules
from diagnosis.modelarts.causes import recommendations
from diagnosis.modelarts.fault_level import fault_level
from diagnosis.modelarts.parse import Job, TaskStatus
from diagnosis.modelarts.run import Run
from diagnosis.modelarts.signals import oom_hint, shorten
from diagnosis.modelarts.wording import inline
from diagnosis.models import Category, Diagnosis, Measurements

OOM_EXIT_CODES = (137, 247)


def exit_code_verdict(run: Run, job: Job) -> Diagnosis | None:
    """The first failing task's exit code as the verdict; None when no task exited non-zero."""
    t = run.t
    failing = next((s for s in job.task_statuses if s.exit_code not in (None, 0)), None)
    if failing is None or failing.exit_code is None:
        return None
    code = failing.exit_code
    rule = rules.exit_code_rule(code)
    signal = rules.signal_name(code)
    values = {
        "code": str(code),
        "signal_part": t("exit.signal_part", signal=signal) if signal else "",
        "task": failing.task or "?",
    }
    message_part = _message_part(run, failing)
    category: Category = "UNKNOWN"
    meaning_key = "exit.other"
    fixes: tuple[rules.Fix, ...] = ()
    if rule is not None:
        category, meaning_key, fixes = rule.category, rule.meaning_key, rule.fixes
    if code in OOM_EXIT_CODES and oom_hint(list(run.previews_read.values())):
        category, meaning_key = "OOM_KILLED", "exit.137_oom"
        fixes = rules.RULES_BY_NAME["host_oom"].fixes
    meaning = t(meaning_key, **values)
    root = t(
        "root.exit_code", task=failing.task or "?", code=code, message_part=message_part, meaning=meaning
    )
    found = recommendations(run, fixes, {}, medium=True)
    if not found:
        _next_steps(run, failing)
    return run.result(
        "diagnosed",
        category=category,
        confidence="MEDIUM",
        fault_level=fault_level(job, category, "MEDIUM"),
        signature=t("signature.exit_code", code=code),
        root_cause=root,
        recommendations=found,
        measurements=Measurements(exit_code=code),
    )


def _message_part(run: Run, status: TaskStatus) -> str:
    if not status.message:
        return run.t("root.message_empty")
    return run.t("root.message_vague", message=inline(shorten(status.message, 120)))


def _next_steps(run: Run, status: TaskStatus) -> None:
    """No fix to offer: read the full log, check memory."""
    task = status.task or "?"
    run.next_steps.append(run.t("next.full_log", task=task, reason=run.t("reason.exit_code_unexplained")))
    run.next_steps.append(run.t("next.check_memory", task=task))

"""A non-zero exit code with nothing naming a cause: MEDIUM at best, never HIGH.

The exit-code catalogue (diagnosis.knowledge.exitcodes) gives the category and the ids of the
sentence and fixes; 137/247 is a memory kill (OOM_KILLED) only when the end of a log read hints at
memory (signals.oom_hint), else it stays unexplained (UNKNOWN).
"""

from __future__ import annotations

from diagnosis.knowledge.exitcodes import MEMORY_KILL, MEMORY_KILL_CODES, exit_reading, killing_signal
from diagnosis.modelarts import rules
from diagnosis.modelarts.causes import recommendations
from diagnosis.modelarts.fault_level import fault_level
from diagnosis.modelarts.parse import Job, TaskStatus
from diagnosis.modelarts.run import Run
from diagnosis.modelarts.signals import oom_hint, shorten
from diagnosis.modelarts.wording import inline
from diagnosis.models import Diagnosis, Measurements


def exit_code_verdict(run: Run, job: Job) -> Diagnosis | None:
    """The first failing task's exit code as the verdict; None when no task exited non-zero."""
    t = run.t
    failing = next((s for s in job.task_statuses if s.exit_code not in (None, 0)), None)
    if failing is None or failing.exit_code is None:
        return None
    code = failing.exit_code
    reading = exit_reading(code)
    signal = killing_signal(code)
    values = {
        "code": str(code),
        "signal_part": t("exit.signal_part", signal=signal) if signal else "",
        "task": failing.task or "?",
    }
    message_part = _message_part(run, failing)
    fixes = reading.fix_ids
    if code in MEMORY_KILL_CODES and oom_hint(list(run.previews_read.values())):
        # The memory kill offers the host-memory row's fixes.
        reading, fixes = MEMORY_KILL, rules.RULES_BY_NAME["host_oom"].fixes
    category = reading.category
    meaning = t(reading.meaning_id, **values)
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

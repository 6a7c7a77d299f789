"""How a named cause is worded: the root-cause sentence, the fixes, the exit code it goes with."""

from __future__ import annotations

from collections.abc import Sequence

from diagnosis.modelarts import rules
from diagnosis.modelarts.parse import Job
from diagnosis.modelarts.run import Run
from diagnosis.modelarts.signals import ANALYSIS_RULE, Signal
from diagnosis.modelarts.wording import fill, inline, strip_end
from diagnosis.models import Measurements, Recommendation
from diagnosis.timeutil import iso

# Root-cause template by (signal kind, whether it carries a traceback); others: `root.<kind>`.
ROOT_KEYS: dict[tuple[str, bool], str] = {
    ("message", True): "root.message_traceback",
    ("message", False): "root.message_line",
    ("log", True): "root.log_traceback",
    ("log", False): "root.log_line",
}


def exit_code_of(job: Job, task: str | None) -> int | None:
    """The task's own exit code, else the first non-zero one."""
    if task is not None:
        for status in job.task_statuses:
            if status.task == task and status.exit_code is not None:
                return status.exit_code
    for status in job.task_statuses:
        if status.exit_code not in (None, 0):
            return status.exit_code
    return None


def measurements(job: Job, task: str | None = None) -> Measurements:
    return Measurements(exit_code=exit_code_of(job, task))


def recommendations(
    run: Run, fix_ids: Sequence[str], values: dict[str, str], *, medium: bool
) -> list[Recommendation]:
    """The fixes (by id), worded; at MEDIUM each is introduced as something to try."""
    found = []
    engine = run.job.engine_name if run.job is not None else None
    filled = {"framework": engine or run.t("label.framework"), **fill(values)}
    for fix in (rules.FIXES[fix_id] for fix_id in fix_ids):
        text = run.t(f"fix.{fix.key}", **filled)
        if medium:
            text = run.t("medium.try") + "\n" + text
        found.append(Recommendation(text=text, changes_resources=fix.changes_resources))
    return found


def root_for(run: Run, signal: Signal, job: Job) -> str:
    """The root-cause sentence: where the line was read, the line itself, and what it means."""
    t = run.t
    values = fill(signal.values)
    if signal.values.get("file"):
        values["where"] = t("where.file", file=signal.values["file"])
    meaning = strip_end(signal.line) if signal.rule is ANALYSIS_RULE else t(signal.rule.meaning_key, **values)
    task = signal.task or "?"
    code = signal.exit_code if signal.exit_code is not None else exit_code_of(job, signal.task)
    exit_part = t("root.exit_part", code=code) if code is not None else ""
    key = ROOT_KEYS.get((signal.kind, signal.traceback), f"root.{signal.kind}")
    if signal.rule is ANALYSIS_RULE:
        key = "root.analysis_plain"
    return t(
        key,
        field=signal.field,
        task=task,
        exit_part=exit_part,
        line=inline(signal.line),
        meaning=meaning,
        time=iso(signal.timestamp)
        if signal.timestamp and signal.timestamp.tzinfo
        else (signal.timestamp.isoformat(sep=" ") if signal.timestamp else "?"),
    )

"""How a named cause is worded into the `Diagnosis`: the root-cause sentence, the fixes, the
evidence cited for a signal, the fault level, and the verdicts a signal or an exit
code gives (HIGH when a direct line names the cause; "most likely", MEDIUM, when only a
consequence, an indirect line or a non-zero exit code does).
"""

from __future__ import annotations

from collections.abc import Sequence

from diagnosis.knowledge.exitcodes import MEMORY_KILL, MEMORY_KILL_CODES, exit_reading, killing_signal
from diagnosis.modelarts import rules
from diagnosis.modelarts.parse.job import Job, TaskStatus
from diagnosis.modelarts.signals import ANALYSIS_RULE, Signal, oom_hint, shorten
from diagnosis.modelarts.workflow.state import DETAILS, Run
from diagnosis.models import (
    Category,
    Confidence,
    Diagnosis,
    Evidence,
    FaultLevel,
    Measurements,
    Recommendation,
)
from diagnosis.render.i18n import Translator
from diagnosis.timeutil import iso


def fill(values: dict[str, str]) -> dict[str, str]:
    """Template values with a placeholder for anything the matched line did not give."""
    filled = {
        "module": "?",
        "path": "?",
        "exception": "?",
        "code": "?",
        "file": "?",
        "stage": "?",
        "where": "",
    }
    filled.update({key: value for key, value in values.items() if value})
    return filled


def inline(text: str | None) -> str:
    """One line, safe inside a Markdown code span."""
    if not text:
        return ""
    return " ".join(text.split()).replace("`", "'")


def strip_end(text: str) -> str:
    return text.strip().rstrip("。.")


def log_field(field: str, task: str) -> str:
    """Evidence field of a log preview: the answer's field and the task it belongs to."""
    return f"{field} ({task})"


def secondary_part(t: Translator, job: Job) -> str:
    """The secondary phase, when it says more than the phase."""
    if job.secondary_phase and job.secondary_phase != job.phase:
        return t("phase.secondary", secondary=job.secondary_phase)
    return ""


def fault_level(job: Job, category: Category, confidence: Confidence) -> FaultLevel:
    """LOW or a stall is only Suspected; a Failed / Timeout job is a Fault; anything else Abnormal."""
    if confidence == "LOW" or category == "JOB_STALLED":
        return "Suspected"
    if job.phase in ("Failed", "Timeout"):
        return "Fault"
    return "Abnormal"


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


STATUS_FIELDS = ("status.phase", "status.secondary_phase")


def field_label(signal: Signal) -> str:
    if signal.kind == "log" and signal.task:
        return log_field(signal.field, signal.task)
    return signal.field


def _already_cited(run: Run, source: str, field: str | None, text: str) -> bool:
    return any(e.source == source and e.field == field and e.text == text for e in run.evidence)


def cite_signal(run: Run, signal: Signal) -> None:
    label = field_label(signal)
    if not _already_cited(run, signal.source, label, signal.excerpt):
        run.cite(signal.source, label, signal.excerpt)


def cite_winner(run: Run, winner: Signal) -> None:
    """Cite the winning signal right after the status lines it explains (other sources: last)."""
    excerpt = Evidence(source=winner.source, field=field_label(winner), text=winner.excerpt)
    insert_at = 0
    for index, item in enumerate(run.evidence):
        if item.source == DETAILS and item.field in STATUS_FIELDS:
            insert_at = index + 1
    if winner.source != DETAILS:
        insert_at = len(run.evidence)
    if not _already_cited(run, excerpt.source, excerpt.field, excerpt.text):
        run.evidence.insert(insert_at, excerpt)


def diagnosed_direct(run: Run, job: Job, winner: Signal, signals: list[Signal]) -> Diagnosis:
    t = run.t
    cite_winner(run, winner)
    for other in signals:
        if (
            other is not winner
            and other.category == winner.category
            and not other.consequence
            and other.kind != winner.kind
        ):
            cite_signal(run, other)
    root = root_for(run, winner, job)
    if run.consequences:
        tasks = sorted({s.task for s in run.consequences if s.task}) or ["?"]
        root += t(
            "root.consequence_suffix",
            tasks=t("label.list_sep").join(f"`{task}`" for task in tasks),
            line=inline(shorten(run.consequences[0].line, 120)),
        )
        for consequence in run.consequences:
            cite_signal(run, consequence)
    found = recommendations(run, winner.rule.fixes, winner.values, medium=False)
    if winner.kind == "analysis" and winner.values.get("solution"):
        # The platform's own solution first; the rule's plans after it.
        platform_fix = Recommendation(text=winner.values["solution"].strip(), changes_resources=True)
        found = [platform_fix, *found]
    return run.result(
        "diagnosed",
        category=winner.category,
        confidence="HIGH",
        fault_level=fault_level(job, winner.category, "HIGH"),
        signature=winner.line,
        root_cause=root,
        recommendations=found,
        measurements=measurements(job, winner.task),
    )


def diagnosed_indirect(run: Run, job: Job, winner: Signal) -> Diagnosis:
    cite_winner(run, winner)
    root = run.t("root.most_likely", cause=root_for(run, winner, job))
    if winner.consequence:
        root += run.t("root.consequence_only")
        run.next_steps.append(run.t("next.find_first_failure"))
    return run.result(
        "diagnosed",
        category=winner.category,
        confidence="MEDIUM",
        fault_level=fault_level(job, winner.category, "MEDIUM"),
        signature=winner.line,
        root_cause=root,
        recommendations=recommendations(run, winner.rule.fixes, winner.values, medium=True),
        measurements=measurements(job, winner.task),
    )


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

"""Small text helpers shared by the phases: template values, inline lines, log evidence fields."""

from __future__ import annotations

from diagnosis.modelarts.parse import Job
from diagnosis.render.i18n import Translator


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

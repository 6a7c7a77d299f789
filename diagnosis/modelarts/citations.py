"""Evidence for a signal: its field label, and its place among what is already cited."""

from __future__ import annotations

from diagnosis.modelarts.ops import DETAILS
from diagnosis.modelarts.run import Run
from diagnosis.modelarts.signals import Signal
from diagnosis.modelarts.wording import log_field
from diagnosis.models import Evidence

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

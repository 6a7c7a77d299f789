"""Phase 4 on a faulty job: first match wins, the runbook's A-E order as the rulings amend it.

Consequences are set aside once something else names a cause (G14); the strongest category
wins (G15, signals.choose). Then:
- A/B. a direct signal (task-message traceback, platform analysis, explicit Error event, log
  traceback) names the cause: HIGH;
- a denied call and nothing named: permission_denied (M1);
- D. only a consequence or an indirect line names a category: MEDIUM, "most likely";
- a non-zero exit code with nothing named (M6): MEDIUM;
- C. a stage open for more than an hour (M8): JOB_STALLED, MEDIUM;
- E. nothing: LOW, the insufficient-information template.
"""

from __future__ import annotations

from diagnosis.evidence.source import Answer
from diagnosis.modelarts.exit_verdict import exit_code_verdict
from diagnosis.modelarts.insufficient import insufficient
from diagnosis.modelarts.parse import Job, Stages
from diagnosis.modelarts.permission import permission_denied
from diagnosis.modelarts.run import Run
from diagnosis.modelarts.signals import Signal, choose
from diagnosis.modelarts.stalled import stuck_stage
from diagnosis.modelarts.verdicts import diagnosed_direct, diagnosed_indirect
from diagnosis.models import Diagnosis


def conclude(
    run: Run,
    job: Job,
    signals: list[Signal],
    *,
    stages: Stages | None = None,
    events_read: Answer | None = None,
) -> Diagnosis:
    winner = choose(signals)
    run.consequences = [s for s in signals if s.consequence and winner is not None and not winner.consequence]
    # The stages are cited whatever wins; their verdict counts only after the exit code's.
    stage_verdict = stuck_stage(run, stages) if stages is not None else None
    if winner is not None and winner.direct and not winner.consequence:
        return diagnosed_direct(run, job, winner, signals)
    if run.denied and winner is None:
        return permission_denied(run, run.denied[0])
    if winner is not None:
        # Only a consequence (or an indirect line) names a category: most likely, not certain.
        return diagnosed_indirect(run, job, winner)
    exit_result = exit_code_verdict(run, job)
    if exit_result is not None:
        return exit_result
    if stage_verdict is not None:
        return stage_verdict
    return insufficient(run, job, events_read=events_read)

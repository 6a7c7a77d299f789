"""Phase 3 on a faulty job (Failed, Timeout, Abnormal, or a faulty secondary phase).

Every task message and exit code is cited. A message that names the cause with a traceback
exits early (rulings M3): no call. Else the main path reads the Error events and the stages
concurrently; when that gave no direct signal, the extended path reads the failing tasks' log
previews (M4). The full-log URL is never fetched (M2). Phase 4 (analysis.py) concludes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from diagnosis.modelarts.analysis import conclude
from diagnosis.modelarts.events import fetch_events, read_events
from diagnosis.modelarts.ops import DETAILS, STAGES
from diagnosis.modelarts.parse import Job
from diagnosis.modelarts.previews import cap_tasks, log_signals
from diagnosis.modelarts.run import Run
from diagnosis.modelarts.signals import Signal, message_signals, platform_signals, shorten
from diagnosis.modelarts.stages import read_stages
from diagnosis.models import Diagnosis


async def fault_path(run: Run, job: Job) -> Diagnosis:
    from_messages = message_signals(job)
    from_platform = platform_signals(job)
    _cite_unexplained_messages(run, job, from_messages)
    _cite_exit_codes(run, job)
    if any(signal.early_exit for signal in from_messages):
        # Early exit (M3): the task message names the cause; no phase-3 call.
        return conclude(run, job, [*from_messages, *from_platform])

    events_answer, stages_answer = await asyncio.gather(
        fetch_events(run, level="Error"), run.source.fetch(STAGES, training_job_id=job.job_id or run.job_id)
    )
    from_events = read_events(run, events_answer, level="Error")
    stages = read_stages(run, stages_answer)
    signals = [*from_messages, *from_platform, *from_events]
    if not any(signal.direct and not signal.consequence for signal in signals):
        # Extended path (M4): the failing tasks' logs, at most 8, concurrently.
        signals.extend(await log_signals(run, job, _failing_tasks(run, job)))
    return conclude(run, job, signals, stages=stages, events_read=events_answer)


def _failing_tasks(run: Run, job: Job) -> list[str]:
    """Tasks with a non-zero exit code, else every task (M4)."""
    failing = [s.task for s in job.task_statuses if s.task and s.exit_code not in (None, 0)]
    return cap_tasks(run, list(dict.fromkeys(failing)) or job.task_ids)


def _cite_unexplained_messages(run: Run, job: Job, named: Sequence[Signal]) -> None:
    """Messages no rule names are evidence too (e.g. a vague `internal error`)."""
    named_fields = {signal.field for signal in named}
    for status in job.task_statuses:
        if status.message and f"{status.path}.message" not in named_fields:
            run.cite(DETAILS, f"{status.path}.message", shorten(status.message))


def _cite_exit_codes(run: Run, job: Job) -> None:
    for status in job.task_statuses:
        if status.exit_code is not None:
            run.cite(DETAILS, f"{status.path}.exit_code", str(status.exit_code), status.exit_code)

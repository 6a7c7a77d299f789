"""The ModelArts runbook's five phases in order (seeds/000, modelarts-runbook.md, rulings M1-M13).

1. discovery (discovery.py): a full job id goes on; a name is searched (M11); nothing asks for
   an id or a name.
2. status (status.py): `ShowTrainingJobDetails` (a failure here is failed_calls.py: not found,
   denied M1, or M12), then the phase table, and the early exit when a task message already
   holds a traceback that names the cause (M3, collection.py).
3. collection (collection.py, previews.py; running.py and pending.py for those phases): Error
   events and stages concurrently; log previews only when that gave no HIGH evidence (M4). The
   full-log URL is never fetched here (M2).
4. analysis (analysis.py): signals from every source (signals.py), consequences dropped, the
   strongest category first (G14/G15); HIGH / MEDIUM / LOW by M5/M6, fault level by M7.
5. output: a `Diagnosis` (run.py); the report renderers do the formatting.

Pure: every answer comes through the Source, the clock is the `now` argument.
"""

from __future__ import annotations

from datetime import datetime

from diagnosis.evidence.source import Answer
from diagnosis.modelarts.discovery import discover
from diagnosis.modelarts.failed_calls import details_failure, first_call_failed, search_failed
from diagnosis.modelarts.listing import JobListing, Source, list_jobs
from diagnosis.modelarts.ops import DETAILS
from diagnosis.modelarts.parse import parse_job
from diagnosis.modelarts.run import Run
from diagnosis.modelarts.status import assess
from diagnosis.models import DiagnoseRequest, Diagnosis

__all__ = ["JobListing", "Source", "diagnose", "list_jobs", "listing_failure"]


async def diagnose(request: DiagnoseRequest, source: Source, *, now: datetime, lang: str) -> Diagnosis:
    run = Run(request, source, now=now, lang=lang)
    if run.job_id is None:
        found = await discover(run)
        if isinstance(found, Diagnosis):
            return found
        run.job_id = found
    details = await source.fetch(DETAILS, training_job_id=run.job_id)
    early = details_failure(run, details)
    if early is not None:
        return early
    job = parse_job(details.body)
    if job is None:
        run.cite(DETAILS, None, run.t("evidence.unreadable"))
        run.limitations.append(run.t("limit.details_unreadable"))
        return first_call_failed(run, details)
    run.job = job
    return await assess(run, job)


def listing_failure(
    answer: Answer, *, source: Source, region: str | None, now: datetime, lang: str
) -> Diagnosis:
    """A scan whose job listing failed: permission_denied (M1) or LOW with what to do next."""
    run = Run(DiagnoseRequest(platform="modelarts", region=region), source, now=now, lang=lang)
    return search_failed(run, answer, None)

"""Phase 1: which job (rulings M11). A full id goes on as given; a name is searched, exact match
first, then a case-insensitive substring over every job; one match goes on, several ask which,
none is not_found. With neither an id nor a name, ask for one.
"""

from __future__ import annotations

from diagnosis.modelarts.failed_calls import search_failed
from diagnosis.modelarts.listing import list_jobs
from diagnosis.modelarts.ops import SEARCH
from diagnosis.modelarts.parse import Job
from diagnosis.modelarts.run import Run
from diagnosis.models import Choice, Diagnosis, Question
from diagnosis.timeutil import iso

NAME_FIELD = "items[].metadata.name"


async def discover(run: Run) -> Diagnosis | str:
    """The job id a name leads to, or the diagnosis that stops here."""
    t = run.t
    name = (run.request.job_name or "").strip()
    if not name:
        run.next_steps.append(t("next.give_id_or_name"))
        return run.result(
            "needs_input",
            root_cause=t("root.needs_identifier"),
            questions=[Question(key="job_id", prompt=t("question.identifier"))],
        )
    listing = await list_jobs(run.source, name=name, t=t)
    if listing.failure is not None:
        return search_failed(run, listing.failure, name)
    run.limitations.extend(listing.limitations)
    matches = [job for job in listing.jobs if job.name == name]
    if not matches:
        everything = await list_jobs(run.source, t=t)
        if everything.failure is not None:
            return search_failed(run, everything.failure, name)
        run.limitations.extend(everything.limitations)
        wanted = name.lower()
        matches = [job for job in everything.jobs if wanted in (job.name or "").lower()]
    if len(matches) == 1 and matches[0].job_id:
        run.cite(SEARCH, NAME_FIELD, matches[0].name or "?", 1)
        return matches[0].job_id
    if not matches:
        region = run.region or "?"
        run.cite(SEARCH, NAME_FIELD, t("evidence.no_name_match", name=name), 0)
        run.next_steps.append(t("next.check_name_region", region=region))
        return run.result("not_found", root_cause=t("root.name_not_found", name=name, region=region))
    return _which_job(run, name, matches)


def _which_job(run: Run, name: str, matches: list[Job]) -> Diagnosis:
    """Several jobs answer to the name: needs_input with one choice per job."""
    t = run.t
    run.cite(SEARCH, NAME_FIELD, ", ".join(job.name or "?" for job in matches), len(matches))
    choices = [
        Choice(
            value=job.job_id or "",
            label=t(
                "choice.job",
                name=job.name or "?",
                job_id=job.job_id or "?",
                phase=job.phase or "?",
                created=iso(job.create_time) if job.create_time else "?",
            ),
        )
        for job in matches
        if job.job_id
    ]
    return run.result(
        "needs_input",
        root_cause=t("root.several_matches", count=len(choices), name=name),
        questions=[Question(key="job_id", prompt=t("question.which_job", name=name), choices=choices)],
    )

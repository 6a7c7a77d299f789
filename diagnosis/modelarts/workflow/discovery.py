"""Phase 1: which job, through `ListTrainingJobs` over every page. A full id goes
on as given; a name is searched, exact match first, then a case-insensitive substring over every
job; one match goes on, several ask which, none is not_found. The scan lists jobs the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from diagnosis.evidence.answer import Answer
from diagnosis.modelarts.messages import CATALOGUE
from diagnosis.modelarts.parse.job import Job, parse_job_page
from diagnosis.modelarts.routes import SEARCH_PAGE_SIZE
from diagnosis.modelarts.workflow.failures import search_failed
from diagnosis.modelarts.workflow.state import SEARCH, Run, Source
from diagnosis.models import Choice, Diagnosis, Question
from diagnosis.render.i18n import Translator
from diagnosis.timeutil import iso

MAX_SEARCH_PAGES = 100  # a search of more pages than this is cut short (a limitation says so)


@dataclass
class JobListing:
    """Every job of a search, or the failed answer of its first page."""

    jobs: list[Job] = field(default_factory=list)
    failure: Answer | None = None
    limitations: list[str] = field(default_factory=list)
    pages: int = 0


async def list_jobs(source: Source, *, name: str | None = None, t: Translator | None = None) -> JobListing:
    """Page index `offset` from 0, `limit` 50, newest first; a page index past the first is the only
    paging arg that identifies an answer. Stops at a short page, at `count`, at a page with nothing new, or at 100."""
    translate = t or Translator(CATALOGUE, "en")
    listing = JobListing()
    seen: set[str] = set()
    for page in range(MAX_SEARCH_PAGES):
        args: dict[str, Any] = {"limit": SEARCH_PAGE_SIZE}
        if name:
            args["name"] = name
        if page:
            args["offset"] = page
        answer = await source.fetch(SEARCH, **args)
        parsed = parse_job_page(answer.body) if answer.ok else None
        if parsed is None:
            if page == 0:
                listing.failure = (
                    answer if not answer.ok else answer.model_copy(update={"error": "no items list"})
                )
            elif not answer.ok:
                failure = answer.describe_failure(lang=translate.lang)
                listing.limitations.append(
                    translate("limit.search_page_failed", page=page + 1, failure=failure)
                )
            else:
                listing.limitations.append(translate("limit.search_page_unreadable", page=page + 1))
            break
        listing.pages = page + 1
        fresh = [job for job in parsed.jobs if job.job_id and job.job_id not in seen]
        for job in fresh:
            seen.add(job.job_id or "")
            listing.jobs.append(job)
        if not fresh or parsed.item_count < SEARCH_PAGE_SIZE:
            break
        if parsed.count is not None and (page + 1) * SEARCH_PAGE_SIZE >= parsed.count:
            break
    else:
        listing.limitations.append(translate("limit.search_page_cap", pages=MAX_SEARCH_PAGES))
    return listing


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

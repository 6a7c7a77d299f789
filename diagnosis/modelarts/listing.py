"""`ListTrainingJobs` over every page: phase 1 by name (rulings M11) and the scan's job list."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from diagnosis.evidence.source import Answer
from diagnosis.modelarts.messages import CATALOGUE
from diagnosis.modelarts.parse import Job, parse_job_page
from diagnosis.modelarts.routes import SEARCH_PAGE_SIZE
from diagnosis.render.i18n import Translator

SEARCH = "ListTrainingJobs"
MAX_SEARCH_PAGES = 100  # rulings G4


class Source(Protocol):
    """What the workflow reads evidence from: a live, replay or test source (diagnosis.evidence.source)."""

    @property
    def calls(self) -> list[str]: ...

    async def fetch(self, op: str, /, *, variant: str | None = None, **args: Any) -> Answer: ...


@dataclass
class JobListing:
    """Every job of a search, or the failed answer of its first page."""

    jobs: list[Job] = field(default_factory=list)
    failure: Answer | None = None
    limitations: list[str] = field(default_factory=list)
    pages: int = 0


async def list_jobs(source: Source, *, name: str | None = None, t: Translator | None = None) -> JobListing:
    """Page index `offset` from 0, `limit` 50, newest first; a page index past the first is the only
    paging arg (G4/G5). Stops at a short page, at `count`, at a page with nothing new, or at 100."""
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
                failure = answer.describe_failure()
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

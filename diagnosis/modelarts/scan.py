"""`diagnose modelarts scan`: every abnormal training job of a region, diagnosed concurrently.

With nothing but a region given: list every job (all pages), keep those the JMESPath filter
keeps (`items[?status.phase=='Failed' || …]`, extended with the v2 wire's
`secondary_phase` `CreateFailed`/`Lost`), then diagnose each under a shared
request-rate limit (the client's Throttle) and a concurrency bound. The result is `scan/v1`:
counts by category (or by outcome when there is none), one diagnosis per job, and
`recurring_causes`: error signatures and images (`algorithm.engine`) shared by two or more
diagnosed jobs. The Markdown groups one line per job by category, then lists those causes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

import jmespath

from diagnosis.masking import mask
from diagnosis.modelarts.defaults import DEFAULT_CONCURRENCY, DEFAULT_FILTER
from diagnosis.modelarts.messages import CATALOGUE, LANGUAGES
from diagnosis.modelarts.parse.job import Job
from diagnosis.modelarts.workflow import Source, diagnose, list_jobs, listing_failure
from diagnosis.models import DiagnoseRequest, Diagnosis, Platform
from diagnosis.render.i18n import Translator, check_language
from diagnosis.scan import DiagnosedJob, ScanProgress, ScanResultBase, ScanScope, diagnose_each
from diagnosis.scan.recurring import ScanMember, cell

SourceMaker = Callable[[], Source]


@dataclass
class ScanResult(ScanResultBase):
    platform: ClassVar[Platform] = "modelarts"

    region: str | None

    def scope_json(self) -> dict[str, Any]:
        return {"region": self.region}


def image_of(job: Job) -> str | None:
    """`algorithm.engine.image_url` (a custom image), else the preset engine `name:version`."""
    algorithm = job.raw.get("algorithm")
    engine = algorithm.get("engine") if isinstance(algorithm, dict) else None
    if not isinstance(engine, dict):
        return None
    image_url = engine.get("image_url")
    if isinstance(image_url, str) and image_url.strip():
        return image_url.strip()
    name, version = engine.get("engine_name"), engine.get("engine_version")
    parts = [str(part).strip() for part in (name, version) if isinstance(part, str) and part.strip()]
    return ":".join(parts) or None


def member_of(job: Job, diagnosis: Diagnosis) -> ScanMember:
    """Its signature and image: the recurring causes ModelArts can show (it names no node)."""
    image = image_of(job)
    return ScanMember(
        name=diagnosis.target.name or job.name or diagnosis.target.job_id or job.job_id or "?",
        outcome=diagnosis.outcome,
        signature=diagnosis.signature,
        images=(image,) if image else (),
    )


def result_of(scope: ScanScope, jobs: Sequence[DiagnosedJob]) -> ScanResult:
    """scan/v1 of jobs diagnosed one by one: their signatures recur (no list answer names an image)."""
    diagnoses = [job.diagnosis for job in jobs]
    return ScanResult(
        region=scope.region,
        scanned=len(diagnoses),
        results=diagnoses,
        members=[
            ScanMember(
                name=item.target.name or item.target.job_id or "?",
                outcome=item.outcome,
                signature=item.signature,
            )
            for item in diagnoses
        ],
    )


def select_abnormal(jobs: list[Job], expression: str = DEFAULT_FILTER) -> list[Job]:
    """Apply the JMESPath filter to `{"items": [...]}` as the runbook's `--cli-query` does."""
    by_id = {job.job_id: job for job in jobs if job.job_id}
    kept = jmespath.search(expression, {"items": [job.raw for job in jobs]}) or []
    selected: list[Job] = []
    for item in kept if isinstance(kept, list) else []:
        job_id = item.get("metadata", {}).get("id") if isinstance(item, dict) else None
        if job_id in by_id and by_id[job_id] not in selected:
            selected.append(by_id[job_id])
    return selected


async def run_scan(
    make_source: SourceMaker,
    *,
    region: str | None,
    now: datetime,
    lang: str = "zh",
    concurrency: int = DEFAULT_CONCURRENCY,
    job_filter: str = DEFAULT_FILTER,
    progress: Callable[[ScanProgress], None] | None = None,
) -> ScanResult:
    """List, filter, and diagnose every abnormal job; `make_source` gives a fresh source per job
    (its own `calls`) over one shared client, so the rate limit holds for the whole scan."""
    t = Translator(CATALOGUE, lang)
    region = region or getattr(make_source, "fixed_args", {}).get("region")
    result = ScanResult(region=region)
    listing_source = make_source()
    listing = await list_jobs(listing_source, t=t)
    if listing.failure is not None:
        result.failure = listing_failure(
            listing.failure, source=listing_source, region=region, now=now, lang=lang
        )
        result.failure.calls = list(listing_source.calls)
        return result
    result.scanned = len(listing.jobs)
    result.limitations.extend(listing.limitations)
    try:
        abnormal = select_abnormal(listing.jobs, job_filter)
    except jmespath.exceptions.JMESPathError as exc:
        raise ValueError(f"invalid job filter: {exc}") from None

    async def one(job: Job) -> Diagnosis:
        request = DiagnoseRequest(platform="modelarts", job_id=job.job_id, region=region)
        source = make_source()
        diagnosis = await diagnose(request, source, now=now, lang=lang)
        diagnosis.calls = list(source.calls)
        # A job whose details could not be read is still named by the list answer.
        diagnosis.target.name = diagnosis.target.name or job.name
        diagnosis.target.phase = diagnosis.target.phase or job.phase
        return diagnosis

    def report(done: int, total: int, job: Job | None) -> None:
        if progress is not None:
            progress(ScanProgress(done=done, total=total, job_name=job.name if job is not None else None))

    result.results = await diagnose_each(
        abnormal, one, concurrency=concurrency, progress=report if progress is not None else None
    )
    result.members = [
        member_of(job, diagnosis) for job, diagnosis in zip(abnormal, result.results, strict=True)
    ]
    return result


def render_scan_markdown(result: ScanResult, *, lang: str) -> str:
    labels = SCAN_LABELS[check_language(lang, LANGUAGES)]
    region = result.region or "?"
    lines = [labels["title"].format(region=region), ""]
    if result.failure is not None:
        from diagnosis.modelarts.report import render_markdown

        lines.append(labels["failed"])
        lines += ["", render_markdown(result.failure, lang=lang)]
        return mask("\n".join(lines))
    lines.append(labels["summary"].format(scanned=result.scanned, abnormal=len(result.results)))
    if not result.results:
        lines += ["", labels["none"]]
    for group, items in result.groups():
        count = len(items)
        lines += ["", f"### {group}（{count}）" if lang in ("zh", "ja") else f"### {group} ({count})", ""]
        lines.append(labels["table_head"])
        for item in items:
            name = f"`{item.target.name}`" if item.target.name else "?"
            summary = item.signature or item.root_cause
            lines.append(
                f"| {name} (`{item.target.job_id}`) | `{item.target.phase or '?'}` | {item.confidence or '-'} "
                f"| {cell(summary)} |"
            )
    causes = result.recurring_causes()
    if causes:
        lines += ["", labels["recurring"], "", labels["recurring_head"]]
        for cause in causes:
            names = labels["sep"].join(cell(name, 60) for name in cause.workloads)
            kind = labels[f"kind_{cause.kind}"]
            lines.append(f"| {kind} | `{cell(cause.value, 120)}` | {cause.count} | {names} |")
    if result.limitations:
        lines += ["", labels["limitations"], ""]
        lines += [f"- {text}" for text in result.limitations]
    return mask("\n".join(lines))


# The report's fixed labels: the `scan.*` ids of the modelarts catalogue.
SCAN_LABELS = CATALOGUE.section("scan.")

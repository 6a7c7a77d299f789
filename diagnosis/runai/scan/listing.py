"""The failed workloads of a cluster (or one project) within the lookback.

`GET /api/v1/workloads` (https://api-docs.run.ai/latest/tag/Workloads) with
`filterBy=clusterId==<c>[,projectName==<p>],phase==Failed,phaseUpdatedAt>=<now - lookback>`,
`sortBy=phaseUpdatedAt`, `sortOrder=desc`, every page. Older control planes do not know
`phaseUpdatedAt` as a filter or sort field and answer 400: the list is then asked again without it
and the lookback applied here. The server filter is trusted only as far as it agrees: an item is
kept when its phase is `Failed` (or `Crashed`, which some clusters answer with), its cluster and
project are the ones asked for and its phase changed within the lookback."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from diagnosis.evidence.answer import Answer
from diagnosis.render.i18n import Translator
from diagnosis.runai import parse
from diagnosis.runai.paging import Paged, read_pages
from diagnosis.runai.phases import FAILED, lowered
from diagnosis.timeutil import iso, parse_instant

LIST_PAGE_SIZE = 500  # the API's maximum `limit`


@dataclass
class Listing:
    workloads: list[parse.Workload] = field(default_factory=list)
    listed: int = 0
    failure: Answer | None = None


def list_filter(*, cluster_id: str, project: str | None, since: datetime | None) -> str:
    """The `filterBy` value: `field==value` terms joined by commas, so a comma inside a value
    cannot be expressed."""
    for label, value in (("cluster id", cluster_id), ("project", project or "")):
        if "," in value:
            raise ValueError(
                f"the {label} {value!r} contains a comma, which the Run:ai filter cannot express"
            )
    parts = [f"clusterId=={cluster_id}"]
    if project:
        parts.append(f"projectName=={project}")
    parts.append("phase==Failed")
    if since is not None:
        parts.append(f"phaseUpdatedAt>={iso(since)}")
    return ",".join(parts)


def _updated_at(workload: parse.Workload) -> datetime | None:
    return parse_instant(workload.phaseUpdatedAt) or parse_instant(workload.completedAt)


def keep_failed(
    paged: Paged, *, cluster_id: str, project: str | None, since: datetime
) -> list[parse.Workload]:
    """Failed (or Crashed) workloads of the asked cluster and project, changed since the cut,
    once each, newest first. A workload without a readable time is kept: the server filtered it."""
    kept: dict[str, parse.Workload] = {}
    for _where, item in paged.items:
        workload, _problem = parse.view(parse.Workload, item)
        if workload is None or not workload.id or workload.id in kept:
            continue
        if lowered(workload.phase) not in FAILED:
            continue
        if workload.clusterId and workload.clusterId.lower() != cluster_id.lower():
            continue
        if project and workload.projectName and workload.projectName != project:
            continue
        moment = _updated_at(workload)
        if moment is not None and moment < since:
            continue
        kept[workload.id] = workload
    epoch = datetime.min.replace(tzinfo=UTC)
    return sorted(kept.values(), key=lambda w: _updated_at(w) or epoch, reverse=True)


async def list_failed(
    source: Any,
    *,
    cluster_id: str,
    project: str | None,
    since: datetime,
    t: Translator,
    note: Callable[[str], None],
) -> Listing:
    """Every page of the failed workloads; on a 400 (an older control plane), once more without
    the phaseUpdatedAt filter and sort."""

    async def pages(*, with_time: bool) -> Paged:
        sort: dict[str, Any] = {"sortBy": "phaseUpdatedAt", "sortOrder": "desc"} if with_time else {}
        return await read_pages(
            source,
            "list_workloads",
            "workloads",
            t=t,
            note=note,
            page_size=LIST_PAGE_SIZE,
            filterBy=list_filter(cluster_id=cluster_id, project=project, since=since if with_time else None),
            **sort,
        )

    paged = await pages(with_time=True)
    if paged.failure is not None and paged.failure.status == 400 and not paged.items:
        note(t("scan.lim_filter_fallback", failure=paged.failure.describe_failure(lang=t.lang)))
        paged = await pages(with_time=False)
    listing = Listing(listed=len(paged.items), failure=paged.failure if not paged.items else None)
    if paged.failure is not None and paged.items:
        note(t("scan.lim_list_partial", failure=describe_list_failure(paged.failure, t)))
    listing.workloads = keep_failed(paged, cluster_id=cluster_id, project=project, since=since)
    return listing


def describe_list_failure(answer: Answer, t: Translator | None = None) -> str:
    """`HTTP 503: …`, `timeout`; a 2xx answer that holds no `workloads` list says so. With `t`,
    this side's words are in its language (the evidence quote keeps them in English)."""
    if answer.ok:
        if t is None:
            return f"HTTP {answer.status} without a `workloads` list"
        return t("scan.no_workloads_list", status=answer.status)
    return answer.describe_failure(lang=t.lang if t is not None else None)

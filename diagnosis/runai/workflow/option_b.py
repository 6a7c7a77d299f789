"""Runbook step 1.1, Option B: a workload name and project resolved to one workload id.

`list_workloads` with the exact name, cluster and project (`sortBy=phaseUpdatedAt desc`, every
page), then, by intent: a failure request takes the newest terminal match (Failed, Completed,
Stopped); an active request takes the newest Running/Pending/Initializing/Degraded match whose
status or events confirm the symptom. Anything else stops with a question (`Stop`), never a guess:
finding nothing asks for a workload id, it is never "not found".

Control planes before 2.21 do not know `phaseUpdatedAt` as a sort field and answer 400: the list
is asked again unsorted (the matches are sorted here anyway). A failure request that matches no
live workload looks among the deleted ones (`deleted=true` returns only those) before asking: a
failed workload that someone deleted is still the one asked about.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from diagnosis.evidence.answer import Answer
from diagnosis.models import Choice, Evidence, Question
from diagnosis.render.i18n import Translator
from diagnosis.runai import parse
from diagnosis.runai.paging import PAGE_SIZE, Fetcher, Paged, event_items, read_event_pages, read_pages
from diagnosis.runai.phases import ACTIVE_CANDIDATES, TERMINAL, confirms_symptom, lowered
from diagnosis.runai.rules import classify_all
from diagnosis.runai.signals import from_events, from_status, quote
from diagnosis.timeutil import parse_instant

MAX_CHOICES = 25
# Active candidates checked one after the other (status and events each): a name shared by
# thousands of workloads must not make thousands of calls.
MAX_CANDIDATES = 10


@dataclass(frozen=True)
class Stop:
    """Option B cannot name one workload: a question to ask, a refusal (`denied`), or no answer
    from the control plane (`unreachable`)."""

    root_cause: str = ""
    questions: Sequence[Question] = ()
    denied: Answer | None = None
    unreachable: Answer | None = None


@dataclass
class OptionB:
    """Resolves one name; what it read on the way (statuses, event pages) is kept for step 1."""

    source: Fetcher
    t: Translator
    cut: datetime
    active: bool
    note: Callable[[str], None]
    evidence: list[Evidence] = field(default_factory=list)
    cached_status: dict[str, Answer] = field(default_factory=dict)
    cached_events: dict[str, Paged] = field(default_factory=dict)
    # Deleted workloads found by the search among deleted ones: their list entry, by id.
    deleted: dict[str, dict[str, Any]] = field(default_factory=dict)
    sort_by_phase_updated: bool = True

    async def _list(self, filter_by: str, *, deleted: bool = False) -> Paged:
        """Every page of the name's matches; unsorted once the control plane refused the sort."""
        only_deleted: dict[str, Any] = {"deleted": True} if deleted else {}

        async def pages(**sort: Any) -> Paged:
            return await read_pages(
                self.source,
                "list_workloads",
                "workloads",
                t=self.t,
                note=self.note,
                page_size=PAGE_SIZE,
                filterBy=filter_by,
                **sort,
                **only_deleted,
            )

        if self.sort_by_phase_updated:
            paged = await pages(sortBy="phaseUpdatedAt", sortOrder="desc")
            if paged.failure is None or paged.failure.status != 400 or paged.items:
                return paged
            self.sort_by_phase_updated = False
            self.note(self.t("lim.sort_fallback", failure=paged.failure.describe_failure(lang=self.t.lang)))
        return await pages()

    async def resolve(self, name: str, project: str, cluster_id: str) -> str | Stop:
        """The workload id to diagnose, or why there is none."""
        if "," in name or "," in project:
            return Stop(
                root_cause=self.t("rc.name_has_comma"),
                questions=[Question(key="workload_id", prompt=self.t("q.workload_id"))],
            )
        filter_by = f"name=={name},clusterId=={cluster_id},projectName=={project}"
        paged = await self._list(filter_by)
        if paged.failure is not None and paged.failure.denied:
            return Stop(denied=paged.failure)
        if paged.failure is not None and paged.failure.unreachable and not paged.items:
            return Stop(unreachable=paged.failure)
        if paged.failure is not None and not paged.items:
            self.note(
                self.t(
                    "lim.call_failed",
                    call="list_workloads",
                    failure=paged.failure.describe_failure(lang=self.t.lang),
                )
            )
            return Stop(
                root_cause=self.t("rc.list_failed"),
                questions=[Question(key="workload_id", prompt=self.t("q.workload_id"))],
            )
        matches = _matches(paged, name=name, project=project, cluster_id=cluster_id)
        if matches:
            self.evidence.append(_listing(matches))
        if self.active:
            if not matches:
                return self._no_match("rc.no_match", name=name, project=project, cluster_id=cluster_id)
            return await self._select_active(matches)
        terminal = [w for w in matches if lowered(w.phase) in TERMINAL]
        if terminal:
            return str(terminal[0].id)
        # No live workload of that name has ended: a failed run someone deleted is looked for
        # before asking.
        found = await self._among_deleted(
            filter_by, name=name, project=project, cluster_id=cluster_id, any_phase=not matches
        )
        if found is not None:
            return found
        if matches:
            return self._all_active(matches, name=name)
        return self._no_match("rc.no_match_incl_deleted", name=name, project=project, cluster_id=cluster_id)

    def _no_match(self, key: str, *, name: str, project: str, cluster_id: str) -> Stop:
        return Stop(
            root_cause=self.t(key, name=name, project=project, cluster=cluster_id),
            questions=[Question(key="workload_id", prompt=self.t("q.no_match", name=name, project=project))],
        )

    async def _among_deleted(
        self, filter_by: str, *, name: str, project: str, cluster_id: str, any_phase: bool
    ) -> str | Stop | None:
        """The newest terminal match among deleted workloads (with `any_phase`, else the newest
        deleted match: it is no longer active, and the phase rule reports its phase); its list
        entry is kept. None when the deleted workloads hold no such match."""
        paged = await self._list(filter_by, deleted=True)
        if paged.failure is not None and paged.failure.denied:
            return Stop(denied=paged.failure)
        if paged.failure is not None and not paged.items:
            failure = paged.failure.describe_failure(lang=self.t.lang)
            self.note(self.t("lim.call_failed", call="list_workloads (deleted=true)", failure=failure))
        raw = {str(item.get("id")): item for _where, item in paged.items}
        matches = _matches(paged, name=name, project=project, cluster_id=cluster_id)
        terminal = [w for w in matches if lowered(w.phase) in TERMINAL]
        chosen = (terminal or (matches if any_phase else []))[:1]
        if not chosen:
            return None
        self.evidence.append(_listing(matches, deleted=True))
        workload_id = str(chosen[0].id)
        self.deleted[workload_id] = raw.get(workload_id, {})
        return workload_id

    def _all_active(self, matches: list[parse.Workload], *, name: str) -> Stop:
        """A failure request whose matches are all still active: ask whether a past run was meant."""
        return Stop(
            root_cause=self.t("rc.all_active", name=name, count=len(matches)),
            questions=[
                Question(
                    key="past_run", prompt=self.t("q.past_run_list", name=name), choices=choices(matches)
                )
            ],
        )

    async def _select_active(self, matches: list[parse.Workload]) -> str | Stop:
        """Running/Pending/Initializing/Degraded matches, newest first; the first whose status
        (conditions, phaseMessage) or events confirm the symptom."""
        candidates = [w for w in matches if lowered(w.phase) in ACTIVE_CANDIDATES]
        if len(candidates) > MAX_CANDIDATES:
            self.note(self.t("lim.candidates_capped", count=len(candidates), checked=MAX_CANDIDATES))
        for candidate in candidates[:MAX_CANDIDATES]:
            found = await self._confirmed(candidate)
            if found is not None:
                return found
        return Stop(
            root_cause=self.t("rc.no_active_confirmed", count=len(candidates)),
            questions=[
                Question(
                    key="workload_id",
                    prompt=self.t("q.which_workload"),
                    choices=choices(candidates or matches),
                )
            ],
        )

    async def _confirmed(self, candidate: parse.Workload) -> str | Stop | None:
        """The candidate's id when its status or events confirm the symptom; a refusal stops.
        Status and events are requested together; both are kept for step 1."""
        workload_id = str(candidate.id)
        event_notes: list[str] = []
        answer, paged = await asyncio.gather(
            self.source.fetch("get_workload_status", workloadId=workload_id),
            read_event_pages(self.source, workload_id, cut=self.cut, t=self.t, note=event_notes.append),
        )
        if answer.denied:
            return Stop(denied=answer)
        if answer.unreachable:
            return Stop(unreachable=answer)
        self.cached_status[workload_id] = answer
        self.cached_events[workload_id] = paged
        if not answer.ok:
            # What could not be read is said, whichever question follows.
            self.note(
                self.t("lim.call_failed", call=answer.op, failure=answer.describe_failure(lang=self.t.lang))
            )
        status, _problem = parse.view(parse.Workload, answer.body) if answer.ok else (None, None)
        for text in event_notes:
            self.note(text)
        if status is not None and confirms_symptom(classify_all(from_status(status)), status.phase):
            return workload_id
        if paged.failure is not None and paged.failure.denied:
            return Stop(denied=paged.failure)
        if paged.failure is not None and not paged.items:
            self.note(
                self.t(
                    "lim.call_failed",
                    call="get_workload_events",
                    failure=paged.failure.describe_failure(lang=self.t.lang),
                )
            )
        observations = from_events(event_items(paged), source="get_workload_events")
        if confirms_symptom(classify_all(observations), candidate.phase):
            return workload_id
        return None


def _matches(paged: Paged, *, name: str, project: str, cluster_id: str) -> list[parse.Workload]:
    """The server filter is trusted only as far as it agrees: exact name, project and cluster;
    newest `phaseUpdatedAt` first."""
    matches: list[parse.Workload] = []
    for _where, item in paged.items:
        workload, _problem = parse.view(parse.Workload, item)
        if workload is None or not workload.id:
            continue
        if workload.name != name or (workload.projectName or project) != project:
            continue
        if workload.clusterId and workload.clusterId.lower() != cluster_id.lower():
            continue
        matches.append(workload)
    epoch = datetime.min.replace(tzinfo=UTC)
    matches.sort(key=lambda w: parse_instant(w.phaseUpdatedAt) or epoch, reverse=True)
    return matches


def _listing(matches: list[parse.Workload], *, deleted: bool = False) -> Evidence:
    listing = "; ".join(
        f"[{index}] {w.type or '?'}, {w.phase or '?'}, phaseUpdatedAt {w.phaseUpdatedAt or '?'}"
        + (f", deletedAt {w.deletedAt or '?'}" if deleted else "")
        for index, w in enumerate(matches)
    )
    field_name = "workloads (deleted=true)" if deleted else "workloads"
    return Evidence(source="list_workloads", field=field_name, text=quote(listing), value=len(matches))


def choices(workloads: Sequence[parse.Workload]) -> list[Choice]:
    return [
        Choice(
            value=str(w.id),
            label=f"{w.name or '?'}, {w.type or '?'}, {w.phase or '?'}, {w.phaseUpdatedAt or w.createdAt or '?'}",
        )
        for w in workloads[:MAX_CHOICES]
    ]

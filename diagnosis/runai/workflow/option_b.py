"""Runbook step 1.1, Option B: a workload name and project resolved to one workload id.

`list_workloads` with the exact name, cluster and project (`sortBy=phaseUpdatedAt desc`, every
page), then, by intent: a failure request takes the newest terminal match (Failed, Completed,
Stopped); an active request takes the newest Running/Pending/Initializing/Degraded match whose
status or events confirm the symptom. Anything else stops with a question (`Stop`), never a guess:
finding nothing asks for a workload id, it is never "not found".
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from diagnosis.evidence.source import Answer
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

    async def resolve(self, name: str, project: str, cluster_id: str) -> str | Stop:
        """The workload id to diagnose, or why there is none."""
        if "," in name or "," in project:
            return Stop(
                root_cause=self.t("rc.name_has_comma"),
                questions=[Question(key="workload_id", prompt=self.t("q.workload_id"))],
            )
        paged = await read_pages(
            self.source,
            "list_workloads",
            "workloads",
            t=self.t,
            note=self.note,
            page_size=PAGE_SIZE,
            filterBy=f"name=={name},clusterId=={cluster_id},projectName=={project}",
            sortBy="phaseUpdatedAt",
            sortOrder="desc",
        )
        if paged.failure is not None and paged.failure.denied:
            return Stop(denied=paged.failure)
        if paged.failure is not None and paged.failure.unreachable and not paged.items:
            return Stop(unreachable=paged.failure)
        if paged.failure is not None and not paged.items:
            self.note(
                self.t("lim.call_failed", call="list_workloads", failure=paged.failure.describe_failure())
            )
            return Stop(
                root_cause=self.t("rc.list_failed"),
                questions=[Question(key="workload_id", prompt=self.t("q.workload_id"))],
            )
        matches = _matches(paged, name=name, project=project, cluster_id=cluster_id)
        if not matches:
            return Stop(
                root_cause=self.t("rc.no_match", name=name, project=project, cluster=cluster_id),
                questions=[
                    Question(key="workload_id", prompt=self.t("q.no_match", name=name, project=project))
                ],
            )
        self.evidence.append(_listing(matches))
        if self.active:
            return await self._select_active(matches)
        return self._select_terminal(matches, name=name)

    def _select_terminal(self, matches: list[parse.Workload], *, name: str) -> str | Stop:
        terminal = [w for w in matches if lowered(w.phase) in TERMINAL]
        if terminal:
            return str(terminal[0].id)
        # A failure request whose matches are all still active: ask whether a past run was meant.
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
            self.note(self.t("lim.call_failed", call=answer.op, failure=answer.describe_failure()))
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
                    "lim.call_failed", call="get_workload_events", failure=paged.failure.describe_failure()
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


def _listing(matches: list[parse.Workload]) -> Evidence:
    listing = "; ".join(
        f"[{index}] {w.type or '?'}, {w.phase or '?'}, phaseUpdatedAt {w.phaseUpdatedAt or '?'}"
        for index, w in enumerate(matches)
    )
    return Evidence(source="list_workloads", field="workloads", text=quote(listing), value=len(matches))


def choices(workloads: Sequence[parse.Workload]) -> list[Choice]:
    return [
        Choice(
            value=str(w.id),
            label=f"{w.name or '?'}, {w.type or '?'}, {w.phase or '?'}, {w.phaseUpdatedAt or w.createdAt or '?'}",
        )
        for w in workloads[:MAX_CHOICES]
    ]

"""The ModelArts runbook's five phases as code (seeds/000, modelarts-runbook.md, rulings M1-M13).

1. discovery: a full job id goes on; a name is searched (M11); nothing asks for an id or a name.
2. status: `ShowTrainingJobDetails`, the phase table (fault / false alarm / observe / stopped), and
   the early exit when a task message already holds a traceback that names the cause (M3).
3. collection: Error events and stages concurrently; log previews only when that gave no HIGH
   evidence (M4). The full-log URL is never fetched here (M2).
4. analysis: signals from every source (signals.py), consequences dropped, the strongest category
   first (G14/G15); HIGH / MEDIUM / LOW by the confidence rules (M5/M6), fault level by M7.
5. output: a `Diagnosis`; the report renderers do the formatting.

Pure: every answer comes through the Source, the clock is the `now` argument.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from diagnosis.i18n import Translator
from diagnosis.logscan import scan_text
from diagnosis.modelarts import rules
from diagnosis.modelarts.listing import SEARCH, JobListing, Source, list_jobs
from diagnosis.modelarts.messages import CATALOGUE, format_duration
from diagnosis.modelarts.parse import (
    Job,
    Preview,
    Stage,
    Stages,
    TaskStatus,
    TimeReading,
    parse_events,
    parse_job,
    parse_preview,
    parse_stages,
)
from diagnosis.modelarts.routes import EVENTS_PAGE_SIZE
from diagnosis.modelarts.signals import (
    ANALYSIS_RULE,
    Signal,
    choose,
    event_signals,
    message_signals,
    oom_hint,
    platform_signals,
    preview_signals,
    shorten,
)
from diagnosis.models import (
    Category,
    Choice,
    Confidence,
    DiagnoseRequest,
    Diagnosis,
    Evidence,
    FaultLevel,
    Measurements,
    Outcome,
    Question,
    Recommendation,
    Target,
)
from diagnosis.source import Answer
from diagnosis.timeutil import iso

__all__ = ["JobListing", "Source", "diagnose", "list_jobs", "listing_failure"]

DETAILS = "ShowTrainingJobDetails"
EVENTS = "ListTrainingJobEvents"
STAGES = "ListTrainingJobStages"
PREVIEW = "ShowTrainingJobLogsPreview"

GET_ACTION = "modelarts:trainJob:get"
LIST_ACTION = "modelarts:trainJob:list"
# Rulings M1: the documented actions, never the runbook's `trainingJobs:*`; logExport only on demand.
REQUIRED_ACTIONS = (GET_ACTION, LIST_ACTION)

STOPPED_PHASES = frozenset({"Stopped", "Terminated", "Terminating"})
NORMAL_PHASES = frozenset({"Completed", "Success", "Succeeded"})
OBSERVE_PHASES = frozenset({"Creating", "Initializing"})

MAX_PREVIEWS = 8  # rulings M4/M8
MAX_EVENT_PAGES = 10
STALL_AGE = timedelta(hours=1)  # rulings M8
PENDING_AGE = timedelta(minutes=30)  # rulings M10


async def diagnose(request: DiagnoseRequest, source: Source, *, now: datetime, lang: str) -> Diagnosis:
    return await _Run(request, source, now=now, lang=lang).execute()


def listing_failure(
    answer: Answer, *, source: Source, region: str | None, now: datetime, lang: str
) -> Diagnosis:
    """A scan whose job listing failed: permission_denied (M1) or LOW with what to do next."""
    run = _Run(DiagnoseRequest(platform="modelarts", region=region), source, now=now, lang=lang)
    return run._search_failed(answer, None)


def _is_not_found(answer: Answer) -> bool:
    return answer.status == 404 or answer.error_code() in ("ModelArts.2775", "ModelArts.0102")


def _aware(instant: datetime) -> datetime:
    return instant if instant.tzinfo else instant.replace(tzinfo=UTC)


class _Run:
    def __init__(self, request: DiagnoseRequest, source: Source, *, now: datetime, lang: str) -> None:
        self.request = request
        self.source = source
        self.now = _aware(now)
        self.lang = lang
        self.t = Translator(CATALOGUE, lang)
        fixed = getattr(source, "fixed_args", {}) or {}
        self.region: str | None = request.region or fixed.get("region")
        self.project_id: str | None = fixed.get("project_id")
        self.job_id: str | None = request.job_id.strip() if request.job_id else None
        self.job: Job | None = None
        self.evidence: list[Evidence] = []
        self.limitations: list[str] = []
        self.next_steps: list[str] = []
        self.failed: list[Answer] = []
        self.denied: list[Answer] = []
        self.previews_read: dict[str, Preview] = {}
        self.preview_failed: dict[str, Answer] = {}
        self.consequences: list[Signal] = []

    # ------------------------------------------------------------------ result builders

    def _target(self) -> Target:
        job = self.job
        return Target(
            job_id=(job.job_id if job and job.job_id else None) or self.job_id,
            name=job.name if job else None,
            region=self.region,
            project_id=self.project_id,
            phase=job.phase if job else None,
        )

    def _result(
        self,
        outcome: Outcome,
        *,
        root_cause: str,
        category: Category | None = None,
        confidence: Confidence | None = None,
        fault_level: FaultLevel | None = None,
        signature: str | None = None,
        recommendations: Iterable[Recommendation] = (),
        questions: Iterable[Question] = (),
        permissions: Iterable[str] = (),
        measurements: Measurements | None = None,
    ) -> Diagnosis:
        return Diagnosis(
            platform="modelarts",
            target=self._target(),
            outcome=outcome,
            category=category,
            signature=signature,
            confidence=confidence,
            fault_level=fault_level,
            root_cause=root_cause,
            evidence=list(self.evidence),
            measurements=measurements or Measurements(),
            recommendations=list(recommendations),
            limitations=list(dict.fromkeys(self.limitations)),
            next_steps=list(dict.fromkeys(self.next_steps)),
            questions=list(questions),
            permissions=list(permissions),
        )

    def _cite(
        self, source: str, field: str | None, text: str, value: float | int | str | None = None
    ) -> None:
        self.evidence.append(Evidence(source=source, field=field, text=text, value=value))

    def _cite_failure(self, answer: Answer) -> None:
        self._cite(
            answer.op,
            "error_code" if answer.status is not None else None,
            answer.describe_failure(),
            answer.status,
        )

    def _note_failure(self, answer: Answer, *, what: str) -> None:
        """A call that gave no usable answer: evidence, limitation, and the denial list (M1)."""
        self._cite_failure(answer)
        if answer.denied:
            self.denied.append(answer)
        else:
            self.failed.append(answer)
        self.limitations.append(
            self.t("limit.call_failed", op=answer.op, what=what, failure=answer.describe_failure())
        )

    # ------------------------------------------------------------------ phases

    async def execute(self) -> Diagnosis:
        if self.job_id is None:
            found = await self._discover()
            if isinstance(found, Diagnosis):
                return found
            self.job_id = found
        details = await self.source.fetch(DETAILS, training_job_id=self.job_id)
        early = self._details_failure(details)
        if early is not None:
            return early
        job = parse_job(details.body)
        if job is None:
            self._cite(DETAILS, None, self.t("evidence.unreadable"))
            self.limitations.append(self.t("limit.details_unreadable"))
            return self._first_call_failed(details)
        self.job = job
        return await self._assess(job)

    async def _discover(self) -> Diagnosis | str:
        """Phase 1 with a name (rulings M11), or nothing to go on."""
        name = (self.request.job_name or "").strip()
        if not name:
            self.next_steps.append(self.t("next.give_id_or_name"))
            return self._result(
                "needs_input",
                root_cause=self.t("root.needs_identifier"),
                questions=[Question(key="job_id", prompt=self.t("question.identifier"))],
            )
        listing = await list_jobs(self.source, name=name, t=self.t)
        if listing.failure is not None:
            return self._search_failed(listing.failure, name)
        self.limitations.extend(listing.limitations)
        matches = [job for job in listing.jobs if job.name == name]
        if not matches:
            everything = await list_jobs(self.source, t=self.t)
            if everything.failure is not None:
                return self._search_failed(everything.failure, name)
            self.limitations.extend(everything.limitations)
            wanted = name.lower()
            matches = [job for job in everything.jobs if wanted in (job.name or "").lower()]
        if len(matches) == 1 and matches[0].job_id:
            self._cite(SEARCH, "items[].metadata.name", matches[0].name or "?", 1)
            return matches[0].job_id
        region = self.region or "?"
        if not matches:
            self._cite(SEARCH, "items[].metadata.name", self.t("evidence.no_name_match", name=name), 0)
            self.next_steps.append(self.t("next.check_name_region", region=region))
            return self._result(
                "not_found", root_cause=self.t("root.name_not_found", name=name, region=region)
            )
        self._cite(
            SEARCH, "items[].metadata.name", ", ".join(job.name or "?" for job in matches), len(matches)
        )
        choices = [
            Choice(
                value=job.job_id or "",
                label=self.t(
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
        return self._result(
            "needs_input",
            root_cause=self.t("root.several_matches", count=len(choices), name=name),
            questions=[
                Question(key="job_id", prompt=self.t("question.which_job", name=name), choices=choices)
            ],
        )

    def _search_failed(self, answer: Answer, name: str | None) -> Diagnosis:
        self._cite_failure(answer)
        if answer.denied:
            return self._permission_denied(answer)
        self.limitations.append(self.t("limit.search_failed", failure=answer.describe_failure()))
        reason = self.t("reason.search_failed", name=name) if name else self.t("reason.scan_failed")
        self.next_steps.append(self._retry_step(answer, op=SEARCH, reason=reason))
        if name:
            self.next_steps.append(self.t("next.use_job_id"))
        self.next_steps.append(self._direction_for_failure(answer))
        return self._result(
            "diagnosed",
            category="UNKNOWN",
            confidence="LOW",
            fault_level="Suspected",
            root_cause=self.t("root.insufficient"),
        )

    def _details_failure(self, answer: Answer) -> Diagnosis | None:
        if answer.ok:
            return None
        self._cite_failure(answer)
        if _is_not_found(answer):
            region = self.region or "?"
            self.next_steps.append(self.t("next.check_id_region", region=region))
            return self._result(
                "not_found",
                root_cause=self.t("root.id_not_found", job_id=self.job_id or "?", region=region),
            )
        if answer.denied:
            return self._permission_denied(answer)
        self.limitations.append(self.t("limit.details_failed", failure=answer.describe_failure()))
        return self._first_call_failed(answer)

    def _first_call_failed(self, answer: Answer) -> Diagnosis:
        """Rulings M12: 5xx or timeout on the first call: UNKNOWN, LOW, retry later or open a ticket."""
        self.next_steps.append(self._retry_step(answer, op=DETAILS, reason=self.t("reason.details_failed")))
        self.next_steps.append(self._direction_for_failure(answer))
        return self._result(
            "diagnosed",
            category="UNKNOWN",
            confidence="LOW",
            fault_level="Suspected",
            root_cause=self.t("root.insufficient"),
        )

    def _retry_step(self, answer: Answer, *, op: str, reason: str) -> str:
        if answer.status is None:
            return self.t("next.retry_after_timeout", op=op, failure=answer.describe_failure(), reason=reason)
        return self.t("next.retry_later", op=op, failure=answer.describe_failure(), reason=reason)

    def _direction_for_failure(self, answer: Answer) -> str:
        if answer.status is None:
            return self.t("direction.network", failure=answer.describe_failure())
        request_id = answer.request_id or (
            answer.body.get("request_id") if isinstance(answer.body, dict) else None
        )
        if request_id:
            return self.t("direction.ticket_with_request_id", request_id=request_id, status=answer.status)
        return self.t("direction.ticket", status=answer.status)

    def _permission_denied(self, answer: Answer) -> Diagnosis:
        """Rulings M1: stop, list the documented read-only actions, and a minimal policy (in the report)."""
        first = answer.op in (DETAILS, SEARCH) and len(self.source.calls) <= 1
        code = answer.error_code() or str(answer.status)
        key = "root.denied_first" if first else "root.denied_later"
        root = self.t(key, op=answer.op, status=answer.status, code=code)
        if first:
            self.limitations.append(self.t("limit.denied_first", op=answer.op, status=answer.status))
        else:
            self.limitations.append(self.t("limit.denied_later", op=answer.op, status=answer.status))
        if answer.status == 401:
            self.next_steps.append(self.t("next.check_keys"))
        self.next_steps.append(self.t("next.rerun_after_grant"))
        return self._result(
            "permission_denied",
            confidence="LOW",
            root_cause=root,
            recommendations=[
                Recommendation(
                    text=self.t("fix.grant_policy", region=self.region or "?"), changes_resources=True
                )
            ],
            permissions=REQUIRED_ACTIONS,
        )

    async def _assess(self, job: Job) -> Diagnosis:
        """Phase 2: the phase table (modelarts-runbook.md, rulings M8-M10)."""
        phase = job.phase
        self._cite(DETAILS, "status.phase", phase or "null")
        if job.secondary_phase and job.secondary_phase != phase:
            self._cite(DETAILS, "status.secondary_phase", job.secondary_phase)
        if job.is_fault:
            return await self._fault(job)
        if phase in STOPPED_PHASES:
            return self._result(
                "out_of_scope",
                root_cause=self.t("root.stopped", phase=phase, secondary=self._secondary(job)),
            )
        if phase in NORMAL_PHASES:
            return self._result(
                "not_a_failure",
                fault_level="Normal",
                root_cause=self.t("root.completed", phase=phase),
            )
        if phase == "Running":
            return await self._running(job)
        if phase in OBSERVE_PHASES:
            self.next_steps.append(self.t("next.look_again"))
            return self._result("observe", root_cause=self.t("root.creating", phase=phase))
        if phase == "Pending":
            return await self._pending(job)
        if phase is None:
            self.limitations.append(self.t("limit.no_phase"))
            self.next_steps.append(self.t("next.retry_details", reason=self.t("reason.no_phase")))
            self.next_steps.append(self.t("direction.console"))
            return self._result(
                "diagnosed",
                category="UNKNOWN",
                confidence="LOW",
                fault_level="Suspected",
                root_cause=self.t("root.insufficient"),
            )
        return self._result("out_of_scope", root_cause=self.t("root.other_phase", phase=phase))

    def _secondary(self, job: Job) -> str:
        if job.secondary_phase and job.secondary_phase != job.phase:
            return self.t("phase.secondary", secondary=job.secondary_phase)
        return ""

    # ------------------------------------------------------------------ the fault path

    async def _fault(self, job: Job) -> Diagnosis:
        from_messages = message_signals(job)
        from_platform = platform_signals(job)
        self._cite_unexplained_messages(job, from_messages)
        self._cite_exit_codes(job)
        if any(signal.early_exit for signal in from_messages):
            # Early exit (M3): the task message names the cause; no phase-3 call.
            return self._conclude(job, [*from_messages, *from_platform])

        events_answer, stages_answer = await asyncio.gather(
            self._error_events(), self.source.fetch(STAGES, training_job_id=job.job_id or self.job_id)
        )
        from_events = self._read_events(events_answer, level="Error")
        stages = self._read_stages(stages_answer)
        signals = [*from_messages, *from_platform, *from_events]
        if not any(signal.direct and not signal.consequence for signal in signals):
            # Extended path (M4): the failing tasks' logs, at most 8, concurrently.
            signals.extend(await self._log_signals(job, self._failing_tasks(job)))
        return self._conclude(job, signals, stages=stages, events_read=events_answer)

    def _failing_tasks(self, job: Job) -> list[str]:
        failing = [s.task for s in job.task_statuses if s.task and s.exit_code not in (None, 0)]
        tasks = list(dict.fromkeys(failing)) or job.task_ids
        if len(tasks) > MAX_PREVIEWS:
            self.limitations.append(self.t("limit.preview_cap", count=len(tasks), cap=MAX_PREVIEWS))
        return tasks[:MAX_PREVIEWS]

    def _cite_unexplained_messages(self, job: Job, named: Sequence[Signal]) -> None:
        """Messages no rule names are evidence too (e.g. a vague `internal error`)."""
        named_fields = {signal.field for signal in named}
        for status in job.task_statuses:
            if status.message and f"{status.path}.message" not in named_fields:
                self._cite(DETAILS, f"{status.path}.message", shorten(status.message))

    def _cite_exit_codes(self, job: Job) -> None:
        for status in job.task_statuses:
            if status.exit_code is not None:
                self._cite(DETAILS, f"{status.path}.exit_code", str(status.exit_code), status.exit_code)

    async def _error_events(self) -> Answer:
        return await self._events(level="Error")

    async def _events(self, *, level: str | None) -> Answer:
        """`ListTrainingJobEvents` (`limit=100`), more pages while `total` says there are more.

        The API documents `offset` both as a page and as an item index: item offsets are asked and
        duplicates dropped on (time, message), so either reading ends with every event.
        """
        args: dict[str, Any] = {"training_job_id": self.job_id, "limit": EVENTS_PAGE_SIZE}
        if level:
            args["level"] = level
        first = await self.source.fetch(EVENTS, **args)
        if not first.ok:
            return first
        page = parse_events(first.body)
        if page is None or page.total is None or page.total <= len(page.events):
            return first
        events = list(first.body.get("events") or []) if isinstance(first.body, dict) else []
        seen = {
            (item.get("time") or item.get("occur_time"), item.get("message") or item.get("info"))
            for item in events
            if isinstance(item, dict)
        }
        for _ in range(MAX_EVENT_PAGES - 1):
            more = await self.source.fetch(EVENTS, **args, offset=len(events))
            more_page = parse_events(more.body) if more.ok else None
            if more_page is None:
                self.limitations.append(self.t("limit.events_incomplete", read=len(events), total=page.total))
                break
            fresh = []
            for item in more.body.get("events") or [] if isinstance(more.body, dict) else []:
                key = (
                    (item.get("time") or item.get("occur_time"), item.get("message") or item.get("info"))
                    if isinstance(item, dict)
                    else None
                )
                if key is not None and key not in seen:
                    seen.add(key)
                    fresh.append(item)
            if not fresh:
                break
            events.extend(fresh)
            if len(events) >= page.total:
                break
        body = dict(first.body)
        body["events"] = events
        return first.model_copy(update={"body": body})

    def _read_events(self, answer: Answer, *, level: str | None) -> list[Signal]:
        """Cite what the events say (or that there are none) and return the signals they give."""
        if not answer.ok:
            self._note_failure(answer, what=self.t("what.events"))
            return []
        page = parse_events(answer.body)
        if page is None:
            self._cite(EVENTS, None, self.t("evidence.unreadable"))
            self.limitations.append(self.t("limit.unreadable", op=EVENTS))
            return []
        shown = page.total if page.total is not None else len(page.events)
        filter_text = f"level={level}" if level else self.t("evidence.all_levels")
        if not page.events:
            self._cite(
                EVENTS, "total", self.t("evidence.event_total", total=shown, filter=filter_text), shown
            )
            return []
        signals = event_signals(page.events, level=level)
        if not signals:
            unmatched = self.t("evidence.event_total_unmatched", total=shown, filter=filter_text)
            self._cite(EVENTS, "total", unmatched, shown)
            self._cite(EVENTS, page.events[0].path, shorten(page.events[0].message))
        return signals

    def _read_stages(self, answer: Answer) -> Stages | None:
        if not answer.ok:
            self._note_failure(answer, what=self.t("what.stages"))
            return None
        stages = parse_stages(answer.body)
        if stages is None:
            self._cite(STAGES, None, self.t("evidence.unreadable"))
            self.limitations.append(self.t("limit.unreadable", op=STAGES))
        return stages

    async def _log_signals(self, job: Job, tasks: Sequence[str]) -> list[Signal]:
        if not tasks:
            self.limitations.append(self.t("limit.no_task_ids"))
            return []
        answers = await asyncio.gather(
            *(
                self.source.fetch(PREVIEW, training_job_id=job.job_id or self.job_id, task_id=task)
                for task in tasks
            )
        )
        signals: list[Signal] = []
        for task, answer in zip(tasks, answers, strict=True):
            if not answer.ok:
                self.preview_failed[task] = answer
                self._cite_failure(answer)
                (self.denied if answer.denied else self.failed).append(answer)
                self.limitations.append(
                    self.t("limit.preview_failed", task=task, failure=answer.describe_failure())
                )
                continue
            preview = parse_preview(answer.body, answer.text)
            if preview is None:
                self.preview_failed[task] = answer
                self.limitations.append(self.t("limit.preview_unreadable", task=task))
                continue
            self.previews_read[task] = preview
            if preview.truncated:
                self.limitations.append(
                    self.t(
                        "limit.preview_truncated",
                        task=task,
                        shown=preview.current_size if preview.current_size is not None else "?",
                        full=preview.full_size if preview.full_size is not None else "?",
                    )
                )
            found = preview_signals(task, preview)
            if not found:
                self._cite_clean_preview(task, preview)
            signals.extend(found)
        return signals

    def _cite_clean_preview(self, task: str, preview: Preview) -> None:
        """A log read that names nothing is evidence too: say so, with its last line."""
        lines = [line for line in preview.content.splitlines() if line.strip()]
        last = shorten(lines[-1].strip(), 160) if lines else ""
        key = "evidence.preview_clean" if lines else "evidence.preview_empty"
        size = preview.current_size if preview.current_size is not None else len(preview.content.encode())
        self._cite(PREVIEW, _log_field(preview.content_field, task), self.t(key, last=last), size)

    # ------------------------------------------------------------------ phase 4

    def _conclude(
        self,
        job: Job,
        signals: list[Signal],
        *,
        stages: Stages | None = None,
        events_read: Answer | None = None,
    ) -> Diagnosis:
        winner = choose(signals)
        self.consequences = [
            s for s in signals if s.consequence and winner is not None and not winner.consequence
        ]
        stage_signal = self._stage_evidence(stages) if stages is not None else None
        if winner is not None and winner.direct and not winner.consequence:
            return self._diagnosed_direct(job, winner, signals)
        if self.denied and winner is None:
            return self._permission_denied(self.denied[0])
        if winner is not None:
            # Only a consequence (or an indirect line) names a category: most likely, not certain.
            return self._diagnosed_indirect(job, winner)
        exit_result = self._exit_code_verdict(job)
        if exit_result is not None:
            return exit_result
        if stage_signal is not None:
            return stage_signal
        return self._insufficient(job, events_read=events_read)

    def _measurements(self, job: Job, task: str | None = None) -> Measurements:
        code = _exit_code_of(job, task)
        return Measurements(exit_code=code)

    def _recommendations(
        self, rule_fixes: Sequence[rules.Fix], values: dict[str, str], *, medium: bool
    ) -> list[Recommendation]:
        recommendations = []
        engine = self.job.engine_name if self.job is not None else None
        filled = {"framework": engine or self.t("label.framework"), **_fill(values)}
        for fix in rule_fixes:
            text = self.t(f"fix.{fix.key}", **filled)
            if medium:
                text = self.t("medium.try") + "\n" + text
            recommendations.append(Recommendation(text=text, changes_resources=fix.changes_resources))
        return recommendations

    def _root_for(self, signal: Signal, job: Job) -> str:
        values = _fill(signal.values)
        if signal.values.get("file"):
            values["where"] = self.t("where.file", file=signal.values["file"])
        if signal.rule is ANALYSIS_RULE:
            meaning = _strip_end(signal.line)
        else:
            meaning = self.t(signal.rule.meaning_key, **values)
        task = signal.task or "?"
        code = signal.exit_code if signal.exit_code is not None else _exit_code_of(job, signal.task)
        exit_part = self.t("root.exit_part", code=code) if code is not None else ""
        key = {
            ("message", True): "root.message_traceback",
            ("message", False): "root.message_line",
            ("log", True): "root.log_traceback",
            ("log", False): "root.log_line",
        }.get((signal.kind, signal.traceback), f"root.{signal.kind}")
        if signal.rule is ANALYSIS_RULE:
            key = "root.analysis_plain"
        return self.t(
            key,
            field=signal.field,
            task=task,
            exit_part=exit_part,
            line=_inline(signal.line),
            meaning=meaning,
            time=iso(signal.timestamp)
            if signal.timestamp and signal.timestamp.tzinfo
            else (signal.timestamp.isoformat(sep=" ") if signal.timestamp else "?"),
        )

    def _cite_signal(self, signal: Signal) -> None:
        label = self._field_label(signal)
        if not any(
            e.source == signal.source and e.field == label and e.text == signal.excerpt for e in self.evidence
        ):
            self._cite(signal.source, label, signal.excerpt)

    def _diagnosed_direct(self, job: Job, winner: Signal, signals: list[Signal]) -> Diagnosis:
        self._order_evidence_with(winner)
        for other in signals:
            if (
                other is not winner
                and other.category == winner.category
                and not other.consequence
                and other.kind != winner.kind
            ):
                self._cite_signal(other)
        root = self._root_for(winner, job)
        if self.consequences:
            tasks = sorted({s.task for s in self.consequences if s.task}) or ["?"]
            root += self.t(
                "root.consequence_suffix",
                tasks=self.t("label.list_sep").join(f"`{task}`" for task in tasks),
                line=_inline(shorten(self.consequences[0].line, 120)),
            )
            for consequence in self.consequences:
                self._cite_signal(consequence)
        recommendations = self._recommendations(winner.rule.fixes, winner.values, medium=False)
        if winner.kind == "analysis" and winner.values.get("solution"):
            # The platform's own solution first; the rule's plans after it.
            platform_fix = Recommendation(text=winner.values["solution"].strip(), changes_resources=True)
            recommendations = [platform_fix, *recommendations]
        return self._result(
            "diagnosed",
            category=winner.category,
            confidence="HIGH",
            fault_level=self._fault_level(job, winner.category, "HIGH"),
            signature=winner.line,
            root_cause=root,
            recommendations=recommendations,
            measurements=self._measurements(job, winner.task),
        )

    def _order_evidence_with(self, winner: Signal) -> None:
        """Cite the winning signal right after the status lines it explains."""
        excerpt = Evidence(source=winner.source, field=self._field_label(winner), text=winner.excerpt)
        insert_at = 0
        for index, item in enumerate(self.evidence):
            if item.source == DETAILS and item.field in ("status.phase", "status.secondary_phase"):
                insert_at = index + 1
        if winner.source != DETAILS:
            insert_at = len(self.evidence)
        if not any(
            e.source == excerpt.source and e.field == excerpt.field and e.text == excerpt.text
            for e in self.evidence
        ):
            self.evidence.insert(insert_at, excerpt)

    def _field_label(self, signal: Signal) -> str:
        if signal.kind == "log" and signal.task:
            return _log_field(signal.field, signal.task)
        return signal.field

    def _diagnosed_indirect(self, job: Job, winner: Signal) -> Diagnosis:
        self._order_evidence_with(winner)
        meaning = self._root_for(winner, job)
        root = self.t("root.most_likely", cause=meaning)
        if winner.consequence:
            root += self.t("root.consequence_only")
            self.next_steps.append(self.t("next.find_first_failure"))
        return self._result(
            "diagnosed",
            category=winner.category,
            confidence="MEDIUM",
            fault_level=self._fault_level(job, winner.category, "MEDIUM"),
            signature=winner.line,
            root_cause=root,
            recommendations=self._recommendations(winner.rule.fixes, winner.values, medium=True),
            measurements=self._measurements(job, winner.task),
        )

    def _exit_code_verdict(self, job: Job) -> Diagnosis | None:
        """Rulings M5/M6: a non-zero exit code with nothing naming a cause."""
        failing = next((s for s in job.task_statuses if s.exit_code not in (None, 0)), None)
        if failing is None or failing.exit_code is None:
            return None
        code = failing.exit_code
        rule = rules.exit_code_rule(code)
        signal = rules.signal_name(code)
        values = {
            "code": str(code),
            "signal_part": self.t("exit.signal_part", signal=signal) if signal else "",
            "task": failing.task or "?",
        }
        message_part = self._message_part(failing)
        category: Category = "UNKNOWN"
        meaning_key = "exit.other"
        fixes: tuple[rules.Fix, ...] = ()
        if rule is not None:
            category, meaning_key, fixes = rule.category, rule.meaning_key, rule.fixes
        if code in (137, 247) and oom_hint(list(self.previews_read.values())):
            category, meaning_key = "OOM_KILLED", "exit.137_oom"
            fixes = rules.RULES_BY_NAME["host_oom"].fixes
        meaning = self.t(meaning_key, **values)
        root = self.t(
            "root.exit_code", task=failing.task or "?", code=code, message_part=message_part, meaning=meaning
        )
        recommendations = self._recommendations(fixes, {}, medium=True)
        if not recommendations:
            self._exit_code_next_steps(failing)
        return self._result(
            "diagnosed",
            category=category,
            confidence="MEDIUM",
            fault_level=self._fault_level(job, category, "MEDIUM"),
            signature=self.t("signature.exit_code", code=code),
            root_cause=root,
            recommendations=recommendations,
            measurements=Measurements(exit_code=code),
        )

    def _message_part(self, status: TaskStatus) -> str:
        if not status.message:
            return self.t("root.message_empty")
        return self.t("root.message_vague", message=_inline(shorten(status.message, 120)))

    def _exit_code_next_steps(self, status: TaskStatus) -> None:
        task = status.task or "?"
        self.next_steps.append(
            self.t("next.full_log", task=task, reason=self.t("reason.exit_code_unexplained"))
        )
        self.next_steps.append(self.t("next.check_memory", task=task))

    def _stage_evidence(self, stages: Stages) -> Diagnosis | None:
        """Cite the stages; a stage still open for more than 1 hour on a faulty job is where it is stuck."""
        if not stages.stages:
            self._cite(STAGES, "running_records", self.t("evidence.no_stages"))
            return None
        open_stage = stages.open_stage()
        if open_stage is None:
            cited = next((s for s in stages.stages if s.name == "running"), stages.stages[-1])
            self._cite(
                STAGES,
                f"{cited.path}.{cited.end_field}",
                self.t(
                    "evidence.stage_ended",
                    name=cited.name,
                    start=cited.start_text or "?",
                    end=cited.end_text or "?",
                ),
            )
            return None
        age = self._stage_age(open_stage)
        self._cite(
            STAGES,
            f"{open_stage.path}.start_time" if open_stage.status is None else f"{open_stage.path}.status",
            self.t("evidence.stage_open", name=open_stage.name, start=open_stage.start_text or "?"),
            int(age.total_seconds()) if age is not None else None,
        )
        if age is None or age <= STALL_AGE or self.job is None:
            return None
        return self._result(
            "diagnosed",
            category="JOB_STALLED",
            confidence="MEDIUM",
            fault_level="Suspected",
            signature=self.t("signature.stage", name=open_stage.name),
            root_cause=self.t("root.stage_stuck", name=open_stage.name, age=format_duration(age, self.lang)),
            recommendations=self._recommendations(
                (rules.Fix("stall_check", changes_resources=False),), {"stage": open_stage.name}, medium=True
            ),
            measurements=self._measurements(self.job),
        )

    def _stage_age(self, stage: Stage) -> timedelta | None:
        if stage.duration is not None and stage.start is None:
            return stage.duration
        if stage.start is None:
            return None
        age = stage.start.age(self.now, threshold=STALL_AGE)
        if age is None:
            return None
        value, doubtful = age
        if doubtful:
            self.limitations.append(
                self.t(
                    "limit.zone_doubt",
                    what=self.t("what.stage_start", name=stage.name),
                    text=stage.start.text,
                )
            )
        return value

    def _insufficient(self, job: Job, *, events_read: Answer | None) -> Diagnosis:
        """Rule E / LOW: say so, list what was collected and what to fetch next (never a guess)."""
        failing = next((s for s in job.task_statuses if s.exit_code not in (None, 0)), None)
        for status in job.task_statuses:
            if status.exit_code is None:
                self.limitations.append(self.t("limit.no_exit_code", path=status.path))
        if not job.task_statuses:
            self.limitations.append(self.t("limit.no_task_statuses"))
        message = next((s.message for s in job.task_statuses if s.message), None)
        tasks = [task for task in self.preview_failed] or (
            [failing.task] if failing and failing.task else job.task_ids[:1]
        )
        for task in self.preview_failed:
            answer = self.preview_failed[task]
            self.next_steps.append(
                self.t(
                    "next.retry_preview",
                    task=task,
                    reason=self.t(
                        "reason.preview_failed",
                        failure=f"HTTP {answer.status}"
                        if answer.status is not None
                        else answer.describe_failure(),
                        message=f"`{_inline(shorten(message, 120))}`"
                        if message
                        else self.t("reason.no_message_short"),
                    ),
                )
            )
        for failed in self.failed:
            if failed.op in (EVENTS, STAGES):
                self.next_steps.append(
                    self._retry_step(failed, op=failed.op, reason=self.t(f"reason.{failed.op}_failed"))
                )
        for task in tasks or ["?"]:
            reason_key = (
                "reason.full_log_failed" if task in self.preview_failed else "reason.full_log_truncated"
            )
            self.next_steps.append(self.t("next.full_log", task=task, reason=self.t(reason_key)))
        events_empty = events_read is not None and events_read.ok
        if events_empty:
            self.next_steps.append(self.t("next.warning_events"))
        if message:
            self.next_steps.append(self.t("direction.vague_message", message=_inline(shorten(message, 120))))
        else:
            self.next_steps.append(self.t("direction.no_message"))
        return self._result(
            "diagnosed",
            category="UNKNOWN",
            confidence="LOW",
            fault_level="Suspected",
            signature=shorten(message, 200) if message else None,
            root_cause=self.t("root.insufficient"),
        )

    def _fault_level(self, job: Job, category: Category, confidence: Confidence) -> FaultLevel:
        """Rulings M7."""
        if confidence == "LOW" or category == "JOB_STALLED":
            return "Suspected"
        if job.phase in ("Failed", "Timeout"):
            return "Fault"
        return "Abnormal"

    # ------------------------------------------------------------------ Running (M8)

    async def _running(self, job: Job) -> Diagnosis:
        tasks = job.task_ids
        if len(tasks) > MAX_PREVIEWS:
            self.limitations.append(self.t("limit.preview_cap", count=len(tasks), cap=MAX_PREVIEWS))
        tasks = tasks[:MAX_PREVIEWS]
        stages_answer, *preview_answers = await asyncio.gather(
            self.source.fetch(STAGES, training_job_id=job.job_id or self.job_id),
            *(
                self.source.fetch(PREVIEW, training_job_id=job.job_id or self.job_id, task_id=task)
                for task in tasks
            ),
        )
        stages = self._read_stages(stages_answer)
        newest: list[TimeReading] = []
        for task, answer in zip(tasks, preview_answers, strict=True):
            if not answer.ok:
                self.preview_failed[task] = answer
                self._cite_failure(answer)
                (self.denied if answer.denied else self.failed).append(answer)
                self.limitations.append(
                    self.t("limit.preview_failed", task=task, failure=answer.describe_failure())
                )
                continue
            preview = parse_preview(answer.body, answer.text)
            if preview is None:
                self.limitations.append(self.t("limit.preview_unreadable", task=task))
                continue
            self.previews_read[task] = preview
            latest = scan_text(preview.content).latest_timestamp
            if latest is None:
                continue
            if latest.has_offset:
                reading = TimeReading(latest.text, (_aware(latest.value),))
            else:
                naive = latest.value.replace(tzinfo=UTC)
                reading = TimeReading(latest.text, (naive, naive - timedelta(hours=8)))
            newest.append(reading)
            self._cite(
                PREVIEW,
                _log_field(preview.content_field, task),
                self.t("evidence.latest_log_line", text=latest.text),
            )
        open_stage = stages.open_stage() if stages is not None else None
        stage_age: timedelta | None = None
        if stages is not None:
            if open_stage is None:
                self._cite(STAGES, "running_records", self.t("evidence.no_open_stage"))
            else:
                stage_age = self._stage_age(open_stage)
                self._cite(
                    STAGES,
                    f"{open_stage.path}.start_time"
                    if open_stage.status is None
                    else f"{open_stage.path}.status",
                    self.t("evidence.stage_open", name=open_stage.name, start=open_stage.start_text or "?"),
                    int(stage_age.total_seconds()) if stage_age is not None else None,
                )
        log_age = self._newest_log_age(newest)
        if (
            open_stage is not None
            and stage_age is not None
            and stage_age > STALL_AGE
            and log_age is not None
            and log_age > STALL_AGE
        ):
            return self._result(
                "diagnosed",
                category="JOB_STALLED",
                confidence="MEDIUM",
                fault_level="Suspected",
                signature=self.t("signature.stage", name=open_stage.name),
                root_cause=self.t(
                    "root.stalled",
                    name=open_stage.name,
                    stage_age=format_duration(stage_age, self.lang),
                    log_age=format_duration(log_age, self.lang),
                ),
                recommendations=self._recommendations(
                    (rules.Fix("stall_check", changes_resources=False), rules.Fix("stall_restart")),
                    {"stage": open_stage.name},
                    medium=True,
                ),
                measurements=Measurements(),
            )
        if self.denied:
            return self._permission_denied(self.denied[0])
        if not newest and self.previews_read:
            self.limitations.append(self.t("limit.no_log_timestamp"))
        elif not self.previews_read and tasks:
            self.limitations.append(self.t("limit.no_log_read"))
        if not tasks:
            self.limitations.append(self.t("limit.no_task_ids"))
        return self._result(
            "not_a_failure",
            fault_level="Normal",
            root_cause=self._running_root(open_stage, stage_age, log_age),
        )

    def _running_root(
        self, stage: Stage | None, stage_age: timedelta | None, log_age: timedelta | None
    ) -> str:
        parts = [self.t("root.running")]
        if stage is not None and stage_age is not None:
            parts.append(
                self.t("root.running_stage", name=stage.name, age=format_duration(stage_age, self.lang))
            )
        if log_age is not None:
            parts.append(self.t("root.running_log", age=format_duration(log_age, self.lang)))
        return self.t("root.join").join(parts)

    def _newest_log_age(self, readings: list[TimeReading]) -> timedelta | None:
        """The age of the newest log line across tasks, counted only if every possible reading agrees."""
        ages: list[timedelta] = []
        doubtful = False
        for reading in readings:
            result = reading.age(self.now, threshold=STALL_AGE)
            if result is None:
                continue
            age, doubt = result
            doubtful = doubtful or doubt
            ages.append(age)
        if not ages:
            return None
        newest = min(ages)
        if doubtful:
            self.limitations.append(
                self.t("limit.zone_doubt", what=self.t("what.log_line"), text=readings[0].text)
            )
        return newest

    # ------------------------------------------------------------------ Pending (M10)

    async def _pending(self, job: Job) -> Diagnosis:
        created = job.create_time
        if created is None:
            self.limitations.append(self.t("limit.no_create_time"))
            self.next_steps.append(self.t("next.look_again"))
            return self._result(
                "observe",
                root_cause=self.t("root.pending", phase=job.phase, secondary=self._secondary(job), age="?"),
            )
        age = self.now - _aware(created)
        self._cite(DETAILS, "metadata.create_time", iso(created), int(age.total_seconds()))
        if age <= PENDING_AGE:
            self.next_steps.append(self.t("next.look_again"))
            return self._result(
                "observe",
                root_cause=self.t(
                    "root.pending",
                    phase=job.phase,
                    secondary=self._secondary(job),
                    age=format_duration(age, self.lang),
                ),
            )
        answer = await self._events(level=None)
        signals = [s for s in self._read_events(answer, level=None) if s.category == "RESOURCE_INSUFFICIENT"]
        winner = choose(signals)
        if winner is None and self.denied:
            return self._permission_denied(self.denied[0])
        if winner is None:
            self.next_steps.append(self.t("next.look_again"))
            self.next_steps.append(self.t("next.check_pool"))
            return self._result(
                "observe",
                root_cause=self.t(
                    "root.pending_long",
                    phase=job.phase,
                    secondary=self._secondary(job),
                    age=format_duration(age, self.lang),
                ),
            )
        self._order_evidence_with(winner)
        confidence: Confidence = "HIGH" if winner.direct else "MEDIUM"
        root = self.t(
            "root.pending_resources",
            age=format_duration(age, self.lang),
            line=_inline(winner.line),
            meaning=self.t(winner.rule.meaning_key, **_fill(winner.values)),
        )
        if confidence == "MEDIUM":
            root = self.t("root.most_likely", cause=root)
        return self._result(
            "diagnosed",
            category="RESOURCE_INSUFFICIENT",
            confidence=confidence,
            fault_level=self._fault_level(job, "RESOURCE_INSUFFICIENT", confidence),
            signature=winner.line,
            root_cause=root,
            recommendations=self._recommendations(
                winner.rule.fixes, winner.values, medium=confidence == "MEDIUM"
            ),
        )


def _exit_code_of(job: Job, task: str | None) -> int | None:
    if task is not None:
        for status in job.task_statuses:
            if status.task == task and status.exit_code is not None:
                return status.exit_code
    for status in job.task_statuses:
        if status.exit_code not in (None, 0):
            return status.exit_code
    return None


def _log_field(field: str, task: str) -> str:
    """Evidence field of a log preview: the answer's field and the task it belongs to."""
    return f"{field} ({task})"


def _fill(values: dict[str, str]) -> dict[str, str]:
    """Template values with a placeholder for anything the matched line did not give."""
    filled = {
        "module": "?",
        "path": "?",
        "exception": "?",
        "code": "?",
        "file": "?",
        "stage": "?",
        "where": "",
    }
    filled.update({key: value for key, value in values.items() if value})
    return filled


def _inline(text: str | None) -> str:
    """One line, safe inside a Markdown code span."""
    if not text:
        return ""
    return " ".join(text.split()).replace("`", "'")


def _strip_end(text: str) -> str:
    return text.strip().rstrip("。.")

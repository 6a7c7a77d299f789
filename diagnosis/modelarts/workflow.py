"""The ModelArts runbook's five phases as code (seeds/000, modelarts-runbook.md, rulings M1-M13).

1. discovery: a full job id goes on; a name is searched (M11); nothing asks for an id or a name.
2. status: `ShowTrainingJobDetails`, the phase table (fault / false alarm / observe / stopped), and
   the early exit when a task message already holds a traceback that names the cause (M3).
3. collection: Error events and stages concurrently; log previews only when that gave no HIGH
   evidence (M4). The full-log URL is never fetched here (M2).
4. analysis: signals from every source, consequences dropped, the strongest category first
   (G14/G15); HIGH / MEDIUM / LOW by the confidence rules (M5/M6), fault level by M7.
5. output: a `Diagnosis`; the report renderers do the formatting.

Pure: every answer comes through the Source, the clock is the `now` argument.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, Protocol

from diagnosis.i18n import Translator
from diagnosis.logscan import parse_timestamp, parse_traceback, scan_text
from diagnosis.modelarts import rules
from diagnosis.modelarts.messages import CATALOGUE
from diagnosis.modelarts.parse import (
    Event,
    Job,
    Preview,
    Stage,
    Stages,
    TaskStatus,
    TimeReading,
    parse_events,
    parse_job,
    parse_job_page,
    parse_preview,
    parse_stages,
    read_time,
)
from diagnosis.modelarts.routes import EVENTS_PAGE_SIZE, SEARCH_PAGE_SIZE
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


class Source(Protocol):
    """What the workflow reads evidence from: a live, replay or test source (diagnosis.source)."""

    @property
    def calls(self) -> list[str]: ...

    async def fetch(self, op: str, /, *, variant: str | None = None, **args: Any) -> Answer: ...


DETAILS = "ShowTrainingJobDetails"
SEARCH = "ListTrainingJobs"
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
MAX_SEARCH_PAGES = 100  # rulings G4
MAX_EVENT_PAGES = 10
STALL_AGE = timedelta(hours=1)  # rulings M8
PENDING_AGE = timedelta(minutes=30)  # rulings M10
FUTURE_TOLERANCE = timedelta(minutes=5)  # rulings G15: a reading this far after now is impossible
EXCERPT_CHARS = 600

SignalKind = Literal["message", "analysis", "record", "phase", "event", "log"]
# Across source kinds the category order decides; at equal category the runbook's A-E order.
KIND_ORDER: dict[str, int] = {"message": 0, "analysis": 1, "record": 2, "phase": 3, "event": 4, "log": 5}


@dataclass
class Signal:
    """One piece of evidence that names a category."""

    rule: rules.Rule
    kind: SignalKind
    source: str
    field: str
    line: str
    excerpt: str
    values: dict[str, str]
    task: str | None = None
    traceback: bool = False
    timestamp: datetime | None = None
    order: int = 0
    exit_code: int | None = None

    @property
    def category(self) -> Category:
        return self.rule.category

    @property
    def direct(self) -> bool:
        return self.rule.direct

    @property
    def consequence(self) -> bool:
        return self.rule.consequence

    @property
    def early_exit(self) -> bool:
        """Rulings M3: a traceback naming a cause, or an explicit device-memory line."""
        if self.kind != "message" or self.consequence:
            return False
        return self.traceback or self.rule.name == "device_oom"


@dataclass
class JobListing:
    """Every job of a search, all pages (G4 paging stops), or the failed answer of its first page."""

    jobs: list[Job] = field(default_factory=list)
    failure: Answer | None = None
    limitations: list[str] = field(default_factory=list)
    pages: int = 0


async def list_jobs(source: Source, *, name: str | None = None, t: Translator | None = None) -> JobListing:
    """`ListTrainingJobs` over every page: page index `offset`, `limit` 50, newest first."""
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
        if not answer.ok:
            if page == 0:
                listing.failure = answer
            else:
                listing.limitations.append(
                    translate("limit.search_page_failed", page=page + 1, failure=answer.describe_failure())
                )
            break
        parsed = parse_job_page(answer.body)
        if parsed is None:
            if page == 0:
                listing.failure = answer.model_copy(update={"error": "answer has no items list"})
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


def _sort_time(instant: datetime | None) -> datetime:
    """Ordering key for log times: all tasks of a job write the same zone (G15), so naive stays naive."""
    if instant is None:
        # G14: a failure with no time at all counts as earlier (tracebacks carry no timestamps).
        return datetime.min
    if instant.tzinfo is None:
        return instant
    return instant.astimezone(UTC).replace(tzinfo=None)


def _shorten(text: str, limit: int = EXCERPT_CHARS) -> str:
    text = text.strip("\n")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _code_location(frames: Sequence[Any]) -> str | None:
    """The file of the last frame, relative to the job's code directory when it is recognisable."""
    for frame in reversed(list(frames)):
        text = str(getattr(frame, "file", None) or frame)
        found = re.search(r'File "([^"]+)"', text) or re.search(r"(/[^\s\"]+\.py)", text)
        path = found.group(1) if found else text if text.endswith(".py") else None
        if not path:
            continue
        inside = re.search(r"/user-job-dir/[^/]+/(.+)$", path)
        return inside.group(1) if inside else path.rsplit("/", 1)[-1]
    return None


def _traceback_excerpt(text: str, final_line: str) -> str:
    """The line before the exception line (usually the failing statement) and the exception line."""
    lines = [line for line in text.splitlines() if line.strip()]
    for index in range(len(lines) - 1, -1, -1):
        if lines[index].strip() == final_line.strip():
            start = max(0, index - 1)
            return "\n".join(lines[start : index + 1])
    return final_line


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
        message_signals = self._message_signals(job)
        platform_signals = self._platform_signals(job)
        self._cite_exit_codes(job)
        if any(signal.early_exit for signal in message_signals):
            # Early exit (M3): the task message names the cause; no phase-3 call.
            return self._conclude(job, [*message_signals, *platform_signals])

        events_answer, stages_answer = await asyncio.gather(
            self._error_events(), self.source.fetch(STAGES, training_job_id=job.job_id or self.job_id)
        )
        event_signals = self._event_signals(events_answer, level_filter="Error")
        stages = self._read_stages(stages_answer)
        signals = [*message_signals, *platform_signals, *event_signals]
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

    def _cite_exit_codes(self, job: Job) -> None:
        for status in job.task_statuses:
            if status.exit_code is not None:
                self._cite(DETAILS, f"{status.path}.exit_code", str(status.exit_code), status.exit_code)

    def _message_signals(self, job: Job) -> list[Signal]:
        signals: list[Signal] = []
        for status in job.task_statuses:
            if not status.message:
                continue
            field_path = f"{status.path}.message"
            found = self._text_signal(
                status.message, kind="message", source=DETAILS, field=field_path, task=status.task
            )
            if found is None:
                self._cite(DETAILS, field_path, _shorten(status.message))
                continue
            found.exit_code = status.exit_code
            found.order = status.index
            signals.append(found)
        return signals

    def _text_signal(
        self, text: str, *, kind: SignalKind, source: str, field: str, task: str | None
    ) -> Signal | None:
        """A traceback's last line, else the most telling line a rule names."""
        traceback = parse_traceback(text)
        if traceback is not None and traceback.final_line:
            matched = rules.match_exception(traceback.final_line)
            if matched is not None:
                rule, values = matched
                values = dict(values)
                location = _code_location(traceback.frames)
                if location:
                    values.setdefault("file", location)
                    values.setdefault("where", self.t("where.file", file=location))
                return Signal(
                    rule=rule,
                    kind=kind,
                    source=source,
                    field=field,
                    line=traceback.final_line.strip(),
                    excerpt=_traceback_excerpt(text, traceback.final_line),
                    values=values,
                    task=task,
                    traceback=True,
                )
        best: Signal | None = None
        for line in text.splitlines():
            matched = rules.match_line(line)
            if matched is None:
                continue
            rule, values = matched
            candidate = Signal(
                rule=rule,
                kind=kind,
                source=source,
                field=field,
                line=line.strip(),
                excerpt=_shorten(line.strip()),
                values=values,
                task=task,
            )
            if best is None or _strength(candidate) < _strength(best):
                best = candidate
        return best

    def _platform_signals(self, job: Job) -> list[Signal]:
        """The platform's own verdicts: its analysis, its fault records, a `Timeout` phase."""
        signals: list[Signal] = []
        for analysis in job.analyses:
            matched = rules.match_line(analysis.description)
            if matched is None:
                self._cite(DETAILS, analysis.path, _shorten(analysis.description))
                signals.append(
                    Signal(
                        rule=_ANALYSIS_RULE,
                        kind="analysis",
                        source=DETAILS,
                        field=analysis.path,
                        line=analysis.description.strip(),
                        excerpt=_shorten(analysis.description),
                        values={"solution": analysis.solution or ""},
                        order=analysis.index,
                    )
                )
                continue
            rule, values = matched
            signals.append(
                Signal(
                    rule=rule,
                    kind="analysis",
                    source=DETAILS,
                    field=analysis.path,
                    line=analysis.description.strip(),
                    excerpt=_shorten(analysis.description),
                    values={**values, "solution": analysis.solution or ""},
                    order=analysis.index,
                )
            )
        for index, record in enumerate(job.fault_records):
            rule_name = rules.FAULT_SCENARIO_RULES.get(record.fault_scenario or "")
            matched = rules.match_line(record.reason) if record.reason else None
            if rule_name is None and matched is None:
                continue
            rule, values = (rules.RULES_BY_NAME[rule_name], {}) if rule_name else matched  # type: ignore[misc]
            text = " ".join(part for part in (record.fault_scenario, record.reason) if part)
            signals.append(
                Signal(
                    rule=rule,
                    kind="record",
                    source=DETAILS,
                    field=f"{record.path}.fault_scenario" if rule_name else f"{record.path}.reason",
                    line=text,
                    excerpt=_shorten(text),
                    values=values,
                    task=record.related_task,
                    order=index,
                )
            )
        if job.phase == "Timeout":
            signals.append(
                Signal(
                    rule=rules.RULES_BY_NAME["time_limit"],
                    kind="phase",
                    source=DETAILS,
                    field="status.phase",
                    line="Timeout",
                    excerpt="Timeout",
                    values={},
                )
            )
        return signals

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

    def _event_signals(self, answer: Answer, *, level_filter: str | None) -> list[Signal]:
        if not answer.ok:
            self._note_failure(answer, what=self.t("what.events"))
            return []
        page = parse_events(answer.body)
        if page is None:
            self._cite(EVENTS, None, self.t("evidence.unreadable"))
            self.limitations.append(self.t("limit.unreadable", op=EVENTS))
            return []
        shown = page.total if page.total is not None else len(page.events)
        filter_text = f"level={level_filter}" if level_filter else self.t("evidence.all_levels")
        if not page.events:
            self._cite(
                EVENTS, "total", self.t("evidence.event_total", total=shown, filter=filter_text), shown
            )
            return []
        signals: list[Signal] = []
        for event in page.events:
            if level_filter and event.level and event.level.lower() != level_filter.lower():
                continue
            matched = rules.match_line(event.message)
            if matched is None:
                continue
            rule, values = matched
            reading = _event_time(event)
            signals.append(
                Signal(
                    rule=rule,
                    kind="event",
                    source=EVENTS,
                    field=event.path,
                    line=event.message.strip(),
                    excerpt=_shorten(f"[{event.time}] {event.message}" if event.time else event.message),
                    values=values,
                    timestamp=reading,
                    order=event.index,
                )
            )
        if not signals:
            self._cite(
                EVENTS,
                "total",
                self.t("evidence.event_total_unmatched", total=shown, filter=filter_text),
                shown,
            )
            first = page.events[0]
            self._cite(EVENTS, first.path, _shorten(first.message))
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
            signals.extend(self._preview_signals(task, preview))
        return signals

    def _preview_signals(self, task: str, preview: Preview) -> list[Signal]:
        findings = scan_text(preview.content)
        field_path = preview.content_field
        signals: list[Signal] = []
        covered: set[int] = set()
        for order, finding in enumerate(findings.findings):
            if finding.exit_code is not None:
                # `[ModelArts Service Log]Training end with return code: N` restates the exit code:
                # it names no cause, so M6 reads it through the task's exit_code instead.
                covered.add(finding.line_number)
                continue
            is_traceback = finding.traceback is not None or finding.kind == "traceback"
            if is_traceback:
                matched = rules.match_exception(finding.line)
            else:
                matched = rules.match_line(finding.line) or _kind_rule(finding.kind)
            if matched is None:
                continue
            rule, values = matched
            covered.add(finding.line_number)
            excerpt = finding.line
            if is_traceback:
                before = [
                    line for line in finding.context if line.strip() and line.strip() != finding.line.strip()
                ]
                excerpt = "\n".join([*before[-1:], finding.line])
            reading = finding.timestamp
            signals.append(
                Signal(
                    rule=_as_consequence(rule) if finding.is_consequence and not rule.consequence else rule,
                    kind="log",
                    source=PREVIEW,
                    field=field_path,
                    line=_without_timestamp(finding.line),
                    excerpt=_shorten(excerpt),
                    values=values,
                    task=task,
                    traceback=is_traceback,
                    timestamp=reading.value if reading is not None else None,
                    order=order,
                )
            )
        # Lines a generic log scanner may not flag (OBS, downloader, Ascend pre-checks, quotas).
        for hit in rules.rule_hits(preview.content):
            if hit.line_number in covered:
                continue
            rule, values, line, line_number = hit.rule, hit.values, hit.line, hit.line_number
            signals.append(
                Signal(
                    rule=rule,
                    kind="log",
                    source=PREVIEW,
                    field=field_path,
                    line=_without_timestamp(line),
                    excerpt=_shorten(line.strip()),
                    values=values,
                    task=task,
                    timestamp=reading.value if (reading := parse_timestamp(line)) is not None else None,
                    order=10_000 + line_number,
                )
            )
        return signals

    # ------------------------------------------------------------------ phase 4

    def _conclude(
        self,
        job: Job,
        signals: list[Signal],
        *,
        stages: Stages | None = None,
        events_read: Answer | None = None,
    ) -> Diagnosis:
        winner = _choose(signals)
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
        if signal.rule is _ANALYSIS_RULE:
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
        if signal.rule is _ANALYSIS_RULE:
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
                tasks="、".join(f"`{task}`" for task in tasks)
                if self.lang in ("zh", "ja")
                else ", ".join(f"`{task}`" for task in tasks),
                line=_inline(_shorten(self.consequences[0].line, 120)),
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
            return (
                f"{signal.field}（{signal.task}）"
                if self.lang in ("zh", "ja")
                else f"{signal.field} ({signal.task})"
            )
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
        if code in (137, 247) and self._oom_hint():
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
        return self.t("root.message_vague", message=_inline(_shorten(status.message, 120)))

    def _oom_hint(self) -> bool:
        for preview in self.previews_read.values():
            tail = preview.content[-20_000:]
            if any(rules.OOM_HINT.search(line) for line in tail.splitlines()[-50:]):
                return True
        return False

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
            root_cause=self.t("root.stage_stuck", name=open_stage.name, age=_hours(age, self.lang)),
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
        age = _safe_age(stage.start, self.now)
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
                        message=f"`{_inline(_shorten(message, 120))}`"
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
            self.next_steps.append(self.t("direction.vague_message", message=_inline(_shorten(message, 120))))
        else:
            self.next_steps.append(self.t("direction.no_message"))
        return self._result(
            "diagnosed",
            category="UNKNOWN",
            confidence="LOW",
            fault_level="Suspected",
            signature=_shorten(message, 200) if message else None,
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
                f"{preview.content_field}（{task}）"
                if self.lang in ("zh", "ja")
                else f"{preview.content_field} ({task})",
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
                    stage_age=_hours(stage_age, self.lang),
                    log_age=_hours(log_age, self.lang),
                ),
                recommendations=self._recommendations(
                    (rules.Fix("stall_check", changes_resources=False), rules.Fix("stall_restart")),
                    {"stage": open_stage.name},
                    medium=True,
                ),
                measurements=Measurements(),
            )
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
            parts.append(self.t("root.running_stage", name=stage.name, age=_hours(stage_age, self.lang)))
        if log_age is not None:
            parts.append(self.t("root.running_log", age=_hours(log_age, self.lang)))
        return self.t("root.join").join(parts)

    def _newest_log_age(self, readings: list[TimeReading]) -> timedelta | None:
        """The age of the newest log line across tasks, counted only if every possible reading agrees."""
        ages: list[timedelta] = []
        doubtful = False
        for reading in readings:
            result = _safe_age(reading, self.now)
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
                    age=_minutes(age, self.lang),
                ),
            )
        answer = await self._events(level=None)
        signals = [
            s for s in self._event_signals(answer, level_filter=None) if s.category == "RESOURCE_INSUFFICIENT"
        ]
        winner = _choose(signals)
        if winner is None:
            self.next_steps.append(self.t("next.look_again"))
            self.next_steps.append(self.t("next.check_pool"))
            return self._result(
                "observe",
                root_cause=self.t(
                    "root.pending_long",
                    phase=job.phase,
                    secondary=self._secondary(job),
                    age=_minutes(age, self.lang),
                ),
            )
        self._order_evidence_with(winner)
        confidence: Confidence = "HIGH" if winner.direct else "MEDIUM"
        root = self.t(
            "root.pending_resources",
            age=_minutes(age, self.lang),
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


# A platform analysis whose description no rule recognises: HIGH (the platform says so), UNKNOWN.
_ANALYSIS_RULE = rules.Rule("platform_analysis", "UNKNOWN", re.compile(r"$^"), ())


def _as_consequence(rule: rules.Rule) -> rules.Rule:
    return rules.Rule(
        rule.name,
        rule.category,
        rule.pattern,
        rule.fixes,
        direct=rule.direct,
        consequence=True,
        values=rule.values,
    )


_KIND_RULES: dict[str, str] = {
    "cuda_oom": "device_oom",
    "cuda_error": "cuda_error",
    "nccl_error": "nccl_error",
    "nccl_timeout": "collective_timeout",
    "rendezvous": "rendezvous",
    "oom_killed": "host_oom",
    "segfault": "segfault",
    "bus_error": "segfault",
    "hardware": "gpu_hardware",
    "disk_full": "disk_full",
    "child_failed": "child_failed",
}


def _kind_rule(kind: str) -> tuple[rules.Rule, dict[str, str]] | None:
    name = _KIND_RULES.get(kind)
    return (rules.RULES_BY_NAME[name], {}) if name else None


def _strength(signal: Signal) -> tuple[int, int, int]:
    """Sort key: non-consequences first, direct first, then the category order of G15."""
    return (int(signal.consequence), int(not signal.direct), rules.category_rank(signal.category))


def _choose(signals: Sequence[Signal]) -> Signal | None:
    """Rulings G14/G15: drop consequences when anything else names a failure; within one source
    kind the earliest failure wins (untimed after timed); across kinds the category order decides."""
    if not signals:
        return None
    best_per_kind: list[Signal] = []
    for kind in KIND_ORDER:
        members = [s for s in signals if s.kind == kind]
        if not members:
            continue
        members.sort(
            key=lambda s: (
                int(s.consequence),
                int(not s.direct),
                _sort_time(s.timestamp),
                rules.category_rank(s.category),
                s.order,
            )
        )
        best_per_kind.append(members[0])
    best_per_kind.sort(key=lambda s: (*_strength(s), KIND_ORDER[s.kind]))
    return best_per_kind[0]


def _event_time(event: Event) -> datetime | None:
    reading = read_time(event.time)
    if reading is None:
        return None
    return reading.readings[0].replace(tzinfo=None) if reading.ambiguous else reading.readings[0]


def _exit_code_of(job: Job, task: str | None) -> int | None:
    if task is not None:
        for status in job.task_statuses:
            if status.task == task and status.exit_code is not None:
                return status.exit_code
    for status in job.task_statuses:
        if status.exit_code not in (None, 0):
            return status.exit_code
    return None


def _safe_age(reading: TimeReading, now: datetime) -> tuple[timedelta, bool] | None:
    """Rulings G15: drop readings more than 5 minutes after now; the smallest remaining age counts,
    and the answer is doubtful when the readings fall on both sides of the 1-hour mark."""
    ages = [now - instant for instant in reading.readings if instant - now <= FUTURE_TOLERANCE]
    if not ages:
        return None
    smallest = max(min(ages), timedelta(0))
    doubtful = len(ages) > 1 and (min(ages) <= STALL_AGE < max(ages))
    return smallest, doubtful


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


def _without_timestamp(line: str) -> str:
    """A log line without its leading timestamp: the signature is the failing text itself."""
    text = line.strip()
    reading = parse_timestamp(text)
    if reading is not None and text.startswith(reading.text):
        stripped = text[len(reading.text) :].strip()
        return stripped or text
    return text


def _inline(text: str | None) -> str:
    """One line, safe inside a Markdown code span."""
    if not text:
        return ""
    return " ".join(text.split()).replace("`", "'")


def _strip_end(text: str) -> str:
    return text.strip().rstrip("。.")


def _hours(delta: timedelta, lang: str) -> str:
    minutes = int(delta.total_seconds() // 60)
    if minutes < 1:
        return {"zh": "不到 1 分钟", "ja": "1 分未満"}.get(lang, "under a minute")
    hours, rest = divmod(minutes, 60)
    if lang == "zh":
        return f"{hours} 小时 {rest} 分钟" if hours else f"{rest} 分钟"
    if lang == "ja":
        return f"{hours} 時間 {rest} 分" if hours else f"{rest} 分"
    return f"{hours} h {rest:02d} min" if hours else f"{rest} min"


def _minutes(delta: timedelta, lang: str) -> str:
    return _hours(delta, lang)

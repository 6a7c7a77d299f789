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
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from diagnosis.logscan import scan_text
from diagnosis.modelarts import rules
from diagnosis.modelarts.discovery import discover
from diagnosis.modelarts.failed_calls import details_failure, first_call_failed, retry_step, search_failed
from diagnosis.modelarts.listing import JobListing, Source, list_jobs
from diagnosis.modelarts.messages import format_duration
from diagnosis.modelarts.ops import DETAILS, EVENTS, PREVIEW, STAGES
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
from diagnosis.modelarts.permission import permission_denied
from diagnosis.modelarts.routes import EVENTS_PAGE_SIZE
from diagnosis.modelarts.run import Run, aware
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
from diagnosis.modelarts.wording import fill, inline, log_field, secondary_part, strip_end
from diagnosis.models import (
    Category,
    Confidence,
    DiagnoseRequest,
    Diagnosis,
    Evidence,
    FaultLevel,
    Measurements,
    Recommendation,
)
from diagnosis.source import Answer
from diagnosis.timeutil import iso

__all__ = ["JobListing", "Source", "diagnose", "list_jobs", "listing_failure"]


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
    return search_failed(run, answer, None)


class _Run(Run):
    # ------------------------------------------------------------------ phases

    async def execute(self) -> Diagnosis:
        if self.job_id is None:
            found = await discover(self)
            if isinstance(found, Diagnosis):
                return found
            self.job_id = found
        details = await self.source.fetch(DETAILS, training_job_id=self.job_id)
        early = details_failure(self, details)
        if early is not None:
            return early
        job = parse_job(details.body)
        if job is None:
            self.cite(DETAILS, None, self.t("evidence.unreadable"))
            self.limitations.append(self.t("limit.details_unreadable"))
            return first_call_failed(self, details)
        self.job = job
        return await self._assess(job)

    async def _assess(self, job: Job) -> Diagnosis:
        """Phase 2: the phase table (modelarts-runbook.md, rulings M8-M10)."""
        phase = job.phase
        self.cite(DETAILS, "status.phase", phase or "null")
        if job.secondary_phase and job.secondary_phase != phase:
            self.cite(DETAILS, "status.secondary_phase", job.secondary_phase)
        if job.is_fault:
            return await self._fault(job)
        if phase in STOPPED_PHASES:
            return self.result(
                "out_of_scope",
                root_cause=self.t("root.stopped", phase=phase, secondary=secondary_part(self.t, job)),
            )
        if phase in NORMAL_PHASES:
            return self.result(
                "not_a_failure",
                fault_level="Normal",
                root_cause=self.t("root.completed", phase=phase),
            )
        if phase == "Running":
            return await self._running(job)
        if phase in OBSERVE_PHASES:
            self.next_steps.append(self.t("next.look_again"))
            return self.result("observe", root_cause=self.t("root.creating", phase=phase))
        if phase == "Pending":
            return await self._pending(job)
        if phase is None:
            self.limitations.append(self.t("limit.no_phase"))
            self.next_steps.append(self.t("next.retry_details", reason=self.t("reason.no_phase")))
            self.next_steps.append(self.t("direction.console"))
            return self.result(
                "diagnosed",
                category="UNKNOWN",
                confidence="LOW",
                fault_level="Suspected",
                root_cause=self.t("root.insufficient"),
            )
        return self.result("out_of_scope", root_cause=self.t("root.other_phase", phase=phase))

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
                self.cite(DETAILS, f"{status.path}.message", shorten(status.message))

    def _cite_exit_codes(self, job: Job) -> None:
        for status in job.task_statuses:
            if status.exit_code is not None:
                self.cite(DETAILS, f"{status.path}.exit_code", str(status.exit_code), status.exit_code)

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
            self.note_failure(answer, what=self.t("what.events"))
            return []
        page = parse_events(answer.body)
        if page is None:
            self.cite(EVENTS, None, self.t("evidence.unreadable"))
            self.limitations.append(self.t("limit.unreadable", op=EVENTS))
            return []
        shown = page.total if page.total is not None else len(page.events)
        filter_text = f"level={level}" if level else self.t("evidence.all_levels")
        if not page.events:
            self.cite(EVENTS, "total", self.t("evidence.event_total", total=shown, filter=filter_text), shown)
            return []
        signals = event_signals(page.events, level=level)
        if not signals:
            unmatched = self.t("evidence.event_total_unmatched", total=shown, filter=filter_text)
            self.cite(EVENTS, "total", unmatched, shown)
            self.cite(EVENTS, page.events[0].path, shorten(page.events[0].message))
        return signals

    def _read_stages(self, answer: Answer) -> Stages | None:
        if not answer.ok:
            self.note_failure(answer, what=self.t("what.stages"))
            return None
        stages = parse_stages(answer.body)
        if stages is None:
            self.cite(STAGES, None, self.t("evidence.unreadable"))
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
                self.cite_failure(answer)
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
        self.cite(PREVIEW, log_field(preview.content_field, task), self.t(key, last=last), size)

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
            return permission_denied(self, self.denied[0])
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
        filled = {"framework": engine or self.t("label.framework"), **fill(values)}
        for fix in rule_fixes:
            text = self.t(f"fix.{fix.key}", **filled)
            if medium:
                text = self.t("medium.try") + "\n" + text
            recommendations.append(Recommendation(text=text, changes_resources=fix.changes_resources))
        return recommendations

    def _root_for(self, signal: Signal, job: Job) -> str:
        values = fill(signal.values)
        if signal.values.get("file"):
            values["where"] = self.t("where.file", file=signal.values["file"])
        if signal.rule is ANALYSIS_RULE:
            meaning = strip_end(signal.line)
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
            line=inline(signal.line),
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
            self.cite(signal.source, label, signal.excerpt)

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
                line=inline(shorten(self.consequences[0].line, 120)),
            )
            for consequence in self.consequences:
                self._cite_signal(consequence)
        recommendations = self._recommendations(winner.rule.fixes, winner.values, medium=False)
        if winner.kind == "analysis" and winner.values.get("solution"):
            # The platform's own solution first; the rule's plans after it.
            platform_fix = Recommendation(text=winner.values["solution"].strip(), changes_resources=True)
            recommendations = [platform_fix, *recommendations]
        return self.result(
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
            return log_field(signal.field, signal.task)
        return signal.field

    def _diagnosed_indirect(self, job: Job, winner: Signal) -> Diagnosis:
        self._order_evidence_with(winner)
        meaning = self._root_for(winner, job)
        root = self.t("root.most_likely", cause=meaning)
        if winner.consequence:
            root += self.t("root.consequence_only")
            self.next_steps.append(self.t("next.find_first_failure"))
        return self.result(
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
        return self.result(
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
        return self.t("root.message_vague", message=inline(shorten(status.message, 120)))

    def _exit_code_next_steps(self, status: TaskStatus) -> None:
        task = status.task or "?"
        self.next_steps.append(
            self.t("next.full_log", task=task, reason=self.t("reason.exit_code_unexplained"))
        )
        self.next_steps.append(self.t("next.check_memory", task=task))

    def _stage_evidence(self, stages: Stages) -> Diagnosis | None:
        """Cite the stages; a stage still open for more than 1 hour on a faulty job is where it is stuck."""
        if not stages.stages:
            self.cite(STAGES, "running_records", self.t("evidence.no_stages"))
            return None
        open_stage = stages.open_stage()
        if open_stage is None:
            cited = next((s for s in stages.stages if s.name == "running"), stages.stages[-1])
            self.cite(
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
        self.cite(
            STAGES,
            f"{open_stage.path}.start_time" if open_stage.status is None else f"{open_stage.path}.status",
            self.t("evidence.stage_open", name=open_stage.name, start=open_stage.start_text or "?"),
            int(age.total_seconds()) if age is not None else None,
        )
        if age is None or age <= STALL_AGE or self.job is None:
            return None
        return self.result(
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
                        message=f"`{inline(shorten(message, 120))}`"
                        if message
                        else self.t("reason.no_message_short"),
                    ),
                )
            )
        for failed in self.failed:
            if failed.op in (EVENTS, STAGES):
                self.next_steps.append(
                    retry_step(self, failed, op=failed.op, reason=self.t(f"reason.{failed.op}_failed"))
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
            self.next_steps.append(self.t("direction.vague_message", message=inline(shorten(message, 120))))
        else:
            self.next_steps.append(self.t("direction.no_message"))
        return self.result(
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
                self.cite_failure(answer)
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
                reading = TimeReading(latest.text, (aware(latest.value),))
            else:
                naive = latest.value.replace(tzinfo=UTC)
                reading = TimeReading(latest.text, (naive, naive - timedelta(hours=8)))
            newest.append(reading)
            self.cite(
                PREVIEW,
                log_field(preview.content_field, task),
                self.t("evidence.latest_log_line", text=latest.text),
            )
        open_stage = stages.open_stage() if stages is not None else None
        stage_age: timedelta | None = None
        if stages is not None:
            if open_stage is None:
                self.cite(STAGES, "running_records", self.t("evidence.no_open_stage"))
            else:
                stage_age = self._stage_age(open_stage)
                self.cite(
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
            return self.result(
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
            return permission_denied(self, self.denied[0])
        if not newest and self.previews_read:
            self.limitations.append(self.t("limit.no_log_timestamp"))
        elif not self.previews_read and tasks:
            self.limitations.append(self.t("limit.no_log_read"))
        if not tasks:
            self.limitations.append(self.t("limit.no_task_ids"))
        return self.result(
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
            return self.result(
                "observe",
                root_cause=self.t(
                    "root.pending", phase=job.phase, secondary=secondary_part(self.t, job), age="?"
                ),
            )
        age = self.now - aware(created)
        self.cite(DETAILS, "metadata.create_time", iso(created), int(age.total_seconds()))
        if age <= PENDING_AGE:
            self.next_steps.append(self.t("next.look_again"))
            return self.result(
                "observe",
                root_cause=self.t(
                    "root.pending",
                    phase=job.phase,
                    secondary=secondary_part(self.t, job),
                    age=format_duration(age, self.lang),
                ),
            )
        answer = await self._events(level=None)
        signals = [s for s in self._read_events(answer, level=None) if s.category == "RESOURCE_INSUFFICIENT"]
        winner = choose(signals)
        if winner is None and self.denied:
            return permission_denied(self, self.denied[0])
        if winner is None:
            self.next_steps.append(self.t("next.look_again"))
            self.next_steps.append(self.t("next.check_pool"))
            return self.result(
                "observe",
                root_cause=self.t(
                    "root.pending_long",
                    phase=job.phase,
                    secondary=secondary_part(self.t, job),
                    age=format_duration(age, self.lang),
                ),
            )
        self._order_evidence_with(winner)
        confidence: Confidence = "HIGH" if winner.direct else "MEDIUM"
        root = self.t(
            "root.pending_resources",
            age=format_duration(age, self.lang),
            line=inline(winner.line),
            meaning=self.t(winner.rule.meaning_key, **fill(winner.values)),
        )
        if confidence == "MEDIUM":
            root = self.t("root.most_likely", cause=root)
        return self.result(
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

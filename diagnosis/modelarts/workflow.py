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
from datetime import datetime

from diagnosis.modelarts import rules
from diagnosis.modelarts.causes import measurements, recommendations, root_for
from diagnosis.modelarts.citations import cite_signal, cite_winner
from diagnosis.modelarts.discovery import discover
from diagnosis.modelarts.events import fetch_events, read_events
from diagnosis.modelarts.failed_calls import details_failure, first_call_failed, retry_step, search_failed
from diagnosis.modelarts.fault_level import fault_level
from diagnosis.modelarts.listing import JobListing, Source, list_jobs
from diagnosis.modelarts.ops import DETAILS, EVENTS, STAGES
from diagnosis.modelarts.parse import (
    Job,
    Stages,
    TaskStatus,
    parse_job,
)
from diagnosis.modelarts.pending import pending_path
from diagnosis.modelarts.permission import permission_denied
from diagnosis.modelarts.previews import cap_tasks, log_signals
from diagnosis.modelarts.run import Run
from diagnosis.modelarts.running import running_path
from diagnosis.modelarts.signals import (
    Signal,
    choose,
    message_signals,
    oom_hint,
    platform_signals,
    shorten,
)
from diagnosis.modelarts.stages import read_stages
from diagnosis.modelarts.stalled import stuck_stage
from diagnosis.modelarts.wording import inline, secondary_part
from diagnosis.models import (
    Category,
    DiagnoseRequest,
    Diagnosis,
    Measurements,
    Recommendation,
)
from diagnosis.source import Answer

__all__ = ["JobListing", "Source", "diagnose", "list_jobs", "listing_failure"]


STOPPED_PHASES = frozenset({"Stopped", "Terminated", "Terminating"})
NORMAL_PHASES = frozenset({"Completed", "Success", "Succeeded"})
OBSERVE_PHASES = frozenset({"Creating", "Initializing"})


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
            return await running_path(self, job)
        if phase in OBSERVE_PHASES:
            self.next_steps.append(self.t("next.look_again"))
            return self.result("observe", root_cause=self.t("root.creating", phase=phase))
        if phase == "Pending":
            return await pending_path(self, job)
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
            fetch_events(self, level="Error"),
            self.source.fetch(STAGES, training_job_id=job.job_id or self.job_id),
        )
        from_events = read_events(self, events_answer, level="Error")
        stages = read_stages(self, stages_answer)
        signals = [*from_messages, *from_platform, *from_events]
        if not any(signal.direct and not signal.consequence for signal in signals):
            # Extended path (M4): the failing tasks' logs, at most 8, concurrently.
            signals.extend(await log_signals(self, job, self._failing_tasks(job)))
        return self._conclude(job, signals, stages=stages, events_read=events_answer)

    def _failing_tasks(self, job: Job) -> list[str]:
        failing = [s.task for s in job.task_statuses if s.task and s.exit_code not in (None, 0)]
        return cap_tasks(self, list(dict.fromkeys(failing)) or job.task_ids)

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
        stage_signal = stuck_stage(self, stages) if stages is not None else None
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

    def _diagnosed_direct(self, job: Job, winner: Signal, signals: list[Signal]) -> Diagnosis:
        cite_winner(self, winner)
        for other in signals:
            if (
                other is not winner
                and other.category == winner.category
                and not other.consequence
                and other.kind != winner.kind
            ):
                cite_signal(self, other)
        root = root_for(self, winner, job)
        if self.consequences:
            tasks = sorted({s.task for s in self.consequences if s.task}) or ["?"]
            root += self.t(
                "root.consequence_suffix",
                tasks=self.t("label.list_sep").join(f"`{task}`" for task in tasks),
                line=inline(shorten(self.consequences[0].line, 120)),
            )
            for consequence in self.consequences:
                cite_signal(self, consequence)
        found = recommendations(self, winner.rule.fixes, winner.values, medium=False)
        if winner.kind == "analysis" and winner.values.get("solution"):
            # The platform's own solution first; the rule's plans after it.
            platform_fix = Recommendation(text=winner.values["solution"].strip(), changes_resources=True)
            found = [platform_fix, *found]
        return self.result(
            "diagnosed",
            category=winner.category,
            confidence="HIGH",
            fault_level=fault_level(job, winner.category, "HIGH"),
            signature=winner.line,
            root_cause=root,
            recommendations=found,
            measurements=measurements(job, winner.task),
        )

    def _diagnosed_indirect(self, job: Job, winner: Signal) -> Diagnosis:
        cite_winner(self, winner)
        meaning = root_for(self, winner, job)
        root = self.t("root.most_likely", cause=meaning)
        if winner.consequence:
            root += self.t("root.consequence_only")
            self.next_steps.append(self.t("next.find_first_failure"))
        return self.result(
            "diagnosed",
            category=winner.category,
            confidence="MEDIUM",
            fault_level=fault_level(job, winner.category, "MEDIUM"),
            signature=winner.line,
            root_cause=root,
            recommendations=recommendations(self, winner.rule.fixes, winner.values, medium=True),
            measurements=measurements(job, winner.task),
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
        found = recommendations(self, fixes, {}, medium=True)
        if not found:
            self._exit_code_next_steps(failing)
        return self.result(
            "diagnosed",
            category=category,
            confidence="MEDIUM",
            fault_level=fault_level(job, category, "MEDIUM"),
            signature=self.t("signature.exit_code", code=code),
            root_cause=root,
            recommendations=found,
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

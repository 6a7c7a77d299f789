"""One diagnosis in progress (a `Run`: what was asked, what was read, what the result will cite),
the operations it reads by their API names, and the Source it reads them from. No I/O of its own.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, Protocol

from diagnosis.evidence.answer import Answer
from diagnosis.modelarts.messages import CATALOGUE
from diagnosis.modelarts.parse.job import Job
from diagnosis.modelarts.parse.preview import Preview
from diagnosis.modelarts.signals import Signal
from diagnosis.models import (
    Category,
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
from diagnosis.render.i18n import Translator

DETAILS = "ShowTrainingJobDetails"
EVENTS = "ListTrainingJobEvents"
STAGES = "ListTrainingJobStages"
PREVIEW = "ShowTrainingJobLogsPreview"
USER_DIAGNOSIS = "ShowTrainingJobUserDiagnosis"
SEARCH = "ListTrainingJobs"


class Source(Protocol):
    """What the workflow reads evidence from: a live, replay or test source (diagnosis.evidence.source)."""

    @property
    def calls(self) -> list[str]: ...

    async def fetch(self, op: str, /, *, variant: str | None = None, **args: Any) -> Answer: ...


def aware(instant: datetime) -> datetime:
    """An instant without a zone is taken as UTC."""
    return instant if instant.tzinfo else instant.replace(tzinfo=UTC)


class Run:
    def __init__(self, request: DiagnoseRequest, source: Source, *, now: datetime, lang: str) -> None:
        self.request = request
        self.source = source
        self.now = aware(now)
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

    def target(self) -> Target:
        job = self.job
        return Target(
            job_id=(job.job_id if job and job.job_id else None) or self.job_id,
            name=job.name if job else None,
            region=self.region,
            project_id=self.project_id,
            phase=job.phase if job else None,
        )

    def result(
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
            target=self.target(),
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

    def insufficient_result(self, *, signature: str | None = None) -> Diagnosis:
        """Not enough to name a cause: UNKNOWN, LOW, Suspected (the next steps say what to fetch)."""
        return self.result(
            "diagnosed",
            category="UNKNOWN",
            confidence="LOW",
            fault_level="Suspected",
            signature=signature,
            root_cause=self.t("root.insufficient"),
        )

    def cite(self, source: str, field: str | None, text: str, value: float | int | str | None = None) -> None:
        self.evidence.append(Evidence(source=source, field=field, text=text, value=value))

    def cite_failure(self, answer: Answer) -> None:
        self.cite(
            answer.op,
            "error_code" if answer.status is not None else None,
            answer.describe_failure(),
            answer.status,
        )

    def note_failure(self, answer: Answer, *, what: str) -> None:
        """A call that gave no usable answer: evidence, limitation, and the denial list."""
        self.cite_failure(answer)
        if answer.denied:
            self.denied.append(answer)
        else:
            self.failed.append(answer)
        self.limitations.append(
            self.t(
                "limit.call_failed",
                op=answer.op,
                what=what,
                failure=answer.describe_failure(lang=self.t.lang),
            )
        )

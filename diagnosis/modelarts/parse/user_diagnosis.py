"""The platform's own log-based diagnosis (`ShowTrainingJobUserDiagnosis`,
https://support.huaweicloud.com/api-modelarts/ShowTrainingJobUserDiagnosis.html)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from diagnosis.evidence.lenient import as_dict, as_list, as_text

# Where a conclusion of the platform's diagnosis may word what it found; the documentation names
# `code` and `class` and leaves the rest open, so every text field it might use is read.
_CONCLUSION_TEXT = ("description", "reason", "cause", "message", "detail", "summary", "name")
_CONCLUSION_SOLUTION = ("solution", "suggestion", "advice")


@dataclass(frozen=True)
class Conclusion:
    """One finding of `ShowTrainingJobUserDiagnosis` (`conclusions[].conclusion`)."""

    index: int
    code: str | None
    kind: str | None  # the API's `class`
    text: str | None
    text_field: str | None
    solution: str | None
    tasks: list[str]

    @property
    def path(self) -> str:
        return f"conclusions[{self.index}].conclusion"


@dataclass(frozen=True)
class UserDiagnosis:
    """The platform's log-based diagnosis: `status` Running (still watching) or Completed, `level`
    Fatal, Error or Warning (high, medium, low risk), and its conclusions."""

    status: str | None
    level: str | None
    conclusions: list[Conclusion]

    @property
    def serious(self) -> bool:
        return (self.level or "").lower() in ("fatal", "error")


def parse_user_diagnosis(body: Any) -> UserDiagnosis | None:
    if not isinstance(body, dict):
        return None
    conclusions: list[Conclusion] = []
    for index, item in enumerate(as_list(body.get("conclusions"))):
        found = as_dict(as_dict(item).get("conclusion"))
        text_field = next((key for key in _CONCLUSION_TEXT if as_text(found.get(key))), None)
        solution = next(
            (as_text(found.get(key)) for key in _CONCLUSION_SOLUTION if as_text(found.get(key))), None
        )
        tasks = [
            task
            for source in as_list(as_dict(item).get("sources"))
            for task in [as_text(as_dict(source).get("task")) or as_text(as_dict(source).get("task_id"))]
            if task
        ]
        if not found:
            continue
        conclusions.append(
            Conclusion(
                index=index,
                code=as_text(found.get("code")),
                kind=as_text(found.get("class")),
                text=as_text(found.get(text_field)) if text_field else None,
                text_field=text_field,
                solution=solution,
                tasks=tasks,
            )
        )
    return UserDiagnosis(
        status=as_text(body.get("status")), level=as_text(body.get("level")), conclusions=conclusions
    )

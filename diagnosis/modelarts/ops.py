"""The ModelArts operations the workflow reads, by their API names (routes.py maps them to HTTP)."""

from __future__ import annotations

from diagnosis.modelarts.listing import SEARCH

DETAILS = "ShowTrainingJobDetails"
EVENTS = "ListTrainingJobEvents"
STAGES = "ListTrainingJobStages"
PREVIEW = "ShowTrainingJobLogsPreview"
USER_DIAGNOSIS = "ShowTrainingJobUserDiagnosis"

__all__ = ["DETAILS", "EVENTS", "PREVIEW", "SEARCH", "STAGES", "USER_DIAGNOSIS"]

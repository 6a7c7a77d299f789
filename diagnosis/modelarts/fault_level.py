"""Rulings M7: the fault level a verdict carries."""

from __future__ import annotations

from diagnosis.modelarts.parse import Job
from diagnosis.models import Category, Confidence, FaultLevel


def fault_level(job: Job, category: Category, confidence: Confidence) -> FaultLevel:
    """LOW or a stall is only Suspected; a Failed / Timeout job is a Fault; anything else Abnormal."""
    if confidence == "LOW" or category == "JOB_STALLED":
        return "Suspected"
    if job.phase in ("Failed", "Timeout"):
        return "Fault"
    return "Abnormal"

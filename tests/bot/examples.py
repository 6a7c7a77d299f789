"""The worked examples as diagnoses, for scripted backends."""

from __future__ import annotations

from diagnosis.models import Diagnosis
from tests.conftest import EXAMPLES, load_json


def example_diagnosis(name: str) -> Diagnosis:
    return Diagnosis.model_validate(load_json(EXAMPLES / f"{name}.diagnosis.json"))


OOM = "runai-optb-oom-recurring"
PREEMPTED = "runai-preempted"
MA_TRACEBACK = "modelarts-early-exit-traceback"
MA_DENIED = "modelarts-permission-denied"

"""Bad input never becomes a traceback: random JSON in every answer still gives a valid diagnosis."""

from __future__ import annotations

import asyncio
from typing import Any

import jsonschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from diagnosis.evidence.answer import Answer
from diagnosis.models import DiagnoseRequest
from diagnosis.runai.workflow import diagnose
from tests.runai.scenarios import T

KEYS = [
    "id",
    "name",
    "type",
    "phase",
    "clusterId",
    "projectName",
    "namespace",
    "conditions",
    "events",
    "records",
    "pods",
    "workloads",
    "next",
    "meta",
    "spec",
    "event",
    "phaseUpdate",
    "reason",
    "message",
    "createdAt",
    "k8sPhase",
    "measurements",
    "values",
    "value",
    "timestamp",
    "status",
    "containerStatuses",
    "state",
    "lastState",
    "terminated",
    "exitCode",
    "items",
    "requestedResources",
    "cpuMemory",
    "limit",
    "compute",
    "involvedObject",
    "kind",
    "nodeName",
    "containers",
    "initContainerStatuses",
    "waiting",
    "type",
]
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 10**12),
    st.floats(allow_nan=True),
    st.sampled_from(
        ["Failed", "Running", "Stopped", "OOMKilled", "c1", "w1", "2026-05-06T08:00:00Z", "16Gi", "BackOff"]
    ),
    st.text(max_size=12),
)
json_values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(st.sampled_from(KEYS), children, max_size=6)
    ),
    max_leaves=25,
)


class RandomSource:
    tier2_available = True

    def __init__(self, bodies: list[Any], statuses: list[int], phase: str | None) -> None:
        self.bodies = bodies
        self.statuses = statuses
        self.phase = phase
        self.calls: list[str] = []

    async def fetch(self, op: str, /, *, variant: str | None = None, **args: Any) -> Answer:
        index = len(self.calls)
        self.calls.append(op)
        if index > 60:
            return Answer(op=op, args=args, error="not recorded in the bundle")
        body = self.bodies[index % len(self.bodies)]
        status = self.statuses[index % len(self.statuses)]
        if op == "get_workload_status" and self.phase is not None:
            # A plausible status (so the later steps run) with random extra fields.
            extra = body if isinstance(body, dict) else {}
            status_body = {
                **extra,
                "id": "w1",
                "clusterId": "c1",
                "phase": self.phase,
                "projectName": "p",
                "type": "Training",
            }
            return Answer(op=op, args=args, status=200, body=status_body)
        if op == "get_workload_pods" and index % 2:
            pods = [{"name": "w1-0-0", "k8sPhase": "Error", "nodeName": "n1"}, body]
            return Answer(op=op, args=args, status=status, body={"pods": pods, "next": None})
        if op == "k8s.read_pod_log":
            return Answer(op=op, args=args, status=status, text=str(body))
        return Answer(op=op, args=args, status=status, body=body)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    bodies=st.lists(json_values, min_size=1, max_size=8),
    statuses=st.lists(st.sampled_from([200, 200, 200, 207, 400, 404, 500]), min_size=1, max_size=4),
    option_b=st.booleans(),
    active=st.booleans(),
    phase=st.sampled_from([None, "Failed", "Stopped", "Running", "Pending", "Initializing", "Crashed"]),
)
def test_random_answers_give_a_valid_diagnosis(
    bodies: list[Any],
    statuses: list[int],
    option_b: bool,
    active: bool,
    phase: str | None,
    diagnosis_schema: dict[str, Any],
) -> None:
    request = DiagnoseRequest(
        platform="runai",
        cluster_id="c1",
        workload_id=None if option_b else "w1",
        workload_name="w" if option_b else None,
        project="p" if option_b else None,
        intent="active" if active else "failure",
    )
    source = RandomSource(bodies, statuses, phase)
    result = asyncio.run(diagnose(request, source, now=T, tier2_available=True))
    jsonschema.validate(result.to_json_dict(), diagnosis_schema)
    assert result.calls == source.calls[: len(result.calls)]

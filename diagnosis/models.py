"""The two contracts that cross the product's edges: `diagnosis/v1` and `evidence-bundle/v1`."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

Platform = Literal["modelarts", "runai"]
Outcome = Literal[
    "diagnosed",
    "not_a_failure",
    "out_of_scope",
    "routed",
    "needs_input",
    "wrong_cluster",
    "not_found",
    "permission_denied",
    "observe",
]
Route = Literal["preempted", "pending_scheduling"]
# The runbook's Run:ai taxonomy; ModelArts adds its own categories after it.
RunaiCategory = Literal[
    "OOM_KILLED",
    "IMAGE_PULL_FAILED",
    "INIT_FAILED",
    "DATASOURCE_MOUNT_FAILED",
    "CRASH_APP_ERROR",
    "NODE_FAILURE",
    "SCHEDULING_POLICY_TERMINATED",
    "UNKNOWN",
]
Category = Literal[
    RunaiCategory,
    "RESOURCE_INSUFFICIENT",
    "JOB_TIMEOUT",
    "JOB_STALLED",
    "COMMUNICATION_FAILURE",
    "DATA_ACCESS_FAILED",
]
Confidence = Literal["HIGH", "MEDIUM", "LOW"]
FaultLevel = Literal["Fault", "Abnormal", "Suspected", "Normal"]
Intent = Literal["failure", "active"]

RUNAI_CATEGORIES: tuple[Category, ...] = get_args(RunaiCategory)

# Strongest direct signal first: the category that wins when several are named.
CATEGORY_PRECEDENCE: tuple[Category, ...] = (
    "OOM_KILLED",
    "IMAGE_PULL_FAILED",
    "INIT_FAILED",
    "DATASOURCE_MOUNT_FAILED",
    "NODE_FAILURE",
    "SCHEDULING_POLICY_TERMINATED",
    "DATA_ACCESS_FAILED",
    "RESOURCE_INSUFFICIENT",
    "JOB_TIMEOUT",
    "COMMUNICATION_FAILURE",
    "CRASH_APP_ERROR",
    "JOB_STALLED",
    "UNKNOWN",
)


class _Model(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class Target(_Model):
    workload_id: str | None = None
    job_id: str | None = None
    name: str | None = None
    project: str | None = None
    project_id: str | None = None
    cluster_id: str | None = None
    region: str | None = None
    type: str | None = None
    phase: str | None = None


class Evidence(_Model):
    source: str
    field: str | None = None
    text: str
    value: float | int | str | None = None


class Measurements(_Model):
    memory_request_bytes: int | None = None
    memory_limit_bytes: int | None = None
    memory_peak_bytes: int | None = None
    exit_code: int | None = None
    restart_count: int | None = None


class Recurrence(_Model):
    count: int = Field(ge=0)
    window: str
    recurring: bool


class Recommendation(_Model):
    text: str
    changes_resources: bool


class Choice(_Model):
    value: str
    label: str


class Question(_Model):
    key: str
    prompt: str
    choices: list[Choice] | None = None


class Diagnosis(_Model):
    schema_: Literal["diagnosis/v1"] = Field(default="diagnosis/v1", alias="schema")
    platform: Platform
    target: Target = Field(default_factory=Target)
    outcome: Outcome
    route: Route | None = None
    category: Category | None = None
    signature: str | None = None
    confidence: Confidence | None = None
    fault_level: FaultLevel | None = None
    root_cause: str = ""
    evidence: list[Evidence] = Field(default_factory=list)
    measurements: Measurements = Field(default_factory=Measurements)
    recurrence: Recurrence | None = None
    recommendations: list[Recommendation] = Field(default_factory=list)
    limitations: list[str] = Field(default_factory=list)
    next_steps: list[str] = Field(default_factory=list)
    questions: list[Question] = Field(default_factory=list)
    permissions: list[str] = Field(default_factory=list)
    calls: list[str] = Field(default_factory=list)

    def to_json_dict(self) -> dict[str, Any]:
        """The contract's JSON: measurements only carry known keys; other absent fields are null/empty."""
        data = self.model_dump(mode="json", by_alias=True)
        data["measurements"] = {k: v for k, v in data["measurements"].items() if v is not None}
        for question in data["questions"]:
            # `choices` is optional: absent, never null (the schema wants an array when present).
            if question.get("choices") is None:
                question.pop("choices", None)
        return data


class Exchange(_Model):
    op: str
    args: dict[str, Any] = Field(default_factory=dict)
    status: int = Field(ge=100, le=599)
    body: Any = None
    text: str | None = None


class DiagnoseRequest(_Model):
    """The identifiers a user gave, named as the CLI flags and slash-command keys."""

    platform: Platform
    # ModelArts
    job_id: str | None = None
    job_name: str | None = None
    region: str | None = None
    # Run:ai
    cluster_id: str | None = None
    workload_id: str | None = None
    workload_name: str | None = None
    project: str | None = None
    lookback: str | None = None
    intent: Intent | None = None

    def identifiers(self) -> dict[str, str]:
        data = self.model_dump(exclude_none=True, exclude={"platform"})
        return {k: str(v) for k, v in data.items() if not isinstance(v, dict | list)}


class ExpectedRecurrence(BaseModel):
    model_config = ConfigDict(extra="forbid")

    count: int = Field(ge=0)
    recurring: bool
    window: str


class Expected(BaseModel):
    """The verdict a test bundle carries with it: what replaying the bundle must give.

    Only the fields a bundle states are compared (`"category": null` states that there is none; a
    field left out is not compared). `signature_contains` is a part of the signature, `signature`
    all of it. `reason` says which rule row or platform rule the verdict rests on.
    """

    model_config = ConfigDict(extra="forbid")

    outcome: Outcome
    route: Route | None = None
    category: Category | None = None
    confidence: Confidence | None = None
    fault_level: FaultLevel | None = None
    signature: str | None = None
    signature_contains: str | None = None
    exit_code: int | None = None
    recurrence: ExpectedRecurrence | None = None
    calls: list[str] | None = None
    reason: str = Field(min_length=1)


class Bundle(_Model):
    schema_: Literal["evidence-bundle/v1"] = Field(default="evidence-bundle/v1", alias="schema")
    platform: Platform
    captured_at: datetime
    request: dict[str, Any] = Field(default_factory=dict)
    # A test bundle's own expected verdict (the evidence-bundle schema allows extra top-level
    # properties; a captured bundle has none).
    expected: Expected | None = None
    exchanges: list[Exchange] = Field(default_factory=list)

    def to_json_dict(self) -> dict[str, Any]:
        data = self.model_dump(mode="json", by_alias=True, exclude_none=False)
        if data.get("expected") is None:
            data.pop("expected", None)
        for exchange in data["exchanges"]:
            if exchange.get("text") is None:
                exchange.pop("text", None)
            if exchange.get("body") is None and "text" in exchange:
                exchange.pop("body", None)
        data["captured_at"] = self.captured_at.strftime("%Y-%m-%dT%H:%M:%SZ")
        return data

"""The two contracts that cross the product's edges: `diagnosis/v1` and `evidence-bundle/v1`."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import JsonDict

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
    # The platform could not be reached, or did not answer in time, before the evidence the
    # workflow needs (connection refused, DNS, TLS, timeout, deadline): not a diagnosis.
    "unreachable",
    # The platform rejected the credentials themselves (invalid token or key, bad signature,
    # clock skew), as opposed to `permission_denied`, a missing grant.
    "auth_failed",
]
# Outcomes that say the platform was never properly asked: no diagnosis of the job at all.
FAILURE_OUTCOMES: frozenset[str] = frozenset({"unreachable", "auth_failed"})
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


# Marks a property that the JSON leaves out when unknown; diagnosis.contract_schemas takes it out
# of `required` (and drops the mark) when it writes the schema files.
OMITTED_WHEN_UNKNOWN = "x-omitted-when-unknown"


def _omitted_when_unknown(schema: JsonDict) -> None:
    """JSON Schema of an optional field that the JSON leaves out when unknown, never `null`."""
    branches = schema.pop("anyOf", None)
    if isinstance(branches, list):
        kept = [branch for branch in branches if branch != {"type": "null"}]
        if len(kept) == 1 and isinstance(kept[0], dict):
            schema.update(kept[0])
        else:
            schema["anyOf"] = kept
    schema.pop("default", None)
    schema[OMITTED_WHEN_UNKNOWN] = True


def _open_to_readers(schema: JsonDict, model: type[BaseModel] | None = None) -> None:
    """The contracts let a reader meet keys it does not know (a later version may add some), so the
    schemas stay open even though the models themselves write and accept only declared fields."""
    schema["additionalProperties"] = True


class _Model(BaseModel):
    """What the product writes: declared fields only (anything else is a programming error).

    The JSON Schemas describe what the product writes: a field with a default is always
    written (null or empty when unknown), so it is required there unless marked above."""

    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
        json_schema_serialization_defaults_required=True,
        json_schema_extra=_open_to_readers,
    )


class _InputModel(_Model):
    """What the product reads from outside (a bundle file): evidence-bundle/v1 allows further keys,
    which are read past and not kept."""

    model_config = ConfigDict(extra="ignore")


def _unset(value: object) -> bool:
    return value is None


def _keys_where_known(schema: JsonDict, model: type[BaseModel]) -> None:
    """JSON Schema of an object whose keys are each present only where known (null allowed)."""
    schema.pop("required", None)
    _open_to_readers(schema)


class Target(_Model):
    """The resolved job, with each key where known (Run:ai and ModelArts use different ones)."""

    model_config = ConfigDict(json_schema_extra=_keys_where_known)

    workload_id: str | None = None
    job_id: str | None = None
    name: str | None = None
    project: str | None = None
    project_id: str | None = None
    cluster_id: str | None = None
    region: str | None = None
    type: str | None = None
    phase: str | None = None
    # Run:ai `wrong_cluster`: the cluster the request named (`cluster_id` is the workload's own).
    asked_cluster_id: str | None = Field(
        default=None, exclude_if=_unset, json_schema_extra=_omitted_when_unknown
    )


EvidenceRole = Literal["consequence"]


class Evidence(_Model):
    source: str
    field: str | None = None
    text: str
    value: float | int | str | None = None
    # "consequence": a failure that usually follows another one, quoted apart from the cause.
    role: EvidenceRole | None = Field(
        default=None, exclude_if=_unset, json_schema_extra=_omitted_when_unknown
    )


class Measurements(_Model):
    """Each key only when it was measured (`to_json_dict` drops the unknown ones)."""

    memory_request_bytes: int | None = Field(default=None, json_schema_extra=_omitted_when_unknown)
    memory_limit_bytes: int | None = Field(default=None, json_schema_extra=_omitted_when_unknown)
    memory_peak_bytes: int | None = Field(default=None, json_schema_extra=_omitted_when_unknown)
    exit_code: int | None = Field(default=None, json_schema_extra=_omitted_when_unknown)
    restart_count: int | None = Field(default=None, json_schema_extra=_omitted_when_unknown)


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
    choices: list[Choice] | None = Field(default=None, json_schema_extra=_omitted_when_unknown)


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


class Exchange(_InputModel):
    """One API answer: JSON in `body`, or plain text (pod logs) in `text`."""

    op: str
    args: dict[str, Any] = Field(default_factory=dict)
    status: int = Field(ge=100, le=599)
    # Left out when the answer was text (`to_json_dict`).
    body: Any = Field(default=None, json_schema_extra=_omitted_when_unknown)
    text: str | None = Field(default=None, json_schema_extra=_omitted_when_unknown)


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


class RobustnessCase(BaseModel):
    """A recorded answer field the real API does not return (checked against the official SDK's
    response models): kept on purpose, to show the product reads it when it is there."""

    model_config = ConfigDict(extra="forbid")

    op: str = Field(min_length=1)
    # JSON paths in the answer, list items written `[]` (`events[].info`); a path covers its children.
    fields: list[str] = Field(min_length=1)
    reason: str = Field(min_length=1)


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
    # Fields of the recorded answers that the real API does not return (see RobustnessCase).
    robustness: list[RobustnessCase] = Field(default_factory=list)


class Bundle(_InputModel):
    schema_: Literal["evidence-bundle/v1"] = Field(default="evidence-bundle/v1", alias="schema")
    platform: Platform
    captured_at: datetime
    request: dict[str, Any] = Field(default_factory=dict)
    # A test bundle's own expected verdict (the evidence-bundle schema allows extra top-level
    # properties; a captured bundle has none).
    expected: Expected | None = Field(default=None, json_schema_extra=_omitted_when_unknown)
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

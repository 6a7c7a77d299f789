"""The contract that crosses the product's edges, `diagnosis/v1`, its vocabulary (platforms,
outcomes, categories) and the recorded exchange."""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import ConfigDict, Field

from diagnosis.contract_base import InputModel, ProductModel, keys_where_known, omitted_when_unknown, unset

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
# The Run:ai failure categories; ModelArts adds its own after them.
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


class Target(ProductModel):
    """The resolved job, with each key where known (Run:ai and ModelArts use different ones)."""

    model_config = ConfigDict(json_schema_extra=keys_where_known)

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
        default=None, exclude_if=unset, json_schema_extra=omitted_when_unknown
    )


EvidenceRole = Literal["consequence"]


class Evidence(ProductModel):
    source: str
    field: str | None = None
    text: str
    value: float | int | str | None = None
    # "consequence": a failure that usually follows another one, quoted apart from the cause.
    role: EvidenceRole | None = Field(default=None, exclude_if=unset, json_schema_extra=omitted_when_unknown)


class Measurements(ProductModel):
    """Each key only when it was measured (`to_json_dict` drops the unknown ones)."""

    memory_request_bytes: int | None = Field(default=None, json_schema_extra=omitted_when_unknown)
    memory_limit_bytes: int | None = Field(default=None, json_schema_extra=omitted_when_unknown)
    memory_peak_bytes: int | None = Field(default=None, json_schema_extra=omitted_when_unknown)
    exit_code: int | None = Field(default=None, json_schema_extra=omitted_when_unknown)
    restart_count: int | None = Field(default=None, json_schema_extra=omitted_when_unknown)


class Recurrence(ProductModel):
    count: int = Field(ge=0)
    window: str
    recurring: bool


class Recommendation(ProductModel):
    text: str
    changes_resources: bool


class Choice(ProductModel):
    value: str
    label: str


class Question(ProductModel):
    key: str
    prompt: str
    choices: list[Choice] | None = Field(default=None, json_schema_extra=omitted_when_unknown)


class Diagnosis(ProductModel):
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


class Exchange(InputModel):
    """One API answer: JSON in `body`, or plain text (pod logs) in `text`."""

    op: str
    args: dict[str, Any] = Field(default_factory=dict)
    status: int = Field(ge=100, le=599)
    # Left out when the answer was text (`to_json_dict`).
    body: Any = Field(default=None, json_schema_extra=omitted_when_unknown)
    text: str | None = Field(default=None, json_schema_extra=omitted_when_unknown)


class DiagnoseRequest(ProductModel):
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

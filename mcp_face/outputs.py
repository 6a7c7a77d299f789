"""What every tool hands back: its JSON as structured content (checked by the SDK against the
tool's output schema) and the Markdown report as text, both through the one masking function.

The output schemas are generated from pydantic models: `Diagnosis` (diagnosis/v1) for the
diagnoses, and below, scan/v1 and explain/v1 as the scans and the catalogue write them.
"""

from __future__ import annotations

from typing import Any, Literal

from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, ConfigDict, Field

from diagnosis.masking import mask, mask_obj
from diagnosis.models import Diagnosis, Platform


class _Contract(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class RecurringCauseReport(_Contract):
    kind: Literal["image", "node", "signature"]
    value: str
    count: int = Field(ge=2)
    workloads: list[str]


class ScanReport(_Contract):
    """scan/v1: what a scan covered, counts by category, one diagnosis/v1 per job, shared causes."""

    schema_: Literal["scan/v1"] = Field(default="scan/v1", alias="schema")
    platform: Platform
    cluster_id: str | None = Field(default=None, description="Run:ai: the cluster scanned")
    project: str | None = Field(default=None, description="Run:ai: the project scanned, if only one")
    lookback: str | None = Field(default=None, description="Run:ai: how far back a failure counted")
    region: str | None = Field(default=None, description="ModelArts: the region scanned")
    scanned: int = Field(ge=0, description="jobs the listing answered with")
    by_category: dict[str, int]
    recurring_causes: list[RecurringCauseReport]
    results: list[Diagnosis]
    limitations: list[str]
    error: Diagnosis | None = Field(default=None, description="the listing itself failed: why")


class ExplanationStepReport(_Contract):
    text: str
    changes_resources: bool = False


class ExplanationReport(_Contract):
    """explain/v1: a catalogue entry, or `known: false` with the statement that it is not known."""

    schema_: Literal["explain/v1"] = Field(default="explain/v1", alias="schema")
    known: bool
    code: str
    message: str | None = Field(default=None, description="for an unknown code: that it is not guessed")
    family: str | None = None
    title: str | None = None
    meaning: str | None = None
    likely_cause: str | None = None
    what_to_do: list[ExplanationStepReport] | None = None
    source: str | None = None
    lang: str | None = None
    http_status: str | None = None
    signal: str | None = None
    decoded: dict[str, str] | None = None


def tool_result(data: dict[str, Any], markdown: str) -> CallToolResult:
    """The JSON (masked) as structured content and the Markdown (masked) as the text block."""
    masked: dict[str, Any] = mask_obj(data)
    return CallToolResult(content=[TextContent(type="text", text=mask(markdown))], structured_content=masked)


def tool_error(text: str) -> CallToolResult:
    """A failure the assistant should read and act on (a timeout, a platform not configured)."""
    return CallToolResult(content=[TextContent(type="text", text=mask(text))], is_error=True)

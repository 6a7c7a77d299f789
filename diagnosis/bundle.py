"""`evidence-bundle/v1`: the recorded exchanges of one diagnosis, and the verdict a test bundle
carries with it."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from diagnosis.contract_base import InputModel, omitted_when_unknown
from diagnosis.models import Category, Confidence, Exchange, FaultLevel, Outcome, Platform, Route


class ExpectedRecurrence(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    count: int = Field(ge=0)
    recurring: bool
    window: str


class RobustnessCase(BaseModel):
    """A recorded answer field the real API does not return (checked against the official SDK's
    response models): kept on purpose, to show the product reads it when it is there."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

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

    model_config = ConfigDict(extra="forbid", defer_build=True)

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
    # What a reader of the report must (or must not) find, in the default language of the
    # platform: each part in the root cause; none of them in it; each in some evidence text;
    # none of them anywhere in the JSON or the Markdown report (a planted secret).
    root_cause_contains: list[str] | None = None
    root_cause_lacks: list[str] | None = None
    evidence_contains: list[str] | None = None
    never_shows: list[str] | None = None
    reason: str = Field(min_length=1)
    # Fields of the recorded answers that the real API does not return (see RobustnessCase).
    robustness: list[RobustnessCase] = Field(default_factory=list)


class Bundle(InputModel):
    schema_: Literal["evidence-bundle/v1"] = Field(default="evidence-bundle/v1", alias="schema")
    platform: Platform
    captured_at: datetime
    request: dict[str, Any] = Field(default_factory=dict)
    # A test bundle's own expected verdict (the evidence-bundle schema allows extra top-level
    # properties; a captured bundle has none).
    expected: Expected | None = Field(default=None, json_schema_extra=omitted_when_unknown)
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

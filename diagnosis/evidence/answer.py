"""One call's outcome as a workflow reads it: the status and body, or why there was no answer, and
what kind of failure it was. Nothing raises into a workflow."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from diagnosis.evidence.failures import (
    UNREACHABLE_KINDS,
    ErrorKind,
    FailureClass,
)
from diagnosis.evidence.messages import failure_words


class Answer(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    op: str
    args: dict[str, Any]
    status: int | None = None
    body: Any = None
    text: str | None = None
    error: str | None = None
    error_kind: ErrorKind | None = None
    # The reason's id in the `evidence` catalogue and its values: `error` is its English text,
    # and a report names the reason in its own language (`describe_failure(lang=…)`).
    error_id: str | None = None
    error_values: dict[str, str] = Field(default_factory=dict)
    request_id: str | None = None

    @classmethod
    def failed(cls, op: str, args: dict[str, Any], kind: ErrorKind, msgid: str, **values: str) -> Answer:
        """A call that got no answer, for the reason `msgid` of the `evidence` catalogue."""
        return cls(
            op=op,
            args=args,
            error=failure_words(msgid, **values),
            error_kind=kind,
            error_id=msgid,
            error_values=values,
        )

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300

    @property
    def denied(self) -> bool:
        return self.status in (401, 403)

    @property
    def retrieved(self) -> bool:
        return self.status is not None

    @property
    def unreachable(self) -> bool:
        """No answer because the platform could not be reached (or not in time)."""
        return self.status is None and self.error_kind in UNREACHABLE_KINDS

    def failure_class(self, *, missing_grant: Callable[[Answer], bool] | None = None) -> FailureClass | None:
        """What this failure means (None for an answer that succeeded). `missing_grant` tells a
        platform's documented "missing grant" 401s apart from rejected credentials."""
        if self.ok:
            return None
        if self.status is None:
            return "unreachable" if self.unreachable else "failed"
        if self.status == 401:
            return "permission_denied" if missing_grant is not None and missing_grant(self) else "auth_failed"
        if self.status == 403:
            return "permission_denied"
        if self.status == 404:
            return "not_found"
        return "failed"

    def error_code(self) -> str | None:
        """The platform's error code from the body, in any of the shapes the platforms use."""
        if not isinstance(self.body, dict):
            return None
        for key in ("error_code", "errorCode", "reason", "error"):
            value = self.body.get(key)
            if isinstance(value, str) and value:
                return value
        code = self.body.get("code")
        return str(code) if code is not None and not isinstance(code, dict | list) else None

    def error_message(self, *, lang: str | None = None) -> str | None:
        """The platform's own words about the failure, else this side's reason (in `lang`)."""
        if isinstance(self.body, dict):
            for key in ("error_msg", "errorMsg", "message", "error_description", "details"):
                value = self.body.get(key)
                if isinstance(value, str) and value:
                    return value
        if self.text:
            return self.text[:300]
        return self.error_words(lang=lang)

    def error_words(self, *, lang: str | None = None) -> str | None:
        """This side's reason for the failure: `error`, or its text in `lang` when one is given."""
        if lang is None or self.error_id is None:
            return self.error
        return failure_words(self.error_id, lang, **self.error_values)

    def describe_failure(self, *, lang: str | None = None) -> str:
        """`HTTP 500 ModelArts.0010: Internal error…`, `timeout`, `not recorded in the bundle`.

        The platform's own words stay as they are; with `lang`, this side's reasons (a timeout, a
        name not resolved, a call not recorded) are in that language."""
        if self.status is None:
            words = self.error_words(lang=lang)
            if words:
                return words
            return failure_words("failure.no_answer", lang) if lang else "no answer"
        parts = [f"HTTP {self.status}"]
        code = self.error_code()
        if code and code != str(self.status):
            parts.append(code)
        # The platform's words, quoted into prose: on one line, so that they cannot open a code
        # block, a list or a heading of their own in a report.
        message = " ".join((self.error_message(lang=lang) or "").split())
        text = " ".join(parts)
        return f"{text}: {message}" if message else text

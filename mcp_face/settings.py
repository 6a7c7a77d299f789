"""The MCP server's own configuration: `DIAGNOSE_MCP_*` variables, overridden by `diagnose mcp` flags."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from diagnosis.timeutil import parse_instant

DEFAULT_TIMEOUT_SECONDS = 45.0


class SettingsError(ValueError):
    """A setting that cannot be used, with a one-line reason."""


class McpSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="DIAGNOSE_MCP_", extra="ignore", case_sensitive=False)

    # Each tool call is stopped after this long (a scan of a large cluster included).
    timeout: float = Field(default=DEFAULT_TIMEOUT_SECONDS, gt=0)
    # The access policy over HTTP: a YAML/JSON file, or the same document inline.
    policy: Path | None = None
    policy_json: str | None = None
    # Audit lines (JSON, one object per line) are appended here; unset: standard error.
    audit: Path | None = None


def current_time() -> datetime:
    """`DIAGNOSE_NOW` (the 'now' for lookback windows and metric ranges, as for the CLI), else the clock."""
    text = os.environ.get("DIAGNOSE_NOW")
    if not text:
        return datetime.now(UTC)
    instant = parse_instant(text)
    if instant is None:
        raise SettingsError(f"cannot read DIAGNOSE_NOW {text!r}: use ISO-8601, e.g. 2026-11-28T09:00:00Z")
    return instant

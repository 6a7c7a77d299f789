"""Bot configuration from the environment (never from the repo): tokens, API base URL, state, policy."""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


def default_state_path() -> Path:
    """`DIAGNOSE_STATE_DIR/state.sqlite3` (the container's volume), else under XDG_STATE_HOME."""
    directory = os.environ.get("DIAGNOSE_STATE_DIR")
    if directory:
        return Path(directory) / "state.sqlite3"
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "diagnose-bot" / "state.sqlite3"


class BotSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="", extra="ignore", populate_by_name=True)

    bot_token: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("SLACK_BOT_TOKEN", "bot_token")
    )
    app_token: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("SLACK_APP_TOKEN", "app_token")
    )
    signing_secret: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("SLACK_SIGNING_SECRET", "signing_secret")
    )
    # The Web API base URL (tests point it at a local stand-in); Slack's own by default.
    api_url: str | None = Field(default=None, validation_alias=AliasChoices("SLACK_API_URL", "api_url"))
    redis_url: str | None = Field(default=None, validation_alias=AliasChoices("REDIS_URL", "redis_url"))
    # Key prefix in Redis: every replica of one bot uses the same; two bots sharing a Redis differ.
    redis_namespace: str = Field(
        default="diagnose-bot",
        min_length=1,
        validation_alias=AliasChoices("DIAGNOSE_REDIS_NAMESPACE", "redis_namespace"),
    )
    state_path: Path = Field(
        default_factory=default_state_path, validation_alias=AliasChoices("DIAGNOSE_STATE_PATH", "state_path")
    )
    policy_path: str | None = Field(
        default=None, validation_alias=AliasChoices("DIAGNOSE_POLICY", "policy_path")
    )
    diagnosis_slots: int = Field(
        default=4, ge=1, validation_alias=AliasChoices("DIAGNOSE_BOT_WORKERS", "diagnosis_slots")
    )
    # Worker threads for the short Slack exchanges (placeholders, questions, follow-ups).
    chat_threads: int = Field(
        default=8, ge=1, validation_alias=AliasChoices("DIAGNOSE_BOT_CHAT_THREADS", "chat_threads")
    )
    max_waiting: int = Field(
        default=50, ge=0, validation_alias=AliasChoices("DIAGNOSE_BOT_QUEUE", "max_waiting")
    )
    progress_interval_seconds: float = Field(
        default=2.0,
        ge=0,
        validation_alias=AliasChoices("DIAGNOSE_BOT_PROGRESS_SECONDS", "progress_interval_seconds"),
    )

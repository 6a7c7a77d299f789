"""The playground's people and channels, and the access policy the bot is started with.

The policy lets the two on-call engineers diagnose in the incident channels (one per language,
each channel's report language set by the policy) and nobody in #random; the guest is in no rule.
Switching the person or the channel on the page tries exactly these rules.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from playground.slack_requests import Channel, Person

PEOPLE: tuple[Person, ...] = (
    Person("U0ALICE01", "alice"),
    Person("U0BOB0002", "bob"),
    Person("U0GUEST03", "guest"),
)
CHANNELS: tuple[Channel, ...] = (
    Channel("C0INC0042", "inc-42-training"),
    Channel("C0MLOPSFR", "mlops-fr"),
    Channel("C0MLOPSZH", "mlops-zh"),
    Channel("C0MLOPSJA", "mlops-ja"),
    Channel("C0RANDOM1", "random"),
)
CHANNEL_LANGUAGES = {"C0MLOPSFR": "fr", "C0MLOPSZH": "zh", "C0MLOPSJA": "ja"}
ON_CALL = ("U0ALICE01", "U0BOB0002")
INCIDENT_CHANNELS = ("C0INC0042", "C0MLOPSFR", "C0MLOPSZH", "C0MLOPSJA")


def person(user_id: str) -> Person:
    for item in PEOPLE:
        if item.user_id == user_id:
            return item
    raise KeyError(user_id)


def channel(channel_id: str) -> Channel:
    for item in CHANNELS:
        if item.channel_id == channel_id:
            return item
    raise KeyError(channel_id)


def policy() -> dict[str, object]:
    """The bot's access policy (the format of DIAGNOSE_POLICY)."""
    return {
        "languages": dict(CHANNEL_LANGUAGES),
        "rules": {"on-call": {"channels": list(INCIDENT_CHANNELS), "users": list(ON_CALL)}},
    }


def write_policy(folder: Path) -> Path:
    path = folder / "policy.yaml"
    path.write_text(yaml.safe_dump(policy(), sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path

"""manifest.yml asks for exactly what the bot uses; the Dockerfile runs it as a non-root user."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from bot.listeners.commands import COMMAND
from tests.conftest import ROOT

# Web API method (as called in bot/) → the bot scope it needs (shared/reference/slack.md 3.1).
METHOD_SCOPES = {
    "chat_postMessage": "chat:write",
    "chat_update": "chat:write",
    "chat_postEphemeral": "chat:write",
    "files_upload_v2": "files:write",
    "usergroups_users_list": "usergroups:read",
    "views_open": None,
}
# Event subscriptions → the scope each needs.
EVENT_SCOPES = {
    "app_mention": "app_mentions:read",
    "message.channels": "channels:history",
    "message.groups": "groups:history",
}


def manifest() -> dict:
    data: dict = yaml.safe_load((ROOT / "manifest.yml").read_text(encoding="utf-8"))
    return data


def methods_called_by_the_bot() -> set[str]:
    called: set[str] = set()
    for path in (ROOT / "bot").rglob("*.py"):
        called.update(re.findall(r"\.(\w+)\(", path.read_text(encoding="utf-8")))
    return called & set(METHOD_SCOPES)


def test_scopes_are_exactly_those_used() -> None:
    data = manifest()
    scopes = set(data["oauth_config"]["scopes"]["bot"])
    events = set(data["settings"]["event_subscriptions"]["bot_events"])
    needed = {METHOD_SCOPES[m] for m in methods_called_by_the_bot()} - {None}
    needed |= {EVENT_SCOPES[e] for e in events} | {"commands"}
    assert scopes == needed
    assert events == set(EVENT_SCOPES), "mentions and thread replies in public and private channels"


def test_manifest_is_a_socket_mode_app_with_the_command_and_interactivity() -> None:
    data = manifest()
    assert data["_metadata"]["major_version"] == 1
    assert 1 <= len(data["display_information"]["name"]) <= 35
    assert 1 <= len(data["display_information"]["description"]) <= 140
    [command] = data["features"]["slash_commands"]
    assert command["command"] == COMMAND and command["should_escape"] is True
    assert len(command["usage_hint"]) <= 1000 and len(command["description"]) <= 2000
    assert data["settings"]["socket_mode_enabled"] is True
    assert data["settings"]["interactivity"]["is_enabled"] is True
    assert "url" not in command and "request_url" not in data["settings"]["event_subscriptions"]


def test_dockerfile_runs_the_bot_as_non_root() -> None:
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert re.search(r"^FROM python:3\.11-slim\b", text, re.MULTILINE)
    assert "pip install -c requirements/lock.txt '.[charts]'" in text
    user = re.findall(r"^USER (\S+)", text, re.MULTILINE)
    assert user and not user[-1].startswith(("root", "0"))
    assert 'ENTRYPOINT ["diagnose"]' in text and 'CMD ["bot"]' in text
    ignored = (ROOT / ".dockerignore").read_text(encoding="utf-8").split()
    assert ".venv" in ignored and ".git" in ignored
    for copied in re.findall(r"^COPY (\S+)", text, re.MULTILINE):
        assert (ROOT / copied).exists(), f"COPY {copied}: missing from the build context"
    assert Path(ROOT / "diagnosis" / "examples").is_dir(), "the demo bundles ship with the image"

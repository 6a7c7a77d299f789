"""manifest.yml asks for exactly what the bot uses; the Dockerfile runs it as a non-root user."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from bot.listeners.commands import COMMAND
from bot.server import EVENTS_PATH
from tests.conftest import ROOT

# Web API method (as called in bot/) → the bot scope it needs (shared/reference/slack.md 3.1).
METHOD_SCOPES = {
    "chat_postMessage": "chat:write",
    "chat_update": "chat:write",
    "chat_postEphemeral": "chat:write",
    # Public channels; in private ones groups:history, which the message.groups event needs anyway.
    "conversations_history": "channels:history",
    "conversations_replies": "channels:history",
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


def test_the_http_mode_manifest_is_the_same_app_sending_everything_to_the_bots_endpoint() -> None:
    socket_mode = manifest()
    http: dict = yaml.safe_load((ROOT / "manifest.http.yml").read_text(encoding="utf-8"))
    [command] = http["features"]["slash_commands"]
    settings = http["settings"]
    urls = [command.pop("url"), settings["event_subscriptions"].pop("request_url")]
    urls.append(settings["interactivity"].pop("request_url"))
    assert all(url.startswith("https://") and url.endswith(EVENTS_PATH) for url in urls), urls
    assert settings.pop("socket_mode_enabled") is False and socket_mode["settings"].pop("socket_mode_enabled")
    # Everything else (scopes, events, the command) is the Socket Mode app's: the two never drift.
    assert http == socket_mode


def test_the_docs_http_mode_command_has_every_variable_it_needs() -> None:
    for doc in ("README.md", "docs/slack-bot.md"):
        text = (ROOT / doc).read_text(encoding="utf-8")
        commands = [line for line in text.splitlines() if "diagnose bot --http" in line and "=" in line]
        assert commands, doc
        for line in commands:
            assert "SLACK_BOT_TOKEN" in line and "SLACK_SIGNING_SECRET" in line, (doc, line)


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

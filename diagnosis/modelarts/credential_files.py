"""Where the Huawei Cloud tools keep keys on disk: the SDK's credentials file (INI, `[basic]`) and
KooCLI's profiles (`~/.hcloud/config.json`), read leniently."""

from __future__ import annotations

import configparser
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from diagnosis.modelarts.settings import ConfigError, ModelArtsSettings


@dataclass(frozen=True)
class KooCliProfile:
    name: str
    region: str | None
    project_id: str | None
    access_key: str | None
    secret_key: str | None
    security_token: str | None
    encrypted: bool
    mode: str | None


def _truthy(value: Any) -> bool:
    return str(value).strip().lower() == "true"


def clean(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def read_credentials_file(settings: ModelArtsSettings, home: Path) -> tuple[dict[str, str], str]:
    configured = settings.huaweicloud_sdk_credentials_file
    path = Path(configured) if configured else home / ".huaweicloud" / "credentials"
    parser = configparser.ConfigParser(interpolation=None)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return {}, str(path)
    try:
        parser.read_string(text)
    except configparser.Error:
        raise ConfigError(
            f"the credentials file {path} is not a valid INI file (expected a [basic] section)"
        ) from None
    if not parser.has_section("basic"):
        return {}, str(path)
    values = {key: value for key, value in parser.items("basic") if clean(value)}
    return values, str(path)


def read_koocli(home: Path) -> tuple[list[KooCliProfile], str | None, str]:
    path = home / ".hcloud" / "config.json"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return [], None, str(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        raise ConfigError(f"the KooCLI configuration {path} is not valid JSON") from None
    if not isinstance(data, dict):
        return [], None, str(path)
    encrypted = _truthy(data.get("authEncrypt"))
    profiles: list[KooCliProfile] = []
    for item in data.get("profiles") or []:
        if not isinstance(item, dict) or not clean(item.get("name")):
            continue
        profiles.append(
            KooCliProfile(
                name=str(item["name"]),
                region=clean(item.get("region")),
                project_id=clean(item.get("projectId")),
                access_key=clean(item.get("accessKeyId")),
                secret_key=clean(item.get("secretAccessKey")),
                security_token=clean(item.get("securityToken")),
                encrypted=encrypted,
                mode=clean(item.get("mode")),
            )
        )
    current = clean(data.get("current")) or "default"
    return profiles, current, str(path)


def select_profile(profiles: list[KooCliProfile], name: str | None) -> KooCliProfile | None:
    for item in profiles:
        if item.name == name:
            return item
    return None

"""AK/SK, region and project id, looked up where the Huawei Cloud tools keep them (modelarts-api.md §8).

Order, first found wins for each value:

1. the SDK's environment variables `HUAWEICLOUD_SDK_AK`, `HUAWEICLOUD_SDK_SK`,
   `HUAWEICLOUD_SDK_SECURITY_TOKEN`, `HUAWEICLOUD_SDK_PROJECT_ID`;
2. the SDK's credentials file (`HUAWEICLOUD_SDK_CREDENTIALS_FILE`, default
   `~/.huaweicloud/credentials`, INI section `[basic]`: `ak`, `sk`, `security_token`, `project_id`);
3. a KooCLI profile in `~/.hcloud/config.json` (the current one, or the one named): region and
   `projectId` always; keys only when the file stores them unencrypted (`authEncrypt` not "true").

A project id is per region: a KooCLI profile's `projectId` is used only for that profile's region
(any profile of the file with the asked region will do). The keys are kept out of every `repr`.
"""

from __future__ import annotations

import configparser
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from diagnosis.modelarts.settings import DEFAULT_REGION, ConfigError, check_region

KEY_VARIABLES = "HUAWEICLOUD_SDK_AK and HUAWEICLOUD_SDK_SK"


@dataclass(frozen=True, repr=False)
class Credentials:
    access_key: str
    secret_key: str
    security_token: str | None
    project_id: str
    region: str
    # Where each value came from, for `--explain`-style messages; never the values themselves.
    key_source: str
    project_source: str

    def __repr__(self) -> str:
        return (
            f"Credentials(access_key=[MASKED:ak], secret_key=[MASKED:sk], region={self.region!r}, "
            f"project_id={self.project_id!r}, key_source={self.key_source!r})"
        )


@dataclass(frozen=True)
class _Profile:
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


def _clean(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def _read_credentials_file(env: Mapping[str, str], home: Path) -> tuple[dict[str, str], str]:
    configured = env.get("HUAWEICLOUD_SDK_CREDENTIALS_FILE")
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
    values = {key: value for key, value in parser.items("basic") if _clean(value)}
    return values, str(path)


def _read_koocli(home: Path, env: Mapping[str, str]) -> tuple[list[_Profile], str | None, str]:
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
    profiles: list[_Profile] = []
    for item in data.get("profiles") or []:
        if not isinstance(item, dict) or not _clean(item.get("name")):
            continue
        profiles.append(
            _Profile(
                name=str(item["name"]),
                region=_clean(item.get("region")),
                project_id=_clean(item.get("projectId")),
                access_key=_clean(item.get("accessKeyId")),
                secret_key=_clean(item.get("secretAccessKey")),
                security_token=_clean(item.get("securityToken")),
                encrypted=encrypted,
                mode=_clean(item.get("mode")),
            )
        )
    current = _clean(data.get("current")) or "default"
    return profiles, current, str(path)


def default_region(
    *, profile: str | None = None, env: Mapping[str, str] | None = None, home: Path | None = None
) -> str:
    """The region to use when none is given: the KooCLI profile's, else cn-north-4."""
    environ = os.environ if env is None else env
    profiles, current, _path = _read_koocli(home or Path.home(), environ)
    chosen = _select_profile(profiles, profile or current)
    if chosen is not None and chosen.region:
        return chosen.region
    return DEFAULT_REGION


def _select_profile(profiles: list[_Profile], name: str | None) -> _Profile | None:
    for item in profiles:
        if item.name == name:
            return item
    return None


def resolve(
    region: str | None = None,
    *,
    profile: str | None = None,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
) -> Credentials:
    """Keys, region and project id for one region, or a ConfigError that names what to set."""
    environ = os.environ if env is None else env
    home = home or Path.home()
    file_values, file_path = _read_credentials_file(environ, home)
    profiles, current, koocli_path = _read_koocli(home, environ)
    wanted_profile = profile or environ.get("HCLOUD_PROFILE") or current
    chosen = _select_profile(profiles, wanted_profile)
    if profile and chosen is None:
        raise ConfigError(f"no KooCLI profile named {profile!r} in {koocli_path}")

    region = check_region(region or (chosen.region if chosen and chosen.region else DEFAULT_REGION))

    access_key = _clean(environ.get("HUAWEICLOUD_SDK_AK"))
    secret_key = _clean(environ.get("HUAWEICLOUD_SDK_SK"))
    token = _clean(environ.get("HUAWEICLOUD_SDK_SECURITY_TOKEN"))
    key_source = "environment"
    if not (access_key and secret_key):
        access_key, secret_key = _clean(file_values.get("ak")), _clean(file_values.get("sk"))
        token = _clean(file_values.get("security_token"))
        key_source = file_path
    if not (access_key and secret_key) and chosen is not None:
        if chosen.encrypted and (chosen.access_key or chosen.secret_key):
            raise ConfigError(
                f"the KooCLI profile {chosen.name!r} in {koocli_path} stores its keys encrypted, which this "
                f"tool cannot read: set {KEY_VARIABLES} (or `ak`/`sk` under [basic] in {file_path})"
            )
        if chosen.mode and chosen.mode.upper() != "AKSK":
            raise ConfigError(
                f"the KooCLI profile {chosen.name!r} uses {chosen.mode} authentication, which this tool "
                f"does not support: set {KEY_VARIABLES}"
            )
        access_key, secret_key, token = chosen.access_key, chosen.secret_key, chosen.security_token
        key_source = f"KooCLI profile {chosen.name!r}"
    if not (access_key and secret_key):
        raise ConfigError(
            f"no Huawei Cloud access key found: set {KEY_VARIABLES} (or `ak`/`sk` under [basic] in {file_path})"
        )

    project_id = _clean(environ.get("HUAWEICLOUD_SDK_PROJECT_ID"))
    project_source = "HUAWEICLOUD_SDK_PROJECT_ID"
    if not project_id:
        project_id = _clean(file_values.get("project_id"))
        project_source = file_path
    if not project_id:
        # A project id belongs to one region: take it from a profile of that region only.
        candidates = ([chosen] if chosen else []) + [item for item in profiles if item is not chosen]
        for item in candidates:
            if item.region == region and item.project_id:
                project_id = item.project_id
                project_source = f"KooCLI profile {item.name!r}"
                break
    if not project_id:
        raise ConfigError(
            f"no project id for region {region}: set HUAWEICLOUD_SDK_PROJECT_ID (the IAM project id of "
            f"{region}), or `project_id` under [basic] in {file_path}, or run "
            f"`hcloud configure set --cli-region={region} --cli-project-id=<id>`"
        )
    return Credentials(
        access_key=access_key,
        secret_key=secret_key,
        security_token=token,
        project_id=project_id,
        region=region,
        key_source=key_source,
        project_source=project_source,
    )

"""Where the ModelArts API lives for a region, found the way the Huawei Cloud SDK finds it.

Order: the SDK's environment override `HUAWEICLOUD_SDK_REGION_MODELARTS_<REGION>` (region id
upper-cased, `-` -> `_`; a comma-separated list takes its first entry), then the SDK's region file
(`HUAWEICLOUD_SDK_REGIONS_FILE`, default `~/.huaweicloud/regions.yaml`: per service a list of
`{id, endpoints: [...]}` or `{id, endpoint}`), then the SDK's built-in table. A region none of them
knows is an error naming how to configure it, as the SDK's `ModelArtsRegion.value_of` refuses it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import SecretStr, field_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from diagnosis.modelarts.defaults import DEFAULT_REGION

__all__ = ["DEFAULT_REGION", "ConfigError", "ModelArtsSettings", "check_region", "endpoint_for"]

REGION_PATTERN = re.compile(r"^[a-z]{2,}-[a-z]+-\d+$")

# The SDK's region table for ModelArts (huaweicloudsdkmodelarts' ModelArtsRegion). ap-southeast-1 really ends
# in `.cn` in the SDK release the reference was read from.
KNOWN_ENDPOINTS: dict[str, str] = {
    region: f"https://modelarts.{region}.myhuaweicloud.com"
    for region in (
        "cn-north-1",
        "cn-north-2",
        "cn-north-4",
        "cn-north-9",
        "cn-north-11",
        "cn-north-12",
        "cn-east-3",
        "cn-east-4",
        "cn-south-1",
        "cn-southwest-2",
        "cn-southwest-3",
        "ap-southeast-2",
        "ap-southeast-3",
        "ap-southeast-4",
        "af-south-1",
        "af-north-1",
        "la-south-2",
        "la-north-2",
        "sa-brazil-1",
        "tr-west-1",
        "me-east-1",
    )
}
KNOWN_ENDPOINTS["ap-southeast-1"] = "https://modelarts.ap-southeast-1.myhuaweicloud.cn"


class ConfigError(ValueError):
    """Configuration the tool needs is missing or unusable; the message says what to set."""


class ModelArtsSettings(BaseSettings):
    """The variables the ModelArts face reads: the official SDK's own names (so a machine set up for
    the SDK or KooCLI works as it is), the pod-identity and OIDC variables its providers read, and
    this tool's `DIAGNOSE_*` settings. A blank value counts as unset. The per-region endpoint
    override (`HUAWEICLOUD_SDK_REGION_MODELARTS_<REGION>`) is looked up by name (endpoint_for)."""

    model_config = SettingsConfigDict(env_prefix="", extra="ignore", case_sensitive=False, frozen=True)

    huaweicloud_sdk_ak: str | None = None
    huaweicloud_sdk_sk: SecretStr | None = None
    huaweicloud_sdk_security_token: SecretStr | None = None
    huaweicloud_sdk_project_id: str | None = None
    huaweicloud_sdk_credentials_file: str | None = None
    huaweicloud_sdk_regions_file: str | None = None
    huaweicloud_sdk_iam_endpoint: str | None = None
    huaweicloud_sdk_sts_endpoint: str | None = None
    huaweicloud_sdk_idp_id: str | None = None
    huaweicloud_sdk_id_token_file: str | None = None
    huaweicloud_oidc_provider_urn: str | None = None
    huaweicloud_oidc_agency_urn: str | None = None
    huaweicloud_oidc_id_token: SecretStr | None = None
    huaweicloud_oidc_token_file: str | None = None
    huaweicloud_oidc_session_name: str | None = None
    hc_container_credentials_full_uri: str | None = None
    hc_container_authorization_token_file: str | None = None
    hcloud_profile: str | None = None
    # A deployment's region when none is asked and no KooCLI profile names one.
    diagnose_modelarts_region: str | None = None
    # "on" (or the service's URL) lets the ECS/CCE metadata service be asked for keys.
    diagnose_huaweicloud_metadata: str | None = None

    @field_validator("*", mode="before")
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        if isinstance(value, str) and not value.strip():
            return None
        return value.strip() if isinstance(value, str) else value

    @classmethod
    def of(cls, env: Mapping[str, str] | None = None) -> ModelArtsSettings:
        """From the process environment, or from exactly the mapping given (nothing else read)."""
        if env is None:
            return cls()
        given: dict[str, Any] = {
            key.lower(): value for key, value in env.items() if key.lower() in cls.model_fields
        }
        return _GivenSettings.model_validate(given)

    def secret(self, name: str) -> str | None:
        value = getattr(self, name)
        return value.get_secret_value() if isinstance(value, SecretStr) else value


class _GivenSettings(ModelArtsSettings):
    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings,)


def region_env_name(region: str) -> str:
    return "HUAWEICLOUD_SDK_REGION_MODELARTS_" + region.upper().replace("-", "_")


def check_region(region: str) -> str:
    region = region.strip()
    if not REGION_PATTERN.match(region):
        raise ConfigError(f"invalid region {region!r}: use a Huawei Cloud region id such as cn-north-4")
    return region


def endpoint_for(region: str, *, env: Mapping[str, str] | None = None, home: Path | None = None) -> str:
    """The base URL (scheme, host, optional port; no path) of ModelArts in `region`."""
    environ = os.environ if env is None else env
    region = check_region(region)
    override = environ.get(region_env_name(region), "").strip()
    if override:
        first = override.split(",")[0].strip()
        return first.rstrip("/")
    from_file = _endpoint_from_regions_file(region, environ, home)
    if from_file:
        return from_file
    known = KNOWN_ENDPOINTS.get(region)
    if known is None:
        raise ConfigError(
            f"unknown ModelArts region {region!r}: use one of {', '.join(sorted(KNOWN_ENDPOINTS))}, "
            f"or set {region_env_name(region)} (or a {region!r} entry under ModelArts in the region "
            "file HUAWEICLOUD_SDK_REGIONS_FILE) to its endpoint"
        )
    return known


def _endpoint_from_regions_file(region: str, env: Mapping[str, str], home: Path | None) -> str | None:
    configured = ModelArtsSettings.of(env).huaweicloud_sdk_regions_file
    path = Path(configured) if configured else (home or Path.home()) / ".huaweicloud" / "regions.yaml"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return None
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        raise ConfigError(f"the region file {path} is not valid YAML") from None
    if not isinstance(data, dict):
        return None
    # {ModelArts: [{id: cn-north-4, endpoints: [https://…, …]}]} or `endpoint: https://…`; the SDK
    # reads `endpoints` first and appends `endpoint`; service names are case-insensitive.
    for service, entries in data.items():
        if str(service).lower() != "modelarts" or not isinstance(entries, list):
            continue
        for entry in entries:
            if not isinstance(entry, dict) or entry.get("id") != region:
                continue
            listed = entry.get("endpoints")
            endpoints = [str(item) for item in listed if item] if isinstance(listed, list) else []
            if entry.get("endpoint"):
                endpoints.append(str(entry["endpoint"]))
            if endpoints:
                return endpoints[0].split(",")[0].strip().rstrip("/")
    return None

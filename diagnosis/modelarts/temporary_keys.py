"""Temporary keys from the places the official SDK's provider chain reads them, through the SDK's
own providers and accessors (huaweicloudsdkcore.auth): OIDC federation through STS, IAM
identity-provider federation, CCE pod identity and the ECS/CCE metadata service. The SDK is
imported only when one of them is asked, so that no other command pays for its import.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import httpx

from diagnosis.modelarts.credentials import Credentials, NoKeysError, default_region, resolve
from diagnosis.modelarts.project import with_project
from diagnosis.modelarts.settings import ConfigError, ModelArtsSettings, check_region

# The ECS/CCE metadata service is asked only when METADATA_SETTING says so ("on", or the service's
# URL): the SDK asks it whenever nothing else gave keys, which makes a laptop wait for a
# link-local address.

TemporaryKind = Literal["oidc", "federation", "pod_identity", "metadata"]
# Temporary keys by kind, as the SDK's credential objects (they refresh themselves when less than
# 40 minutes are left), for the life of the process.
_TEMPORARY: dict[TemporaryKind, Any] = {}


def temporary_kinds(settings: ModelArtsSettings) -> list[TemporaryKind]:
    """The temporary-key providers this environment configures, in the SDK chain's order: OIDC
    federation through STS (`HUAWEICLOUD_OIDC_*`) before the static keys; after them an IAM
    identity-provider federation (`HUAWEICLOUD_SDK_IDP_ID` and `HUAWEICLOUD_SDK_ID_TOKEN_FILE`),
    CCE pod identity (`HC_CONTAINER_CREDENTIALS_FULL_URI` and `HC_CONTAINER_AUTHORIZATION_TOKEN_FILE`),
    then the ECS/CCE metadata service's agency keys (when METADATA_SETTING allows it)."""
    kinds: list[TemporaryKind] = []
    if settings.huaweicloud_oidc_provider_urn and settings.huaweicloud_oidc_agency_urn:
        kinds.append("oidc")
    if settings.huaweicloud_sdk_idp_id and settings.huaweicloud_sdk_id_token_file:
        kinds.append("federation")
    if settings.hc_container_credentials_full_uri and settings.hc_container_authorization_token_file:
        kinds.append("pod_identity")
    if metadata_endpoint(settings):
        kinds.append("metadata")
    return kinds


def metadata_endpoint(settings: ModelArtsSettings) -> str | None:
    value = (settings.diagnose_huaweicloud_metadata or "off").lower()
    if value in ("off", "false", "0", "no"):
        return None
    if value in ("on", "true", "1", "yes"):
        return "http://169.254.169.254"
    return value.rstrip("/")


async def resolve_with_temporary(
    region: str | None = None,
    *,
    profile: str | None = None,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
) -> Credentials:
    """`resolve`, with the temporary keys of the SDK's providers where they apply (OIDC first, the
    others when no static keys exist). Their keys carry a security token and no project id (it is
    looked up) except OIDC's, which reads `HUAWEICLOUD_SDK_PROJECT_ID` as the SDK does."""
    settings = ModelArtsSettings.of(env)
    kinds = temporary_kinds(settings)
    if "oidc" in kinds:
        return await _temporary(region, "oidc", settings, env=env, profile=profile, home=home)
    try:
        return resolve(region, profile=profile, env=env, home=home)
    except NoKeysError as missing:
        reasons: list[str] = []
        for kind in kinds:
            try:
                return await _temporary(region, kind, settings, env=env, profile=profile, home=home)
            except ConfigError as failed:
                reasons.append(str(failed))
        if reasons:
            raise NoKeysError(f"{missing}; " + "; ".join(reasons)) from None
        raise


async def _temporary(
    region: str | None,
    kind: TemporaryKind,
    settings: ModelArtsSettings,
    *,
    env: Mapping[str, str] | None,
    profile: str | None,
    home: Path | None,
) -> Credentials:
    import asyncio

    try:
        access_key, secret_key, token = await asyncio.to_thread(_sdk_temporary_keys, kind, settings)
    except Exception as exc:  # the SDK raises its own errors and those of `requests`
        # The message of an STS or metadata failure never holds a key: only its kind and status.
        raise ConfigError(f"{_KIND_NAMES[kind]} gave no keys ({type(exc).__name__})") from None
    chosen_region = check_region(region or default_region(profile=profile, env=env, home=home))
    project_id = settings.huaweicloud_sdk_project_id if kind == "oidc" else None
    return Credentials(
        access_key=access_key,
        secret_key=secret_key,
        security_token=token,
        project_id=project_id,
        region=chosen_region,
        key_source=_KIND_NAMES[kind],
        project_source="HUAWEICLOUD_SDK_PROJECT_ID" if project_id else "IAM",
    )


_KIND_NAMES: dict[TemporaryKind, str] = {
    "oidc": "OIDC federation (HUAWEICLOUD_OIDC_*)",
    "federation": "identity-provider federation (HUAWEICLOUD_SDK_IDP_ID)",
    "pod_identity": "CCE pod identity (HC_CONTAINER_CREDENTIALS_FULL_URI)",
    "metadata": "ECS/CCE metadata service",
}


def _sdk_temporary_keys(kind: TemporaryKind, settings: ModelArtsSettings) -> tuple[str, str, str | None]:
    """The SDK's providers and accessors themselves (blocking HTTP through `requests`, run in a
    thread); imported here only, so that no other command pays for the SDK's import."""
    from huaweicloudsdkcore.auth.credentials import BasicCredentials
    from huaweicloudsdkcore.auth.internal import (
        FederalAccessor,
        IamHelper,
        MetadataAccessor,
        PodIdentityAccessor,
    )
    from huaweicloudsdkcore.auth.provider import OidcStsCredentialProvider

    credentials = _TEMPORARY.get(kind)
    if credentials is None:
        if kind == "oidc":
            credentials = OidcStsCredentialProvider(
                "basic",
                provider_urn=settings.huaweicloud_oidc_provider_urn,
                agency_urn=settings.huaweicloud_oidc_agency_urn,
                id_token=settings.secret("huaweicloud_oidc_id_token"),
                id_token_file=settings.huaweicloud_oidc_token_file,
                agency_session_name=settings.huaweicloud_oidc_session_name,
                sts_endpoint=settings.huaweicloud_sdk_sts_endpoint,
            ).get_credentials()
        elif kind == "federation":
            credentials = (
                BasicCredentials()
                .with_idp_id(str(settings.huaweicloud_sdk_idp_id))
                .with_id_token_file(str(settings.huaweicloud_sdk_id_token_file))
            )
            credentials.sts_accessor = FederalAccessor()
            credentials.iam_endpoint = settings.huaweicloud_sdk_iam_endpoint or IamHelper.get_iam_endpoint()
        elif kind == "pod_identity":
            credentials = BasicCredentials()
            credentials.sts_accessor = PodIdentityAccessor(
                settings.hc_container_credentials_full_uri, settings.hc_container_authorization_token_file
            )
        else:
            accessor = MetadataAccessor()
            accessor._METADATA_ENDPOINT = metadata_endpoint(settings)
            credentials = BasicCredentials()
            credentials.sts_accessor = accessor
        _TEMPORARY[kind] = credentials
    # Refreshes the keys when they expire within 40 minutes (the SDK's threshold), else keeps them.
    credentials.process_sts(_sdk_http_client() if kind in ("oidc", "federation") else None)
    if not credentials.ak or not credentials.sk:
        raise ValueError("no keys in the answer")
    return str(credentials.ak), str(credentials.sk), credentials.security_token


def _sdk_http_client() -> Any:
    import logging

    from huaweicloudsdkcore.exceptions.exception_handler import DefaultExceptionHandler
    from huaweicloudsdkcore.http.http_client import HttpClient
    from huaweicloudsdkcore.http.http_config import HttpConfig
    from huaweicloudsdkcore.http.http_handler import HttpHandler

    config = HttpConfig.get_default_config()
    config.timeout = (5, 10)
    return HttpClient(
        config, HttpHandler(), DefaultExceptionHandler(), logging.getLogger("huaweicloudsdkcore")
    )


async def find_live(
    region: str | None = None,
    *,
    profile: str | None = None,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
) -> Credentials:
    """`resolve`, then the project id from IAM when the keys' source gave none.

    IAM's Keystone API lists the projects of the account named after the region
    (`GET /v3/projects?name=<region>`, signed with the same keys, no X-Project-Id); exactly one
    must come back. https://support.huaweicloud.com/api-iam/iam_06_0001.html
    """
    return await with_project(
        resolve(region, profile=profile, env=env, home=home), env=env, transport=transport
    )

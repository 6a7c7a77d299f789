"""Temporary keys from the places the official SDK's provider chain reads them, through the SDK's
own providers and accessors (huaweicloudsdkcore.auth): OIDC federation through STS, IAM
identity-provider federation, CCE pod identity and the ECS/CCE metadata service. The SDK is
imported only when one of them is asked, so that no other command pays for its import.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import httpx

from diagnosis.modelarts.credentials import (
    METADATA_SETTING,
    Credentials,
    NoKeysError,
    clean,
    default_region,
    resolve,
)
from diagnosis.modelarts.project import with_project
from diagnosis.modelarts.settings import ConfigError, check_region

# The ECS/CCE metadata service is asked only when METADATA_SETTING says so ("on", or the service's
# URL): the SDK asks it whenever nothing else gave keys, which makes a laptop wait for a
# link-local address.

TemporaryKind = Literal["oidc", "federation", "pod_identity", "metadata"]
# Temporary keys by kind, as the SDK's credential objects (they refresh themselves when less than
# 40 minutes are left), for the life of the process.
_TEMPORARY: dict[TemporaryKind, Any] = {}


def temporary_kinds(env: Mapping[str, str]) -> list[TemporaryKind]:
    """The temporary-key providers this environment configures, in the SDK chain's order: OIDC
    federation through STS (`HUAWEICLOUD_OIDC_*`) before the static keys; after them an IAM
    identity-provider federation (`HUAWEICLOUD_SDK_IDP_ID` and `HUAWEICLOUD_SDK_ID_TOKEN_FILE`),
    CCE pod identity (`HC_CONTAINER_CREDENTIALS_FULL_URI` and `HC_CONTAINER_AUTHORIZATION_TOKEN_FILE`),
    then the ECS/CCE metadata service's agency keys (when METADATA_SETTING allows it)."""
    kinds: list[TemporaryKind] = []
    if clean(env.get("HUAWEICLOUD_OIDC_PROVIDER_URN")) and clean(env.get("HUAWEICLOUD_OIDC_AGENCY_URN")):
        kinds.append("oidc")
    if clean(env.get("HUAWEICLOUD_SDK_IDP_ID")) and clean(env.get("HUAWEICLOUD_SDK_ID_TOKEN_FILE")):
        kinds.append("federation")
    if clean(env.get("HC_CONTAINER_CREDENTIALS_FULL_URI")) and clean(
        env.get("HC_CONTAINER_AUTHORIZATION_TOKEN_FILE")
    ):
        kinds.append("pod_identity")
    if metadata_endpoint(env):
        kinds.append("metadata")
    return kinds


def metadata_endpoint(env: Mapping[str, str]) -> str | None:
    value = (clean(env.get(METADATA_SETTING)) or "off").lower()
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
    environ = os.environ if env is None else env
    kinds = temporary_kinds(environ)
    if "oidc" in kinds:
        return await _temporary(region, "oidc", environ, profile=profile, home=home)
    try:
        return resolve(region, profile=profile, env=environ, home=home)
    except NoKeysError as missing:
        reasons: list[str] = []
        for kind in kinds:
            try:
                return await _temporary(region, kind, environ, profile=profile, home=home)
            except ConfigError as failed:
                reasons.append(str(failed))
        if reasons:
            raise NoKeysError(f"{missing}; " + "; ".join(reasons)) from None
        raise


async def _temporary(
    region: str | None, kind: TemporaryKind, env: Mapping[str, str], *, profile: str | None, home: Path | None
) -> Credentials:
    import asyncio

    try:
        access_key, secret_key, token = await asyncio.to_thread(_sdk_temporary_keys, kind, env)
    except Exception as exc:  # the SDK raises its own errors and those of `requests`
        # The message of an STS or metadata failure never holds a key: only its kind and status.
        raise ConfigError(f"{_KIND_NAMES[kind]} gave no keys ({type(exc).__name__})") from None
    chosen_region = check_region(region or default_region(profile=profile, env=env, home=home))
    project_id = clean(env.get("HUAWEICLOUD_SDK_PROJECT_ID")) if kind == "oidc" else None
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


def _sdk_temporary_keys(kind: TemporaryKind, env: Mapping[str, str]) -> tuple[str, str, str | None]:
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
                provider_urn=env.get("HUAWEICLOUD_OIDC_PROVIDER_URN"),
                agency_urn=env.get("HUAWEICLOUD_OIDC_AGENCY_URN"),
                id_token=env.get("HUAWEICLOUD_OIDC_ID_TOKEN"),
                id_token_file=env.get("HUAWEICLOUD_OIDC_TOKEN_FILE"),
                agency_session_name=env.get("HUAWEICLOUD_OIDC_SESSION_NAME"),
                sts_endpoint=env.get("HUAWEICLOUD_SDK_STS_ENDPOINT"),
            ).get_credentials()
        elif kind == "federation":
            credentials = (
                BasicCredentials()
                .with_idp_id(str(env.get("HUAWEICLOUD_SDK_IDP_ID")))
                .with_id_token_file(str(env.get("HUAWEICLOUD_SDK_ID_TOKEN_FILE")))
            )
            credentials.sts_accessor = FederalAccessor()
            credentials.iam_endpoint = (
                clean(env.get("HUAWEICLOUD_SDK_IAM_ENDPOINT")) or IamHelper.get_iam_endpoint()
            )
        elif kind == "pod_identity":
            credentials = BasicCredentials()
            credentials.sts_accessor = PodIdentityAccessor(
                env.get("HC_CONTAINER_CREDENTIALS_FULL_URI"), env.get("HC_CONTAINER_AUTHORIZATION_TOKEN_FILE")
            )
        else:
            accessor = MetadataAccessor()
            accessor._METADATA_ENDPOINT = metadata_endpoint(env)
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

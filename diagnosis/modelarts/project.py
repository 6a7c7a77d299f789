"""The project id of a region, asked from IAM when the keys' own source gives none.

As the official SDK does (BasicCredentials.process_auth_params): IAM's Keystone API lists the
account's projects named after the region (`GET /v3/projects?name=<region>`, signed with the same
keys and no X-Project-Id), and exactly one must come back.
https://support.huaweicloud.com/api-iam/iam_06_0001.html
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import httpx

from diagnosis.modelarts.credential_files import clean
from diagnosis.modelarts.credentials import Credentials
from diagnosis.modelarts.settings import ConfigError, ModelArtsSettings

# IAM's endpoint by region, as the official SDK knows it (huaweicloudsdkcore.auth.endpoint); a
# region it does not list uses the global endpoint.
IAM_DEFAULT_ENDPOINT = "https://iam.myhuaweicloud.com"
IAM_ENDPOINTS: dict[str, str] = {
    region: f"https://iam.{region}.myhuaweicloud.com"
    for region in (
        "cn-north-2",
        "cn-north-4",
        "cn-north-1",
        "cn-east-2",
        "cn-east-3",
        "cn-south-1",
        "cn-south-2",
        "cn-southwest-2",
        "ap-southeast-1",
        "ap-southeast-2",
        "ap-southeast-3",
        "af-south-1",
        "sa-brazil-1",
        "la-south-2",
        "na-mexico-1",
        "la-north-2",
        "cn-north-9",
        "eu-west-0",
        "my-kualalumpur-1",
        "ru-moscow-1",
        "me-east-1",
        "ap-southeast-4",
        "ae-ad-1",
        "cn-east-4",
        "cn-east-5",
        "tr-west-1",
        "cn-north-12",
    )
}
KEYSTONE_PROJECTS_PATH = "/v3/projects"
IAM_TIMEOUT = httpx.Timeout(10.0, connect=5.0)
# Project ids found, by (access key, region), for the life of the process (the SDK caches them so).
_PROJECT_CACHE: dict[tuple[str, str], str] = {}


class ProjectLookupError(ConfigError):
    """IAM could not say which project the region is: the message says why and what to set."""


def iam_endpoint_for(region: str, credentials: Credentials, *, env: Mapping[str, str] | None = None) -> str:
    """The credentials file's `iam_endpoint`, else `HUAWEICLOUD_SDK_IAM_ENDPOINT`, else the SDK's
    table: the order the SDK follows (BasicCredentials.process_auth_params, IamHelper)."""
    if credentials.iam_endpoint:
        return credentials.iam_endpoint.rstrip("/")
    configured = ModelArtsSettings.of(env).huaweicloud_sdk_iam_endpoint
    if configured:
        return configured.rstrip("/")
    return IAM_ENDPOINTS.get(region, IAM_DEFAULT_ENDPOINT)


async def with_project(
    found: Credentials,
    *,
    env: Mapping[str, str] | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
) -> Credentials:
    """The credentials with their project id, asked from IAM when they have none."""
    if found.project_id:
        return found
    cached = _PROJECT_CACHE.get((found.access_key, found.region))
    if cached is None:
        cached = await _ask_iam(found, iam_endpoint_for(found.region, found, env=env), transport)
        _PROJECT_CACHE[(found.access_key, found.region)] = cached
    return dataclasses.replace(found, project_id=cached, project_source="IAM")


async def _ask_iam(found: Credentials, endpoint: str, transport: httpx.AsyncBaseTransport | None) -> str:
    from diagnosis.evidence.http.readonly import ReadOnlyGuard
    from diagnosis.evidence.http.retrying import Retrying
    from diagnosis.evidence.http.transport import real_transport
    from diagnosis.modelarts.signer import AkSkAuth

    auth = AkSkAuth(found.access_key, found.secret_key, security_token=found.security_token)
    stack = ReadOnlyGuard(Retrying(transport or real_transport()))
    where = f"IAM ({endpoint})"
    advice = f"set HUAWEICLOUD_SDK_PROJECT_ID to the project id of {found.region}"
    async with httpx.AsyncClient(transport=stack, auth=auth, timeout=IAM_TIMEOUT) as client:
        try:
            response = await client.get(endpoint + KEYSTONE_PROJECTS_PATH, params={"name": found.region})
        except httpx.TransportError as exc:
            raise ProjectLookupError(
                f"no project id for {found.region}, and {where} could not be reached "
                f"({type(exc).__name__}): {advice}"
            ) from None
    try:
        body = response.json()
    except ValueError:
        body = None
    if response.status_code in (401, 403):
        raise ProjectLookupError(
            f"no project id for {found.region}, and {where} refused the keys (HTTP {response.status_code}): "
            f"{advice}, or check the keys and the clock"
        )
    if response.status_code != 200 or not isinstance(body, dict):
        raise ProjectLookupError(
            f"no project id for {found.region}, and {where} answered HTTP {response.status_code}: {advice}"
        )
    projects = [
        item for item in body.get("projects") or [] if isinstance(item, dict) and clean(item.get("id"))
    ]
    if not projects:
        raise ProjectLookupError(
            f"IAM lists no project named {found.region} for these keys: check the region, or {advice}"
        )
    if len(projects) > 1:
        raise ProjectLookupError(
            f"IAM lists {len(projects)} projects named {found.region} (sub-projects): {advice} "
            "(the one the training jobs run in)"
        )
    return str(projects[0]["id"]).strip()

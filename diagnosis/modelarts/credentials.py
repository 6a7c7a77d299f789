"""AK/SK, region and project id, looked up where the Huawei Cloud tools keep them (modelarts-api.md §8).

Order, first found wins for each value:

1. the SDK's environment variables `HUAWEICLOUD_SDK_AK`, `HUAWEICLOUD_SDK_SK`,
   `HUAWEICLOUD_SDK_SECURITY_TOKEN`, `HUAWEICLOUD_SDK_PROJECT_ID`;
2. the SDK's credentials file (`HUAWEICLOUD_SDK_CREDENTIALS_FILE`, default
   `~/.huaweicloud/credentials`, INI section `[basic]`: `ak`, `sk`, `security_token`, `project_id`);
3. a KooCLI profile in `~/.hcloud/config.json` (the current one, or the one named): region and
   `projectId` always; keys only when the file stores them unencrypted (`authEncrypt` not "true").

The project id comes from the source of the keys (`HUAWEICLOUD_SDK_PROJECT_ID` with the variables,
`project_id` with the file, a profile's `projectId` for that profile's region only), never from
another one; without one, `find_live` asks IAM for the project named after the region, as the SDK
does. The keys are kept out of every `repr`.
"""

from __future__ import annotations

import configparser
import dataclasses
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import httpx

from diagnosis.modelarts.settings import DEFAULT_REGION, ConfigError, check_region

# A deployment's default region (the Helm chart's modelarts.region), after the KooCLI profile's.
REGION_VARIABLE = "DIAGNOSE_MODELARTS_REGION"

KEY_VARIABLES = "HUAWEICLOUD_SDK_AK and HUAWEICLOUD_SDK_SK"
# The ECS/CCE metadata service is asked only when this says so ("on", or the service's URL): the
# SDK asks it whenever nothing else gave keys, which makes a laptop wait for a link-local address.
METADATA_SETTING = "DIAGNOSE_HUAWEICLOUD_METADATA"


class NoKeysError(ConfigError):
    """No source holds keys; the message names the variables and files to set."""


@dataclass(frozen=True, repr=False)
class Credentials:
    access_key: str
    secret_key: str
    security_token: str | None
    # None until looked up through IAM (find_live): the keys' own source did not give one.
    project_id: str | None
    region: str
    # Where each value came from, for `--explain`-style messages; never the values themselves.
    key_source: str
    project_source: str
    # The IAM endpoint the credentials file names (`iam_endpoint` under [basic]), if any.
    iam_endpoint: str | None = None

    @property
    def project(self) -> str:
        """The project id, once known (with_project looks it up)."""
        if not self.project_id:
            raise ConfigError(f"no project id for region {self.region}")
        return self.project_id

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
    """The region to use when none is given: the KooCLI profile's, else DIAGNOSE_MODELARTS_REGION
    (a deployment's setting), else cn-north-4."""
    environ = os.environ if env is None else env
    profiles, current, _path = _read_koocli(home or Path.home(), environ)
    chosen = _select_profile(profiles, profile or current)
    if chosen is not None and chosen.region:
        return chosen.region
    return _clean(environ.get(REGION_VARIABLE)) or DEFAULT_REGION


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

    fallback = _clean(environ.get(REGION_VARIABLE)) or DEFAULT_REGION
    region = check_region(region or (chosen.region if chosen and chosen.region else fallback))

    access_key = _clean(environ.get("HUAWEICLOUD_SDK_AK"))
    secret_key = _clean(environ.get("HUAWEICLOUD_SDK_SK"))
    token = _clean(environ.get("HUAWEICLOUD_SDK_SECURITY_TOKEN"))
    key_source = "environment"
    iam_endpoint: str | None = None
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
        raise NoKeysError(
            f"no Huawei Cloud access key found: set {KEY_VARIABLES} (or `ak`/`sk` under [basic] in {file_path}; "
            f"on an ECS or CCE node with an agency, set {METADATA_SETTING}=on)"
        )

    # The project id comes from the source the keys came from, never another one (a project id of
    # one account signed with another account's keys is refused by the gateway); a KooCLI
    # profile's only for its own region. Without one it is looked up through IAM (find_live).
    project_id: str | None
    if key_source == "environment":
        project_id, project_source = (
            _clean(environ.get("HUAWEICLOUD_SDK_PROJECT_ID")),
            "HUAWEICLOUD_SDK_PROJECT_ID",
        )
    elif key_source == file_path:
        project_id, project_source = _clean(file_values.get("project_id")), file_path
        iam_endpoint = _clean(file_values.get("iam_endpoint"))
    else:
        assert chosen is not None
        usable = chosen.project_id if chosen.region == region else None
        project_id, project_source = usable, key_source
    return Credentials(
        access_key=access_key,
        secret_key=secret_key,
        security_token=token,
        project_id=project_id,
        region=region,
        key_source=key_source,
        project_source=project_source if project_id else "IAM",
        iam_endpoint=iam_endpoint,
    )


# --- the project id from IAM --------------------------------------------------------------------

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
    environ = os.environ if env is None else env
    if credentials.iam_endpoint:
        return credentials.iam_endpoint.rstrip("/")
    configured = _clean(environ.get("HUAWEICLOUD_SDK_IAM_ENDPOINT"))
    if configured:
        return configured.rstrip("/")
    return IAM_ENDPOINTS.get(region, IAM_DEFAULT_ENDPOINT)


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
    from diagnosis.evidence.http import ReadOnlyGuard, Retrying, real_transport
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
        item for item in body.get("projects") or [] if isinstance(item, dict) and _clean(item.get("id"))
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


# --- temporary keys from the platform (the SDK's providers) -------------------------------------

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
    if _clean(env.get("HUAWEICLOUD_OIDC_PROVIDER_URN")) and _clean(env.get("HUAWEICLOUD_OIDC_AGENCY_URN")):
        kinds.append("oidc")
    if _clean(env.get("HUAWEICLOUD_SDK_IDP_ID")) and _clean(env.get("HUAWEICLOUD_SDK_ID_TOKEN_FILE")):
        kinds.append("federation")
    if _clean(env.get("HC_CONTAINER_CREDENTIALS_FULL_URI")) and _clean(
        env.get("HC_CONTAINER_AUTHORIZATION_TOKEN_FILE")
    ):
        kinds.append("pod_identity")
    if metadata_endpoint(env):
        kinds.append("metadata")
    return kinds


def metadata_endpoint(env: Mapping[str, str]) -> str | None:
    value = (_clean(env.get(METADATA_SETTING)) or "off").lower()
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
    project_id = _clean(env.get("HUAWEICLOUD_SDK_PROJECT_ID")) if kind == "oidc" else None
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
                _clean(env.get("HUAWEICLOUD_SDK_IAM_ENDPOINT")) or IamHelper.get_iam_endpoint()
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

"""AK/SK, region and project id, looked up where the Huawei Cloud tools keep them
(the official SDK: https://github.com/huaweicloud/huaweicloud-sdk-python-v3).

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
does. The keys are kept out of every `repr`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from diagnosis.modelarts.credential_files import (
    KooCliProfile,
    clean,
    read_credentials_file,
    read_koocli,
    select_profile,
)
from diagnosis.modelarts.settings import DEFAULT_REGION, ConfigError, ModelArtsSettings, check_region

# A deployment's default region (the Helm chart's modelarts.region), after the KooCLI profile's.
REGION_VARIABLE = "DIAGNOSE_MODELARTS_REGION"

KEY_VARIABLES = "HUAWEICLOUD_SDK_AK and HUAWEICLOUD_SDK_SK"
# Named in the "no keys" message: the variable that lets the ECS/CCE metadata service be asked
# (diagnosis.modelarts.temporary_keys).
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


def default_region(
    *, profile: str | None = None, env: Mapping[str, str] | None = None, home: Path | None = None
) -> str:
    """The region to use when none is given: the KooCLI profile's, else DIAGNOSE_MODELARTS_REGION
    (a deployment's setting), else cn-north-4."""
    settings = ModelArtsSettings.of(env)
    profiles, current, _path = read_koocli(home or Path.home())
    chosen = select_profile(profiles, profile or current)
    if chosen is not None and chosen.region:
        return chosen.region
    return settings.diagnose_modelarts_region or DEFAULT_REGION


@dataclass(frozen=True, repr=False)
class _Keys:
    access_key: str | None
    secret_key: str | None
    token: str | None
    source: str

    @property
    def complete(self) -> bool:
        return bool(self.access_key and self.secret_key)


def _profile_keys(chosen: KooCliProfile, *, koocli_path: str, file_path: str) -> _Keys:
    """A KooCLI profile's keys; a ConfigError when it stores them in a form this tool cannot use."""
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
    return _Keys(
        chosen.access_key, chosen.secret_key, chosen.security_token, f"KooCLI profile {chosen.name!r}"
    )


def _find_keys(
    settings: ModelArtsSettings,
    file_values: Mapping[str, str],
    *,
    file_path: str,
    chosen: KooCliProfile | None,
    koocli_path: str,
) -> _Keys:
    """The first complete keys: the environment, the credentials file, then the KooCLI profile."""
    keys = _Keys(
        settings.huaweicloud_sdk_ak,
        settings.secret("huaweicloud_sdk_sk"),
        settings.secret("huaweicloud_sdk_security_token"),
        "environment",
    )
    if not keys.complete:
        keys = _Keys(
            clean(file_values.get("ak")),
            clean(file_values.get("sk")),
            clean(file_values.get("security_token")),
            file_path,
        )
    if not keys.complete and chosen is not None:
        keys = _profile_keys(chosen, koocli_path=koocli_path, file_path=file_path)
    if not keys.complete:
        raise NoKeysError(
            f"no Huawei Cloud access key found: set {KEY_VARIABLES} (or `ak`/`sk` under [basic] in {file_path}; "
            f"on an ECS or CCE node with an agency, set {METADATA_SETTING}=on)"
        )
    return keys


def resolve(
    region: str | None = None,
    *,
    profile: str | None = None,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
) -> Credentials:
    """Keys, region and project id for one region, or a ConfigError that names what to set."""
    settings = ModelArtsSettings.of(env)
    home = home or Path.home()
    file_values, file_path = read_credentials_file(settings, home)
    profiles, current, koocli_path = read_koocli(home)
    wanted_profile = profile or settings.hcloud_profile or current
    chosen = select_profile(profiles, wanted_profile)
    if profile and chosen is None:
        raise ConfigError(f"no KooCLI profile named {profile!r} in {koocli_path}")

    fallback = settings.diagnose_modelarts_region or DEFAULT_REGION
    region = check_region(region or (chosen.region if chosen and chosen.region else fallback))
    keys = _find_keys(settings, file_values, file_path=file_path, chosen=chosen, koocli_path=koocli_path)

    # The project id comes from the source the keys came from, never another one (a project id of
    # one account signed with another account's keys is refused by the gateway); a KooCLI
    # profile's only for its own region. Without one it is looked up through IAM (find_live).
    project_id: str | None
    iam_endpoint: str | None = None
    if keys.source == "environment":
        project_id, project_source = settings.huaweicloud_sdk_project_id, "HUAWEICLOUD_SDK_PROJECT_ID"
    elif keys.source == file_path:
        project_id, project_source = clean(file_values.get("project_id")), file_path
        iam_endpoint = clean(file_values.get("iam_endpoint"))
    else:
        assert chosen is not None
        usable = chosen.project_id if chosen.region == region else None
        project_id, project_source = usable, keys.source
    assert keys.access_key and keys.secret_key
    return Credentials(
        access_key=keys.access_key,
        secret_key=keys.secret_key,
        security_token=keys.token,
        project_id=project_id,
        region=region,
        key_source=keys.source,
        project_source=project_source if project_id else "IAM",
        iam_endpoint=iam_endpoint,
    )

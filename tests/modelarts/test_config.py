"""Endpoints, credentials, region and project id, found the way the Huawei Cloud tools find them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from diagnosis.modelarts.credentials import default_region, resolve
from diagnosis.modelarts.settings import ConfigError, endpoint_for

AK, SK = "AKFROMENVIRONMENT000", "secret-from-environment"


def koocli(
    home: Path, profiles: list[dict[str, str]], *, current: str = "default", encrypted: bool = False
) -> None:
    folder = home / ".hcloud"
    folder.mkdir(parents=True, exist_ok=True)
    data = {"current": current, "profiles": profiles, "authEncrypt": "true" if encrypted else "false"}
    (folder / "config.json").write_text(json.dumps(data), encoding="utf-8")


def profile(name: str, region: str, project_id: str = "", ak: str = "", sk: str = "") -> dict[str, str]:
    return {
        "name": name,
        "mode": "AKSK",
        "accessKeyId": ak,
        "secretAccessKey": sk,
        "securityToken": "",
        "region": region,
        "projectId": project_id,
        "skipSecureVerify": "false",
    }


def test_endpoint_default_table_and_override(tmp_path: Path) -> None:
    assert (
        endpoint_for("cn-north-4", env={}, home=tmp_path) == "https://modelarts.cn-north-4.myhuaweicloud.com"
    )
    assert endpoint_for("ap-southeast-1", env={}, home=tmp_path).endswith(".myhuaweicloud.cn")
    env = {"HUAWEICLOUD_SDK_REGION_MODELARTS_CN_NORTH_4": "http://127.0.0.1:8443/, http://127.0.0.1:9443"}
    assert endpoint_for("cn-north-4", env=env, home=tmp_path) == "http://127.0.0.1:8443"
    assert (
        endpoint_for("cn-east-3", env=env, home=tmp_path) == "https://modelarts.cn-east-3.myhuaweicloud.com"
    )


def test_endpoint_from_the_sdk_region_file(tmp_path: Path) -> None:
    regions = tmp_path / "regions.yaml"
    regions.write_text(
        "ModelArts:\n  - id: cn-north-9\n    endpoint: https://modelarts.example.test\n", encoding="utf-8"
    )
    env = {"HUAWEICLOUD_SDK_REGIONS_FILE": str(regions)}
    assert endpoint_for("cn-north-9", env=env, home=tmp_path) == "https://modelarts.example.test"


def test_the_region_file_list_form_and_the_sdk_table(tmp_path: Path) -> None:
    """`endpoints:` (a list) comes first, as the SDK reads it; the built-in table is the SDK's."""
    from huaweicloudsdkmodelarts.v1.region.modelarts_region import ModelArtsRegion

    from diagnosis.modelarts.settings import KNOWN_ENDPOINTS

    regions = tmp_path / "regions.yaml"
    regions.write_text(
        "modelarts:\n  - id: cn-north-9\n    endpoints:\n      - https://a.example.test/\n"
        "      - https://b.example.test\n    endpoint: https://c.example.test\n",
        encoding="utf-8",
    )
    env = {"HUAWEICLOUD_SDK_REGIONS_FILE": str(regions)}
    assert endpoint_for("cn-north-9", env=env, home=tmp_path) == "https://a.example.test"
    sdk_table = {
        region_id: region.endpoints[0] for region_id, region in ModelArtsRegion.static_fields.items()
    }
    assert sdk_table == KNOWN_ENDPOINTS


def test_an_unknown_region_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(
        ConfigError,
        match=r"unknown ModelArts region 'xx-nowhere-9'.*HUAWEICLOUD_SDK_REGION_MODELARTS_XX_NOWHERE_9",
    ):
        endpoint_for("xx-nowhere-9", env={}, home=tmp_path)
    env = {"HUAWEICLOUD_SDK_REGION_MODELARTS_XX_NOWHERE_9": "https://modelarts.example.test"}
    assert endpoint_for("xx-nowhere-9", env=env, home=tmp_path) == "https://modelarts.example.test"


def test_invalid_region_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cn-north-4"):
        endpoint_for("north; rm -rf /", env={}, home=tmp_path)


def test_environment_first(tmp_path: Path) -> None:
    env = {"HUAWEICLOUD_SDK_AK": AK, "HUAWEICLOUD_SDK_SK": SK, "HUAWEICLOUD_SDK_PROJECT_ID": "p" * 32}
    koocli(tmp_path, [profile("default", "cn-east-3", "q" * 32, "AKPROFILE", "skprofile")])
    found = resolve("cn-north-4", env=env, home=tmp_path)
    assert (found.access_key, found.secret_key, found.project_id, found.region) == (
        AK,
        SK,
        "p" * 32,
        "cn-north-4",
    )
    assert AK not in repr(found) and SK not in repr(found)


def test_credentials_file_then_koocli(tmp_path: Path) -> None:
    credentials = tmp_path / "creds.ini"
    credentials.write_text(
        "[basic]\nak = AKFROMFILE0000000000\nsk = secret-from-file\nproject_id = f" + "0" * 31 + "\n"
    )
    env = {"HUAWEICLOUD_SDK_CREDENTIALS_FILE": str(credentials)}
    found = resolve("cn-north-4", env=env, home=tmp_path)
    assert (found.access_key, found.project_id) == ("AKFROMFILE0000000000", "f" + "0" * 31)


def test_koocli_profile_gives_region_project_and_plain_keys(tmp_path: Path) -> None:
    koocli(
        tmp_path,
        [
            profile("default", "cn-east-3", "e" * 32, "AKPLAIN", "sk-plain"),
            profile("north", "cn-north-4", "n" * 32),
        ],
    )
    assert default_region(env={}, home=tmp_path) == "cn-east-3"
    found = resolve(None, env={}, home=tmp_path)
    assert (found.region, found.project_id, found.access_key) == ("cn-east-3", "e" * 32, "AKPLAIN")


def test_a_project_id_never_comes_from_another_source_than_the_keys(tmp_path: Path) -> None:
    """Keys of one source with the project id of another would sign a request for a project the
    keys may not belong to: without a project id of their own, it is looked up (IAM)."""
    koocli(
        tmp_path,
        [
            profile("default", "cn-east-3", "e" * 32, "AKPLAIN", "sk-plain"),
            profile("north", "cn-north-4", "n" * 32),
        ],
    )
    # The profile's keys, another region: its project id is for cn-east-3 only.
    other = resolve("cn-north-4", env={}, home=tmp_path)
    assert (other.access_key, other.project_id, other.project_source) == ("AKPLAIN", None, "IAM")
    # Keys from the environment, region from a profile: the profile's project id is not theirs.
    named = resolve(
        None, profile="north", env={"HUAWEICLOUD_SDK_AK": AK, "HUAWEICLOUD_SDK_SK": SK}, home=tmp_path
    )
    assert (named.region, named.access_key, named.project_id) == ("cn-north-4", AK, None)
    # Keys from the file, project id only from the file.
    credentials = tmp_path / "creds.ini"
    credentials.write_text("[basic]\nak = AKFROMFILE0000000000\nsk = secret-from-file\n")
    env = {"HUAWEICLOUD_SDK_CREDENTIALS_FILE": str(credentials), "HUAWEICLOUD_SDK_PROJECT_ID": "p" * 32}
    from_file = resolve("cn-north-4", env=env, home=tmp_path)
    assert (from_file.access_key, from_file.project_id) == ("AKFROMFILE0000000000", None)


def test_encrypted_profile_says_which_variables_to_set(tmp_path: Path) -> None:
    koocli(
        tmp_path, [profile("default", "cn-north-4", "e" * 32, "ciphertext==", "ciphertext==")], encrypted=True
    )
    with pytest.raises(ConfigError) as caught:
        resolve(None, env={}, home=tmp_path)
    message = str(caught.value)
    assert "HUAWEICLOUD_SDK_AK" in message and "HUAWEICLOUD_SDK_SK" in message and "encrypted" in message
    assert "ciphertext" not in message
    # Keys from the environment and the region from the encrypted profile; the project id is the
    # keys' own (here none: IAM is asked).
    found = resolve(None, env={"HUAWEICLOUD_SDK_AK": AK, "HUAWEICLOUD_SDK_SK": SK}, home=tmp_path)
    assert (found.region, found.project_id) == ("cn-north-4", None)


def test_no_keys_anywhere(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="HUAWEICLOUD_SDK_AK and HUAWEICLOUD_SDK_SK"):
        resolve("cn-north-4", env={}, home=tmp_path)


def test_unreadable_files_are_clear_errors(tmp_path: Path) -> None:
    folder = tmp_path / ".hcloud"
    folder.mkdir()
    (folder / "config.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid JSON"):
        resolve("cn-north-4", env={}, home=tmp_path)
    with pytest.raises(ConfigError, match="no KooCLI profile named 'x'"):
        koocli(tmp_path, [profile("default", "cn-north-4")])
        resolve("cn-north-4", profile="x", env={}, home=tmp_path)


def test_a_deployment_sets_the_default_region_after_the_koocli_profile(tmp_path: Path) -> None:
    env = {
        "DIAGNOSE_MODELARTS_REGION": "ap-southeast-1",
        "HUAWEICLOUD_SDK_AK": "AKENV00000000000000",
        "HUAWEICLOUD_SDK_SK": "sk-env",
        "HUAWEICLOUD_SDK_PROJECT_ID": "a" * 32,
    }
    assert default_region(env=env, home=tmp_path) == "ap-southeast-1"
    assert resolve(None, env=env, home=tmp_path).region == "ap-southeast-1"
    assert default_region(env={}, home=tmp_path) == "cn-north-4"
    koocli(tmp_path, [profile("default", "cn-east-3", "e" * 32, "AKPLAIN", "sk-plain")])
    assert default_region(env=env, home=tmp_path) == "cn-east-3"


def test_settings_come_from_pydantic_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """The process environment by default; exactly a given mapping otherwise; secrets stay secret
    and a blank value is unset."""
    from diagnosis.modelarts.settings import ModelArtsSettings

    monkeypatch.setenv("HUAWEICLOUD_SDK_AK", "AKFROMENV")
    monkeypatch.setenv("HUAWEICLOUD_SDK_SK", "sk-from-env")
    assert ModelArtsSettings().huaweicloud_sdk_ak == "AKFROMENV"
    given = ModelArtsSettings.of({"HUAWEICLOUD_SDK_SK": " sk-given ", "HCLOUD_PROFILE": "  "})
    assert given.huaweicloud_sdk_ak is None and given.hcloud_profile is None
    assert given.secret("huaweicloud_sdk_sk") == "sk-given"
    assert "sk-given" not in repr(given) and "sk-from-env" not in repr(ModelArtsSettings())

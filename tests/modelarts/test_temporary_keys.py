"""Temporary keys from the places the official SDK's provider chain reads them (its own providers
and accessors, against a loopback stand-in): the ECS/CCE metadata service, CCE pod identity, OIDC
federation through STS and IAM identity-provider federation; then the project id from IAM and a
diagnosis signed with the security token, checked by the simulated gateway."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from diagnosis import engine
from diagnosis.evidence.routes import Route, RouteTable
from diagnosis.modelarts import project, temporary_keys
from diagnosis.modelarts.credentials import METADATA_SETTING, NoKeysError
from diagnosis.modelarts.routes import ROUTES
from diagnosis.modelarts.temporary_keys import resolve_with_temporary
from diagnosis.models import Exchange
from simulator.server import SimServer
from tests.fakes.huawei_identity import POD_PATH, IdentityServer, running_identity
from tests.modelarts.conftest import load, project_of

AK = "AKTEMPORARY000000000"
SK = "temporary-secret"
TOKEN = "temporary-security-token"


@pytest.fixture(autouse=True)
def _fresh() -> None:
    temporary_keys._TEMPORARY.clear()
    project._PROJECT_CACHE.clear()


@pytest.fixture
def identity() -> Iterator[IdentityServer]:
    with running_identity(IdentityServer(AK, SK, TOKEN)) as server:
        yield server


async def test_the_metadata_service_gives_agency_keys(identity: IdentityServer, tmp_path: Path) -> None:
    env = {METADATA_SETTING: identity.base_url}
    found = await resolve_with_temporary("cn-north-4", env=env, home=tmp_path)
    assert (found.access_key, found.secret_key, found.security_token) == (AK, SK, TOKEN)
    assert (found.project_id, found.key_source) == (None, "ECS/CCE metadata service")
    assert identity.requests == [
        ("PUT", "/meta-data/latest/api/token"),
        ("GET", "/openstack/latest/securitykey"),
    ]
    # Keys with hours left are kept (the SDK refreshes them 40 minutes before they expire).
    await resolve_with_temporary("cn-north-4", env=env, home=tmp_path)
    assert len(identity.requests) == 2
    assert AK not in repr(found) and SK not in repr(found) and TOKEN not in repr(found)


async def test_keys_about_to_expire_are_fetched_again(tmp_path: Path) -> None:
    with running_identity(IdentityServer(AK, SK, TOKEN, lifetime=timedelta(minutes=20))) as identity:
        env = {METADATA_SETTING: identity.base_url}
        await resolve_with_temporary("cn-north-4", env=env, home=tmp_path)
        await resolve_with_temporary("cn-north-4", env=env, home=tmp_path)
    assert [path for _method, path in identity.requests].count("/openstack/latest/securitykey") == 2


async def test_pod_identity(identity: IdentityServer, tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(identity.pod_token, encoding="utf-8")
    env = {
        "HC_CONTAINER_CREDENTIALS_FULL_URI": identity.base_url + POD_PATH,
        "HC_CONTAINER_AUTHORIZATION_TOKEN_FILE": str(token_file),
    }
    found = await resolve_with_temporary("cn-east-3", env=env, home=tmp_path)
    assert (found.access_key, found.security_token, found.region) == (AK, TOKEN, "cn-east-3")
    assert found.key_source.startswith("CCE pod identity")


async def test_oidc_federation_comes_before_static_keys(identity: IdentityServer, tmp_path: Path) -> None:
    env = {
        "HUAWEICLOUD_OIDC_PROVIDER_URN": "iam::0123:identity-provider:github",
        "HUAWEICLOUD_OIDC_AGENCY_URN": "iam::0123:agency:diagnose",
        "HUAWEICLOUD_OIDC_ID_TOKEN": identity.id_token,
        "HUAWEICLOUD_SDK_STS_ENDPOINT": identity.base_url,
        "HUAWEICLOUD_SDK_PROJECT_ID": "o" * 32,
        "HUAWEICLOUD_SDK_AK": "AKSTATIC",
        "HUAWEICLOUD_SDK_SK": "static",
    }
    found = await resolve_with_temporary("cn-north-4", env=env, home=tmp_path)
    assert (found.access_key, found.security_token, found.project_id) == (AK, TOKEN, "o" * 32)
    assert identity.requests == [("POST", "/v5/agencies/assume-with-oidc")]


async def test_identity_provider_federation(identity: IdentityServer, tmp_path: Path) -> None:
    id_token = tmp_path / "id_token"
    id_token.write_text(identity.id_token, encoding="utf-8")
    env = {
        "HUAWEICLOUD_SDK_IDP_ID": "corporate-idp",
        "HUAWEICLOUD_SDK_ID_TOKEN_FILE": str(id_token),
        "HUAWEICLOUD_SDK_IAM_ENDPOINT": identity.base_url,
    }
    found = await resolve_with_temporary("cn-north-4", env=env, home=tmp_path)
    assert (found.access_key, found.security_token) == (AK, TOKEN)
    assert [path for _method, path in identity.requests] == [
        "/v3.0/OS-AUTH/id-token/tokens",
        "/v3.0/OS-CREDENTIAL/securitytokens",
    ]


async def test_no_keys_anywhere_asks_no_metadata_service_unless_told(tmp_path: Path) -> None:
    with pytest.raises(NoKeysError) as caught:
        await resolve_with_temporary("cn-north-4", env={}, home=tmp_path)
    assert METADATA_SETTING in str(caught.value) and "HUAWEICLOUD_SDK_AK" in str(caught.value)


async def test_a_provider_that_fails_is_named(tmp_path: Path) -> None:
    env = {METADATA_SETTING: "http://127.0.0.1:9"}
    with pytest.raises(NoKeysError, match="ECS/CCE metadata service gave no keys"):
        await resolve_with_temporary("cn-north-4", env=env, home=tmp_path)


async def test_a_diagnosis_with_metadata_keys_signed_with_their_token(
    identity: IdentityServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Agency keys from the metadata service, the project id from IAM, every ModelArts call signed
    with the security token: the simulated gateway checks each signature."""
    bundle = load("early-exit-file-not-found")
    project = project_of(bundle)
    bundle.exchanges.append(
        Exchange(
            op="KeystoneListProjects",
            args={"name": "cn-north-4"},
            status=200,
            body={"projects": [{"id": project}]},
        )
    )
    tables = {"modelarts": RouteTable([*ROUTES.routes, Route("KeystoneListProjects", "GET", "/v3/projects")])}
    for name in (
        "HUAWEICLOUD_SDK_AK",
        "HUAWEICLOUD_SDK_SK",
        "HUAWEICLOUD_SDK_PROJECT_ID",
        "HUAWEICLOUD_SDK_SECURITY_TOKEN",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("HUAWEICLOUD_SDK_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv(METADATA_SETTING, identity.base_url)
    with SimServer([bundle], modelarts_keys=(AK, SK), route_tables=tables) as sim:
        monkeypatch.setenv("HUAWEICLOUD_SDK_IAM_ENDPOINT", sim.base_url)
        monkeypatch.setenv("HUAWEICLOUD_SDK_REGION_MODELARTS_CN_NORTH_4", sim.base_url)
        request = engine.request_from_bundle(bundle)
        async with engine.live(request) as (source, _recorder):
            diagnosis = await engine.diagnose_with(request, source, now=bundle.captured_at)
        asked = [path for _method, path in sim.requests]
    assert (diagnosis.category, diagnosis.confidence) == ("CRASH_APP_ERROR", "HIGH")
    assert diagnosis.target.project_id == project
    assert asked[0] == "/v3/projects" and len(asked) == 2

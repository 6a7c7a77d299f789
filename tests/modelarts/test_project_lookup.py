"""The project id looked up from the region through IAM, as the official SDK does it, when the
keys' own source gives none: against a loopback IAM stand-in that checks the signature, and
against the SDK's own request builder, endpoint choice and signer."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from huaweicloudsdkcore.auth.internal import IamHelper
from huaweicloudsdkcore.http.http_config import HttpConfig

from diagnosis.bundle import Bundle
from diagnosis.evidence.routes import Route, RouteTable
from diagnosis.modelarts import credentials, project
from diagnosis.modelarts.project import IAM_ENDPOINTS, ProjectLookupError, iam_endpoint_for
from diagnosis.modelarts.temporary_keys import find_live
from diagnosis.models import Exchange
from simulator.server import SimServer
from tests.modelarts import official_sdk as official

AK = "AKLOOKUP000000000000"
SK = "lookup-secret"
TOKEN = "TEMPORARY-SECURITY-TOKEN"
IAM_ROUTES = RouteTable([Route("KeystoneListProjects", "GET", "/v3/projects")])


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    project._PROJECT_CACHE.clear()


def _iam(projects: list[dict[str, str]], *, status: int = 200, region: str = "cn-north-4") -> Bundle:
    return Bundle(
        platform="modelarts",
        captured_at=datetime(2026, 6, 10, tzinfo=UTC),
        exchanges=[
            Exchange(
                op="KeystoneListProjects", args={"name": region}, status=status, body={"projects": projects}
            )
        ],
    )


def _env(sim: SimServer, **extra: str) -> dict[str, str]:
    return {
        "HUAWEICLOUD_SDK_AK": AK,
        "HUAWEICLOUD_SDK_SK": SK,
        "HUAWEICLOUD_SDK_IAM_ENDPOINT": sim.base_url,
        **extra,
    }


async def test_one_project_named_after_the_region_is_the_project_id(tmp_path: Path) -> None:
    bundle = _iam([{"id": "f" * 32, "name": "cn-north-4"}])
    with SimServer([bundle], modelarts_keys=(AK, SK), route_tables={"modelarts": IAM_ROUTES}) as sim:
        env = _env(sim, HUAWEICLOUD_SDK_SECURITY_TOKEN=TOKEN)
        found = await find_live("cn-north-4", env=env, home=tmp_path)
        again = await find_live("cn-north-4", env=env, home=tmp_path)
        asked = list(sim.requests)
    assert (found.project_id, found.project_source) == ("f" * 32, "IAM")
    assert again.project_id == "f" * 32
    # Signed right (the stand-in checks it as the gateway does), asked once per keys and region.
    assert asked == [("GET", "/v3/projects")]


@pytest.mark.parametrize(
    ("projects", "status", "words"),
    [
        ([], 200, "lists no project named cn-north-4"),
        ([{"id": "a" * 32}, {"id": "b" * 32}], 200, "2 projects named cn-north-4"),
        ([], 403, "refused the keys (HTTP 403)"),
        ([], 500, "answered HTTP 500"),
    ],
)
async def test_no_single_project_is_a_clear_error(
    tmp_path: Path, projects: list[dict[str, str]], status: int, words: str
) -> None:
    with (
        SimServer([_iam(projects, status=status)], route_tables={"modelarts": IAM_ROUTES}) as sim,
        pytest.raises(ProjectLookupError) as caught,
    ):
        await find_live("cn-north-4", env=_env(sim), home=tmp_path)
    assert words in str(caught.value) and "HUAWEICLOUD_SDK_PROJECT_ID" in str(caught.value)
    assert SK not in str(caught.value)


async def test_unreachable_iam_is_a_clear_error(tmp_path: Path) -> None:
    env = {
        "HUAWEICLOUD_SDK_AK": AK,
        "HUAWEICLOUD_SDK_SK": SK,
        "HUAWEICLOUD_SDK_IAM_ENDPOINT": "http://127.0.0.1:9",
    }
    with pytest.raises(ProjectLookupError, match="could not be reached"):
        await find_live("cn-north-4", env=env, home=tmp_path)


async def test_a_project_id_of_the_keys_own_source_needs_no_lookup(tmp_path: Path) -> None:
    env = {"HUAWEICLOUD_SDK_AK": AK, "HUAWEICLOUD_SDK_SK": SK, "HUAWEICLOUD_SDK_PROJECT_ID": "p" * 32}

    def refuse(request: httpx.Request) -> httpx.Response:
        raise AssertionError(f"no request expected, got {request.url}")

    found = await find_live("cn-north-4", env=env, home=tmp_path, transport=httpx.MockTransport(refuse))
    assert found.project_id == "p" * 32


async def test_the_request_and_signature_are_the_sdks(tmp_path: Path) -> None:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"projects": [{"id": "c" * 32}]})

    iam = "https://iam.cn-east-3.myhuaweicloud.com"
    env = {"HUAWEICLOUD_SDK_AK": AK, "HUAWEICLOUD_SDK_SK": SK, "HUAWEICLOUD_SDK_SECURITY_TOKEN": TOKEN}
    await find_live("cn-east-3", env=env, home=tmp_path, transport=httpx.MockTransport(answer))
    ours = seen[0]
    theirs = IamHelper.get_keystone_list_projects_request(HttpConfig.get_default_config(), iam, "cn-east-3")
    assert ours.method == theirs.method
    assert f"{ours.url.scheme}://{ours.url.host}" == iam
    assert ours.url.raw_path.decode() == f"{theirs.resource_path}?name=cn-east-3"
    assert "x-project-id" not in ours.headers and ours.headers["x-security-token"] == TOKEN
    assert ours.headers["authorization"] == official.sdk_signature(ours, access_key=AK, secret_key=SK)


def test_the_iam_endpoint_is_chosen_as_the_sdk_chooses_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    found = credentials.resolve(
        "cn-north-4", env={"HUAWEICLOUD_SDK_AK": AK, "HUAWEICLOUD_SDK_SK": SK}, home=tmp_path
    )
    monkeypatch.delenv("HUAWEICLOUD_SDK_IAM_ENDPOINT", raising=False)
    for region in [*IAM_ENDPOINTS, "cn-north-11", "xx-nowhere-1"]:
        assert iam_endpoint_for(region, found, env={}) == IamHelper.get_iam_endpoint(region)
    monkeypatch.setenv("HUAWEICLOUD_SDK_IAM_ENDPOINT", "https://iam.example.test")
    assert iam_endpoint_for(
        "cn-north-4", found, env={"HUAWEICLOUD_SDK_IAM_ENDPOINT": "https://iam.example.test"}
    ) == (IamHelper.get_iam_endpoint("cn-north-4"))
    # The credentials file's own iam_endpoint comes first (BasicCredentials.with_iam_endpoint).
    file = tmp_path / "creds.ini"
    file.write_text(
        "[basic]\nak = AKFILE\nsk = skfile\niam_endpoint = https://iam.file.test\n", encoding="utf-8"
    )
    from_file = credentials.resolve(
        "cn-north-4", env={"HUAWEICLOUD_SDK_CREDENTIALS_FILE": str(file)}, home=tmp_path
    )
    assert iam_endpoint_for(
        "cn-north-4", from_file, env={"HUAWEICLOUD_SDK_IAM_ENDPOINT": "https://x.test"}
    ) == ("https://iam.file.test")

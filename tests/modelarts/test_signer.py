"""AK/SK signing against the test vectors V1-V6 of modelarts-api.md section 5.3."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

import httpx
import pytest

from diagnosis.modelarts.canonical import canonical_query, canonical_uri
from diagnosis.modelarts.signature_check import verify_request
from diagnosis.modelarts.signer import AkSkAuth, sign_parts

AK = "AKTESTEXAMPLE0000000"
SK = "sk-test-example-secret"
PROJECT = "0123456789abcdef0123456789abcdef"
JOB = "a1b2c3d4-0000-4000-8000-000000000001"
HOST = "modelarts.cn-north-4.myhuaweicloud.com"
DATE = "20250101T000000Z"
JOB_PATH = f"/v2/{PROJECT}/training-jobs/{JOB}"
V2_BODY = (
    b'{"offset": 0, "limit": 50, "sort_by": "create_time", "order": "desc", '
    b'"filters": [{"key": "phase", "operator": "in", "value": ["Failed", "Abnormal"]}]}'
)


def _headers(content_type: str = "application/json", **extra: str) -> dict[str, str]:
    return {"Content-Type": content_type, "Host": HOST, "X-Project-Id": PROJECT, "X-Sdk-Date": DATE, **extra}


VECTORS = [
    pytest.param(
        "GET",
        f"{JOB_PATH}/events",
        "offset=0&limit=50&level=Error",
        _headers(),
        b"",
        "580f009dddb8d27cd07f589179e0c256cd768888b8a318877d7102748ce85a2e",
        "content-type;host;x-project-id;x-sdk-date",
        "783aa31ce231a8ff120b43e8fc9f9b873d5c64b114d7a6f967c730b83ec232e5",
        id="V1-get-with-query",
    ),
    pytest.param(
        "POST",
        f"/v2/{PROJECT}/training-job-searches",
        "",
        _headers("application/json;charset=utf-8"),
        V2_BODY,
        "b74ae2ae2f6f6ec77e79040f7f8070ca71446971298f3b00491c17a90028a629",
        "content-type;host;x-project-id;x-sdk-date",
        "335816c70ff9f0ebb7339f90139dfa9e7ac2a81004b59eb14fee3c207bb591e8",
        id="V2-post-json",
    ),
    pytest.param(
        "GET",
        f"{JOB_PATH}/events",
        "pattern=No%20space%20left%2Fon%20device&level=Error",
        _headers(),
        b"",
        "e86510a1783894ac7739de7e4b1f4aafcc823d9e61b25b6eba91ea46fd8a5b9b",
        "content-type;host;x-project-id;x-sdk-date",
        "0d93e456cd821c3a980eb934c249a5d6f802c51d75ea0f2dc2f07719cff5323f",
        id="V3-encoded-query",
    ),
    pytest.param(
        "GET",
        JOB_PATH,
        "",
        _headers(),
        b"",
        "294f5411426068b3dbc2b65285a9398be5ea8b211076367eacb74d45c0568176",
        "content-type;host;x-project-id;x-sdk-date",
        "a5d31a0ecfbf528876c515329a0cf50477ac0276eb7e587a4ad54a015aff375f",
        id="V4-trailing-slash",
    ),
    pytest.param(
        "GET",
        JOB_PATH,
        "",
        _headers(**{"X-Security-Token": "FAKE-SECURITY-TOKEN-EXAMPLE"}),
        b"",
        "1aad0650ef0aab97472f20ae686db4c38328bb1aaee83e29932db7e3b443fd1c",
        "content-type;host;x-project-id;x-sdk-date;x-security-token",
        "da93a391376137f809bf1d9b01bd4e175641392b2b5439b502af7d946619c7a7",
        id="V5-temporary-credentials",
    ),
    pytest.param(
        "GET",
        f"{JOB_PATH}/tasks/worker-0/logs/url",
        "",
        _headers("text/plain", **{"X-Sdk-Content-Sha256": "UNSIGNED-PAYLOAD"}),
        b"",
        "21de7240300227f72343ea416cd76fcb1f26b8df23ea0f0efae3e300889aa52d",
        "content-type;host;x-project-id;x-sdk-content-sha256;x-sdk-date",
        "03debab17c6606ec166d3870d248e2faa5a86806dd962e518db8bf99ea47e592",
        id="V6-logs-url-text-plain",
    ),
]


@pytest.mark.parametrize(
    ("method", "path", "query", "headers", "body", "canonical_sha", "signed", "signature_hex"), VECTORS
)
def test_signer_vectors(
    method: str,
    path: str,
    query: str,
    headers: dict[str, str],
    body: bytes,
    canonical_sha: str,
    signed: str,
    signature_hex: str,
) -> None:
    parts = sign_parts(
        method=method, path=path, query=query, headers=headers, body=body, access_key=AK, secret_key=SK
    )
    assert hashlib.sha256(parts.canonical_request.encode()).hexdigest() == canonical_sha
    assert parts.authorization == (
        f"SDK-HMAC-SHA256 Access={AK}, SignedHeaders={signed}, Signature={signature_hex}"
    )
    assert verify_request(
        method=method,
        path=path,
        query=query,
        headers={**headers, "Authorization": parts.authorization},
        body=body,
        access_key=AK,
        secret_key=SK,
    )


def test_v1_canonical_request_text() -> None:
    parts = sign_parts(
        method="GET",
        path=f"{JOB_PATH}/events",
        query="offset=0&limit=50&level=Error",
        headers=_headers(),
        body=b"",
        access_key=AK,
        secret_key=SK,
    )
    assert parts.canonical_request == (
        f"GET\n{JOB_PATH}/events/\nlevel=Error&limit=50&offset=0\n"
        f"content-type:application/json\nhost:{HOST}\nx-project-id:{PROJECT}\nx-sdk-date:{DATE}\n\n"
        "content-type;host;x-project-id;x-sdk-date\n"
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    )


def test_content_type_case_is_signed_verbatim() -> None:
    parts = sign_parts(
        method="POST",
        path=f"/v2/{PROJECT}/training-job-searches",
        query="",
        headers=_headers("application/json;charset=UTF-8"),
        body=V2_BODY,
        access_key=AK,
        secret_key=SK,
    )
    assert parts.authorization.endswith(
        "Signature=03399d436ab89177a7db35b2318fe3e1f1dd2764238679a8ffaf241d1efe8e65"
    )


def test_encoding_rules() -> None:
    # Decoded once, then split (the SDK's rule): an encoded `/` separates, an encoded `%` stays one.
    assert canonical_uri("/v2/p/a%20b/c%2Fd") == "/v2/p/a%20b/c/d/"
    assert canonical_uri("/v2/p/job%2541") == "/v2/p/job%2541/"
    assert canonical_query([("b", "2"), ("a", "x/y z"), ("a", "1")]) == "a=1&a=x%2Fy%20z&b=2"


async def test_auth_signs_what_goes_on_the_wire() -> None:
    """The httpx.Auth rewrites the query in canonical form, adds the headers and signs (V1 on the wire)."""
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={})

    auth = AkSkAuth(AK, SK, project_id=PROJECT, clock=lambda: datetime(2025, 1, 1, tzinfo=UTC))
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler), auth=auth) as client:
        await client.get(
            f"https://{HOST}{JOB_PATH}/events", params={"offset": "0", "limit": "50", "level": "Error"}
        )
    request = seen[0]
    assert request.url.query == b"level=Error&limit=50&offset=0"
    assert request.headers["Authorization"].endswith(
        "Signature=783aa31ce231a8ff120b43e8fc9f9b873d5c64b114d7a6f967c730b83ec232e5"
    )
    assert SK not in str(dict(request.headers)) and SK not in repr(auth)
    assert verify_request(
        method="GET",
        path=request.url.path,
        query=request.url.query.decode(),
        headers=dict(request.headers),
        body=request.content,
        access_key=AK,
        secret_key=SK,
        now=datetime(2025, 1, 1, 0, 5, tzinfo=UTC),
    )


def test_verify_refuses_tampering_wrong_key_and_stale_dates() -> None:
    headers = _headers()
    parts = sign_parts(
        method="GET", path=JOB_PATH, query="", headers=headers, body=b"", access_key=AK, secret_key=SK
    )
    signed = {**headers, "Authorization": parts.authorization}
    common = {"method": "GET", "query": "", "body": b"", "access_key": AK}
    assert verify_request(path=JOB_PATH, headers=signed, secret_key=SK, **common)
    assert not verify_request(path=JOB_PATH, headers=signed, secret_key="other-secret", **common)
    assert not verify_request(path=JOB_PATH + "x", headers=signed, secret_key=SK, **common)
    assert not verify_request(
        path=JOB_PATH, headers={**signed, "X-Project-Id": "other"}, secret_key=SK, **common
    )
    assert not verify_request(path=JOB_PATH, headers=headers, secret_key=SK, **common)
    late = datetime(2025, 1, 1, 0, 16, tzinfo=UTC)
    assert not verify_request(path=JOB_PATH, headers=signed, secret_key=SK, now=late, **common)

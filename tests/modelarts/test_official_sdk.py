"""Our ModelArts client against Huawei's official Python SDK (built offline, nothing is sent).

- every request the client builds has the SDK's method, path (path parameters encoded as the SDK
  encodes them, hostile ones included), query names and values, and body model;
- the enum values we send are among those the SDK documents;
- every signature we compute is the one the SDK's own signer computes for the same request;
- every recorded body of the test and example bundles reads into the SDK's response models, with
  no field dropped and no value changed, unless the bundle marks that field as a deliberate
  robustness case.
"""

from __future__ import annotations

import inspect
import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from diagnosis.bundle import Bundle
from diagnosis.evidence.bundles import load_bundle
from diagnosis.evidence.source import HttpSource
from diagnosis.modelarts.client import build_client
from diagnosis.modelarts.routes import EVENTS_PAGE_SIZE, ROUTES, SEARCH_PAGE_SIZE
from diagnosis.modelarts.signer import AkSkAuth
from tests.modelarts import official_sdk as official

AK = "AKTESTEXAMPLE0000000"
SK = "sk-test-example-secret"
PROJECT = "0123456789abcdef0123456789abcdef"
ENDPOINT = "https://modelarts.cn-north-4.myhuaweicloud.com"
JOB = "a1b2c3d4-0000-4000-8000-000000000001"
TOKEN = "FAKE-SECURITY-TOKEN-EXAMPLE"
ROOT = Path(__file__).resolve().parents[2]
BUNDLES = sorted(
    [
        *(ROOT / "diagnosis" / "examples" / "modelarts").glob("*.bundle.json"),
        *(ROOT / "tests" / "modelarts" / "bundles").glob("*.bundle.json"),
    ]
)

# Job and task ids a path parameter may hold: plain, and the ones an encoder gets wrong (a literal
# `%`, something that looks like an escape, a `/`, a space, non-ASCII).
IDS = [JOB, "50%-done", "job%41", "a/b", "a b", "训练-0"]

# (op, our args, the SDK request's fields) for every call a diagnosis, a scan or the log link makes.
CALLS: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("ShowTrainingJobDetails", {}, {}),
    (
        "ListTrainingJobEvents",
        {"limit": EVENTS_PAGE_SIZE, "level": "Error"},
        {"limit": 100, "level": "Error"},
    ),
    (
        "ListTrainingJobEvents",
        {"limit": EVENTS_PAGE_SIZE, "level": "Error", "offset": 2},
        {"limit": 100, "level": "Error", "offset": 2},
    ),
    ("ListTrainingJobEvents", {"limit": EVENTS_PAGE_SIZE}, {"limit": 100}),
    ("ListTrainingJobStages", {}, {}),
    ("ListTrainingJobTasks", {}, {}),
    ("ShowTrainingJobLogsPreview", {"task_id": "worker-0"}, {"task_id": "worker-0"}),
    ("ShowTrainingJobMetrics", {"task_id": "worker-0"}, {"task_id": "worker-0"}),
]


def _our_request(op: str, args: dict[str, Any], *, token: str | None = None) -> httpx.Request:
    """The request our client stack (route table, signer, read-only guard) puts on the wire."""
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={})

    auth = AkSkAuth(AK, SK, project_id=PROJECT, security_token=token, clock=lambda: datetime.now(UTC))

    async def run() -> None:
        async with build_client(auth=auth, transport=httpx.MockTransport(answer)) as client:
            source = HttpSource(
                routes=ROUTES, client=client, base_url=ENDPOINT, fixed_args={"project_id": PROJECT}
            )
            await source.fetch(op, **args)

    import asyncio

    asyncio.run(run())
    assert len(seen) == 1, f"{op}: expected one request, got {len(seen)}"
    return seen[0]


def _sdk_request(op: str, fields: dict[str, Any]) -> Any:
    return official.request_class(op)(**fields)


def _split(request: httpx.Request) -> tuple[str, list[tuple[str, str]]]:
    raw = request.url.raw_path.decode("ascii")
    path, _, query = raw.partition("?")
    from urllib.parse import parse_qsl

    return path, parse_qsl(query, keep_blank_values=True)


@pytest.mark.parametrize("job_id", IDS)
@pytest.mark.parametrize(
    ("op", "args", "fields"), CALLS, ids=[f"{op}-{i}" for i, (op, _a, _f) in enumerate(CALLS)]
)
def test_requests_are_the_sdks(op: str, args: dict[str, Any], fields: dict[str, Any], job_id: str) -> None:
    ours = _our_request(op, {"training_job_id": job_id, **args})
    client = official.sdk_client(access_key=AK, secret_key=SK, project_id=PROJECT, endpoint=ENDPOINT)
    theirs = official.sdk_wire(client, op, _sdk_request(op, {"training_job_id": job_id, **fields}))
    path, query = _split(ours)
    assert ours.method == theirs.method
    assert path == theirs.path
    assert sorted(query) == sorted(theirs.query)
    # The SDK sends the query in its canonical order: ours goes out in the same order.
    assert query == theirs.query
    assert ours.headers["content-type"] == theirs.headers["Content-Type"]
    assert ours.headers["x-project-id"] == theirs.headers["X-Project-Id"]


@pytest.mark.parametrize("name", [None, "bert-finetune", "训练 50%"])
@pytest.mark.parametrize("page", [0, 3])
def test_job_search_is_the_sdks(name: str | None, page: int) -> None:
    """ListTrainingJobs: the same POST, and a body that reads into the SDK's JobSearches whole."""
    args: dict[str, Any] = {"limit": SEARCH_PAGE_SIZE, **({"offset": page} if page else {})}
    if name:
        args["name"] = name
    ours = _our_request("ListTrainingJobs", args)
    body = json.loads(ours.content)
    client = official.sdk_client(access_key=AK, secret_key=SK, project_id=PROJECT, endpoint=ENDPOINT)
    model = client._deserialize(body, "JobSearches")
    assert official.wire_form(model) == body
    theirs = official.sdk_wire(
        client, "ListTrainingJobs", official.request_class("ListTrainingJobs")(body=model)
    )
    path, query = _split(ours)
    assert (ours.method, path, query) == (theirs.method, theirs.path, theirs.query)
    assert json.loads(theirs.body) == body
    assert body["offset"] == page  # a page index, 0 = the first page
    for item in body.get("filters", []):
        assert item["operator"] in _documented(official.sdk.Filter, "operator", r"支持(.*?)。", r"(\w+)（")


def _documented(model: type[Any], parameter: str, sentence: str, value: str) -> list[str]:
    """The values an SDK model's docstring lists for a parameter."""
    doc = inspect.getdoc(model.__init__) or ""
    line = next(line for line in doc.splitlines() if line.startswith(f":param {parameter}:"))
    found = re.search(sentence, line)
    assert found, line
    return re.findall(value, found.group(1))


def test_event_levels_are_documented_ones() -> None:
    levels = _documented(official.sdk.ListTrainingJobEventsRequest, "level", r"\[(.*?)\]", r"(\w+)")
    assert levels == ["Info", "Error", "Warning"]
    offset_doc = inspect.getdoc(official.sdk.ListTrainingJobEventsRequest.__init__) or ""
    # The events `offset` is a page index: the SDK says 0 is the first page.
    assert "0，则表示从第一页开始" in offset_doc or "表示从第一页开始" in offset_doc


@pytest.mark.parametrize("job_id", IDS)
@pytest.mark.parametrize("token", [None, TOKEN])
@pytest.mark.parametrize(("op", "args", "fields"), CALLS[:3], ids=["details", "events", "events-page"])
def test_signatures_are_the_sdk_signers(
    op: str, args: dict[str, Any], fields: dict[str, Any], job_id: str, token: str | None
) -> None:
    ours = _our_request(op, {"training_job_id": job_id, **args}, token=token)
    if token:
        assert ours.headers["x-security-token"] == token
    assert ours.headers["authorization"] == official.sdk_signature(ours, access_key=AK, secret_key=SK)


def test_search_and_log_link_signatures_are_the_sdk_signers() -> None:
    search = _our_request("ListTrainingJobs", {"limit": SEARCH_PAGE_SIZE, "name": "a b/c%"})
    assert search.headers["authorization"] == official.sdk_signature(search, access_key=AK, secret_key=SK)
    # The log link is asked with a non-JSON content type: the payload is unsigned, as the SDK does.
    seen: list[httpx.Request] = []
    auth = AkSkAuth(AK, SK, project_id=PROJECT)
    request = httpx.Request(
        "GET",
        f"{ENDPOINT}/v2/{PROJECT}/training-jobs/{JOB}/tasks/worker-0/logs/url",
        headers={"Content-Type": "text/plain"},
    )
    auth.sign(request)
    seen.append(request)
    assert request.headers["x-sdk-content-sha256"] == "UNSIGNED-PAYLOAD"
    assert request.headers["authorization"] == official.sdk_signature(request, access_key=AK, secret_key=SK)


def _exchanges() -> list[Any]:
    cases = []
    for path in BUNDLES:
        bundle = load_bundle(path)
        for index, exchange in enumerate(bundle.exchanges):
            if exchange.body is None or not 200 <= exchange.status < 300:
                continue
            cases.append(pytest.param(path, index, id=f"{path.stem}-{index}-{exchange.op}"))
    return cases


def _marked(bundle: Bundle, op: str) -> list[str]:
    if bundle.expected is None:
        return []
    return [field for case in bundle.expected.robustness if case.op == op for field in case.fields]


def _covered(path: str, marked: list[str]) -> bool:
    return any(path == field or path.startswith((field + ".", field + "[]")) for field in marked)


@pytest.mark.parametrize(("path", "index"), _exchanges())
def test_recorded_bodies_read_into_the_sdk_models(path: Path, index: int) -> None:
    bundle = load_bundle(path)
    exchange = bundle.exchanges[index]
    if not official.has_operation(exchange.op):
        # Only the documented platform diagnosis is missing from the SDK release: read by its doc.
        assert exchange.op == "ShowTrainingJobUserDiagnosis", exchange.op
        return
    found = official.differences(exchange.op, exchange.body)
    unmarked = {
        field: kind for field, kind in found.items() if not _covered(field, _marked(bundle, exchange.op))
    }
    assert not unmarked, f"{path.name}: {exchange.op} fields the SDK model does not read as sent: {unmarked}"


@pytest.mark.parametrize("path", BUNDLES, ids=[path.stem for path in BUNDLES])
def test_robustness_markers_name_real_differences(path: Path) -> None:
    """A marker that covers nothing the SDK drops is stale: the bundle must say what is off-spec."""
    bundle = load_bundle(path)
    for case in bundle.expected.robustness if bundle.expected else []:
        found: dict[str, str] = {}
        for exchange in bundle.exchanges:
            if exchange.op == case.op and exchange.body is not None and 200 <= exchange.status < 300:
                found.update(official.differences(exchange.op, exchange.body))
        for field in case.fields:
            assert any(_covered(path_, [field]) for path_ in found), (
                f"{path.name}: {case.op} {field} is read by the SDK"
            )


def test_the_comparison_catches_wrong_types_and_unknown_fields() -> None:
    details = {"status": {"phase": "Failed", "task_statuses": [{"task": "worker-0", "exit_code": 137}]}}
    assert official.differences("ShowTrainingJobDetails", details) == {}
    wrong = {"status": {"task_statuses": [{"task": "worker-0", "exit_code": "137", "exitCode": 1}]}}
    assert official.differences("ShowTrainingJobDetails", wrong) == {
        "status.task_statuses[].exit_code": "type",
        "status.task_statuses[].exitCode": "unknown",
    }
    with pytest.raises(ValueError):
        official.differences("ShowTrainingJobDetails", {"status": {"duration": "soon"}})

"""The Run:ai and Kubernetes wire format, judged by the platforms' own artefacts.

Every recorded answer in the Run:ai bundles (examples, test bundles, worked examples, and the
worlds the test factory builds) must be an answer the API can give: it validates against the
official models, with no undeclared field and no null where the spec allows none, except the
fields a bundle marks as a deliberate robustness case (`expected.robustness`: the op, the paths in
its answer with list items written `[]`, and why), and a marker that covers nothing is stale.
Every request the client builds while replaying them must be an operation of the spec, with the
spec's query parameters and values; Kubernetes requests must be what the official client builds.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from diagnosis import engine
from diagnosis.bundle import Bundle
from diagnosis.evidence.bundles import BundleTransport, load_bundle, parse_bundle
from diagnosis.runai.auth import RunaiTokenAuth
from diagnosis.runai.routes import ROUTES, is_k8s_op, spec_variant_for_type
from tests.conftest import ROOT
from tests.runai import factory, official
from tests.runai import scenarios as _scenarios  # noqa: F401  (registers the builders)

CORPUS = sorted(
    [
        *(ROOT / "diagnosis" / "examples" / "runai").glob("*.bundle.json"),
        *(ROOT / "tests" / "runai" / "bundles").glob("*.bundle.json"),
        *(ROOT / "diagnosis" / "schemas" / "examples").glob("runai-*.bundle.json"),
    ]
)
BY_NAME = {path.name.removesuffix(".bundle.json"): path for path in CORPUS}


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT))


def recorded_problems(bundle: Bundle) -> dict[tuple[str, str], str]:
    """(op, path in its answer, list items as `[]`) -> what the official models say, for every
    2xx JSON answer of the bundle."""
    workload_type = next(
        (
            exchange.body.get("type")
            for exchange in bundle.exchanges
            if exchange.op == "get_workload_status" and isinstance(exchange.body, dict)
        ),
        None,
    )
    found: dict[tuple[str, str], str] = {}
    for exchange in bundle.exchanges:
        if not 200 <= exchange.status < 300 or exchange.body is None:
            continue
        variant = spec_variant_for_type(workload_type) if exchange.op == "get_workload_spec" else None
        for problem in official.body_problems(exchange.op, exchange.body, variant=variant):
            where = "" if problem.where == "(body)" else re.sub(r"\[[0-9]+\]", "[]", problem.where)
            found[(exchange.op, where)] = problem.what
    return found


def marked(bundle: Bundle) -> list[tuple[str, str]]:
    cases = bundle.expected.robustness if bundle.expected is not None else []
    return [(case.op, field) for case in cases for field in case.fields]


def _covered(op: str, where: str, marks: list[tuple[str, str]]) -> bool:
    """A marked path covers itself and its children (the ModelArts bundles' convention)."""
    return any(
        op == marked_op and (where == field or where.startswith((field + ".", field + "[]")))
        for marked_op, field in marks
    )


def test_the_runai_corpus_is_found() -> None:
    assert len(CORPUS) >= 45 and official.runai_version().startswith("1.2")


@pytest.mark.parametrize("path", CORPUS, ids=_name)
def test_recorded_answers_are_answers_the_api_can_give(path: Path) -> None:
    bundle = load_bundle(path)
    found = recorded_problems(bundle)
    marks = marked(bundle)
    unmarked = {where: what for where, what in found.items() if not _covered(*where, marks)}
    assert unmarked == {}, "answers the Run:ai/Kubernetes API cannot give (fix them or mark them robustness)"
    stale = [mark for mark in marks if not any(_covered(op, where, [mark]) for op, where in found)]
    assert stale == [], "robustness names fields the official models accept"


@pytest.mark.parametrize("name", sorted({**factory.DEMO, **factory.TESTS}))
def test_the_worlds_the_factory_builds_are_answers_the_api_can_give(name: str) -> None:
    builder = {**factory.DEMO, **factory.TESTS}[name]
    built = parse_bundle(builder().bundle())
    marks = marked(load_bundle(BY_NAME[name]))
    assert [where for where in recorded_problems(built) if not _covered(*where, marks)] == []


# --- the judge can fail --------------------------------------------------------------------------


def test_the_judge_names_what_the_real_api_cannot_answer() -> None:
    page = {"events": [], "next": None}
    assert [str(p) for p in official.body_problems("get_workload_events", page)] == [
        "next: null, which the spec does not allow here"
    ]
    record = {
        "meta": {"creationTimestamp": "2026-05-06T09:00:00Z", "type": "PhaseUpdate"},
        "spec": {"phaseUpdate": {"phase": "Crashed", "phaseMessage": ""}},
    }
    problems = official.body_problems("get_workload_history", {"records": [record]})
    assert [p.where for p in problems] == ["records[0].spec.phaseUpdate.phase"]
    pod_page = official.body_problems("get_workload_pods", {"pods": [], "exitCode": 137})
    assert [str(p) for p in pod_page] == ["exitCode: not a field of the spec"]
    container = {"name": "c", "image": "i", "ready": False, "restartCount": 0}
    kube = official.body_problems("k8s.read_pod", {"status": {"containerStatuses": [container]}})
    assert [p.where for p in kube] == ["status.containerStatuses[0].imageID"]
    assert official.body_problems("get_workload_events", {"events": []}) == []


# --- requests --------------------------------------------------------------------------------------


@contextmanager
def captured_requests() -> Iterator[list[httpx.Request]]:
    """Every request the client sends to a bundle's answers during replay."""
    seen: list[httpx.Request] = []
    original = BundleTransport.handle_async_request

    async def handle(self: BundleTransport, request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return await original(self, request)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(BundleTransport, "handle_async_request", handle)
        yield seen


def _problems_of(request: httpx.Request) -> list[str]:
    resolved = ROUTES.resolve_request(request)
    assert resolved is not None, f"{request.method} {request.url.path} resolves to no op"
    route, _args = resolved
    url = str(request.url.copy_with(scheme="https", host="api.invalid", port=None))
    if is_k8s_op(route.op):
        problems = official.kube_request_problems(route.op, url)
    else:
        problems = official.request_problems(request.method, url)
    return [f"{route.op} {request.url.path}?{request.url.query.decode()}: {p}" for p in problems]


@pytest.mark.parametrize("path", CORPUS, ids=_name)
def test_every_request_replay_makes_is_an_operation_of_the_spec(path: Path) -> None:
    bundle = load_bundle(path)
    with captured_requests() as seen:
        asyncio.run(engine.replay(bundle))
    assert seen, "replay sent no request"
    assert [problem for request in seen for problem in _problems_of(request)] == []


def test_the_request_judge_can_fail() -> None:
    assert [
        str(p) for p in official.request_problems("GET", "https://a.invalid/api/v1/workloads?order=desc")
    ] == ["query order: not a parameter of WorkloadsApi.get_workloads"]
    assert official.request_problems("GET", "https://a.invalid/api/v1/workload/x")[0].what == (
        "no operation of the spec"
    )
    metric = "https://a.invalid/api/v1/workloads/w/metrics?metricType=GPU_MEMORY_USAGE_BYTES_PER_GPU"
    assert [p.where for p in official.request_problems("GET", metric)] == ["query metricType"]
    log = "https://a.invalid/api/v1/namespaces/n/pods/p/log?container=c&tail=200"
    assert [p.where for p in official.kube_request_problems("k8s.read_pod_log", log)] == ["query tail"]


def _token_body(auth: RunaiTokenAuth) -> Any:
    import json

    request = next(iter([auth._token_request(httpx.Request("GET", "https://a.invalid/api/v1/workloads"))]))
    return json.loads(request.content)


def test_the_token_request_is_a_token_request_of_the_spec() -> None:
    auth = RunaiTokenAuth(base_url="https://tenant.run.ai", client_id="id", client_secret="secret")
    body = _token_body(auth)
    assert official.request_problems("POST", "https://tenant.run.ai/api/v1/token", body) == []
    assert official.model_problems("TokenResponse", {"accessToken": "t", "expiresIn": 3600}) == []

"""The simulator over a real loopback socket: matching, token endpoint, latency and injected faults."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import httpx
import pytest

from diagnosis.bundle import Bundle
from diagnosis.evidence.http.readonly import ReadOnlyGuard
from diagnosis.evidence.http.retrying import Retrying, RetryPolicy
from diagnosis.evidence.routes import Route, RouteTable
from diagnosis.evidence.source import HttpSource
from diagnosis.models import Exchange
from simulator.server import Fault, SimServer, parse_fault

ROUTES = RouteTable(
    [
        Route("get_workload_status", "GET", "/api/v1/workloads/{workloadId}"),
        Route("k8s.read_pod_log", "GET", "/api/v1/namespaces/{namespace}/pods/{name}/log", text_answer=True),
    ]
)
TABLES = {
    "runai": ROUTES,
    "modelarts": RouteTable(
        [Route("ShowTrainingJobDetails", "GET", "/v2/{project_id}/training-jobs/{training_job_id}")]
    ),
}

BUNDLE = Bundle(
    platform="runai",
    captured_at=datetime(2026, 3, 19, 8, 30, tzinfo=UTC),
    request={"cluster_id": "c1", "workload_id": "w1"},
    exchanges=[
        Exchange(op="get_workload_status", args={"workloadId": "w1"}, status=200, body={"phase": "Failed"}),
        Exchange(
            op="k8s.read_pod_log",
            args={"namespace": "runai-p", "name": "w1-0-0", "previous": True},
            status=200,
            text="Traceback (most recent call last):\nValueError: bad\n",
        ),
    ],
)


def make_source(client: httpx.AsyncClient, base_url: str) -> HttpSource:
    return HttpSource(routes=ROUTES, client=client, base_url=base_url)


async def test_serves_bundle_answers_at_real_paths() -> None:
    with SimServer([BUNDLE], route_tables=TABLES) as sim:
        async with httpx.AsyncClient(transport=ReadOnlyGuard(httpx.AsyncHTTPTransport())) as client:
            source = make_source(client, sim.base_url)
            status = await source.fetch("get_workload_status", workloadId="w1")
            log = await source.fetch(
                "k8s.read_pod_log", namespace="runai-p", name="w1-0-0", previous=True, tailLines=200
            )
            missing = await source.fetch("get_workload_status", workloadId="nope")
            with pytest.raises(httpx.TransportError):
                await client.post(f"{sim.base_url}/api/v1/token", json={"grantType": "client_credentials"})
        async with httpx.AsyncClient() as plain:
            token = await plain.post(f"{sim.base_url}/api/v1/token", json={"grantType": "client_credentials"})
    assert status.ok and status.body == {"phase": "Failed"}
    assert log.text is not None and "ValueError: bad" in log.text
    assert missing.status == 404 and missing.body == {"code": 404, "message": "Resource id not found."}
    assert token.status_code == 200 and token.json()["accessToken"].count(".") == 2
    assert sim.ops == ["get_workload_status", "k8s.read_pod_log", "get_workload_status"]


async def test_injected_429_then_success_is_retried_with_retry_after() -> None:
    faults = {"get_workload_status": [Fault(status=429, retry_after=0.2)]}
    with SimServer([BUNDLE], route_tables=TABLES, faults=faults) as sim:
        transport = Retrying(httpx.AsyncHTTPTransport())
        async with httpx.AsyncClient(transport=transport) as client:
            started = time.monotonic()
            answer = await make_source(client, sim.base_url).fetch("get_workload_status", workloadId="w1")
            elapsed = time.monotonic() - started
    assert answer.ok and answer.body == {"phase": "Failed"}
    assert elapsed >= 0.2
    assert sim.op_count("get_workload_status") == 2


@pytest.mark.parametrize("fault", [Fault(timeout=True), Fault(reset=True), Fault(truncate=True)])
async def test_transport_faults_become_answers_without_status(fault: Fault) -> None:
    fault.times = -1
    with SimServer(
        [BUNDLE], route_tables=TABLES, faults={"get_workload_status": [fault]}, timeout_hold_seconds=5
    ) as sim:
        transport = Retrying(httpx.AsyncHTTPTransport(), policy=RetryPolicy(attempts=2, base_delay=0.01))
        async with httpx.AsyncClient(transport=transport, timeout=0.5) as client:
            started = time.monotonic()
            answer = await make_source(client, sim.base_url).fetch("get_workload_status", workloadId="w1")
            elapsed = time.monotonic() - started
    assert answer.status is None and answer.error
    assert elapsed < 4


def test_fault_grammar() -> None:
    op, fault = parse_fault("get_workload_pods=429:2x3")
    assert op == "get_workload_pods" and fault.status == 429 and fault.retry_after == 2.0 and fault.times == 3
    assert parse_fault("k8s.read_pod=timeout")[1].timeout
    with pytest.raises(ValueError):
        parse_fault("nonsense")


@pytest.mark.parametrize("job_id", ["job-1", "a/b", "50%", "job%41"])
async def test_modelarts_signatures_are_checked_like_the_gateway(job_id: str) -> None:
    """The verifier decodes the raw path once before splitting it (as the gateway and the SDK do):
    ids holding `/` or `%` are accepted when signed right; a date 16 minutes off is refused."""
    from diagnosis.modelarts.routes import ROUTES as MODELARTS_ROUTES
    from diagnosis.modelarts.signer import AkSkAuth

    keys = ("AKSIMULATOR000000000", "sim-secret")
    bundle = Bundle(
        platform="modelarts",
        captured_at=datetime(2026, 3, 19, 8, 30, tzinfo=UTC),
        exchanges=[
            Exchange(
                op="ShowTrainingJobDetails",
                args={"project_id": "p1", "training_job_id": job_id},
                status=200,
                body={"status": {"phase": "Failed"}},
            )
        ],
    )
    with SimServer([bundle], modelarts_keys=keys) as sim:
        answers = []
        for clock in (lambda: datetime.now(UTC), lambda: datetime(2020, 1, 1, tzinfo=UTC)):
            auth = AkSkAuth(*keys, project_id="p1", clock=clock)
            async with httpx.AsyncClient(auth=auth) as client:
                source = HttpSource(
                    routes=MODELARTS_ROUTES,
                    client=client,
                    base_url=sim.base_url,
                    fixed_args={"project_id": "p1"},
                )
                answers.append(await source.fetch("ShowTrainingJobDetails", training_job_id=job_id))
    fresh, stale = answers
    assert fresh.status == 200 and fresh.body == {"status": {"phase": "Failed"}}
    assert stale.status == 401 and stale.error_code() == "APIGW.0301"

"""The control plane is reached through the environment's proxy (HTTPS_PROXY, NO_PROXY), as curl
and httpx read it: the client's own transport would otherwise ignore it."""

from __future__ import annotations

from pathlib import Path

import pytest

from diagnosis.evidence.http.transport import environment_proxy
from diagnosis.runai.client import live_sources
from diagnosis.runai.settings import RunaiSettings
from tests.fakes.tls import Authority, ConnectProxy, HttpsServer

URL = "https://tenant.runai.invalid"


@pytest.fixture(autouse=True)
def _clean_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "HTTPS_PROXY",
        "https_proxy",
        "HTTP_PROXY",
        "http_proxy",
        "NO_PROXY",
        "no_proxy",
        "ALL_PROXY",
        "all_proxy",
    ):
        monkeypatch.delenv(name, raising=False)


async def _status_failure(tmp_path: Path) -> str:
    config = RunaiSettings(
        runai_url=URL, runai_client_id="id", runai_client_secret="s", kubeconfig=str(tmp_path / "none")
    )
    async with live_sources(settings=config, cluster_id="c1") as make_source:
        answer = await make_source().fetch("get_workload_status", workloadId="w1")
    return answer.describe_failure()


async def test_https_proxy_carries_the_control_plane_and_no_proxy_bypasses_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The host never resolves here (.invalid): only the proxy can reach it. The stand-in's
    # certificate is from a private CA, so the TLS check fails after the tunnel is open: proof
    # enough that the request went through the proxy, and that TLS was still checked.
    server = HttpsServer(Authority().issue("tenant.runai.invalid"), tmp_path, answer={"accessToken": "t"})
    with server, ConnectProxy({"tenant.runai.invalid:443": server.port}) as proxy:
        monkeypatch.setenv("HTTPS_PROXY", proxy.url)
        failure = await _status_failure(tmp_path)
        tunnels = len(proxy.connects)  # the token request and its retries
        assert (
            set(proxy.connects) == {"CONNECT tenant.runai.invalid:443"} and "certificate" in failure.lower()
        )
        monkeypatch.setenv("NO_PROXY", ".runai.invalid")
        failure = await _status_failure(tmp_path)
        assert len(proxy.connects) == tunnels and "certificate" not in failure.lower()


def test_the_environment_proxy_for_a_url(monkeypatch: pytest.MonkeyPatch) -> None:
    assert environment_proxy(URL) is None
    monkeypatch.setenv("HTTPS_PROXY", "proxy.corp:3128")
    found = environment_proxy(URL)
    assert found is not None and str(found.url) == "http://proxy.corp:3128"
    assert environment_proxy("http://tenant.runai.invalid") is None
    monkeypatch.setenv("NO_PROXY", "*")
    assert environment_proxy(URL) is None

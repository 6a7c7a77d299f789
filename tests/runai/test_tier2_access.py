"""Tier 2 reaches the API server the way kubectl and the official client do, over real TLS on
loopback: the kubeconfig's CA, client certificates, `tls-server-name` (SNI and the name checked),
`proxy-url` and the environment's proxy (an HTTP CONNECT stand-in), `insecure-skip-tls-verify`;
every request still goes through the read-only guard. Several clusters: each Run:ai cluster id is
served by the kubeconfig context mapped to it, and an unmapped cluster gets no Tier 2 (with a
message saying why), never another cluster's pods."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from diagnosis.evidence.http.readonly import MutatingRequestRefused
from diagnosis.runai.client import live_sources
from diagnosis.runai.contexts import Unmapped, context_for, parse_mapping
from diagnosis.runai.k8s import KubeContexts, load_kube_access
from diagnosis.runai.settings import ConfigError, RunaiSettings
from tests.fakes.tls import Authority, ConnectProxy, HttpsServer

POD = {"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "p", "namespace": "n"}}


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def kubeconfig(
    folder: Path,
    clusters: dict[str, dict[str, str]],
    *,
    user: str = "    token: read-only-token\n",
    current: str | None = None,
) -> Path:
    """One context per cluster (named `ctx-<cluster>`), each cluster's keys as given."""
    text = "apiVersion: v1\nkind: Config\nclusters:\n"
    for name, keys in clusters.items():
        text += f"- name: {name}\n  cluster:\n" + "".join(
            f"    {key}: {value}\n" for key, value in keys.items()
        )
    text += f"users:\n- name: u\n  user:\n{user}contexts:\n"
    for name in clusters:
        text += f"- name: ctx-{name}\n  context: {{cluster: {name}, user: u}}\n"
    text += f"current-context: ctx-{current or next(iter(clusters))}\n"
    path = folder / "kubeconfig"
    path.write_text(text, encoding="utf-8")
    return path


def settings(path: Path, **extra: str) -> RunaiSettings:
    return RunaiSettings(
        runai_url="http://127.0.0.1:9",
        runai_client_id="id",
        runai_client_secret="secret",
        kubeconfig=str(path),
        **extra,
    )


async def read_pod(config: RunaiSettings, *, cluster_id: str = "c1") -> tuple[int | None, str]:
    async with live_sources(settings=config, cluster_id=cluster_id) as make_source:
        source = make_source()
        if not source.tier2_available:
            return None, str(source.tier2_unavailable_reason)
        answer = await source.fetch("k8s.read_pod", namespace="n", name="p")
        return answer.status, answer.describe_failure() if not answer.ok else ""


@pytest.fixture(autouse=True)
def _no_ambient_cluster(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "KUBERNETES_SERVICE_HOST",
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


async def test_tls_server_name_is_sent_and_checked(tmp_path: Path) -> None:
    ca = Authority()
    with HttpsServer(ca.issue("kube.internal"), tmp_path, answer=POD) as server:
        base = {"server": f"https://127.0.0.1:{server.port}", "certificate-authority-data": b64(ca.cert_pem)}
        named = kubeconfig(tmp_path, {"c": {**base, "tls-server-name": "kube.internal"}})
        assert await read_pod(settings(named)) == (200, "")
        assert [(seen.path, seen.sni, seen.authorization) for seen in server.seen] == [
            ("/api/v1/namespaces/n/pods/p", "kube.internal", "Bearer read-only-token")
        ]
        # Without the name, the certificate (for kube.internal only) does not match 127.0.0.1.
        plain = kubeconfig(tmp_path, {"c": base})
        status, failure = await read_pod(settings(plain))
        assert status is None and "certificate" in failure.lower()
        assert len(server.seen) == 1


async def test_a_wrong_tls_server_name_is_refused(tmp_path: Path) -> None:
    ca = Authority()
    with HttpsServer(ca.issue("kube.internal"), tmp_path, answer=POD) as server:
        config = kubeconfig(
            tmp_path,
            {
                "c": {
                    "server": f"https://127.0.0.1:{server.port}",
                    "certificate-authority-data": b64(ca.cert_pem),
                    "tls-server-name": "other.internal",
                }
            },
        )
        status, failure = await read_pod(settings(config))
        assert status is None and "certificate" in failure.lower() and server.seen == []


async def test_client_certificates_from_the_kubeconfig(tmp_path: Path) -> None:
    ca = Authority()
    client = ca.issue(client=True)
    with HttpsServer(ca.issue("127.0.0.1"), tmp_path, answer=POD, client_ca=ca) as server:
        config = kubeconfig(
            tmp_path,
            {
                "c": {
                    "server": f"https://127.0.0.1:{server.port}",
                    "certificate-authority-data": b64(ca.cert_pem),
                }
            },
            user=f"    client-certificate-data: {b64(client.cert_pem)}\n    client-key-data: {b64(client.key_pem)}\n",
        )
        assert await read_pod(settings(config)) == (200, "")
        assert server.seen[0].client_certificate and server.seen[0].authorization is None


async def test_proxy_url_tunnels_with_the_tls_server_name_inside(tmp_path: Path) -> None:
    """The server's name never resolves here (.invalid): only the proxy can reach it."""
    ca = Authority()
    server = HttpsServer(ca.issue("kube.internal"), tmp_path, answer=POD)
    with server, ConnectProxy({"api.cluster.invalid:6443": server.port}) as proxy:
        config = kubeconfig(
            tmp_path,
            {
                "c": {
                    "server": "https://api.cluster.invalid:6443",
                    "certificate-authority-data": b64(ca.cert_pem),
                    "tls-server-name": "kube.internal",
                    "proxy-url": proxy.url,
                }
            },
        )
        assert await read_pod(settings(config)) == (200, "")
        assert proxy.connects == ["CONNECT api.cluster.invalid:6443"]
        assert server.seen[0].sni == "kube.internal"


async def test_the_environment_proxy_and_no_proxy_as_the_official_client_reads_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ca = Authority()
    server = HttpsServer(ca.issue("api.cluster.invalid"), tmp_path, answer=POD)
    with server, ConnectProxy({"api.cluster.invalid:6443": server.port}) as proxy:
        ca_data = b64(ca.cert_pem)
        config = kubeconfig(
            tmp_path,
            {"c": {"server": "https://api.cluster.invalid:6443", "certificate-authority-data": ca_data}},
        )
        monkeypatch.setenv("HTTPS_PROXY", proxy.url)
        assert await read_pod(settings(config)) == (200, "")
        assert proxy.connects == ["CONNECT api.cluster.invalid:6443"]
        monkeypatch.setenv("NO_PROXY", "cluster.invalid")
        assert load_kube_access(str(config)).proxy is None


async def test_insecure_skip_tls_verify_reaches_a_self_signed_server(tmp_path: Path) -> None:
    with HttpsServer(Authority().issue("elsewhere"), tmp_path, answer=POD) as server:
        config = kubeconfig(
            tmp_path,
            {"c": {"server": f"https://127.0.0.1:{server.port}", "insecure-skip-tls-verify": "true"}},
        )
        assert await read_pod(settings(config)) == (200, "")


async def test_the_read_only_guard_stays_in_the_tier2_path(tmp_path: Path) -> None:
    ca = Authority()
    with HttpsServer(ca.issue("kube.internal"), tmp_path, answer=POD) as server:
        config = kubeconfig(
            tmp_path,
            {
                "c": {
                    "server": f"https://127.0.0.1:{server.port}",
                    "certificate-authority-data": b64(ca.cert_pem),
                    "tls-server-name": "kube.internal",
                }
            },
        )
        async with live_sources(settings=settings(config), cluster_id="c1") as make_source:
            assert make_source.kube_client is not None
            with pytest.raises(MutatingRequestRefused):
                await make_source.kube_client.delete(
                    f"https://127.0.0.1:{server.port}/api/v1/namespaces/n/pods/p"
                )
        assert server.seen == []


# --- several clusters ---------------------------------------------------------------------------------


async def test_each_cluster_is_read_through_its_own_context(tmp_path: Path) -> None:
    ca = Authority()
    with (
        HttpsServer(ca.issue("127.0.0.1"), tmp_path, answer=POD) as east,
        HttpsServer(ca.issue("127.0.0.1"), tmp_path, answer=POD) as west,
    ):
        config = kubeconfig(
            tmp_path,
            {
                name: {
                    "server": f"https://127.0.0.1:{server.port}",
                    "certificate-authority-data": b64(ca.cert_pem),
                }
                for name, server in (("east", east), ("west", west))
            },
        )
        mapping = '{"AAAA-1111": "ctx-east", "bbbb-2222": "ctx-west"}'
        assert await read_pod(settings(config, runai_kube_contexts=mapping), cluster_id="aaaa-1111") == (
            200,
            "",
        )
        assert await read_pod(settings(config, runai_kube_contexts=mapping), cluster_id="BBBB-2222") == (
            200,
            "",
        )
        assert (len(east.seen), len(west.seen)) == (1, 1)
        status, reason = await read_pod(settings(config, runai_kube_contexts=mapping), cluster_id="cccc-3333")
        assert status is None and "no kubeconfig context is mapped to Run:ai cluster cccc-3333" in reason
        # No mapping and two clusters: which one is Run:ai's is not guessed.
        status, reason = await read_pod(settings(config), cluster_id="aaaa-1111")
        assert status is None and "reaches 2 clusters" in reason
        assert (len(east.seen), len(west.seen)) == (1, 1)
        # `*` serves the clusters the mapping does not name.
        fallback = "aaaa-1111=ctx-east,*=ctx-west"
        assert await read_pod(settings(config, runai_kube_contexts=fallback), cluster_id="dddd") == (200, "")
        assert len(west.seen) == 2


async def test_the_mapping_file_and_a_context_it_names_that_is_missing(tmp_path: Path) -> None:
    config = kubeconfig(tmp_path, {"only": {"server": "http://127.0.0.1:9"}})
    file = tmp_path / "contexts.yaml"
    file.write_text("c1: ctx-gone\n", encoding="utf-8")
    status, reason = await read_pod(settings(config, runai_kube_contexts_file=str(file)), cluster_id="c1")
    assert status is None and "ctx-gone" in reason
    # One cluster in the kubeconfig and no mapping: its current context serves.
    async with live_sources(settings=settings(config), cluster_id="any") as make_source:
        assert make_source().tier2_available


def test_mapping_forms_and_errors() -> None:
    assert parse_mapping("A=ctx-a, b = arn:aws:eks:eu-west-1:1:cluster/b", origin="x") == {
        "a": "ctx-a",
        "b": "arn:aws:eks:eu-west-1:1:cluster/b",
    }
    assert parse_mapping('{"c": "in-cluster"}', origin="x") == {"c": "in-cluster"}
    assert parse_mapping("c: ctx-c\nd: ctx-d\n", origin="x") == {"c": "ctx-c", "d": "ctx-d"}
    for bad in ("just-a-name", "[1, 2]", '{"c": 3}', "c="):
        with pytest.raises(ConfigError):
            parse_mapping(bad, origin="RUNAI_KUBE_CONTEXTS")
    one = KubeContexts(names=("a", "b"), current="a", clusters=1)
    two = KubeContexts(names=("a", "b"), current="a", clusters=2)
    assert context_for("c1", {}, one) is None
    assert context_for("c1", {}, None) is None
    assert context_for("c1", {}, two) == Unmapped("c1", kube_clusters=2)
    assert context_for("C1", {"c1": "a"}, two) == "a"
    assert context_for("c2", {"c1": "a"}, two) == Unmapped("c2")
    assert context_for("c2", {"c1": "a", "*": "b"}, two) == "b"


async def test_an_unmapped_cluster_is_diagnosed_without_tier2_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from diagnosis import engine
    from diagnosis.evidence.bundles import load_bundle
    from simulator.server import SimServer
    from tests.runai.helpers import DEMO_BUNDLES

    bundle = load_bundle(DEMO_BUNDLES / "runai-crash-app-error.bundle.json")
    request = engine.request_from_bundle(bundle)
    with SimServer([bundle]) as sim:
        config = kubeconfig(tmp_path, {"sim": {"server": sim.base_url}})
        monkeypatch.setenv("RUNAI_URL", sim.base_url)
        monkeypatch.setenv("RUNAI_CLIENT_ID", "id")
        monkeypatch.setenv("RUNAI_CLIENT_SECRET", "secret")
        monkeypatch.setenv("KUBECONFIG", str(config))
        monkeypatch.setenv("RUNAI_KUBE_CONTEXTS", "some-other-cluster=ctx-sim")
        for lang, said in (("en", "no kubeconfig context is mapped"), ("fr", "aucun contexte kubeconfig")):
            async with engine.live(request) as (source, _recorder):
                diagnosis = await engine.diagnose_with(request, source, now=bundle.captured_at, lang=lang)
            assert any(said in text and str(request.cluster_id) in text for text in diagnosis.limitations)
        assert not any(op.startswith("k8s.") for op in sim.ops)
        # Mapped to the sim's context, the same diagnosis reads the pod.
        monkeypatch.setenv("RUNAI_KUBE_CONTEXTS", f"{request.cluster_id}=ctx-sim")
        async with engine.live(request) as (source, _recorder):
            diagnosis = await engine.diagnose_with(request, source, now=bundle.captured_at)
        assert "k8s.read_pod" in sim.ops and diagnosis.measurements.exit_code is not None

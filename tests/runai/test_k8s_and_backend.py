"""Tier-2 credentials from kubeconfig (official loaders), and the backend's live/replay sources."""

from __future__ import annotations

import base64
import datetime as dt
import ssl
from pathlib import Path

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from diagnosis.evidence.bundles import parse_bundle
from diagnosis.models import DiagnoseRequest
from diagnosis.runai.backend import BACKEND
from diagnosis.runai.k8s import KubeUnavailable, load_kube_access
from diagnosis.runai.settings import ConfigError, RunaiSettings
from tests.runai.scenarios import crash_app_error, oom_killed

REQUEST = DiagnoseRequest(platform="runai", cluster_id="c1", workload_id="w1")


def self_signed() -> tuple[bytes, bytes]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kube-test")])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    pem_key = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return cert.public_bytes(serialization.Encoding.PEM), pem_key


def kubeconfig(folder: Path, *, server: str, user: str, cluster_extra: str = "") -> Path:
    path = folder / "kubeconfig"
    path.write_text(
        f"""apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: {server}
{cluster_extra}users:
- name: u
  user:
{user}contexts:
- name: ctx
  context: {{cluster: c, user: u}}
current-context: ctx
""",
        encoding="utf-8",
    )
    return path


async def test_bearer_token_from_kubeconfig(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    path = kubeconfig(tmp_path, server="http://127.0.0.1:6443", user="    token: read-only-token\n")
    access = load_kube_access(str(path))
    assert access.host == "http://127.0.0.1:6443" and access.auth is not None
    request = httpx.Request("GET", "http://127.0.0.1:6443/api/v1/nodes/n1")
    flow = access.auth.auth_flow(request)
    assert next(flow).headers["Authorization"] == "Bearer read-only-token"


def test_embedded_ca_and_client_certificate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    cert, key = self_signed()
    b64 = lambda data: base64.b64encode(data).decode()  # noqa: E731
    path = kubeconfig(
        tmp_path,
        server="https://kube.example.internal:6443",
        cluster_extra=f"    certificate-authority-data: {b64(cert)}\n",
        user=f"    client-certificate-data: {b64(cert)}\n    client-key-data: {b64(key)}\n",
    )
    access = load_kube_access(str(path))
    assert isinstance(access.verify, ssl.SSLContext) and access.verify.verify_mode == ssl.CERT_REQUIRED
    assert access.auth is None  # the client certificate authenticates


def test_insecure_skip_tls_verify_is_honoured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    path = kubeconfig(
        tmp_path,
        server="https://kube.example.internal:6443",
        cluster_extra="    insecure-skip-tls-verify: true\n",
        user="    token: t\n",
    )
    access = load_kube_access(str(path))
    assert isinstance(access.verify, ssl.SSLContext) and access.verify.verify_mode == ssl.CERT_NONE


def test_no_kubeconfig_means_tier2_unavailable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    with pytest.raises(KubeUnavailable, match="no usable kubeconfig"):
        load_kube_access(str(tmp_path / "missing"))


def test_missing_runai_settings_name_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("RUNAI_URL", "RUNAI_CLIENT_ID", "RUNAI_CLIENT_SECRET"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("RUNAI_URL", "https://tenant.run.ai")
    with pytest.raises(ConfigError, match="RUNAI_CLIENT_ID, RUNAI_CLIENT_SECRET"):
        RunaiSettings().require_control_plane()
    monkeypatch.setenv("RUNAI_CLIENT_ID", "id")
    monkeypatch.setenv("RUNAI_CLIENT_SECRET", "secret")
    monkeypatch.setenv("RUNAI_URL", "tenant.run.ai")
    with pytest.raises(ConfigError, match="RUNAI_URL"):
        RunaiSettings().require_control_plane()


async def test_live_source_without_config_raises_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RUNAI_URL", raising=False)
    with pytest.raises(ConfigError):
        async with BACKEND.live_source(REQUEST):
            pass


async def test_live_source_tier2_follows_the_kubeconfig(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    monkeypatch.setenv("RUNAI_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("RUNAI_CLIENT_ID", "id")
    monkeypatch.setenv("RUNAI_CLIENT_SECRET", "secret")
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "absent"))
    async with BACKEND.live_source(REQUEST) as source:
        assert not source.tier2_available and source.tier2_unavailable_reason
        answer = await source.fetch("k8s.read_pod", namespace="n", name="p")
        assert answer.status is None and source.calls == []
    monkeypatch.setenv(
        "KUBECONFIG", str(kubeconfig(tmp_path, server="http://127.0.0.1:9", user="    token: t\n"))
    )
    async with BACKEND.live_source(REQUEST) as source:
        assert source.tier2_available


async def test_replay_has_tier2_only_when_the_bundle_holds_kubernetes_answers() -> None:
    async with BACKEND.replay_source(parse_bundle(oom_killed().bundle())) as source:
        assert not source.tier2_available
    async with BACKEND.replay_source(parse_bundle(crash_app_error().bundle())) as source:
        assert source.tier2_available

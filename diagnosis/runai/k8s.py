"""Tier-2 Kubernetes access: credentials from the standard kubeconfig or the in-cluster account.

The official `kubernetes` client's config loaders read the kubeconfig (contexts, exec plugins,
embedded certificates) into a `kubernetes.client.Configuration`; we only take the resolved host,
bearer token, client certificate and CA from it and talk to the API server with httpx, through the
same read-only guard and retry stack as the Run:ai client.
"""

from __future__ import annotations

import os
import ssl
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any

import httpx
from kubernetes import client as k8s_client
from kubernetes import config as k8s_config


@dataclass(frozen=True)
class KubeAccess:
    """How to reach the Kubernetes API server, as resolved by the official config loaders."""

    host: str
    verify: ssl.SSLContext | bool
    auth: httpx.Auth | None
    origin: str


class KubeUnavailable(Exception):
    """Tier 2 cannot be used: no kubeconfig/in-cluster credentials, or they do not load."""


class _HeaderAuth(httpx.Auth):
    """The Configuration's auth headers on every request (exec/OIDC tokens may refresh)."""

    def __init__(self, headers: Callable[[], dict[str, str]]) -> None:
        self._headers = headers

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        for name, value in self._headers().items():
            request.headers[name] = value
        yield request


def _auth_headers(configuration: k8s_client.Configuration) -> dict[str, str]:
    """Headers exactly as the official client would send them (`auth_settings()`)."""
    headers: dict[str, str] = {}
    settings: Any = configuration.auth_settings()
    for setting in settings.values():
        if isinstance(setting, dict) and setting.get("in") == "header" and setting.get("value"):
            headers[str(setting["key"])] = str(setting["value"])
    return headers


def _load_configuration(kubeconfig: str | None) -> tuple[k8s_client.Configuration, str]:
    configuration = k8s_client.Configuration()
    in_cluster = bool(os.environ.get("KUBERNETES_SERVICE_HOST"))
    if kubeconfig or not in_cluster:
        # With config_file=None the loader itself honours a KUBECONFIG list or ~/.kube/config.
        single = kubeconfig if kubeconfig and os.pathsep not in kubeconfig else None
        try:
            k8s_config.load_kube_config(
                config_file=single, client_configuration=configuration, persist_config=False
            )
            return configuration, f"kubeconfig {single or kubeconfig or '~/.kube/config'}"
        except (k8s_config.ConfigException, OSError, ValueError, TypeError, KeyError) as exc:
            if not in_cluster:
                raise KubeUnavailable(f"no usable kubeconfig ({type(exc).__name__}: {exc})") from None
    try:
        k8s_config.load_incluster_config(client_configuration=configuration)
    except (k8s_config.ConfigException, OSError) as exc:
        raise KubeUnavailable(f"in-cluster credentials did not load ({exc})") from None
    return configuration, "in-cluster service account"


def _ssl_context(configuration: k8s_client.Configuration) -> ssl.SSLContext | bool:
    if configuration.verify_ssl:
        context = ssl.create_default_context(cafile=configuration.ssl_ca_cert or None)
    else:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    if configuration.cert_file:
        context.load_cert_chain(configuration.cert_file, configuration.key_file or None)
    return context


def load_kube_access(kubeconfig: str | None = None) -> KubeAccess:
    """Resolve Tier-2 access, or raise KubeUnavailable with a one-line reason."""
    configuration, origin = _load_configuration(kubeconfig)
    host = str(configuration.host or "").rstrip("/")
    if not host.startswith(("http://", "https://")):
        raise KubeUnavailable(f"the {origin} names no API server URL")
    auth: httpx.Auth | None = None
    if _auth_headers(configuration) or configuration.refresh_api_key_hook:
        auth = _HeaderAuth(lambda: _auth_headers(configuration))
    elif configuration.username and configuration.password:
        auth = httpx.BasicAuth(configuration.username, configuration.password)
    try:
        verify = _ssl_context(configuration) if host.startswith("https://") else True
    except (OSError, ssl.SSLError) as exc:
        raise KubeUnavailable(f"the {origin} certificates do not load ({exc})") from None
    return KubeAccess(host=host, verify=verify, auth=auth, origin=origin)

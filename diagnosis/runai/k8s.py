"""Tier-2 Kubernetes access: the kubeconfig (or the in-cluster account) as the official client reads it.

The official `kubernetes` client's loaders resolve the kubeconfig (contexts, exec plugins, OIDC,
embedded certificates) into a `kubernetes.client.Configuration`; its own HTTP layer
(`kubernetes.client.rest.RESTClientObject`) then uses every connection setting of it. We use the
same settings, so an API server kubectl reaches is reached here too, through the product's own
stack (read-only guard, retries, deadline, masking):
- `host`; the bearer token and its refresh (exec plugins, OIDC) as `auth_settings()` gives it;
  basic auth;
- `verify_ssl` (`insecure-skip-tls-verify`), `ssl_ca_cert` and `ca_cert_data` (the cluster's CA),
  `cert_file`/`key_file` (client certificates, also from exec plugins), `assert_hostname`;
- `tls_server_name` (`tls-server-name`): the name sent as SNI and checked in the server's
  certificate instead of the URL's host, through a proxy tunnel too;
- `proxy` (`proxy-url`, else the environment's proxy for the host, as the Configuration resolves
  it), `no_proxy` and `proxy_headers`; `socks5://` proxies included.
"""

from __future__ import annotations

import os
import ssl
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass
from typing import Any

import httpx
from kubernetes import client as k8s_client
from kubernetes import config as k8s_config
from kubernetes.client import rest as k8s_rest

from diagnosis.runai.tier2_reasons import Tier2Reason

IN_CLUSTER = "in-cluster"


@dataclass(frozen=True)
class KubeAccess:
    """How to reach the Kubernetes API server, as resolved by the official config loaders."""

    host: str
    verify: ssl.SSLContext | bool
    auth: httpx.Auth | None
    origin: str
    proxy: httpx.Proxy | None = None
    context: str | None = None


class KubeUnavailable(Exception):
    """Tier 2 cannot be used: no kubeconfig/in-cluster credentials, or they do not load."""

    def __init__(self, msgid: str, **values: str | Tier2Reason) -> None:
        self.reason = Tier2Reason(msgid, values)
        super().__init__(str(self.reason))


@dataclass(frozen=True)
class KubeContexts:
    """The kubeconfig's contexts: names, the current one, and how many clusters they reach."""

    names: tuple[str, ...]
    current: str | None
    clusters: int


class _HeaderAuth(httpx.Auth):
    """The Configuration's auth headers on every request (exec/OIDC tokens may refresh)."""

    def __init__(self, headers: Callable[[], dict[str, str]]) -> None:
        self._headers = headers

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        for name, value in self._headers().items():
            request.headers[name] = value
        yield request


class _ServerNameContext(ssl.SSLContext):
    """A client context that sends `server_name` as SNI and checks the certificate against it,
    whatever host the connection was opened to (kubectl's `tls-server-name`). It applies to the
    API server's TLS only, direct or inside a proxy's CONNECT tunnel."""

    server_name: str

    def wrap_socket(self, sock: Any, *args: Any, **kwargs: Any) -> ssl.SSLSocket:
        kwargs["server_hostname"] = self.server_name
        return super().wrap_socket(sock, *args, **kwargs)

    def wrap_bio(self, incoming: Any, outgoing: Any, *args: Any, **kwargs: Any) -> ssl.SSLObject:
        if len(args) >= 2:  # (server_side, server_hostname, session) given by position
            args = (args[0], self.server_name, *args[2:])
        else:
            kwargs["server_hostname"] = self.server_name
        return super().wrap_bio(incoming, outgoing, *args, **kwargs)


def _auth_headers(configuration: k8s_client.Configuration) -> dict[str, str]:
    """Headers exactly as the official client would send them (`auth_settings()`)."""
    headers: dict[str, str] = {}
    settings: Any = configuration.auth_settings()
    for setting in settings.values():
        if isinstance(setting, dict) and setting.get("in") == "header" and setting.get("value"):
            headers[str(setting["key"])] = str(setting["value"])
    return headers


def kubeconfig_paths(kubeconfig: str | None) -> str:
    """The kubeconfig file(s) to read: `KUBECONFIG` (a path list is merged, as kubectl does),
    else ~/.kube/config."""
    return kubeconfig or os.path.expanduser("~/.kube/config")


def list_contexts(kubeconfig: str | None) -> KubeContexts | None:
    """The contexts of the kubeconfig, or None when there is no usable kubeconfig."""
    try:
        contexts, current = k8s_config.list_kube_config_contexts(config_file=kubeconfig_paths(kubeconfig))
    except (k8s_config.ConfigException, OSError, ValueError, TypeError, KeyError):
        return None
    names = tuple(str(item.get("name")) for item in contexts if isinstance(item, Mapping))
    clusters = {
        str(item.get("context", {}).get("cluster"))
        for item in contexts
        if isinstance(item, Mapping) and isinstance(item.get("context"), Mapping)
    }
    current_name = current.get("name") if isinstance(current, Mapping) else None
    return KubeContexts(
        names=names, current=str(current_name) if current_name else None, clusters=len(clusters)
    )


def _load_configuration(
    kubeconfig: str | None, context: str | None
) -> tuple[k8s_client.Configuration, Tier2Reason]:
    configuration = k8s_client.Configuration()
    in_cluster = bool(os.environ.get("KUBERNETES_SERVICE_HOST"))
    if context != IN_CLUSTER and (kubeconfig or context or not in_cluster):
        paths = kubeconfig_paths(kubeconfig)
        try:
            k8s_config.load_kube_config(
                config_file=paths, context=context, client_configuration=configuration, persist_config=False
            )
            path = kubeconfig or "~/.kube/config"
            if context:
                return configuration, Tier2Reason("word.origin_context", {"context": context, "path": path})
            return configuration, Tier2Reason("word.origin_kubeconfig", {"path": path})
        except (k8s_config.ConfigException, OSError, ValueError, TypeError, KeyError) as exc:
            if not in_cluster or context is not None:
                raise KubeUnavailable(
                    "word.tier2_no_kubeconfig", error=f"{type(exc).__name__}: {exc}"
                ) from None
    try:
        k8s_config.load_incluster_config(client_configuration=configuration)
    except (k8s_config.ConfigException, OSError) as exc:
        raise KubeUnavailable("word.tier2_in_cluster", error=str(exc)) from None
    return configuration, Tier2Reason("word.origin_in_cluster")


def ssl_context(configuration: k8s_client.Configuration) -> ssl.SSLContext:
    """The API server's TLS as the official client sets it up (RESTClientObject's pool arguments)."""
    server_name = configuration.tls_server_name or None
    context: ssl.SSLContext
    if server_name:
        context = _ServerNameContext(ssl.PROTOCOL_TLS_CLIENT)
        context.server_name = server_name  # type: ignore[attr-defined]
    else:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    if configuration.verify_ssl:
        context.check_hostname = configuration.assert_hostname is not False
        context.verify_mode = ssl.CERT_REQUIRED
        if configuration.ssl_ca_cert or configuration.ca_cert_data:
            if configuration.ssl_ca_cert:
                context.load_verify_locations(cafile=configuration.ssl_ca_cert)
            if configuration.ca_cert_data:
                data = configuration.ca_cert_data
                context.load_verify_locations(cadata=data)
        else:
            context.load_default_certs()
    else:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    if configuration.cert_file:
        context.load_cert_chain(configuration.cert_file, configuration.key_file or None)
    return context


def proxy_for(configuration: k8s_client.Configuration) -> httpx.Proxy | None:
    """The proxy the official client would use for the API server, or None (direct)."""
    proxy_url = configuration.proxy
    if not proxy_url or k8s_rest.should_bypass_proxies(configuration.host, configuration.no_proxy or ""):
        return None
    if k8s_rest.is_socks_proxy_url(proxy_url):
        try:
            import socksio  # noqa: F401  (httpx's SOCKS support)
        except ImportError:
            raise KubeUnavailable("word.tier2_socks", proxy=str(proxy_url)) from None
    headers = dict(configuration.proxy_headers or {})
    return httpx.Proxy(str(proxy_url), headers=headers or None)


def load_kube_access(kubeconfig: str | None = None, *, context: str | None = None) -> KubeAccess:
    """Resolve Tier-2 access (the kubeconfig's current context unless `context` names one, or
    `in-cluster`), or raise KubeUnavailable with a one-line reason."""
    configuration, origin = _load_configuration(kubeconfig, context)
    host = str(configuration.host or "").rstrip("/")
    if not host.startswith(("http://", "https://")):
        raise KubeUnavailable("word.tier2_no_server", origin=origin)
    auth: httpx.Auth | None = None
    if _auth_headers(configuration) or configuration.refresh_api_key_hook:
        auth = _HeaderAuth(lambda: _auth_headers(configuration))
    elif configuration.username and configuration.password:
        auth = httpx.BasicAuth(configuration.username, configuration.password)
    try:
        verify: ssl.SSLContext | bool = ssl_context(configuration) if host.startswith("https://") else True
    except (OSError, ssl.SSLError) as exc:
        raise KubeUnavailable("word.tier2_certificates", origin=origin, error=str(exc)) from None
    return KubeAccess(
        host=host,
        verify=verify,
        auth=auth,
        origin=str(origin),
        proxy=proxy_for(configuration),
        context=context,
    )

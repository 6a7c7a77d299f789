"""The socket-level transport under every client: certificate verification and the environment's proxy."""

from __future__ import annotations

import functools
import ssl

import httpx


@functools.cache
def default_ssl_context() -> ssl.SSLContext:
    """httpx's default certificate verification (certifi's CA bundle, SSL_CERT_FILE/DIR honoured),
    built once per process: loading the CA bundle takes ~75 ms of CPU, which every new client (one
    per diagnosis) would otherwise pay before its first request. Client contexts are safe to share."""
    return httpx.create_ssl_context()


def real_transport(
    *, verify: ssl.SSLContext | bool = True, proxy: httpx.Proxy | None = None
) -> httpx.AsyncHTTPTransport:
    """The socket-level transport; `verify=True` uses the shared default context; `proxy` routes
    every request through that proxy (a CONNECT tunnel for https)."""
    return httpx.AsyncHTTPTransport(verify=default_ssl_context() if verify is True else verify, proxy=proxy)


def environment_proxy(url: str) -> httpx.Proxy | None:
    """The proxy the environment names for `url` (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY, NO_PROXY,
    as curl and httpx read them). A client built on its own transport gets no environment proxy
    from httpx, so the clients that honour the environment ask here."""
    import urllib.request
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    proxies = urllib.request.getproxies_environment()
    chosen = proxies.get(parts.scheme) or proxies.get("all")
    if not chosen or not parts.hostname:
        return None
    if urllib.request.proxy_bypass_environment(parts.hostname, proxies):  # type: ignore[attr-defined]
        return None
    return httpx.Proxy(chosen if "://" in chosen else f"http://{chosen}")

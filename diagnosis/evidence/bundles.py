"""Bundles: load, validate, and serve at the platforms' real HTTP paths through an httpx transport."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import httpx
from pydantic import ValidationError

from diagnosis.bundle import Bundle
from diagnosis.evidence.matching import find_exchange
from diagnosis.evidence.routes import RouteTable
from diagnosis.evidence.source import NotRecorded
from diagnosis.models import Exchange

MAX_BUNDLE_BYTES = 256 * 1024 * 1024
# Deeper than any platform answer nests (Kubernetes objects, the deepest, stay well under 40): a
# bundle file nested deeper is refused at load, before anything walks it recursively. (A deep
# answer that arrives over the wire is read as unreadable instead: see evidence.source.)
MAX_NESTING_DEPTH = 200


class BundleError(ValueError):
    """A bundle that cannot be used, with a one-line reason."""


class BundleUnsafe(BundleError):
    """A file built to exhaust whatever reads it (nested too deeply, too large): never skipped
    quietly by a folder loader, always reported."""


def nesting_depth(data: Any, *, limit: int) -> int:
    """How deeply lists and objects nest in parsed JSON, counted without recursion and only up to
    `limit + 1` (so a hostile bundle costs no more than the walk to its limit)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if not isinstance(value, dict | list):
            continue
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        children = value.values() if isinstance(value, dict) else value
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return deepest


def parse_bundle(data: Any) -> Bundle:
    if not isinstance(data, dict):
        raise BundleError("not an evidence bundle: the top level is not a JSON object")
    schema = data.get("schema")
    if schema != "evidence-bundle/v1":
        raise BundleError(f"not an evidence bundle: schema is {schema!r}, expected 'evidence-bundle/v1'")
    exchanges = data.get("exchanges")
    if not isinstance(exchanges, list):
        raise BundleError("invalid bundle: 'exchanges' must be a list")
    try:
        return Bundle.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ()))
        raise BundleError(f"invalid bundle: {where}: {first.get('msg')}") from None


def load_bundle(path: str | Path) -> Bundle:
    file = Path(path)
    try:
        size = file.stat().st_size
    except OSError as exc:
        raise BundleError(f"cannot read bundle {file}: {exc.strerror or exc}") from None
    if size > MAX_BUNDLE_BYTES:
        raise BundleUnsafe(f"bundle {file} is {size} bytes, more than the {MAX_BUNDLE_BYTES} accepted")
    try:
        raw = file.read_bytes()
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise BundleError(f"bundle {file} is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise BundleError(
            f"bundle {file} is not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    except RecursionError:
        raise BundleUnsafe(f"bundle {file} is nested more than {MAX_NESTING_DEPTH} levels deep") from None
    except OSError as exc:
        raise BundleError(f"cannot read bundle {file}: {exc.strerror or exc}") from None
    if nesting_depth(data, limit=MAX_NESTING_DEPTH) > MAX_NESTING_DEPTH:
        raise BundleUnsafe(f"bundle {file} is nested more than {MAX_NESTING_DEPTH} levels deep")
    return parse_bundle(data)


def exchange_response(exchange: Exchange, request: httpx.Request) -> httpx.Response:
    if exchange.text is not None and exchange.body is None:
        return httpx.Response(
            exchange.status, text=exchange.text, headers={"Content-Type": "text/plain"}, request=request
        )
    if exchange.body is None:
        return httpx.Response(exchange.status, request=request)
    return httpx.Response(exchange.status, json=exchange.body, request=request)


class BundleTransport(httpx.AsyncBaseTransport):
    """Answers requests from recorded exchanges, matched by op and args as the contract says."""

    def __init__(self, routes: RouteTable, exchanges: Iterable[Exchange]) -> None:
        self.routes = routes
        self.exchanges = list(exchanges)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await request.aread()
        resolved = self.routes.resolve_request(request)
        if resolved is None:
            raise NotRecorded(f"no operation for {request.method} {request.url.path}", request=request)
        route, args = resolved
        exchange = find_exchange(self.exchanges, route.op, args)
        if exchange is None:
            raise NotRecorded(f"{route.op} not recorded", request=request)
        return exchange_response(exchange, request)

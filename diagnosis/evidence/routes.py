"""Operation <-> HTTP request mapping, one table per platform.

The same table builds live requests, resolves a request back to (op, args) for bundle replay and
for the simulator, so replay and the simulator exercise the real client code.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, quote

import httpx

from diagnosis.evidence.matching import wire_string

BodyBuilder = Callable[[Mapping[str, Any]], bytes]
BodyArgs = Callable[[bytes], dict[str, Any]]


@dataclass(frozen=True)
class Route:
    op: str
    method: str
    path: str
    variant: str | None = None
    text_answer: bool = False
    body_builder: BodyBuilder | None = None
    body_args: BodyArgs | None = None
    # Args sent in the body rather than the query (only for POST routes).
    body_keys: frozenset[str] = frozenset()

    @property
    def path_params(self) -> list[str]:
        return re.findall(r"{(\w+)}", self.path)

    @property
    def _regex(self) -> re.Pattern[str]:
        pattern = re.sub(
            r"{(\w+)}", r"(?P<\1>[^/]+)", re.escape(self.path).replace(r"\{", "{").replace(r"\}", "}")
        )
        return re.compile(f"^{pattern}/?$")

    def match(self, method: str, path: str) -> dict[str, str] | None:
        if method.upper() != self.method:
            return None
        found = self._regex.match(path)
        return None if found is None else {key: _unquote(value) for key, value in found.groupdict().items()}

    def build(self, base_url: str, args: Mapping[str, Any]) -> tuple[str, dict[str, str], bytes | None]:
        """URL (without query), query params, body."""
        missing = [name for name in self.path_params if args.get(name) in (None, "")]
        if missing:
            raise ValueError(f"{self.op}: missing {', '.join(missing)}")
        path = self.path
        for name in self.path_params:
            path = path.replace("{" + name + "}", quote(wire_string(args[name]), safe=""))
        query = {
            key: wire_string(value)
            for key, value in args.items()
            if key not in self.path_params and key not in self.body_keys and value is not None
        }
        body = self.body_builder(args) if self.body_builder else None
        return base_url.rstrip("/") + path, query, body


def _unquote(value: str) -> str:
    from urllib.parse import unquote

    return unquote(value)


class RouteTable:
    def __init__(self, routes: list[Route]) -> None:
        self.routes = routes

    def route_for(self, op: str, variant: str | None = None) -> Route:
        candidates = [route for route in self.routes if route.op == op]
        if not candidates:
            raise KeyError(f"unknown operation {op!r}")
        if variant is not None:
            for route in candidates:
                if route.variant == variant:
                    return route
        return candidates[0]

    def resolve(self, method: str, path: str, query: str, body: bytes) -> tuple[Route, dict[str, Any]] | None:
        for route in self.routes:
            params = route.match(method, path)
            if params is None:
                continue
            args: dict[str, Any] = dict(params)
            for key, value in parse_qsl(query, keep_blank_values=True):
                args[key] = f"{args[key]},{value}" if key in args and key not in params else value
            if route.body_args and body:
                with contextlib.suppress(ValueError):
                    args.update(route.body_args(body))
            return route, args
        return None

    def resolve_request(self, request: httpx.Request) -> tuple[Route, dict[str, Any]] | None:
        # The raw path: a path parameter holding an encoded `/` (`%2F`) stays one segment.
        raw_path = request.url.raw_path.split(b"?", 1)[0].decode("ascii")
        return self.resolve(request.method, raw_path, request.url.query.decode(), request.content)

    @property
    def ops(self) -> list[str]:
        return sorted({route.op for route in self.routes})

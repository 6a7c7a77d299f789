"""A loopback stand-in for the places Huawei Cloud hands out temporary keys, answering the way
the official SDK's accessors expect (huaweicloudsdkcore.auth.internal):

- the ECS/CCE metadata service: `PUT /meta-data/latest/api/token`, then
  `GET /openstack/latest/securitykey` with `X-Metadata-Token`;
- CCE pod identity: `POST <full uri>` with the projected token as `Authorization`;
- STS OIDC federation: `POST /v5/agencies/assume-with-oidc`;
- IAM identity-provider federation: `POST /v3.0/OS-AUTH/id-token/tokens` (`X-Idp-Id`, answers
  `X-Subject-Token`), then `POST /v3.0/OS-CREDENTIAL/securitytokens`.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

POD_PATH = "/v1/pod-credentials"
METADATA_TOKEN = "metadata-session-token"


@dataclass
class IdentityServer:
    access_key: str
    secret_key: str
    security_token: str
    pod_token: str = "projected-service-account-token"
    id_token: str = "oidc-id-token"
    lifetime: timedelta = timedelta(hours=6)
    requests: list[tuple[str, str]] = field(default_factory=list)
    base_url: str = ""

    def credential(self) -> dict[str, str]:
        expires = (datetime.now(UTC) + self.lifetime).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        return {
            "access": self.access_key,
            "secret": self.secret_key,
            "securitytoken": self.security_token,
            "expires_at": expires,
        }


def _handler(server: IdentityServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def _answer(self, status: int, body: Any = None, headers: dict[str, str] | None = None) -> None:
            data = b"" if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
            self.send_response(status)
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _body(self) -> dict[str, Any]:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                data = json.loads(raw or b"{}")
            except ValueError:
                return {}
            return data if isinstance(data, dict) else {}

        def do_PUT(self) -> None:
            server.requests.append(("PUT", self.path))
            if self.path == "/meta-data/latest/api/token" and self.headers.get(
                "X-Metadata-Token-Ttl-Seconds"
            ):
                self._answer(200, METADATA_TOKEN.encode())
                return
            self._answer(404, {"error": "no such path"})

        def do_GET(self) -> None:
            server.requests.append(("GET", self.path))
            if self.path == "/openstack/latest/securitykey":
                if self.headers.get("X-Metadata-Token") != METADATA_TOKEN:
                    self._answer(401, {"error": "token required"})
                    return
                self._answer(200, {"credential": server.credential()})
                return
            self._answer(404, {"error": "no such path"})

        def do_POST(self) -> None:
            server.requests.append(("POST", self.path))
            body = self._body()
            if self.path == POD_PATH:
                if self.headers.get("Authorization") != server.pod_token:
                    self._answer(403, {"error": "bad token"})
                    return
                credential = server.credential()
                self._answer(
                    200,
                    {
                        "access_key_id": credential["access"],
                        "secret_access_key": credential["secret"],
                        "security_token": credential["securitytoken"],
                        "expiration": credential["expires_at"],
                    },
                )
            elif self.path == "/v5/agencies/assume-with-oidc":
                if body.get("id_token") != server.id_token or not body.get("agency_urn"):
                    self._answer(400, {"error_code": "STS.0001", "error_msg": "bad request"})
                    return
                credential = server.credential()
                self._answer(
                    200,
                    {
                        "credentials": {
                            "access_key_id": credential["access"],
                            "secret_access_key": credential["secret"],
                            "security_token": credential["securitytoken"],
                            "expiration": credential["expires_at"],
                        }
                    },
                )
            elif self.path == "/v3.0/OS-AUTH/id-token/tokens":
                if body.get("auth", {}).get("id_token", {}).get("id") != server.id_token:
                    self._answer(401, {"error_msg": "bad id token"})
                    return
                self._answer(201, {"token": {"methods": ["mapped"]}}, {"X-Subject-Token": "unscoped-token"})
            elif self.path == "/v3.0/OS-CREDENTIAL/securitytokens":
                self._answer(201, {"credential": server.credential()})
            else:
                self._answer(404, {"error": "no such path"})

    return Handler


@contextmanager
def running_identity(server: IdentityServer) -> Iterator[IdentityServer]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(server))
    server.base_url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        httpd.shutdown()
        httpd.server_close()

"""Real TLS on loopback for the Tier-2 tests: a private CA, certificates for names, an HTTPS
server that answers JSON and remembers each request and the SNI name it was sent, and an HTTP
CONNECT proxy that tunnels to loopback servers (names are resolved by the proxy, as a real one
does, from its own table)."""

from __future__ import annotations

import datetime as dt
import ipaddress
import json
import select
import socket
import ssl
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from socketserver import BaseRequestHandler, ThreadingTCPServer
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

PEM = serialization.Encoding.PEM


@dataclass(frozen=True)
class Issued:
    cert_pem: bytes
    key_pem: bytes

    def write(self, folder: Path, name: str) -> tuple[Path, Path]:
        cert, key = folder / f"{name}.crt", folder / f"{name}.key"
        cert.write_bytes(self.cert_pem)
        key.write_bytes(self.key_pem)
        return cert, key


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())


class Authority:
    """A private CA that issues server certificates for DNS names (or IPs) and client certificates."""

    def __init__(self, name: str = "diagnose test CA") -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
        now = dt.datetime.now(dt.UTC)
        self.cert = (
            x509.CertificateBuilder()
            .subject_name(self.name)
            .issuer_name(self.name)
            .public_key(self.key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(days=1))
            .not_valid_after(now + dt.timedelta(days=2))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(self.key, hashes.SHA256())
        )

    @property
    def cert_pem(self) -> bytes:
        return self.cert.public_bytes(PEM)

    def issue(self, *names: str, client: bool = False) -> Issued:
        key = ec.generate_private_key(ec.SECP256R1())
        now = dt.datetime.now(dt.UTC)
        alternative: list[x509.GeneralName] = []
        for name in names:
            try:
                alternative.append(x509.IPAddress(ipaddress.ip_address(name)))
            except ValueError:
                alternative.append(x509.DNSName(name))
        builder = (
            x509.CertificateBuilder()
            .subject_name(
                x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, names[0] if names else "client")])
            )
            .issuer_name(self.name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(days=1))
            .not_valid_after(now + dt.timedelta(days=1))
            .add_extension(
                x509.ExtendedKeyUsage(
                    [ExtendedKeyUsageOID.CLIENT_AUTH if client else ExtendedKeyUsageOID.SERVER_AUTH]
                ),
                critical=False,
            )
        )
        if alternative:
            builder = builder.add_extension(x509.SubjectAlternativeName(alternative), critical=False)
        cert = builder.sign(self.key, hashes.SHA256())
        return Issued(cert.public_bytes(PEM), _key_pem(key))


@dataclass
class Seen:
    path: str
    sni: str | None
    authorization: str | None
    client_certificate: bool


@dataclass
class HttpsServer:
    """Answers every GET with `answer` (JSON) over TLS with `issued`; optionally requires a client
    certificate signed by `client_ca`."""

    issued: Issued
    folder: Path
    answer: Mapping[str, Any] = field(default_factory=dict)
    client_ca: Authority | None = None
    seen: list[Seen] = field(default_factory=list)

    def __post_init__(self) -> None:
        cert, key = self.issued.write(self.folder, f"server-{id(self)}")
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        self._sni: dict[int, str | None] = {}
        if self.client_ca is not None:
            context.verify_mode = ssl.CERT_REQUIRED
            context.load_verify_locations(cadata=self.client_ca.cert_pem.decode())

        def remember(sock: ssl.SSLSocket, server_name: str | None, _context: ssl.SSLContext) -> None:
            self._sni[id(sock)] = server_name

        context.sni_callback = remember
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_GET(self) -> None:
                connection = self.connection
                outer.seen.append(
                    Seen(
                        path=self.path,
                        sni=outer._sni.get(id(connection)),
                        authorization=self.headers.get("Authorization"),
                        client_certificate=bool(getattr(connection, "getpeercert", lambda: None)()),
                    )
                )
                payload = json.dumps(outer.answer).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._server.socket = context.wrap_socket(self._server.socket, server_side=True)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def __enter__(self) -> HttpsServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


class ConnectProxy:
    """An HTTP CONNECT proxy for loopback targets: `routes` maps the `host:port` a client asks
    for to the loopback port that serves it; anything else is refused (403), never dialled."""

    def __init__(self, routes: Mapping[str, int]) -> None:
        self.routes = dict(routes)
        self.connects: list[str] = []
        proxy = self

        class Handler(BaseRequestHandler):
            def handle(self) -> None:
                client: socket.socket = self.request
                client.settimeout(10)
                head = b""
                while b"\r\n\r\n" not in head and len(head) < 65536:
                    chunk = client.recv(4096)
                    if not chunk:
                        return
                    head += chunk
                line = head.split(b"\r\n", 1)[0].decode("latin-1")
                method, _, rest = line.partition(" ")
                target = rest.split(" ", 1)[0]
                proxy.connects.append(f"{method} {target}")
                port = proxy.routes.get(target)
                if method != "CONNECT" or port is None:
                    client.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
                    return
                upstream = socket.create_connection(("127.0.0.1", port), timeout=10)
                client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                _pipe(client, upstream)

        self._server = ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> ConnectProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def _pipe(one: socket.socket, other: socket.socket, *, idle_seconds: float = 10.0) -> None:
    sockets = [one, other]
    try:
        while True:
            readable, _, _ = select.select(sockets, [], [], idle_seconds)
            if not readable:
                return
            for sock in readable:
                data = sock.recv(65536)
                if not data:
                    return
                (other if sock is one else one).sendall(data)
    finally:
        other.close()
